// BatchDB: a storage::DB that gathers writes into ONE WriteBatch and reads through them — what
// makes several commands one atomic write with read-your-writes (MULTI/EXEC, scripts).
//
// While a BatchDB is active (Keyspace::BeginBatch), every Put, Delete and Write of the types is
// appended to one pending storage::WriteBatch; nothing reaches the engine. The pending writes are
// indexed by key only when a read needs them (IndexPending decodes the entries made since the
// last time): each entry's key sets its bit in a filter of the keys written, and a
// point read (Get, GetVersions) of a key whose bit is clear goes to the engine without indexing.
// So a batch that is only written — an active-active node's own write with its origin log row —
// never builds the index (nor hashes a key: the filter is kept once the batch is read), and
// neither does one whose reads each come before their key's write (a peer's deltas: the merge
// gate reads each key, then writes it) until a key comes twice. A batch that deletes a range
// indexes for every read.
// Reads see the pending writes as the newest versions of their keys, on top of the engine:
//   - Get applies the engine's read rule (storage/db.h, "Reading one key") to the pending
//     versions, newest first, then to the engine's answer for the key (the engine's own walk,
//     with the same retrieval grace). Under grace 0, the default, this is exact. Under a grace
//     > 0 the engine's versions are represented by the one its read takes, so a pending version
//     whose timestamp lies far above the engine's versions cuts the walk there — the difference
//     needs out-of-order timestamps and a grace inside one batch.
//   - NewIterator merges the pending keys (their newest pending version) with the engine's
//     iterator: a pending tombstone, wipe or expired row hides the key.
//   - DeleteRange (FLUSHDB, FLUSHALL) joins the batch as a range-deletion entry
//     (WriteBatch::DeleteRange): the pending versions in the range are forgotten, and from then
//     on the engine's versions of keys in the range are invisible to Get, GetVersions and
//     iterators (the pending versions written after it are not).
//   - Reads with a snapshot go to the engine unchanged (a snapshot predates the batch).
// Commit writes the batch to the engine with ONE DB::Write: one WAL record, all of it or none of
// it after a crash, range deletions included, durable per wal-fsync like any write (the caller
// syncs under defer_sync as for any write; a batch deleting ranges is durable when Commit
// returns, storage/db.h). Discard drops it: the engine never saw it.
//
// Everything else (SyncWal, stats, settings, ...) is the engine's.
// Thread-safety: none; one command thread uses it (the engine's background threads never see
// it: the compaction filter keeps reading the engine).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/db.h"

namespace ebb::types {

class BatchDB final : public storage::DB {
 public:
  // REQUIRES: base outlives this object.
  explicit BatchDB(storage::DB* base) : base_(base) {}

  // Writes the pending batch with one DB::Write (options' defer_sync applies); empties it.
  storage::Status Commit(const storage::WriteOptions& options);
  // Forgets the pending writes.
  void Discard();
  bool empty() const { return batch_.Empty(); }
  // Entries pending (each Put, Delete or wipe of the batch).
  size_t pending_count() const { return batch_.Count(); }
  // Bytes of the pending batch's encoding.
  size_t pending_bytes() const { return batch_.ByteSize(); }

  storage::Status Put(const storage::WriteOptions& options, std::string_view key,
                      std::string_view value) override;
  storage::Status Delete(const storage::WriteOptions& options, std::string_view key) override;
  storage::Status Write(const storage::WriteOptions& options,
                        const storage::WriteBatch& batch) override;
  storage::Status DeleteRange(const std::vector<storage::KeyRange>& ranges) override;
  storage::Status Get(const storage::ReadOptions& options, std::string_view key,
                      storage::Row* row) override;
  // Get's answer. A key no pending write can be of is read pinned where the engine holds it (a
  // peer's merge gate reads each key before its batch writes it); any other is Get's copy.
  storage::Status GetPinned(const storage::ReadOptions& options, std::string_view key,
                            storage::PinnedRow* row) override;
  // The engine's hint: the pending writes are in memory already.
  void Prefetch(std::span<const std::string_view> keys) override { base_->Prefetch(keys); }
  bool PrefetchPays() const override { return base_->PrefetchPays(); }
  std::unique_ptr<storage::Iterator> NewIterator(const storage::ReadOptions& options) override;
  // The pending versions of `key`, newest first, then (unless a pending wipe ends the walk) the
  // engine's.
  storage::Status GetVersions(const storage::ReadOptions& options, std::string_view key,
                              std::vector<storage::VersionRow>* versions) override;

  const storage::Snapshot* GetSnapshot() override { return base_->GetSnapshot(); }
  void ReleaseSnapshot(const storage::Snapshot* s) override { base_->ReleaseSnapshot(s); }
  storage::Status SyncWal() override { return base_->SyncWal(); }
  storage::Status FlushWal() override { return base_->FlushWal(); }
  storage::Status FlushMemtable() override { return base_->FlushMemtable(); }
  storage::Status CompactAll() override { return base_->CompactAll(); }
  storage::Status BackgroundError() override { return base_->BackgroundError(); }
  storage::Status Resume() override { return base_->Resume(); }
  storage::Status CheckWriteStall() override { return base_->CheckWriteStall(); }
  void SetWriteStallListener(std::function<void()> listener) override {
    base_->SetWriteStallListener(std::move(listener));
  }
  storage::Stats GetStats() override { return base_->GetStats(); }
  std::shared_ptr<storage::DiskReadLatency> disk_read_latency() const override {
    return base_->disk_read_latency();
  }
  // The engine's: the pending batch has no sequence numbers until Commit.
  uint64_t LastSequence() override { return base_->LastSequence(); }
  uint64_t SyncedSequence() override { return base_->SyncedSequence(); }
  void SetReplicationTap(ReplicationTap tap) override { base_->SetReplicationTap(std::move(tap)); }
  storage::Status Checkpoint(const std::string& dir, uint64_t* sequence,
                             std::vector<std::string>* files) override {
    return base_->Checkpoint(dir, sequence, files);
  }
  // The base's estimate: the pending batch is not counted (an estimate already).
  uint64_t EstimateKeys(std::string_view lower, std::string_view upper) override {
    return base_->EstimateKeys(lower, upper);
  }
  const storage::Clock& clock() const override { return base_->clock(); }
  int64_t ExpiryNowMs() const override { return base_->ExpiryNowMs(); }
  storage::Status SetExpirationEnabled(bool enabled) override {
    return base_->SetExpirationEnabled(enabled);
  }
  void SetWholeFileExpiry(bool enabled) override { base_->SetWholeFileExpiry(enabled); }
  void SetPurgeDeadline(int64_t ms) override { base_->SetPurgeDeadline(ms); }
  void SetWalFsync(storage::WalFsync mode) override { base_->SetWalFsync(mode); }

  // One pending version of a key.
  struct Version {
    storage::RowKind kind;
    storage::RowMeta meta;
    std::string value;
  };
  // Pending versions by key, each key's in write order (oldest first).
  using Index = std::map<std::string, std::vector<Version>, std::less<>>;

  // Indexes the pending writes made since the last call (and their range deletions): every read
  // calls it first, and so does an iterator over the batch before each move, so reads see the
  // batch as if each write had been indexed when made.
  void IndexPending();
  // The pending versions as of the last IndexPending.
  const Index& index() const { return index_; }

 private:
  // True when a pending range deletion hides the engine's versions of `key`.
  bool DeletedByRange(std::string_view key) const;
  // `key`'s bit in written_.
  static size_t WrittenBit(std::string_view key);
  // Sets `key`'s bit in written_.
  void NoteWritten(std::string_view key);
  // False when no pending write can be of `key`: written_, brought up to the end of the batch,
  // has `key`'s bit clear and the batch deletes no range. Marks the batch read.
  bool MayHaveWritten(std::string_view key);
  // True when Put and Delete note their key in written_ as they write: the batch has been read
  // and written_ covers every entry before.
  bool FiltersNow() const;
  // Notes the key of the entry just appended, which ends the batch.
  void NoteWrittenAtEnd(std::string_view key);

  storage::DB* base_;
  storage::WriteBatch batch_;
  Index index_;
  // The pending range deletions indexed, in write order.
  std::vector<storage::KeyRange> deleted_ranges_;
  // How much of batch_ index_ and deleted_ranges_ cover (WriteBatch::EntryBytes).
  size_t indexed_bytes_ = 0;
  // The filter of written keys: one bit per key's hash (storage::Hash64) for the keys of the
  // pending entries up to filtered_bytes_ (WriteBatch::EntryBytes), 2^16 bits, so that a batch
  // of a few hundred writes seldom finds a bit another key set; only the words set are cleared
  // when the batch ends (written_words_). Kept only once the batch is read (read_): a batch only
  // written (an active-active node's own write and its log row) hashes no key.
  static constexpr size_t kWrittenBits = size_t{1} << 16;
  std::array<uint64_t, kWrittenBits / 64> written_{};
  std::vector<uint32_t> written_words_;  // the words of written_ not zero
  size_t filtered_bytes_ = 0;
  bool deletes_ranges_ = false;  // a range deletion is among the entries filtered
  bool read_ = false;            // a point read asked the filter since the batch began
};

}  // namespace ebb::types
