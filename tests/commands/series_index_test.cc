// The series' label index through the commands (types/series_index.h): after each way a key
// changes, TS.QUERYINDEX answers exactly the live series, and once compaction ran the index holds
// exactly their rows; a restart keeps it; a data directory without it is indexed at start.
#include "types/series_index.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "types/keyspace.h"

namespace ebb::test {
namespace {

class SeriesIndexCommandTest : public CommandTest {
 protected:
  types::Keyspace& keyspace() { return ebb_->context().keyspace(); }
  std::string Query(const std::string& filter) { return Do({"TS.QUERYINDEX", filter}); }
  // Every index row, as "db:label=value:key", in engine order.
  std::vector<std::string> IndexRows() {
    std::vector<std::string> rows;
    const storage::KeyRange range = types::SeriesIndexRange();
    storage::ReadOptions options;
    options.lower_bound = range.begin;
    options.upper_bound = range.end;
    std::unique_ptr<storage::Iterator> it = keyspace().db().NewIterator(options);
    for (it->Seek(range.begin); it->Valid(); it->Next()) {
      types::SeriesIndexEntry e;
      EXPECT_TRUE(types::ParseSeriesIndexKey(it->key(), &e));
      rows.push_back(std::to_string(e.db) + ":" + std::string(e.label) + "=" +
                     std::string(e.value) + ":" + std::string(e.key));
    }
    EXPECT_TRUE(it->status().ok());
    return rows;
  }
  void Compact() {
    ASSERT_TRUE(keyspace().db().FlushMemtable().ok());
    ASSERT_TRUE(keyspace().db().CompactAll().ok());
  }
};

TEST_F(SeriesIndexCommandTest, EveryWayAKeyChanges) {
  PinClock(1'000'000);  // every write in clock order (compaction keeps the newest timestamp)
  for (const char* key : {"del", "unlink", "expire", "rename", "copy", "move", "restore", "alter",
                          "set", "overwritten", "kept"}) {
    ASSERT_EQ(Do({"TS.CREATE", key, "LABELS", "t", "x"}), "+OK") << key;
  }
  ASSERT_EQ(Do({"TS.ADD", "added", "1", "1", "LABELS", "t", "x"}), ":1");  // created by an add
  EXPECT_EQ(Query("t=x"),
            "[$added,$alter,$copy,$del,$expire,$kept,$move,$overwritten,$rename,$restore,$set,"
            "$unlink]");
  ASSERT_EQ(Do({"DEL", "del"}), ":1");
  ASSERT_EQ(Do({"UNLINK", "unlink"}), ":1");
  ASSERT_EQ(Do({"PEXPIRE", "expire", "10"}), ":1");
  Advance(20);
  ASSERT_EQ(Do({"RENAME", "rename", "renamed"}), "+OK");
  ASSERT_EQ(Do({"COPY", "copy", "copied"}), ":1");
  ASSERT_EQ(Do({"MOVE", "move", "1"}), ":1");
  const Reply dump = Cmd({"DUMP", "restore"});
  ASSERT_TRUE(dump.is_string());
  ASSERT_EQ(Do({"DEL", "restore"}), ":1");
  ASSERT_EQ(Do({"RESTORE", "restored", "0", dump.str()}), "+OK");
  ASSERT_EQ(Do({"TS.ALTER", "alter", "LABELS", "t", "y"}), "+OK");
  ASSERT_EQ(Do({"DEL", "set"}), ":1");
  ASSERT_EQ(Do({"SET", "set", "v"}), "+OK");          // a string over a deleted series' name
  ASSERT_EQ(Do({"SET", "overwritten", "v"}), "+OK");  // ... and over a live one
  const std::string live = "[$added,$copied,$copy,$kept,$renamed,$restored]";
  EXPECT_EQ(Query("t=x"), live);
  EXPECT_EQ(Query("t=y"), "[$alter]");
  ASSERT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Query("t=x"), "[$move]");
  ASSERT_EQ(Do({"SELECT", "0"}), "+OK");

  Compact();  // the stale rows go; no row of a live series does
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"0:t=x:added", "0:t=x:copied", "0:t=x:copy",
                                                   "0:t=x:kept", "0:t=x:renamed", "0:t=x:restored",
                                                   "0:t=y:alter", "1:t=x:move"}));
  EXPECT_EQ(Query("t=x"), live);
  ASSERT_EQ(Do({"SELECT", "1"}), "+OK");
  ASSERT_EQ(Do({"FLUSHDB"}), "+OK");
  EXPECT_EQ(Query("t=x"), "[]");
  ASSERT_EQ(Do({"SELECT", "0"}), "+OK");
  EXPECT_EQ(IndexRows().size(), 7u);  // database 0's rows stay
  ASSERT_EQ(Do({"FLUSHALL"}), "+OK");
  EXPECT_EQ(IndexRows(), std::vector<std::string>{});
  EXPECT_EQ(Query("t=x"), "[]");
}

TEST_F(SeriesIndexCommandTest, ATransactionReadsItsOwnIndexRows) {
  ASSERT_EQ(Do({"TS.CREATE", "a", "LABELS", "t", "x"}), "+OK");
  ASSERT_EQ(Do({"MULTI"}), "+OK");
  ASSERT_EQ(Do({"TS.CREATE", "b", "LABELS", "t", "x"}), "+QUEUED");
  ASSERT_EQ(Do({"TS.ALTER", "a", "LABELS", "t", "y"}), "+QUEUED");
  ASSERT_EQ(Do({"TS.QUERYINDEX", "t=x"}), "+QUEUED");
  ASSERT_EQ(Do({"TS.QUERYINDEX", "t=y"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,+OK,[$b],[$a]]");
  EXPECT_EQ(Do({"EVAL",
                "redis.call('TS.CREATE', 'c', 'LABELS', 't', 'x') "
                "return redis.call('TS.QUERYINDEX', 't=x')",
                "0"}),
            "[$b,$c]");
}

TEST_F(SeriesIndexCommandTest, ARestartKeepsTheIndex) {
  ASSERT_EQ(Do({"TS.CREATE", "a", "LABELS", "t", "x", "room", "k"}), "+OK");
  ASSERT_EQ(Do({"TS.CREATE", "b", "LABELS", "t", "x"}), "+OK");
  ebb_->Reopen();
  EXPECT_EQ(Query("t=x"), "[$a,$b]");
  EXPECT_EQ(Do({"TS.QUERYINDEX", "t=x", "room=k"}), "[$a]");
  // In engine order: a label's length comes first.
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"0:t=x:a", "0:t=x:b", "0:room=k:a"}));
}

TEST_F(SeriesIndexCommandTest, ADataDirectoryWithoutTheIndexIsIndexedAtStart) {
  ASSERT_EQ(Do({"TS.CREATE", "a", "LABELS", "t", "x"}), "+OK");
  ASSERT_EQ(Do({"SELECT", "2"}), "+OK");
  ASSERT_EQ(Do({"TS.CREATE", "b", "LABELS", "t", "x"}), "+OK");
  ASSERT_EQ(Do({"SELECT", "0"}), "+OK");
  // What a data directory written before the index holds: no version row, no index row.
  ASSERT_TRUE(keyspace().db().DeleteRange({types::SeriesIndexRange()}).ok());
  ASSERT_TRUE(keyspace()
                  .db()
                  .Delete(storage::WriteOptions(),
                          types::Keyspace::SystemRowKey(types::kSeriesIndexVersionRow))
                  .ok());
  EXPECT_EQ(Query("t=x"), "[$a]");  // unindexed: the walk answers
  ebb_->Reopen();                   // the start indexes it
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"0:t=x:a", "2:t=x:b"}));
  EXPECT_EQ(Query("t=x"), "[$a]");
  std::string version;
  ASSERT_TRUE(keyspace().GetSystemRow(types::kSeriesIndexVersionRow, &version).ok());
  EXPECT_EQ(version, types::kSeriesIndexVersion);
}

}  // namespace
}  // namespace ebb::test
