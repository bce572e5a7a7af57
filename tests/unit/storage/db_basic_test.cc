// DB basics: writes, reads, deletes, iterators, snapshots, WAL recovery.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "storage/write_batch.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

std::string LogPath(const std::string& dir) {
  // The WAL with the most bytes (the one the test wrote to).
  std::string best;
  uintmax_t best_size = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".log" && entry.file_size() >= best_size) {
      best = entry.path();
      best_size = entry.file_size();
    }
  }
  return best;
}

TEST_F(DBTest, PutGetOverwriteDelete) {
  Open();
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  Put("a", "1");
  Put("b", "2");
  EXPECT_EQ(Get("a"), "1");
  Put("a", "3");
  EXPECT_EQ(Get("a"), "3");
  Del("a");
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("b"), "2");
  EXPECT_EQ(db_->GetStats().last_sequence, 4u);
}

TEST_F(DBTest, GetReturnsMeta) {
  Open();
  const int64_t now = clock_->NowMs();
  Put("k", "v", now - 500, 1000);
  Row row;
  ASSERT_TRUE(db_->Get(ReadOptions(), "k", &row).ok());
  EXPECT_EQ(row.meta.timestamp_ms, now - 500);
  EXPECT_EQ(row.meta.expire_at_ms, now + 500);
  Put("n", "v");
  ASSERT_TRUE(db_->Get(ReadOptions(), "n", &row).ok());
  EXPECT_FALSE(row.meta.timestamp_ms.has_value());
  EXPECT_FALSE(row.meta.expire_at_ms.has_value());
}

// GetPinned answers as Get, with the meta; a value it left in a memtable stays readable while
// the row lives, whatever the engine does meanwhile (the memtable flushed, compacted away).
TEST_F(DBTest, PinnedRowOutlivesItsMemtable) {
  Open();
  const int64_t now = clock_->NowMs();
  const std::string value(100, 'p');
  Put("k", value, now - 500, 1000);
  PinnedRow row;
  ASSERT_TRUE(db_->GetPinned(ReadOptions(), "k", &row).ok());
  EXPECT_EQ(row.meta.timestamp_ms, now - 500);
  EXPECT_EQ(row.meta.expire_at_ms, now + 500);
  for (int i = 0; i < 200; i++) Put(Cat("filler", std::to_string(i)), std::string(100, 'f'));
  Put("k", "newer", now);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(row.value(), value);
  // From a table file the row holds its own copy.
  PinnedRow from_table;
  ASSERT_TRUE(db_->GetPinned(ReadOptions(), "k", &from_table).ok());
  EXPECT_EQ(from_table.value(), "newer");
  EXPECT_EQ(GetPinned("missing"), "NOT_FOUND");
  Del("k");
  EXPECT_EQ(GetPinned("k"), "NOT_FOUND");
}

// A run of reads may hold the read state (DB::HoldReadState): while it is the published one the
// reads answer from it as any read does, a value left in a memtable stays readable while the hold
// lives, and a hold a publication made stale (or another DB's) is passed over.
TEST_F(DBTest, ReadsThroughAHeldReadStateAnswerAsAnyRead) {
  Open();
  Put("k", "one");
  ReadStateHold hold = db_->HoldReadState();
  ASSERT_NE(hold.owner, nullptr);
  ReadOptions held;
  held.held_state = &hold;
  PinnedRow row;
  ASSERT_TRUE(db_->GetPinned(held, "k", &row).ok());
  EXPECT_EQ(row.value(), "one");
  Put("k", "two");  // the same memtable: the hold is current and the read sees the write
  PinnedRow second;
  ASSERT_TRUE(db_->GetPinned(held, "k", &second).ok());
  EXPECT_EQ(second.value(), "two");
  Row plain;
  ASSERT_TRUE(db_->Get(held, "k", &plain).ok());
  EXPECT_EQ(plain.value, "two");
  // The memtables switch, flush and compact away: the pinned values live on in the hold, and a
  // read given the stale hold sees the state published since.
  const std::string padding(100, 'f');
  for (int i = 0; i < 200; i++) Put(Cat("filler", std::to_string(i)), padding);
  Put("k", "three");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(row.value(), "one");
  EXPECT_EQ(second.value(), "two");
  PinnedRow after;
  ASSERT_TRUE(db_->GetPinned(held, "k", &after).ok());
  EXPECT_EQ(after.value(), "three");
  ReadStateHold foreign = hold;
  foreign.owner = &hold;  // not this DB
  held.held_state = &foreign;
  Put("k", "four");
  ASSERT_TRUE(db_->Get(held, "k", &plain).ok());
  EXPECT_EQ(plain.value, "four");
}

TEST_F(DBTest, SurvivesReopen) {
  Open();
  for (int i = 0; i < 200; i++) Put(Cat("key", std::to_string(i)), Cat("value", std::to_string(i)));
  Del("key7");
  Reopen();
  EXPECT_EQ(Get("key0"), "value0");
  EXPECT_EQ(Get("key199"), "value199");
  EXPECT_EQ(Get("key7"), "NOT_FOUND");
  Put("after", "x");
  Reopen();
  EXPECT_EQ(Get("after"), "x");
  EXPECT_EQ(Get("key5"), "value5");
  EXPECT_EQ(db_->GetStats().last_sequence, 202u);
}

// A hint pays once the active memtable holds more keys than a core's cache keeps: from 8,192
// index slots (2,049 keys or more) until a new memtable starts empty.
TEST_F(DBTest, PrefetchPaysOnceTheActiveMemtableOutgrowsTheCache) {
  options_.memtable_size = 64 << 20;
  Open();
  EXPECT_FALSE(db_->PrefetchPays());
  for (int i = 0; i < 2048; i++) Put(Cat("key", std::to_string(i)), "v");
  EXPECT_FALSE(db_->PrefetchPays());
  for (int i = 0; i < 2048; i++) Put(Cat("key", std::to_string(i)), "w");  // no new key
  EXPECT_FALSE(db_->PrefetchPays());
  Put("key2048", "v");
  EXPECT_TRUE(db_->PrefetchPays());
  Reopen();  // the WAL's replay fills the memtable again
  EXPECT_TRUE(db_->PrefetchPays());
  ASSERT_TRUE(db_->FlushMemtable().ok());
  EXPECT_FALSE(db_->PrefetchPays());
  EXPECT_EQ(Get("key2048"), "v");
}

TEST_F(DBTest, SecondOpenOfSameDirIsBusy) {
  Open();
  std::unique_ptr<DB> other;
  EXPECT_FALSE(DB::Open(options_, dir_, &other).ok());
}

TEST_F(DBTest, BatchIsAtomicAcrossReopen) {
  Open();
  WriteBatch batch;
  WriteOptions wo;
  batch.Put(wo, "x", "1", clock_->NowMs());
  batch.Put(wo, "y", "2", clock_->NowMs());
  batch.Delete(wo, "z");
  Put("z", "old");
  ASSERT_TRUE(db_->Write(wo, batch).ok());
  Reopen();
  EXPECT_EQ(Get("x"), "1");
  EXPECT_EQ(Get("y"), "2");
  EXPECT_EQ(Get("z"), "NOT_FOUND");
}

TEST_F(DBTest, TornWalTailIsTruncated) {
  options_.memtable_size = 1 << 20;  // keep every write in the one WAL
  Open();
  Put("a", "1");
  Put("b", std::string(300, 'b'));
  db_.reset();
  const std::string log = LogPath(dir_);
  const auto size = std::filesystem::file_size(log);
  std::filesystem::resize_file(log, size - 5);  // the last record loses its end
  Open();
  EXPECT_EQ(Get("a"), "1");
  EXPECT_EQ(Get("b"), "NOT_FOUND");
  Put("c", "3");  // writes after recovery survive the next one
  Reopen();
  EXPECT_EQ(Get("a"), "1");
  EXPECT_EQ(Get("c"), "3");
}

TEST_F(DBTest, DamageInTheMiddleOfTheWalFailsOpen) {
  options_.memtable_size = 1 << 20;  // keep every write in the one WAL
  Open();
  for (int i = 0; i < 20; i++) Put(Cat("key", std::to_string(i)), std::string(100, 'v'));
  db_.reset();
  const std::string log = LogPath(dir_);
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(30);
    f.put('\xff');
  }
  Status s = TryOpen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(std::filesystem::path(log).filename().string()), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("offset"), std::string::npos) << s.message();
}

TEST_F(DBTest, IteratorWalksLiveKeysBothWays) {
  Open();
  Put("b", "2");
  Put("a", "1");
  Put("d", "4");
  Put("c", "x");
  Put("c", "3");
  Put("e", "5");
  Del("e");
  EXPECT_EQ(Scan(), "a=1,b=2,c=3,d=4");
  EXPECT_EQ(ScanReverse(), "d=4,c=3,b=2,a=1");
  auto it = db_->NewIterator(ReadOptions());
  it->Seek("bb");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  it->Next();
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "d");
  it->Next();
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev("cc");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  it->SeekForPrev("c");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  it->SeekForPrev("0");
  EXPECT_FALSE(it->Valid());
}

TEST_F(DBTest, IteratorBounds) {
  Open();
  for (char c = 'a'; c <= 'f'; c++) Put(std::string(1, c), std::string(1, c));
  ReadOptions ro;
  ro.lower_bound = "b";
  ro.upper_bound = "e";
  EXPECT_EQ(Scan(ro), "b=b,c=c,d=d");
  EXPECT_EQ(ScanReverse(ro), "d=d,c=c,b=b");
  auto it = db_->NewIterator(ro);
  it->Seek("a");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  it->SeekForPrev("z");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "d");
}

TEST_F(DBTest, IteratorBoundsOverFilesInAndOutOfRange) {
  Open();
  // One table file per pair of keys: [a,b] [c,d] [e,f], then g in the memtable.
  for (char c = 'a'; c <= 'f'; c += 2) {
    Put(std::string(1, c), std::string(1, c));
    Put(std::string(1, c + 1), std::string(1, c + 1));
    ASSERT_TRUE(db_->FlushMemtable().ok());
  }
  Put("g", "g");
  ReadOptions ro;
  ro.lower_bound = "c";
  ro.upper_bound = "e";
  EXPECT_EQ(Scan(ro), "c=c,d=d");
  EXPECT_EQ(ScanReverse(ro), "d=d,c=c");
  ro.lower_bound = "b";
  ro.upper_bound = "ca";
  EXPECT_EQ(Scan(ro), "b=b,c=c");
  EXPECT_EQ(ScanReverse(ro), "c=c,b=b");
  ro.lower_bound = "f";
  ro.upper_bound.reset();
  EXPECT_EQ(Scan(ro), "f=f,g=g");
  ro.lower_bound.reset();
  ro.upper_bound = "b";
  EXPECT_EQ(ScanReverse(ro), "a=a");
}

TEST_F(DBTest, IteratorIsASnapshot) {
  Open();
  Put("a", "1");
  auto it = db_->NewIterator(ReadOptions());
  Put("a", "2");
  Put("b", "2");
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "1");
  it->Next();
  EXPECT_FALSE(it->Valid());
}

TEST_F(DBTest, SnapshotKeepsItsView) {
  Open();
  Put("a", "1");
  const Snapshot* snap = db_->GetSnapshot();
  Put("a", "2");
  Del("b");
  Put("c", "3");
  EXPECT_EQ(Get("a", 0, snap), "1");
  EXPECT_EQ(Get("c", 0, snap), "NOT_FOUND");
  EXPECT_EQ(Get("a"), "2");
  ReadOptions ro;
  ro.snapshot = snap;
  EXPECT_EQ(Scan(ro), "a=1");
  db_->ReleaseSnapshot(snap);
}

TEST_F(DBTest, RetrievalGraceExample) {
  Open();
  // Walk order (most recently written first): @100, @50, @150.
  Put("k", "v150", 150);
  Put("k", "v50", 50);
  Put("k", "v100", 100);
  EXPECT_EQ(Get("k", 0), "v100");
  EXPECT_EQ(Get("k", -5), "v100");
  EXPECT_EQ(Get("k", 1), "v100");
  EXPECT_EQ(Get("k", 50), "v100");
  EXPECT_EQ(Get("k", 51), "v150");
  EXPECT_EQ(Get("k", 1000), "v150");
  EXPECT_EQ(Scan(), "k=v100");  // iterators show the most recently written version
}

TEST_F(DBTest, ExpiredRowsAreInvisibleAtOnce) {
  Open();
  const int64_t now = clock_->NowMs();
  Put("old", "keep", now - 10);
  Put("k", "short", now, 100);
  Put("p", "persist");
  EXPECT_EQ(Get("k"), "short");
  clock_->Advance(99);
  EXPECT_EQ(Get("k"), "short");
  clock_->Advance(1);
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  EXPECT_EQ(Scan(), "old=keep,p=persist");
  // An expired newest version hides older ones.
  Put("old", "gone", now, 50);
  EXPECT_EQ(Get("old"), "NOT_FOUND");
  EXPECT_EQ(Get("old", 1'000'000), "NOT_FOUND");
  EXPECT_EQ(Scan(), "p=persist");
  // Expiration off freezes the expiry clock: what has expired stays expired, what has not
  // stops expiring — also across a reopen — until it is switched on again.
  ASSERT_TRUE(db_->SetExpirationEnabled(false).ok());
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  Put("later", "v", clock_->NowMs(), 10);
  clock_->Advance(1000);
  EXPECT_EQ(Get("later"), "v");
  options_.expiration_enabled = false;
  Reopen();
  EXPECT_EQ(Get("later"), "v");
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  ASSERT_TRUE(db_->SetExpirationEnabled(true).ok());
  EXPECT_EQ(Get("later"), "NOT_FOUND");
}

TEST_F(DBTest, TimestampedTombstoneTakesPartInGrace) {
  Open();
  Put("k", "v", 100);
  Del("k", 50);  // an out-of-order delete (RFC scenario 5)
  EXPECT_EQ(Get("k", 0), "NOT_FOUND");
  EXPECT_EQ(Get("k", 1000), "v");
}

TEST_F(DBTest, SyncWalUnderAlwaysAndConcurrentWrites) {
  options_.wal_fsync = WalFsync::kAlways;
  Open();
  WriteOptions deferred;
  deferred.defer_sync = true;
  std::thread syncer([&] {
    for (int i = 0; i < 20; i++) EXPECT_TRUE(db_->SyncWal().ok());
  });
  for (int i = 0; i < 50; i++)
    ASSERT_TRUE(db_->Put(deferred, Cat("k", std::to_string(i)), "v").ok());
  syncer.join();
  ASSERT_TRUE(db_->SyncWal().ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "last", "v").ok());
  EXPECT_GE(db_->GetStats().wal_syncs, 2u);
  Reopen();
  EXPECT_EQ(Get("k49"), "v");
  EXPECT_EQ(Get("last"), "v");
}

// Put and Delete reuse one batch per thread: a large value, a delete and a small value after it
// each write what they were given.
TEST_F(DBTest, SingleWritesReuseTheirBatch) {
  Open();
  const std::string large(200 << 10, 'L');
  Put("big", large);
  Put("small", "s");
  Del("big");
  Put("after", "a");
  EXPECT_EQ(Get("big"), "NOT_FOUND");
  EXPECT_EQ(Get("small"), "s");
  EXPECT_EQ(Get("after"), "a");
  Put("big", large);
  EXPECT_EQ(Get("big"), large);
  Reopen();
  EXPECT_EQ(Get("big"), large);
  EXPECT_EQ(Get("small"), "s");
  EXPECT_EQ(Get("after"), "a");
}

// A point read takes no lock (db_impl.h, "Locking"): a reader on another thread, while the
// writes switch, flush and compact the tiny memtables all along, never sees a write without
// the writes made before it, nor a key go back to an older value.
TEST_F(DBTest, LockFreeReadsSeeWritesInOrderWhileMemtablesSwitch) {
  Open();
  constexpr int kRounds = 2000;
  const std::string padding(100, 'p');  // ~40 rows fill a 4 KiB memtable
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 1; i <= kRounds; i++) {
      const std::string value = std::to_string(i) + padding;
      if (!db_->Put(WriteOptions(), "first", value).ok() ||
          !db_->Put(WriteOptions(), "second", value).ok()) {
        ADD_FAILURE() << "write " << i << " failed";
        break;
      }
    }
    done = true;
  });
  auto round_of = [&](const std::string& key) {
    const std::string value = GetPinned(key);
    return value == "NOT_FOUND" ? 0 : std::stoi(value);
  };
  int last_second = 0;
  int reads = 0;
  for (; reads < 1'000'000 && !done.load(); reads++) {
    const int second = round_of("second");
    const int first = round_of("first");  // written before `second` in every round
    ASSERT_GE(first, second) << "after " << reads << " reads";
    ASSERT_GE(second, last_second);
    last_second = second;
  }
  writer.join();
  EXPECT_EQ(round_of("first"), kRounds);
  EXPECT_EQ(round_of("second"), kRounds);
  EXPECT_GT(db_->GetStats().flushes, 0u);
}

}  // namespace
}  // namespace ebb::storage
