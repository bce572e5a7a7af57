// The SlateDB RFC's timestamp/TTL scenarios and the grace example, each checked as written, after
// a flush, after a full compaction and across a reopen; whole-file expiry; the purge deadline.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "storage/db/db_impl.h"
#include "tests/unit/storage/db_test_fixture.h"
#include "tests/unit/storage/dead_version_keeper.h"

namespace ebb::storage {
namespace {

enum class Step { kNone, kFlush, kCompactAll, kReopen };

class RfcScenarioTest : public DBTest, public ::testing::WithParamInterface<Step> {
 protected:
  void SetUp() override {
    clock_->Set(100);
    Open();
  }
  // Moves the data to where the parameter says (at the current clock).
  void Settle() {
    switch (GetParam()) {
      case Step::kNone:
        break;
      case Step::kFlush:
        ASSERT_TRUE(db_->FlushMemtable().ok());
        break;
      case Step::kCompactAll:
        ASSERT_TRUE(db_->CompactAll().ok());
        break;
      case Step::kReopen:
        Reopen();
        break;
    }
  }
  bool Compacted() const { return GetParam() == Step::kCompactAll; }
};

TEST_P(RfcScenarioTest, HappyPath) {
  Put("A", "v", 100, 100);  // live until 200
  Settle();
  clock_->Set(199);
  EXPECT_EQ(Get("A"), "v");
  clock_->Set(200);
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  ASSERT_TRUE(db_->CompactAll().ok());  // compaction at >= 200 removes it
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  ASSERT_TRUE(db_->SetExpirationEnabled(false).ok());  // gone, and stays gone
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  // Gone by whole-file expiry (the file held only this row) or by compaction.
  const Stats stats = db_->GetStats();
  EXPECT_GE(stats.expired_rows_dropped + stats.files_expired_whole, 1u);
}

TEST_P(RfcScenarioTest, InOrderOverwriteNewerTtl) {
  Put("A", "v1", 100, 100);
  clock_->Set(150);
  Put("A", "v2", 150, 100);
  Settle();
  EXPECT_EQ(Get("A"), "v2");
  clock_->Set(249);
  EXPECT_EQ(Get("A"), "v2");
  EXPECT_EQ(Get("A", 1000), "v2");
  clock_->Set(250);
  EXPECT_EQ(Get("A"), "NOT_FOUND");
}

TEST_P(RfcScenarioTest, InOrderOverwriteOlderTtl) {
  Put("A", "v1", 100, 100);  // until 200
  Put("A", "v2", 110, 40);   // until 150
  Settle();
  clock_->Set(149);
  EXPECT_EQ(Get("A"), "v2");
  clock_->Set(150);
  EXPECT_EQ(Get("A"), "NOT_FOUND");  // the expired newest version hides v1
  clock_->Set(160);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  EXPECT_EQ(Get("A", 1000), "NOT_FOUND");
  clock_->Set(199);
  EXPECT_EQ(Get("A"), "NOT_FOUND");
}

TEST_P(RfcScenarioTest, OutOfOrderOverwrites) {
  Put("A", "v100", 100);
  Put("A", "v50", 50);
  Settle();
  // Compaction keeps the greatest timestamp, so grace 0 converges to it.
  EXPECT_EQ(Get("A", 0), Compacted() ? "v100" : "v50");
  EXPECT_EQ(Get("A", 1), "v100");
  EXPECT_EQ(Get("A", 1000), "v100");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("A", 0), "v100");
}

TEST_P(RfcScenarioTest, OutOfOrderTombstone) {
  Put("A", "v", 100);
  Del("A", 50);
  Settle();
  EXPECT_EQ(Get("A", 0), Compacted() ? "v" : "NOT_FOUND");
  EXPECT_EQ(Get("A", 1000), "v");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("A", 0), "v");  // the tombstone at 50 does not hide the value at 100
}

TEST_P(RfcScenarioTest, GraceExample) {
  Put("K", "v150", 150);
  Put("K", "v50", 50);
  Put("K", "v100", 100);  // walk order: @100, @50, @150
  Settle();
  EXPECT_EQ(Get("K", 0), Compacted() ? "v150" : "v100");
  EXPECT_EQ(Get("K", 50), Compacted() ? "v150" : "v100");
  EXPECT_EQ(Get("K", 51), "v150");
  EXPECT_EQ(Get("K", 100000), "v150");
}

INSTANTIATE_TEST_SUITE_P(Steps, RfcScenarioTest,
                         ::testing::Values(Step::kNone, Step::kFlush, Step::kCompactAll,
                                           Step::kReopen));

class ExpiryTest : public DBTest {
 protected:
  DBImpl* impl() { return static_cast<DBImpl*>(db_.get()); }
  // Opens with `purge_deadline_ms` and no whole-file expiry, and writes "keep" and ten rows
  // t0..t9 that expire in 100 ms, flushed to one table file.
  void OpenWithExpiringFile(int64_t purge_deadline_ms) {
    options_.purge_deadline_ms = purge_deadline_ms;
    options_.whole_file_expiry = false;
    Open();
    const int64_t now = clock_->NowMs();
    Put("keep", "v");
    for (int i = 0; i < 10; i++) Put(Cat("t", std::to_string(i)), "v", now, 100);
    ASSERT_TRUE(db_->FlushMemtable().ok());
  }
};

TEST_F(ExpiryTest, SnapshotKeepsViewAcrossFlushAndCompaction) {
  Open();
  for (int i = 0; i < 100; i++) Put(Cat("k", std::to_string(i)), "old");
  const Snapshot* snap = db_->GetSnapshot();
  for (int i = 0; i < 100; i++) Put(Cat("k", std::to_string(i)), "new");
  Del("k5");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("k5", 0, snap), "old");
  EXPECT_EQ(Get("k7", 0, snap), "old");
  EXPECT_EQ(Get("k7"), "new");
  EXPECT_EQ(Get("k5"), "NOT_FOUND");
  ReadOptions ro;
  ro.snapshot = snap;
  auto it = db_->NewIterator(ro);
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) EXPECT_EQ(it->value(), "old");
  EXPECT_EQ(n, 100);
  it.reset();
  db_->ReleaseSnapshot(snap);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("k7"), "new");
}

TEST_F(ExpiryTest, WholeFileExpiryDropsAFullyExpiredFile) {
  Open();
  const int64_t now = clock_->NowMs();
  for (int i = 0; i < 20; i++) Put(Cat("t", std::to_string(i)), "v", now, 100 + i);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  ASSERT_GE(TotalFiles(), 1);
  EXPECT_FALSE(impl()->RunBackgroundCycle());  // nothing has expired yet
  clock_->Advance(200);
  while (impl()->RunBackgroundCycle()) {
  }
  const Stats stats = db_->GetStats();
  EXPECT_GE(stats.files_expired_whole, 1u);
  EXPECT_EQ(stats.compactions, 0u);
  EXPECT_EQ(TotalFiles(), 0);
  EXPECT_EQ(SstFilesOnDisk(), 0);
}

TEST_F(ExpiryTest, WholeFileExpirySparesFilesWithNonExpiringRowsOrOverlap) {
  Open();
  const int64_t now = clock_->NowMs();
  Put("a", "forever");
  Put("b", "v", now, 100);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(200);
  for (int i = 0; i < 5 && impl()->RunBackgroundCycle(); i++) {
  }
  EXPECT_EQ(db_->GetStats().files_expired_whole, 0u);
  EXPECT_EQ(Get("a"), "forever");

  // A fully expiring file above an overlapping deeper file is kept (older data would resurface).
  Put("m", "deep");
  Put("z", "deep");
  ASSERT_TRUE(db_->CompactAll().ok());
  Put("m", "shallow", clock_->NowMs(), 100);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_EQ(db_->GetStats().files_expired_whole, 0u);
  EXPECT_EQ(Get("m"), "NOT_FOUND");
  db_->SetWholeFileExpiry(false);
}

TEST_F(ExpiryTest, WholeFileExpiryCanBeSwitchedOff) {
  options_.whole_file_expiry = false;
  Open();
  Put("t", "v", clock_->NowMs(), 100);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_EQ(db_->GetStats().files_expired_whole, 0u);
}

TEST_F(ExpiryTest, PurgeDeadlineRemovesExpiredBytesFromEveryLevel) {
  options_.purge_deadline_ms = 1000;
  options_.whole_file_expiry = false;  // make compaction do it
  Open();
  const int64_t now = clock_->NowMs();
  const std::string value(100, 'x');
  for (int i = 0; i < 200; i++) {
    const std::string key = Cat("k", std::to_string(1000 + i));
    if (i % 2 == 0) {
      Put(key, value);
    } else {
      Put(key, value, now, 500);
    }
  }
  ASSERT_TRUE(db_->FlushMemtable().ok());
  while (impl()->RunBackgroundCycle()) {
  }
  uint64_t bytes_before = 0;
  for (const auto& level : db_->GetStats().levels) bytes_before += level.bytes;
  // The rewrite is due half the deadline after the expiry, so it is done within the deadline.
  clock_->Advance(500 + 499);  // expired, not yet due
  EXPECT_EQ(Get("k1001"), "NOT_FOUND");
  for (int i = 0; i < 50 && impl()->RunBackgroundCycle(); i++) {
  }
  EXPECT_EQ(db_->GetStats().expired_rows_dropped, 0u);
  clock_->Advance(1);  // due
  // The engine's own background thread may do the rewrite before these cycles do: the rows
  // dropped, not who dropped them, is the check.
  for (int i = 0; i < 50 && impl()->RunBackgroundCycle(); i++) {
  }
  const Stats stats = db_->GetStats();
  EXPECT_EQ(stats.expired_rows_dropped, 100u);
  uint64_t bytes_after = 0, entries_after = 0;
  for (const auto& level : stats.levels) {
    bytes_after += level.bytes;
    entries_after += level.entries;
  }
  EXPECT_LT(bytes_after, bytes_before * 3 / 4);
  // Physically gone: the files hold the 100 live rows and nothing else (no tombstones: nothing
  // is left for them to hide), and nothing comes back with expiration switched off.
  EXPECT_EQ(entries_after, 100u);
  ASSERT_TRUE(db_->SetExpirationEnabled(false).ok());
  EXPECT_EQ(Get("k1001"), "NOT_FOUND");
  EXPECT_EQ(Get("k1000"), value);
  auto it = db_->NewIterator(ReadOptions());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
  EXPECT_EQ(n, 100);
}

TEST_F(ExpiryTest, BackgroundThreadEnforcesThePurgeDeadlineOnItsOwn) {
  OpenWithExpiringFile(400);  // the background thread re-checks every 100 ms
  clock_->Advance(100 + 400);
  // No call into the DB: wait (bounded) for the background cycle to notice the deadline.
  uint64_t dropped = 0;
  for (int i = 0; i < 400 && dropped < 10; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    dropped = db_->GetStats().expired_rows_dropped;
  }
  EXPECT_EQ(dropped, 10u);
  ASSERT_TRUE(db_->SetExpirationEnabled(false).ok());
  EXPECT_EQ(Get("t3"), "NOT_FOUND");
  EXPECT_EQ(Get("keep"), "v");
}

TEST_F(ExpiryTest, FlushAndCompactionHappenInTheBackground) {
  Open();
  const std::string value(200, 'v');
  for (int i = 0; i < 2000; i++)
    Put(Cat("key", std::to_string(i % 500)), Cat(value, std::to_string(i)));
  ASSERT_TRUE(db_->FlushMemtable().ok());
  const Stats stats = db_->GetStats();
  EXPECT_GT(stats.flushes, 10u);
  for (int i = 0; i < 500; i++) {
    EXPECT_EQ(Get(Cat("key", std::to_string(i))), Cat(value, std::to_string(1500 + i)));
  }
  Reopen();
  EXPECT_EQ(Get("key7"), value + "1507");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("key499"), value + "1999");
  EXPECT_EQ(db_->GetStats().levels[0].files, 0);
}

// A memtable holding a row due for purge is flushed and its WAL deleted: the purge deadline
// covers the WAL and the memtable too.
TEST_F(ExpiryTest, RowsInTheMemtableAndWalArePurgedByTheDeadline) {
  options_.memtable_size = 1 << 20;
  options_.purge_deadline_ms = 1000;
  Open();
  const int64_t now = clock_->NowMs();
  Put("keep", "v");
  Put("secret", "SUPERSECRETVALUE123", now, 100);
  auto wal_holds_secret = [&] {
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      if (entry.path().extension() != ".log") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      if (bytes.find("SUPERSECRETVALUE123") != std::string::npos) return true;
    }
    return false;
  };
  ASSERT_TRUE(db_->FlushWal().ok());
  ASSERT_TRUE(wal_holds_secret());
  clock_->Advance(100 + 500);  // expired, and half the deadline later: due
  uint64_t entries = 1;
  for (int i = 0; i < 200; i++) {  // the background thread notices within ~250 ms
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const Stats stats = db_->GetStats();
    entries = 0;
    for (const auto& level : stats.levels) entries += level.entries;
    if (stats.flushes > 0 && entries == 1 && !wal_holds_secret()) break;
  }
  EXPECT_FALSE(wal_holds_secret());
  EXPECT_EQ(entries, 1u);  // "keep"
  EXPECT_EQ(Get("keep"), "v");
}

TEST_F(ExpiryTest, NoPurgeDeadlineMeansNoPurge) {
  OpenWithExpiringFile(-1);  // unlimited
  clock_->Advance(100'000'000);
  for (int i = 0; i < 5; i++) impl()->RunBackgroundCycle();
  EXPECT_EQ(db_->GetStats().expired_rows_dropped, 0u);
  EXPECT_EQ(Get("t1"), "NOT_FOUND");  // expired all the same
}

// Whole-file expiry needs only that no older version can surface: newer data above the file
// does not stop it, unless a newer version is older in time (the dead row still hides it from
// a full-grace read).
TEST_F(ExpiryTest, WholeFileExpiryIgnoresNewerDataWithLaterTimestamps) {
  Open();
  const int64_t now = clock_->NowMs();
  for (int i = 0; i < 20; i++) Put(Cat("t", std::to_string(100 + i)), "v", now, 100);
  ASSERT_TRUE(db_->CompactAll().ok());
  Put("t105", "newer", now + 50);  // in the memtable, overlapping the file
  Put("t119", "newer", now + 50);
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_GE(db_->GetStats().files_expired_whole, 1u);
  EXPECT_EQ(Get("t105", INT64_MAX), "newer");
  EXPECT_EQ(Get("t106", INT64_MAX), "NOT_FOUND");

  // A newer version with an earlier timestamp: the expired file stays (it decides the
  // full-grace read).
  const uint64_t dropped = db_->GetStats().files_expired_whole;
  for (int i = 0; i < 20; i++) Put(Cat("u", std::to_string(100 + i)), "v", clock_->NowMs(), 100);
  ASSERT_TRUE(db_->CompactAll().ok());
  Put("u105", "late", 5);
  EXPECT_EQ(Get("u105", INT64_MAX), "v");
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_EQ(db_->GetStats().files_expired_whole, dropped);
  EXPECT_EQ(Get("u105", INT64_MAX), "NOT_FOUND");
  EXPECT_EQ(Get("u105"), "late");
}

// Compaction cuts its output where the rows' expiry changes sharply, so that the expiring part
// later goes as whole files; here next to rows that never expire.
TEST_F(ExpiryTest, OutputIsCutWhereExpiryChangesSoFilesExpireWhole) {
  options_.target_file_size = 1 << 20;  // one output file unless cut
  options_.compression = Compression::kNone;
  options_.purge_deadline_ms = 60'000;
  Open();
  const int64_t now = clock_->NowMs();
  const std::string value(100, 'v');
  for (int i = 0; i < 400; i++) Put(Cat("keep:", std::to_string(1000 + i)), value);
  for (int i = 0; i < 400; i++) {
    Put(Cat("tmp:", std::to_string(1000 + i)), value, now, 10'000);
  }
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_GE(TotalFiles(), 2);
  clock_->Advance(10'000);
  impl()->RunBackgroundCycle();
  const Stats stats = db_->GetStats();
  EXPECT_GE(stats.files_expired_whole, 1u);
  uint64_t entries = 0;
  for (const auto& level : stats.levels) entries += level.entries;
  EXPECT_EQ(entries, 400u);
  EXPECT_EQ(Get("keep:1399"), value);
}

// A compaction filter that classifies rows by their key's first letter and names the rows of
// "d" (dependents) as living through "o" (owner) rows.
class ClassifyingFilter final : public CompactionFilter {
 public:
  Decision Filter(std::string_view key, const RowMeta&, std::string_view, int64_t,
                  std::string*) const override {
    // A dependent is dropped once its owner is gone.
    if (key.starts_with("d") && owner_gone.load()) return Decision::kDrop;
    return Decision::kKeep;
  }
  ExpiryMode ExpiryModeOf(std::string_view key) const override {
    if (key.starts_with("p")) return ExpiryMode::kPerItem;
    if (key.starts_with("w")) return ExpiryMode::kWholeFile;
    return ExpiryMode::kDefault;
  }
  bool OwnsRanges(std::string_view key, std::string_view, const RowMeta& meta) const override {
    return key.starts_with("o") && meta.expire_at_ms.has_value();
  }
  void ExpiredRowRanges(std::string_view key, std::string_view,
                        std::vector<KeyRange>* ranges) const override {
    if (key.starts_with("o")) {
      owner_gone = true;
      ranges->push_back({"d", "e"});
    }
  }
  const char* Name() const override { return "classifying"; }
  mutable std::atomic<bool> owner_gone{false};
};

TEST_F(ExpiryTest, ARulesModeDecidesWhetherItsFilesMayGoWhole) {
  options_.compaction_filter = std::make_shared<ClassifyingFilter>();
  options_.whole_file_expiry = false;
  Open();
  const int64_t now = clock_->NowMs();
  for (int i = 0; i < 10; i++) Put(Cat("w", std::to_string(i)), "v", now, 100);
  ASSERT_TRUE(db_->CompactAll().ok());
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_GE(db_->GetStats().files_expired_whole, 1u);  // whole-file rule, global switch off

  db_->SetWholeFileExpiry(true);
  const uint64_t before = db_->GetStats().files_expired_whole;
  for (int i = 0; i < 10; i++) Put(Cat("p", std::to_string(i)), "v", clock_->NowMs(), 100);
  ASSERT_TRUE(db_->CompactAll().ok());
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_EQ(db_->GetStats().files_expired_whole, before);  // per-item rule: never whole
  EXPECT_EQ(Get("p1"), "NOT_FOUND");
}

// When compaction removes an expired row that others live through, their range is due for a
// purge compaction at once, whatever their own expiry says.
TEST_F(ExpiryTest, RowsThatLivedThroughAnExpiredRowArePurgedWithIt) {
  auto filter = std::make_shared<ClassifyingFilter>();
  options_.compaction_filter = filter;
  options_.purge_deadline_ms = 1000;
  Open();
  const int64_t now = clock_->NowMs();
  for (int i = 0; i < 50; i++) Put(Cat("d", std::to_string(1000 + i)), std::string(50, 'd'));
  ASSERT_TRUE(db_->CompactAll().ok());  // the dependents at the bottom, no expiry of their own
  Put("o", "owner", now, 100);
  Put("z", "other");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(100 + 500);  // the owner expired and is due
  for (int i = 0; i < 20 && impl()->RunBackgroundCycle(); i++) {
  }
  const Stats stats = db_->GetStats();
  EXPECT_TRUE(filter->owner_gone.load());
  EXPECT_EQ(stats.purge_hints_pending, 0u);
  EXPECT_GE(stats.filter_rows_dropped, 50u);
  uint64_t entries = 0;
  for (const auto& level : stats.levels) entries += level.entries;
  EXPECT_EQ(entries, 1u);  // "z"
}

// In active-active mode a peer's later expiry change may bring an expired row back, so
// compaction keeps an expired row whole for half the purge deadline; then the purge scheduler's
// compaction reduces it (the newest dead version to a bare tombstone), within the deadline.
TEST_F(ExpiryTest, KeepingDeadVersionsKeepsExpiredRowsWholeForHalfThePurgeDeadline) {
  options_.purge_deadline_ms = 10'000;
  options_.compaction_filter = std::make_shared<DeadVersionKeeper>();
  Open();
  const int64_t expire_at = clock_->NowMs() + 100;
  Put("k", "value", clock_->NowMs(), 100);
  // What a read of `key` reports of its newest dead version (the key itself reads as absent).
  auto dead = [&](std::string_view key) {
    std::optional<DeadVersion> version;
    ReadOptions ro;
    ro.dead_version = &version;
    Row row;
    EXPECT_TRUE(db_->Get(ro, key, &row).IsNotFound());
    return version;
  };
  ASSERT_TRUE(db_->FlushMemtable().ok());
  while (impl()->RunBackgroundCycle()) {
  }
  clock_->Set(expire_at + 4'999);
  ASSERT_TRUE(db_->CompactAll().ok());
  for (int i = 0; i < 50 && impl()->RunBackgroundCycle(); i++) {
  }
  std::optional<DeadVersion> kept = dead("k");
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->kind, RowKind::kValue);
  EXPECT_EQ(kept->value, "value");
  EXPECT_EQ(kept->meta.expire_at_ms, expire_at);

  // Due: the purge scheduler's compaction reduces it — run here, or by the engine's own
  // background thread if that one picks the due compaction up first.
  clock_->Set(expire_at + 5'000);
  for (int i = 0; i < 500; i++) {
    kept = dead("k");
    if (kept.has_value() && kept->kind == RowKind::kTombstone) break;
    if (!impl()->RunBackgroundCycle()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->kind, RowKind::kTombstone);
  EXPECT_EQ(kept->value, "");

  // Without the filter's hook the row goes at the first compaction after its expiry.
  options_.compaction_filter = nullptr;
  Reopen();
  Put("j", "value", clock_->NowMs(), 100);
  clock_->Advance(101);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_FALSE(dead("j").has_value());
}

// Collects the newest dead versions whose value is "wiped", whatever newer data there is: the
// writers of such a key put a wipe before any lower version (storage/compaction_filter.h).
class WipedCollector final : public DeadVersionKeeper {
 public:
  bool CollectsNewestDead(std::string_view, const RowMeta&, std::string_view value,
                          bool) const override {
    return value == "wiped";
  }
};

// A background compaction to the bottom asks the filter even while the memtable, outside it,
// holds rows of its range with smaller timestamps (steady writes), and a lower version of the key
// written after a wipe then reads as it did before the collection.
TEST_F(ExpiryTest, ACollectableDeadVersionGoesWhileNewerDataMayRankBelow) {
  options_.compaction_filter = std::make_shared<WipedCollector>();
  options_.l0_compaction_trigger = 1;
  Open();
  WriteOptions at200;
  at200.timestamp_ms = 200;
  WriteBatch batch;
  batch.Delete(at200, "k", "wiped");
  batch.Delete(at200, "m", "kept");
  ASSERT_TRUE(db_->Write(at200, batch).ok());
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Put("j", "newer", 100);  // the memtable: newer data of the range, ranked below the tombstones
  WriteOptions at150;
  at150.timestamp_ms = 150;
  WriteBatch lower;
  lower.Wipe(at150, "k");
  lower.Put(at150, "k", "lower", clock_->NowMs());
  ASSERT_TRUE(db_->Write(at150, lower).ok());
  for (int i = 0; i < 50 && impl()->RunBackgroundCycle(); i++) {
  }
  EXPECT_EQ(db_->GetStats().dead_versions_collected, 1u);
  EXPECT_EQ(Get("k"), "lower");
  EXPECT_EQ(Get("k", 1000), "lower");
  EXPECT_EQ(Get("j"), "newer");
  std::optional<DeadVersion> kept;
  ReadOptions ro;
  ro.dead_version = &kept;
  Row row;
  ASSERT_TRUE(db_->Get(ro, "m", &row).IsNotFound());
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->value, "kept");
}

// EXPIRE rewrites a key's version with the same timestamp and an expiry, so a flush writes the
// expiring version with the one it replaced beneath it, in one table. Once due, the purge
// compaction drops the replaced version's bytes (no read can take it: the newer one ties its
// timestamp) and leaves a file that is not due again — also while newer data overlaps the table,
// which keeps the compaction from seeing the key's whole history, and when the expired version
// stays to hide an older live one.
TEST_F(ExpiryTest, APurgedExpiryRewriteLeavesNothingDue) {
  options_.purge_deadline_ms = 1000;
  options_.whole_file_expiry = false;
  options_.compression = Compression::kNone;
  Open();
  const int64_t now = clock_->NowMs();
  const std::string secret = "value-of-the-key-that-expired";
  Put("a", "first");
  Put("k", secret, now);
  Put("k", secret, now, 100);   // EXPIRE k: the same version, now expiring
  Put("o", "older", now - 10);  // an expiring version over an older, live one
  Put("o", secret + "-o", now, 100);
  Put("z", "last");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Put("m", "newer");           // in the memtable, inside the table's key range
  clock_->Advance(100 + 500);  // expired and due
  int cycles = 0;
  while (cycles < 50 && impl()->RunBackgroundCycle()) cycles++;
  EXPECT_LT(cycles, 50) << "the purge compaction leaves a file that is due again";
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  EXPECT_EQ(Get("k", std::numeric_limits<int64_t>::max()), "NOT_FOUND");
  EXPECT_EQ(Get("o"), "NOT_FOUND");
  EXPECT_EQ(Get("o", 20), "NOT_FOUND");
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    if (entry.path().extension() != ".sst") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes.find(secret), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace ebb::storage
