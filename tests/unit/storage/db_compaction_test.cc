// Background work seen from outside: write stalls, the compaction filter, iterators that outlive
// the files they read, stats.
#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "storage/compaction_filter.h"
#include "storage/db/db_impl.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

TEST_F(DBTest, AStopTriggerBelowTheCompactionTriggerStillEndsTheStall) {
  options_.l0_compaction_trigger = 100;  // level 0 is compacted at the stop trigger anyway
  options_.l0_stop_writes_trigger = 2;
  Open();
  for (int i = 0; i < 2; i++) {
    Put(Cat("k", std::to_string(i)), "v");
    ASSERT_TRUE(db_->FlushMemtable().ok());
  }
  // Enough to fill the memtable: the write that needs a third level-0 file waits for the
  // compaction of the two, which the stop trigger calls for.
  for (int i = 0; i < 8; i++) Put(Cat("late", std::to_string(i)), std::string(1000, 'v'));
  EXPECT_EQ(Get("late7"), std::string(1000, 'v'));
  EXPECT_EQ(Get("k1"), "v");
  EXPECT_GE(db_->GetStats().write_stalls + db_->GetStats().compactions, 1u);
}

// Drops values "drop", rewrites "old" to "new", and reads the DB from inside Filter.
class TestFilter final : public CompactionFilter {
 public:
  Decision Filter(std::string_view user_key, const RowMeta&, std::string_view value, int64_t,
                  std::string* new_value) const override {
    calls++;
    if (db != nullptr) {
      Row row;
      db->Get(ReadOptions(), user_key, &row);  // must not deadlock
    }
    if (value == "drop") return Decision::kDrop;
    if (value == "old") {
      *new_value = "new";
      return Decision::kChangeValue;
    }
    return Decision::kKeep;
  }
  const char* Name() const override { return "test"; }
  mutable std::atomic<int> calls{0};
  DB* db = nullptr;
};

TEST_F(DBTest, CompactionFilterDropsAndRewrites) {
  auto filter = std::make_shared<TestFilter>();
  options_.compaction_filter = filter;
  Open();
  filter->db = db_.get();
  Put("a", "drop", 10);
  Put("b", "old", 20);
  Put("c", "keep", 30);
  EXPECT_EQ(Get("a"), "drop");  // the filter only acts in compaction
  ASSERT_TRUE(db_->CompactAll().ok());
  filter->db = nullptr;
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  Row row;
  ASSERT_TRUE(db_->Get(ReadOptions(), "b", &row).ok());
  EXPECT_EQ(row.value, "new");
  EXPECT_EQ(row.meta.timestamp_ms, 20);  // meta kept
  EXPECT_EQ(Get("c"), "keep");
  EXPECT_GE(filter->calls.load(), 3);
  EXPECT_EQ(db_->GetStats().filter_rows_dropped, 1u);
}

// A filter whose StartCompaction hands each compaction its own run, which counts its calls.
class RunCountingFilter final : public CompactionFilter {
 public:
  class Run final : public CompactionFilter {
   public:
    explicit Run(const RunCountingFilter& parent) : parent_(parent) {}
    Decision Filter(std::string_view, const RowMeta&, std::string_view value, int64_t,
                    std::string*) const override {
      parent_.run_calls++;
      return value == "drop" ? Decision::kDrop : Decision::kKeep;
    }
    const char* Name() const override { return "run"; }

   private:
    const RunCountingFilter& parent_;
  };
  Decision Filter(std::string_view, const RowMeta&, std::string_view, int64_t,
                  std::string*) const override {
    direct_calls++;
    return Decision::kKeep;
  }
  std::unique_ptr<CompactionFilter> StartCompaction(const Snapshot* view) const override {
    runs++;
    if (view != nullptr) views++;
    return std::make_unique<Run>(*this);
  }
  const char* Name() const override { return "counting"; }
  mutable std::atomic<int> runs{0}, views{0}, run_calls{0}, direct_calls{0};
};

TEST_F(DBTest, EachCompactionSendsItsFilterCallsToItsOwnRun) {
  auto filter = std::make_shared<RunCountingFilter>();
  options_.compaction_filter = filter;
  Open();
  Put("a", "drop", 10);
  Put("b", "keep", 20);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("b"), "keep");
  EXPECT_GE(filter->runs.load(), 1);
  EXPECT_EQ(filter->views.load(), filter->runs.load());  // each run reads a durable view
  EXPECT_GE(filter->run_calls.load(), 2);
  EXPECT_EQ(filter->direct_calls.load(), 0);
}

TEST_F(DBTest, IteratorOutlivesCompactionOfItsFiles) {
  Open();
  for (int i = 0; i < 300; i++) Put(Cat("key", std::to_string(1000 + i)), std::string(50, 'a'));
  ASSERT_TRUE(db_->FlushMemtable().ok());
  auto it = db_->NewIterator(ReadOptions());
  for (int i = 0; i < 300; i++) Put(Cat("key", std::to_string(1000 + i)), std::string(50, 'b'));
  ASSERT_TRUE(db_->CompactAll().ok());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    EXPECT_EQ(it->value(), std::string(50, 'a'));
  }
  EXPECT_TRUE(it->status().ok());
  EXPECT_EQ(n, 300);
  EXPECT_GT(SstFilesOnDisk(), TotalFiles());  // the iterator still pins the compacted inputs
  it.reset();
  EXPECT_EQ(Get("key1000"), std::string(50, 'b'));
  // Released: the background thread deletes them (bounded wait).
  for (int i = 0; i < 200 && SstFilesOnDisk() != TotalFiles(); i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(SstFilesOnDisk(), TotalFiles());
}

TEST_F(DBTest, StatsReportLevelsAndCounters) {
  Open();
  for (int i = 0; i < 500; i++) Put(Cat("key", std::to_string(i)), std::string(40, 'x'));
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(SstFilesOnDisk(), TotalFiles());  // compaction inputs are deleted at once
  const Stats stats = db_->GetStats();
  ASSERT_EQ(stats.levels.size(), 7u);
  EXPECT_EQ(stats.levels[0].files, 0);
  EXPECT_GT(TotalFiles(), 0);
  EXPECT_GT(stats.flushes, 0u);
  EXPECT_GT(stats.flush_bytes_written, 0u);
  EXPECT_GT(stats.compactions, 0u);
  EXPECT_GT(stats.compaction_bytes_written, 0u);
  EXPECT_GT(stats.wal_bytes, 0u);
  EXPECT_EQ(stats.last_sequence, 500u);
  Get("key1");
  EXPECT_GT(db_->GetStats().block_cache_misses + db_->GetStats().block_cache_hits, 0u);
}

}  // namespace
}  // namespace ebb::storage

namespace ebb::storage {
namespace {

// Without timestamps every version ties at 0, so the newest write wins on every path, whatever
// background compactions merge: a plain key-value map is an exact model.
TEST_F(DBTest, PlainKeyValueModelUnderBackgroundCompaction) {
  options_.level1_max_bytes = 16 << 10;
  options_.target_file_size = 4 << 10;
  Open();
  std::map<std::string, std::string> model;
  std::mt19937 rng(11);
  for (int op = 0; op < 6000; op++) {
    const std::string key = Cat("key", std::to_string(rng() % 400));
    if (rng() % 5 == 0) {
      Del(key);
      model.erase(key);
    } else {
      const std::string value = Cat("v", std::to_string(op)) + std::string(rng() % 60, 'x');
      Put(key, value);
      model[key] = value;
    }
    if (op % 2000 == 700) Reopen();  // not at the end: stats count since Open
  }
  const Stats stats = db_->GetStats();
  EXPECT_GT(stats.compactions, 0u);
  for (int i = 0; i < 400; i++) {
    const std::string key = Cat("key", std::to_string(i));
    auto it = model.find(key);
    ASSERT_EQ(Get(key), it == model.end() ? "NOT_FOUND" : it->second) << key;
  }
  std::string expected;
  for (const auto& [k, v] : model) expected += (expected.empty() ? "" : ",") + k + "=" + v;
  EXPECT_EQ(Scan(), expected);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Scan(), expected);
}

}  // namespace
}  // namespace ebb::storage
