// MIGRATE runs once, whatever the disk: its reads of the keys it moves wait for table blocks on
// the command thread instead of making the command run again (kCmdNoRestart, as EXEC), because a
// rerun would send the target keys it already restored. A rerun happens when the run's first
// delete needs a block that is not in memory — a flush or compaction that ended while MIGRATE
// waited for the target's replies moved the key to a new table — and it then found the keys still
// here, sent them again and met BUSYKEY (what the cluster nemesis saw under TSan). The source
// reads with a block cache that keeps nothing, its keys in a table file, so a restartable MIGRATE
// would wait for the disk by running again (INFO disk_waits).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class MigrateDiskWaitTest : public ServerTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--block-cache-size", "0", "--use-direct-reads", "yes"};
  }
  void SetUp() override {
    ServerTest::SetUp();
    ASSERT_TRUE(target_.Start()) << target_.error();
    target_conn_ = target_.Connect();
    ASSERT_TRUE(target_conn_ != nullptr);
  }

  TestServer target_;
  RedisConnection target_conn_;
};

TEST_F(MigrateDiskWaitTest, KeysInATableFileMoveInOneRunThatNeverWaitsByRunningAgain) {
  ASSERT_EQ(R({"SET", "a", "1"}), "OK");
  ASSERT_EQ(R({"PUT", "row", "p", "TS", "42"}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "log", "x", "5"}), "OK");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");  // every row in a table file, none in the memtable
  ASSERT_EQ(InfoField(conn_.get(), "storage", "files"), 1);
  const long long waits = InfoField(conn_.get(), "stats", "disk_waits");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", std::to_string(target_.port()), "", "0", "5000", "KEYS", "a",
               "row", "log"}),
            "OK");
  EXPECT_EQ(InfoField(conn_.get(), "stats", "disk_waits"), waits);
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(Cmd(target_conn_.get(), {"GET", "a"}).ToString(), "\"1\"");
  EXPECT_EQ(Cmd(target_conn_.get(), {"GET", "row"}).ToString(), "\"p\"");
  EXPECT_EQ(Cmd(target_conn_.get(), {"TLOG", "SIZE", "log"}).integer(), 1);
}

}  // namespace
}  // namespace ebb::test
