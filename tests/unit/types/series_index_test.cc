// The series' label index (types/series_index.h): its rows' bytes, what a query reads with 10,000
// other keys beside its series, the build of an engine written before the index, and compaction
// dropping the rows of series that no longer hold their labels — never one a series holds.
#include "types/series_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/replication_record.h"
#include "tests/unit/types/series_fixture.h"
#include "types/kv.h"
#include "types/series_query.h"

namespace ebb::types {
namespace {

class SeriesIndexTest : public SeriesTypesTest {
 protected:
  void SetUp() override {
    SeriesTypesTest::SetUp();
    SeriesIndexBuild build;
    ASSERT_TRUE(BuildSeriesIndex(*ks_, &build).ok());
    EXPECT_TRUE(build.built);  // a new engine: indexed at once, nothing to index
    EXPECT_EQ(build.series, 0u);
  }

  void Create(std::string_view key, SeriesLabelPairs labels, int db = 0) {
    SeriesSettings settings;
    settings.labels = std::move(labels);
    ASSERT_TRUE(Value(Series(*ks_, db).Create(key, settings)));
  }
  // Every index row, as "db:label=value:key", in engine order.
  std::vector<std::string> IndexRows() {
    std::vector<std::string> rows;
    const storage::KeyRange range = SeriesIndexRange();
    storage::ReadOptions options;
    options.lower_bound = range.begin;
    options.upper_bound = range.end;
    std::unique_ptr<storage::Iterator> it = ks_->db().NewIterator(options);
    for (it->Seek(range.begin); it->Valid(); it->Next()) {
      SeriesIndexEntry e;
      EXPECT_TRUE(ParseSeriesIndexKey(it->key(), &e));
      rows.push_back(std::to_string(e.db) + ":" + std::string(e.label) + "=" +
                     std::string(e.value) + ":" + std::string(e.key));
    }
    EXPECT_TRUE(it->status().ok());
    return rows;
  }
  // The keys FindSeries answers for `filter` (matchers' text), and what it read into *cost.
  std::vector<std::string> Find(const std::vector<std::string>& filter,
                                SeriesQueryCost* cost = nullptr, int db = 0) {
    std::vector<LabelMatcher> matchers;
    for (const std::string& text : filter) matchers.push_back(*ParseLabelMatcher(text));
    std::vector<std::string> keys;
    for (const FoundSeries& f : Value(FindSeries(*ks_, db, matchers, cost))) keys.push_back(f.key);
    return keys;
  }
  void CompactAll() {
    ASSERT_TRUE(ks_->db().FlushMemtable().ok());
    ASSERT_TRUE(ks_->db().CompactAll().ok());
  }
};

TEST_F(SeriesIndexTest, RowBytes) {
  // docs/key-encoding.md's worked example: series "t" of database 2 with room=k.
  EXPECT_EQ(SeriesIndexKey(2, "room", "k", "t"), std::string("\0\xff"
                                                             "ts-label:\x02\x04room\x01kt",
                                                             20));
  SeriesIndexEntry e;
  const std::string binary_key("key\0\xff", 5);
  const std::string row = SeriesIndexKey(7, "a", "", binary_key);
  ASSERT_TRUE(ParseSeriesIndexKey(row, &e));
  EXPECT_EQ(e.db, 7);
  EXPECT_EQ(e.label, "a");
  EXPECT_EQ(e.value, "");
  EXPECT_EQ(e.key, binary_key);
  EXPECT_FALSE(ParseSeriesIndexKey(SystemKey(kSeriesIndexRowPrefix), &e));
  const std::string too_long = std::string(kSeriesIndexRowPrefix) + "\x01\x09" + "ab";
  EXPECT_FALSE(ParseSeriesIndexKey(SystemKey(too_long), &e));  // a length beyond the key
  EXPECT_FALSE(ParseSeriesIndexKey(SystemKey("version-hwm"), &e));
  // Every other system row sorts before the index rows (FLUSHALL's one range starts there).
  for (std::string_view name : {"version-hwm", "series-index", "key-layout", "aa-key:0:k"}) {
    EXPECT_LT(SystemKey(name), SeriesIndexRange().begin) << name;
  }
  // A value's rows are one range: a label or value that extends another is another range.
  const std::string prefix = SeriesIndexValuePrefix(0, "a", "b");
  EXPECT_FALSE(SeriesIndexKey(0, "a", "bc", "k").starts_with(prefix));
  EXPECT_FALSE(SeriesIndexKey(0, "ab", "b", "k").starts_with(prefix));
  EXPECT_TRUE(SeriesIndexKey(0, "a", "b", "k").starts_with(prefix));
}

TEST_F(SeriesIndexTest, AQueryReadsOnlyItsCandidates) {
  std::vector<KvPut> strings;
  std::vector<std::string> names;
  for (int i = 0; i < 10000; ++i) names.push_back("other:" + std::to_string(i));
  for (const std::string& name : names) strings.push_back(KvPut{name, "v", 1});
  ASSERT_TRUE(Kv(*ks_, 0).MultiPut(strings).ok());
  for (int i = 0; i < 50; ++i) Create("s:" + std::to_string(i), {{"room", "hall"}});
  Create("k:2", {{"room", "kitchen"}, {"type", "temp"}});
  Create("k:1", {{"room", "kitchen"}, {"type", "humidity"}});
  Create("k:3", {{"room", "kitchen"}, {"type", "temp"}});

  SeriesQueryCost cost;
  EXPECT_EQ(Find({"room=kitchen", "type!=humidity"}, &cost),
            (std::vector<std::string>{"k:2", "k:3"}));
  EXPECT_TRUE(cost.indexed);
  EXPECT_EQ(cost.index_rows, 3u);  // kitchen's three rows, none of the 10,050 other keys
  EXPECT_EQ(cost.candidates, 3u);  // one metadata read each

  // Two value matchers: the rows are read side by side and the fewer win; the other matcher's
  // rows are read no further than that.
  cost = SeriesQueryCost();
  EXPECT_EQ(Find({"room=(hall,kitchen)", "type=temp"}, &cost),
            (std::vector<std::string>{"k:2", "k:3"}));
  EXPECT_EQ(cost.candidates, 2u);
  EXPECT_LE(cost.index_rows, 2u * 3u);
  cost = SeriesQueryCost();
  EXPECT_EQ(Find({"room=hall", "type=nope"}, &cost), std::vector<std::string>{});
  EXPECT_EQ(cost.candidates, 0u);
  EXPECT_LE(cost.index_rows, 1u);
  EXPECT_EQ(Find({"room=()"}), std::vector<std::string>{});

  // Many value matchers: the index is read for the first 16 different ones (an iterator each).
  std::vector<std::string> many(100, "room=hall");
  for (int i = 0; i < 30; ++i) many.push_back("n" + std::to_string(i) + "=(1,2)");
  many.push_back("room=kitchen");
  cost = SeriesQueryCost();
  EXPECT_EQ(Find(many, &cost), std::vector<std::string>{});
  EXPECT_LE(cost.index_rows, 16u);  // room=hall's first row, the other 15 found none
  EXPECT_EQ(cost.candidates, 0u);
}

TEST_F(SeriesIndexTest, AnEngineWithoutTheIndexIsIndexedOnce) {
  Create("a", {{"t", "x"}, {"u", "1"}});
  Create("b", {{"t", "x"}}, 3);
  Create("c", {});
  // What an engine written before the index holds: no version row, no index row.
  ASSERT_TRUE(ks_->db().DeleteRange({SeriesIndexRange()}).ok());
  ASSERT_TRUE(ks_->db().Delete(storage::WriteOptions(), SystemKey(kSeriesIndexVersionRow)).ok());
  Open();  // a restart
  bool ready = true;
  ASSERT_TRUE(SeriesIndexReady(*ks_, &ready).ok());
  EXPECT_FALSE(ready);
  SeriesQueryCost cost;
  EXPECT_EQ(Find({"t=x"}, &cost), std::vector<std::string>{"a"});  // the walk, as before
  EXPECT_FALSE(cost.indexed);

  SeriesIndexBuild build;
  ASSERT_TRUE(BuildSeriesIndex(*ks_, &build).ok());
  EXPECT_TRUE(build.built);
  EXPECT_EQ(build.series, 3u);
  EXPECT_EQ(build.rows, 3u);
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"0:t=x:a", "0:u=1:a", "3:t=x:b"}));
  cost = SeriesQueryCost();
  EXPECT_EQ(Find({"t=x"}, &cost), std::vector<std::string>{"a"});
  EXPECT_TRUE(cost.indexed);
  EXPECT_EQ(Find({"t=x"}, nullptr, 3), std::vector<std::string>{"b"});
  // Once: a second build (the next start) writes nothing.
  ASSERT_TRUE(BuildSeriesIndex(*ks_, &build).ok());
  EXPECT_FALSE(build.built);
}

TEST_F(SeriesIndexTest, CompactionDropsStaleRowsAndKeepsLiveOnes) {
  Create("gone", {{"t", "x"}});
  Create("altered", {{"t", "x"}, {"u", "1"}});
  Create("recreated", {{"t", "x"}});
  Create("retyped", {{"t", "x"}});
  Create("kept", {{"t", "x"}});
  ASSERT_TRUE(Value(ks_->Delete(0, "gone")));
  SeriesAlter alter;
  alter.labels = SeriesLabelPairs{{"t", "y"}, {"u", "1"}};
  ASSERT_TRUE(series().Alter("altered", alter).ok());
  ASSERT_TRUE(Value(ks_->Delete(0, "recreated")));
  Create("recreated", {{"t", "x"}});
  ASSERT_TRUE(Value(ks_->Delete(0, "retyped")));
  ASSERT_TRUE(Kv(*ks_, 0).MultiPut({KvPut{"retyped", "v", clock_->NowMs()}}).ok());
  // ALTER removed its old row in its own write; DEL and the string leave theirs to compaction.
  EXPECT_EQ(IndexRows(),
            (std::vector<std::string>{"0:t=x:gone", "0:t=x:kept", "0:t=x:recreated",
                                      "0:t=x:retyped", "0:t=y:altered", "0:u=1:altered"}));
  EXPECT_EQ(Find({"t=x"}), (std::vector<std::string>{"kept", "recreated"}));
  CompactAll();
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"0:t=x:kept", "0:t=x:recreated", "0:t=y:altered",
                                                   "0:u=1:altered"}));
  EXPECT_EQ(Find({"t=x"}), (std::vector<std::string>{"kept", "recreated"}));
  EXPECT_EQ(Find({"u=1"}), (std::vector<std::string>{"altered"}));
}

TEST_F(SeriesIndexTest, FlushDropsTheDatabasesRows) {
  Create("a", {{"t", "x"}});
  Create("b", {{"t", "x"}}, 1);
  Create("c", {{"t", "x"}}, 2);
  ASSERT_TRUE(ks_->FlushDb(1).ok());
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"0:t=x:a", "2:t=x:c"}));
  ASSERT_TRUE(ks_->FlushAll().ok());
  EXPECT_EQ(IndexRows(), std::vector<std::string>{});
  bool ready = false;
  ASSERT_TRUE(SeriesIndexReady(*ks_, &ready).ok());
  EXPECT_TRUE(ready);  // the version row stays: an empty engine is indexed
}

// A cluster node's keyspace (the slot layout): rows name database 0, and compaction reads the
// series' metadata rows in that layout.
class SeriesIndexSlotLayoutTest : public SeriesIndexTest {
 protected:
  SeriesIndexSlotLayoutTest() { layout_ = KeyLayout::kBySlot; }
};

TEST_F(SeriesIndexSlotLayoutTest, CompactionReadsTheSlotLayout) {
  Create("{a}1", {{"t", "x"}});
  Create("{b}2", {{"t", "x"}});
  Create("{c}3", {{"t", "x"}});
  ASSERT_TRUE(Value(ks_->Delete(0, "{b}2")));
  EXPECT_EQ(Find({"t=x"}), (std::vector<std::string>{"{a}1", "{c}3"}));
  CompactAll();
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"0:t=x:{a}1", "0:t=x:{c}3"}));
  EXPECT_EQ(Find({"t=x"}), (std::vector<std::string>{"{a}1", "{c}3"}));
}

// The index rows are engine writes: the replication stream carries them, version row included,
// and a replica that applied it answers from its own index.
TEST(SeriesIndexReplicationTest, TheStreamCarriesTheIndex) {
  auto clock = std::make_shared<storage::ManualClock>(1'700'000'000'000);
  storage::Options options;
  options.clock = clock;
  options.wal_fsync = storage::WalFsync::kNo;
  char master_tmpl[] = "/tmp/ebb_types_test_XXXXXX";
  char replica_tmpl[] = "/tmp/ebb_types_test_XXXXXX";
  const std::string master_dir = ::mkdtemp(master_tmpl);
  const std::string replica_dir = ::mkdtemp(replica_tmpl);
  std::unique_ptr<Keyspace> master, replica;
  ASSERT_TRUE(Keyspace::Open(options, master_dir, &master).ok());
  ASSERT_TRUE(Keyspace::Open(options, replica_dir, &replica).ok());
  std::mutex mu;
  std::vector<std::pair<uint64_t, std::string>> records;  // first sequence, payload
  master->db().SetReplicationTap([&](const storage::ReplicationRecord& record) {
    std::lock_guard lock(mu);
    records.emplace_back(record.first_sequence, std::string(record.payload));
  });
  SeriesIndexBuild build;
  ASSERT_TRUE(BuildSeriesIndex(*master, &build).ok());  // the master's start
  SeriesSettings settings;
  settings.labels = {{"t", "x"}};
  ASSERT_TRUE(Value(Series(*master, 0).Create("a", settings)));
  ASSERT_TRUE(Value(Series(*master, 0).Create("b", settings)));
  ASSERT_TRUE(Value(Series(*master, 0).Create("c", settings)));
  SeriesAlter alter;
  alter.labels = SeriesLabelPairs{{"t", "y"}};
  ASSERT_TRUE(Series(*master, 0).Alter("b", alter).ok());
  ASSERT_EQ(Value(master->CopyKey(
                {.src_db = 0, .src = "c", .dst_db = 0, .dst = "d", .remove_source = true})),
            Keyspace::CopyOutcome::kCopied);
  master->db().SetReplicationTap(nullptr);

  for (const auto& [sequence, payload] : records) {
    storage::ReplicationRecord record;
    record.first_sequence = sequence;
    record.payload = payload;
    bool applied = false;
    ASSERT_TRUE(
        storage::ApplyReplicationRecord(&replica->db(), storage::WriteOptions(), record, &applied)
            .ok());
    EXPECT_TRUE(applied);
  }
  bool ready = false;
  ASSERT_TRUE(SeriesIndexReady(*replica, &ready).ok());
  EXPECT_TRUE(ready);
  SeriesQueryCost cost;
  std::vector<std::string> keys;
  for (const FoundSeries& f : Value(FindSeries(*replica, 0, {*ParseLabelMatcher("t=x")}, &cost))) {
    keys.push_back(f.key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "d"}));
  EXPECT_TRUE(cost.indexed);
  EXPECT_EQ(cost.index_rows, 2u);  // b's and c's rows went with the ALTER and the RENAME
  master.reset();
  replica.reset();
  std::error_code ec;
  std::filesystem::remove_all(master_dir, ec);
  std::filesystem::remove_all(replica_dir, ec);
}

}  // namespace
}  // namespace ebb::types
