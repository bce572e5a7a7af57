// The dispatcher's fast path (server/dispatch/dispatcher.h, "The fast path"): a request that no
// check can apply to runs without the checks; any server state a check reads sends it through
// the checked path. Both paths must answer and count alike: replies, INFO commandstats (calls,
// rejected and failed calls per row), errorstats, keyspace hits and misses, commands processed.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class FastPathTest : public CommandTest {
 protected:
  struct Outcome {
    std::vector<std::string> replies;
    std::string commandstats;  // without the timings
    std::string errorstats;
    std::string hits;
    std::string misses;
    std::string processed;
  };

  // The value of `field` in an INFO reply, or "" when absent.
  static std::string Field(const std::string& info, const std::string& field) {
    const std::string key = "\r\n" + field + ":";
    const size_t at = ("\r\n" + info).find(key);
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size() - 2;
    return info.substr(begin, info.find("\r\n", begin) - begin);
  }

  // Reads, hits and misses, writes, a type error, an arity refusal, an unknown subcommand, a
  // subcommand row, from an empty database; then what INFO counted for them.
  Outcome RunWorkload() {
    EXPECT_EQ(Do({"FLUSHALL"}), "+OK");
    EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
    Outcome out;
    const std::vector<std::vector<std::string>> requests = {
        {"SET", "k", "v"},
        {"GET", "k"},
        {"GET", "missing"},
        {"INCR", "k"},
        {"SET", "n", "1"},
        {"INCR", "n"},
        {"GET"},
        {"EXISTS", "k", "missing"},
        {"MGET", "k", "missing"},
        {"TREG", "SET", "r", "v", "5"},
        {"TREG", "GET", "r"},
        {"TREG", "NOSUCH", "r"},
        {"TREG", "GET", "absent"},
        {"DEL", "k"},
        {"GET", "k"},
        {"APPEND", "n", "x"},
        {"PING"},
        {"ECHO", "e"},
    };
    for (const std::vector<std::string>& request : requests) out.replies.push_back(Do(request));
    const std::string stats = Cmd({"INFO", "commandstats"}).str();
    out.commandstats =
        std::regex_replace(stats, std::regex(",usec=[0-9]+,usec_per_call=[0-9.]+"), "");
    out.errorstats = Cmd({"INFO", "errorstats"}).str();
    const std::string info = Cmd({"INFO", "stats"}).str();
    out.hits = Field(info, "keyspace_hits");
    out.misses = Field(info, "keyspace_misses");
    out.processed = Field(info, "total_commands_processed");
    return out;
  }
};

TEST_F(FastPathTest, TheCheckedPathAnswersAndCountsAlike) {
  const Outcome fast = RunWorkload();
  // A maxmemory far above what the test uses refuses nothing, but every request now meets the
  // checks (the OOM check reads it).
  ASSERT_EQ(Do({"CONFIG", "SET", "maxmemory", "1gb"}), "+OK");
  const Outcome checked = RunWorkload();
  ASSERT_EQ(Do({"CONFIG", "SET", "maxmemory", "0"}), "+OK");

  EXPECT_EQ(fast.replies, checked.replies);
  EXPECT_EQ(fast.commandstats, checked.commandstats);
  EXPECT_EQ(fast.errorstats, checked.errorstats);
  EXPECT_EQ(fast.hits, checked.hits);
  EXPECT_EQ(fast.misses, checked.misses);
  EXPECT_EQ(fast.processed, checked.processed);
  // What both counted, so that neither path counts nothing.
  EXPECT_EQ(fast.replies[1], "$v");
  EXPECT_EQ(fast.hits, "3");
  EXPECT_NE(fast.commandstats.find("cmdstat_incr:calls=2,rejected_calls=0,failed_calls=1"),
            std::string::npos)
      << fast.commandstats;
  EXPECT_NE(fast.commandstats.find("cmdstat_get:calls=3,rejected_calls=1,failed_calls=0"),
            std::string::npos)
      << fast.commandstats;
  EXPECT_NE(fast.errorstats.find("errorstat_ERR:count=3"), std::string::npos) << fast.errorstats;
}

// A server state that makes a check apply takes effect on the very next request: the fast path
// gives way to the check, and back once the state is gone.
TEST_F(FastPathTest, AStateThatMakesACheckApplyTakesTheNextRequest) {
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  ASSERT_EQ(Do({"CONFIG", "SET", "maxmemory", "1"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "w"}), "-OOM command not allowed when used memory > 'maxmemory'.");
  EXPECT_EQ(Do({"GET", "k"}), "$v");
  ASSERT_EQ(Do({"CONFIG", "SET", "maxmemory", "0"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "w"}), "+OK");

  ASSERT_EQ(Do({"ACL", "SETUSER", "default", "-get"}), "+OK");
  EXPECT_EQ(Do({"GET", "k"}).substr(0, 8), "-NOPERM ");
  ASSERT_EQ(Do({"ACL", "SETUSER", "default", "+get"}), "+OK");
  EXPECT_EQ(Do({"GET", "k"}), "$w");

  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"GET", "k"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[$w]");
}

}  // namespace
}  // namespace ebb::test
