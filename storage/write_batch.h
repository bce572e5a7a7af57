// WriteBatch: writes applied atomically — after a crash, all of a batch or none of it.
//
// The batch is one WAL record (docs/wal-format.md, "batch"). Each entry carries its own
// WriteOptions meta (timestamp, ttl / expire_at); defer_sync is taken from DB::Write's options.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/format/internal_key.h"
#include "storage/key_range.h"
#include "storage/options.h"
#include "storage/row.h"
#include "storage/status.h"

namespace ebb::storage {

class WriteBatch {
 public:
  // on-disk: never change (stored in WAL records). The row kind each op writes:
  // kDelete -> RowKind::kTombstone, kPut -> kValue, kWipe -> kWipe (format/internal_key.h).
  // kDeleteRange writes no row: it deletes every version of the keys [key, value) written before
  // it (DB::DeleteRange), those of this batch's earlier entries included.
  enum class Op : uint8_t { kDelete = 0, kPut = 1, kWipe = 2, kDeleteRange = 3 };

  // One decoded entry. Views point into the batch. kDeleteRange: key and value are the range's
  // begin and end, meta is empty and encoded_row is empty.
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

  // The row kind an entry of `op` writes. REQUIRES: op != kDeleteRange.
  static RowKind KindOf(Op op);
  // The metadata Put gives its entry: options' timestamp, and its expire_at, or its ttl from the
  // timestamp (else `now_ms`).
  static RowMeta PutMeta(const WriteOptions& options, int64_t now_ms);
  // True when PutMeta reads `now_ms` (a ttl with neither a timestamp nor an expire_at); else a
  // caller may pass any now_ms, and spare reading its clock.
  static bool PutReadsNow(const WriteOptions& options) {
    return options.ttl_ms && !options.expire_at_ms && !options.timestamp_ms;
  }

  WriteBatch();

  // `now_ms` resolves a relative ttl without a timestamp; the DB passes its clock.
  void Put(const WriteOptions& options, std::string_view key, std::string_view value,
           int64_t now_ms);
  // A tombstone; `value` (none by default) is carried along for the layer above: reads still find
  // the key absent (a kept dead version's rank, CompactionFilter::ReducedDeadValue).
  void Delete(const WriteOptions& options, std::string_view key, std::string_view value = {});
  // A whole-key delete: hides every version of `key` written before it (storage/db.h).
  void Wipe(const WriteOptions& options, std::string_view key);
  // Deletes every version of every key in `range` written before this entry: the engine's
  // versions and this batch's earlier entries alike, none of the later ones. Like every entry it
  // takes one sequence number.
  void DeleteRange(const KeyRange& range);
  void Clear();

  // Entries, range deletions included (each takes one sequence number).
  size_t Count() const { return count_; }
  // True when some entry is a range deletion.
  bool HasRangeDeletions() const { return range_deletions_ > 0; }
  size_t ByteSize() const { return rep_.size(); }
  bool Empty() const { return count_ == 0; }

  // Calls handler->Apply for each entry, in order. A batch's encoding is valid by construction
  // (Put and Delete write it, FromRep checks it), so this decodes it once and applies as it
  // goes; Corruption only if that invariant was broken. A batch of at most kLocatedEntries
  // entries that Put, Delete and Wipe wrote is not decoded: they noted where each entry lies.
  Status Iterate(Handler* handler) const;
  // The bytes of the entries (ByteSize less the count in front of them): a position in the batch
  // that later entries leave where it is, for IterateFrom.
  size_t EntryBytes() const;
  // As Iterate, for the entries after the first `entry_bytes` bytes of them (an EntryBytes()
  // taken earlier: the entries written since). REQUIRES: entry_bytes <= EntryBytes().
  Status IterateFrom(size_t entry_bytes, Handler* handler) const;
  // The one entry that begins `entry_bytes` bytes into the entries (an EntryBytes() taken just
  // before it was written, or a *next_entry_bytes this returned) into *entry, views into the
  // batch, and where the entry after it begins into *next_entry_bytes: a read of one entry
  // without walking the others. Corruption as Iterate's.
  Status EntryAtBytes(size_t entry_bytes, Entry* entry, size_t* next_entry_bytes) const;

  // The encoded form, without the sequence header (the DB adds it in the WAL record).
  const std::string& rep() const { return rep_; }
  // Rebuilds a batch from rep(); Corruption if it does not decode.
  static Status FromRep(std::string_view rep, WriteBatch* batch);
  // Appends the entries of another batch's rep() after this batch's, as if each had been
  // written here in turn (so they take the next sequence numbers, in order). Corruption, and
  // this batch unchanged, if `rep` does not decode.
  Status AppendRep(std::string_view rep);
  // AppendRep for another batch, whose encoding is valid by construction: nothing to decode.
  void Append(const WriteBatch& other);

 private:
  // Appends the entries of `rep` (a whole rep(), count first), which hold `count` entries of which
  // `range_deletions` are range deletions.
  void AppendEntries(std::string_view rep, size_t count, size_t range_deletions);

  // Where an entry Put, Delete or Wipe appended lies in rep_ (offsets: rep_ may move as it
  // grows), and its meta as given.
  struct Located {
    Op op;
    size_t key_at;
    size_t key_size;
    size_t row_at;  // the encoded row; its value is its last value_size bytes
    size_t row_size;
    size_t value_size;
    RowMeta meta;
  };
  static constexpr size_t kLocatedEntries = 4;
  // Appends an entry of a row (not a range deletion), locating it while every entry before it is.
  void AppendRowEntry(Op op, std::string_view key, const RowMeta& meta, std::string_view value);
  Entry EntryAt(const Located& located) const;

  std::string rep_;
  size_t count_ = 0;
  size_t range_deletions_ = 0;
  // The first located_count_ entries are located_'s; Iterate skips decoding when that is all.
  std::array<Located, kLocatedEntries> located_;
  size_t located_count_ = 0;
};

}  // namespace ebb::storage
