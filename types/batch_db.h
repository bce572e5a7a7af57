// BatchDB: a storage::DB that gathers writes into ONE WriteBatch and reads through them — what
// makes several commands one atomic write with read-your-writes (MULTI/EXEC, scripts).
//
// While a BatchDB is active (Keyspace::BeginBatch), every Put, Delete and Write of the types is
// appended to one pending storage::WriteBatch; nothing reaches the engine. A point read (Get,
// GetVersions) finds a key's pending versions through chains of the entries' positions by their
// keys' hashes (KeyChains), kept only once the batch is read: a batch only written — an
// active-active node's own write with its origin log row — hashes no key, and a key no entry
// chains to goes straight to the engine (a peer's deltas: the merge gate reads each key, then
// writes it). The ordered index of the pending writes (IndexPending: each entry decoded and
// copied once, the ones made since the last time) is built only for an iterator, and for point
// reads once the batch deletes a range.
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
  storage::ReadStateHold HoldReadState() override { return base_->HoldReadState(); }
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
  // Where the pending entries of each key hash lie: chains of their positions in the batch
  // (WriteBatch::EntryBytes), newest first, in a table of 2^k buckets that doubles once it holds
  // more entries than buckets, so chains stay short in a batch of any size. Each link keeps its
  // key's whole hash: a read decodes only the entries of its key's hash.
  class KeyChains {
   public:
    void Add(uint64_t hash, size_t entry_bytes);
    // Calls visit(entry_bytes) for each entry added with `hash`, newest first, while it returns
    // true.
    template <class Visit>
    void ForEach(uint64_t hash, Visit visit) const {
      if (heads_.empty()) return;
      for (uint32_t at = heads_[hash & (heads_.size() - 1)]; at != 0; at = links_[at - 1].next) {
        const Link& link = links_[at - 1];
        if (link.hash == hash && !visit(link.entry_bytes)) return;
      }
    }
    // Forgets every entry; the table keeps its room up to kKeptBuckets.
    void Clear();

   private:
    struct Link {
      uint64_t hash;
      size_t entry_bytes;
      uint32_t next;  // 1 + the index of the next older link of its bucket, 0 for none
    };
    static constexpr size_t kFirstBuckets = 256;
    static constexpr size_t kKeptBuckets = size_t{1} << 14;
    // Doubles the buckets and chains every link again, in the order added.
    void Grow();
    std::vector<uint32_t> heads_;  // per bucket: 1 + the index of its newest link, 0 for none
    std::vector<Link> links_;
  };
  // One pending version a point read found: views into the batch, or into index_.
  struct FoundVersion {
    storage::RowKind kind;
    storage::RowMeta meta;
    std::string_view value;
  };

  // True when a pending range deletion hides the engine's versions of `key`.
  bool DeletedByRange(std::string_view key) const;
  // The pending versions of `key` into *found (emptied first), newest first, down to the newest
  // wipe (kept: it ends the walk); *engine_hidden: a pending range deletion hides the engine's
  // versions of `key`. False when neither holds: the engine alone answers. Marks the batch read.
  bool FindPending(std::string_view key, std::vector<FoundVersion>* found, bool* engine_hidden);
  // Get's answer from the pending versions FindPending left in found_ (and the engine's, unless
  // `engine_hidden` or a pending version ends the walk).
  storage::Status GetFound(const storage::ReadOptions& options, std::string_view key,
                           bool engine_hidden, storage::Row* row);
  // Chains the keys of the entries written since the last call, and notes a range deletion.
  void ChainNewEntries();
  // True when Put and Delete chain their entry as they write: the batch has been read and
  // chains_ covers every entry before.
  bool ChainsNow() const;
  // Chains the entry just appended (of `key`, beginning at `entry_bytes`), which ends the batch.
  void ChainAtEnd(std::string_view key, size_t entry_bytes);

  storage::DB* base_;
  storage::WriteBatch batch_;
  Index index_;
  // The pending range deletions indexed, in write order.
  std::vector<storage::KeyRange> deleted_ranges_;
  // How much of batch_ index_ and deleted_ranges_ cover (WriteBatch::EntryBytes).
  size_t indexed_bytes_ = 0;
  // The entries' keys chained, up to chained_bytes_ (WriteBatch::EntryBytes); kept only once the
  // batch is read (read_).
  KeyChains chains_;
  size_t chained_bytes_ = 0;
  bool deletes_ranges_ = false;  // a range deletion is among the entries chained
  bool read_ = false;            // a point read asked for pending versions since the batch began
  std::vector<FoundVersion> found_;  // FindPending's answer, kept for its room
};

}  // namespace ebb::types
