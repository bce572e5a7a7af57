// redis-cli's diagnostic modes against a spawned ebb-server holding strings, TLOGs and TREGs:
// --stat (keys, memory, clients, requests from INFO), --latency / --latency-history /
// --latency-dist (PING round trips), --hotkeys (Redis's own error without an LFU policy) and
// --intrinsic-latency (the client machine alone). --bigkeys, --memkeys and --scan are in
// scan_clients_test.cc. Each run is bounded by `timeout`; stdout is unbuffered so a run cut by
// the timeout still shows what it printed.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class RedisCliDiagnosticsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start()) << server_.error();
    RedisConnection c = server_.Connect();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(Cmd(c.get(), {"SET", "s", "value"}).ToString(), "OK");
    ASSERT_EQ(Cmd(c.get(), {"TLOG", "INS", "l", "entry", "1"}).ToString(), "OK");
    ASSERT_EQ(Cmd(c.get(), {"TREG", "SET", "r", "value", "1"}).ToString(), "OK");
  }

  // `redis-cli <args>` for at most `seconds`; stdout and stderr.
  std::string Cli(const std::string& args, int seconds) {
    int status = 0;
    return Shell("timeout " + std::to_string(seconds) + " stdbuf -o0 redis-cli -h 127.0.0.1 -p " +
                     std::to_string(server_.port()) + " " + args,
                 &status);
  }

  TestServer server_;
};

TEST_F(RedisCliDiagnosticsTest, StatShowsKeysClientsAndRequests) {
  const std::vector<std::string> lines = Lines(Cli("--stat -i 1", 3));
  ASSERT_GE(lines.size(), 3u) << Cli("--stat -i 1", 3);
  EXPECT_NE(lines[0].find("data"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("keys"), std::string::npos) << lines[1];
  // keys, memory with a unit, 1 client, 0 blocked, a request count, connections.
  const std::regex row(R"(^3 +[0-9.]+[BKMG] +1 +0 +[0-9]+ \(\+[0-9]+\) +[0-9]+ *$)");
  EXPECT_TRUE(std::regex_match(lines[2], row)) << lines[2];
}

TEST_F(RedisCliDiagnosticsTest, LatencyModesMeasurePings) {
  // --latency --raw prints "min max avg samples" once it stops.
  const std::regex raw(R"(^[0-9]+ [0-9]+ [0-9]+\.[0-9]+ [0-9]+$)");
  const std::vector<std::string> latency = Lines(Cli("--latency --raw", 2));
  ASSERT_FALSE(latency.empty());
  EXPECT_TRUE(std::regex_match(latency.back(), raw)) << latency.back();
  // --latency-history prints such lines as samples come, and at the end of each interval a line
  // with the interval's length.
  const std::regex sample(R"(^([0-9]+ [0-9]+ [0-9]+\.[0-9]+ [0-9]+| -- [0-9.]+ seconds range)$)");
  const std::vector<std::string> history = Lines(Cli("--latency-history -i 1 --raw", 3));
  int intervals = 0;
  for (const std::string& line : history) {
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
    if (line.find("seconds range") != std::string::npos) ++intervals;
  }
  EXPECT_GE(intervals, 1);
  // --latency-dist prints its legend, then a row of the spectrum per interval.
  const std::string dist = Cli("--latency-dist -i 1", 3);
  EXPECT_NE(dist.find("milliseconds"), std::string::npos) << dist;
}

TEST_F(RedisCliDiagnosticsTest, HotkeysGivesRedisErrorWithoutAnLfuPolicy) {
  EXPECT_NE(Cli("--hotkeys", 10)
                .find("Error: ERR An LFU maxmemory policy is not selected, access frequency not "
                      "tracked."),
            std::string::npos);
}

TEST_F(RedisCliDiagnosticsTest, IntrinsicLatencyRunsBesideTheServer) {
  const std::string out = Cli("--intrinsic-latency 1", 10);
  EXPECT_NE(out.find("total runs (avg latency:"), std::string::npos) << out;
  RedisConnection c = server_.Connect();
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");
}

}  // namespace
}  // namespace ebb::test
