// WriteBatch: writes applied atomically — after a crash, all of a batch or none of it.
//
// The batch is one WAL record (docs/wal-format.md, "batch"). Each entry carries its own
// WriteOptions meta (timestamp, ttl / expire_at); defer_sync is taken from DB::Write's options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/format/internal_key.h"
#include "storage/options.h"
#include "storage/row.h"
#include "storage/status.h"

namespace ebb::storage {

class WriteBatch {
 public:
  // on-disk: never change (stored in WAL records). The row kind each op writes:
  // kDelete -> RowKind::kTombstone, kPut -> kValue, kWipe -> kWipe (format/internal_key.h).
  enum class Op : uint8_t { kDelete = 0, kPut = 1, kWipe = 2 };

  // One decoded entry. Views point into the batch.
  struct Entry {
    Op op;
    std::string_view key;
    std::string_view value;
    RowMeta meta;                  // expire_at already resolved (absolute)
    std::string_view encoded_row;  // meta and value as the batch holds them (storage/row.h)
  };

  class Handler {
   public:
    virtual ~Handler() = default;
    virtual void Apply(const Entry& entry) = 0;
  };

  // The row kind an entry of `op` writes.
  static RowKind KindOf(Op op);

  WriteBatch();

  // `now_ms` resolves a relative ttl without a timestamp; the DB passes its clock.
  void Put(const WriteOptions& options, std::string_view key, std::string_view value,
           int64_t now_ms);
  void Delete(const WriteOptions& options, std::string_view key);
  // A whole-key delete: hides every version of `key` written before it (storage/db.h).
  void Wipe(const WriteOptions& options, std::string_view key);
  void Clear();

  size_t Count() const { return count_; }
  size_t ByteSize() const { return rep_.size(); }
  bool Empty() const { return count_ == 0; }

  // Calls handler->Apply for each entry, in order. A batch's encoding is valid by construction
  // (Put and Delete write it, FromRep checks it), so this decodes it once and applies as it
  // goes; Corruption only if that invariant was broken.
  Status Iterate(Handler* handler) const;

  // The encoded form, without the sequence header (the DB adds it in the WAL record).
  const std::string& rep() const { return rep_; }
  // Rebuilds a batch from rep(); Corruption if it does not decode.
  static Status FromRep(std::string_view rep, WriteBatch* batch);

 private:
  std::string rep_;
  size_t count_ = 0;
};

}  // namespace ebb::storage
