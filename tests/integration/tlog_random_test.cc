// A randomized run (fixed seed, bounded ops) driving ebb-server and the reference models
// TlogState / TregState with TLOG INS|GET|SIZE|CUTOFF|TRIMAT|TRIM|CLR, DEL, TREG SET|GET, with
// DEBUG FLUSH-MEMTABLE, DEBUG COMPACT and restarts mixed in; every reply is compared.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"
#include "types/tlog_state.h"
#include "types/treg_state.h"

namespace ebb::test {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// An unsigned timestamp as RESP2 carries it: an integer up to 2^63-1, else a bulk string.
std::string Ts(uint64_t ts) {
  return (ts > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? "$" : ":") +
         std::to_string(ts);
}

std::string Entries(const std::vector<types::TlogEntry>& entries) {
  std::string out = "[";
  for (const types::TlogEntry& e : entries) {
    out += (out.size() > 1 ? "," : "") + std::string("[$") + e.value + "," + Ts(e.ts) + "]";
  }
  return out + "]";
}

TEST(TlogRandomTest, ServerMatchesTheModels) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--memtable-size", "4096"})) << server.error();
  RedisConnection conn = server.Connect();
  ASSERT_TRUE(conn != nullptr);

  std::mt19937_64 rng(TestSeed(8086));
  std::map<std::string, types::TlogState> logs;
  std::map<std::string, types::TregState> regs;
  const std::string log_keys[] = {"log:a", "log:b", std::string("log:\0\xff", 6)};
  const std::string reg_keys[] = {"reg:a", "reg:b"};
  int restarts = 0;

  for (int step = 0; step < 500; ++step) {
    const std::string& key = log_keys[rng() % 3];
    types::TlogState& log = logs[key];
    uint64_t ts = rng() % 10 == 0 ? kMax - rng() % 2 : 1000 + rng() % 30;
    std::string value(rng() % 3, 'v');
    for (char& c : value) c = "\0v\xff,"[rng() % 4];
    std::vector<std::string> cmd;
    std::string expected;
    int op = static_cast<int>(rng() % 100);
    if (op < 40) {
      cmd = {"TLOG", "INS", key, value, std::to_string(ts)};
      log.Insert(value, ts);
      expected = "+OK";
    } else if (op < 50) {
      uint64_t count = rng() % 6;
      if (rng() % 3 == 0) {
        cmd = {"TLOG", "GET", key};
        expected = Entries(log.Get(kMax));
      } else {
        cmd = {"TLOG", "GET", key, std::to_string(count)};
        expected = Entries(log.Get(count));
      }
    } else if (op < 55) {
      cmd = {"TLOG", "SIZE", key};
      expected = ":" + std::to_string(log.size());
    } else if (op < 60) {
      cmd = {"TLOG", "CUTOFF", key};
      expected = Ts(log.cutoff());
    } else if (op < 66) {
      uint64_t at = 1000 + rng() % 35;
      cmd = {"TLOG", "TRIMAT", key, std::to_string(at)};
      log.TrimAt(at);
      expected = "+OK";
    } else if (op < 72) {
      uint64_t count = rng() % 5;
      cmd = {"TLOG", "TRIM", key, std::to_string(count)};
      log.Trim(count);
      expected = "+OK";
    } else if (op < 75) {
      cmd = {"TLOG", "CLR", key};
      log.Clear();
      expected = "+OK";
    } else if (op < 78) {
      cmd = {"DEL", key};
      expected = log.exists() ? ":1" : ":0";
      log = types::TlogState();
    } else if (op < 86) {
      const std::string& reg = reg_keys[rng() % 2];
      cmd = {"TREG", "SET", reg, value, std::to_string(ts)};
      regs[reg].Set(value, ts);
      expected = "+OK";
    } else if (op < 92) {
      const std::string& reg = reg_keys[rng() % 2];
      const types::TregState& state = regs[reg];
      cmd = {"TREG", "GET", reg};
      expected = state.present() ? "[$" + state.value() + "," + Ts(state.ts()) + "]" : "nil";
    } else if (op < 95) {
      cmd = {"DEBUG", "FLUSH-MEMTABLE"};
      expected = "+OK";
    } else if (op < 98 || restarts >= 4) {
      cmd = {"DEBUG", "COMPACT"};
      expected = "+OK";
    } else {
      ++restarts;
      ASSERT_TRUE(server.Restart()) << server.error();
      conn = server.Connect();
      ASSERT_TRUE(conn != nullptr);
      continue;
    }
    ASSERT_EQ(Canon(Cmd(conn.get(), cmd)), expected)
        << "step " << step << ": " << cmd[0] << " " << cmd[1];
  }

  // A full final comparison of every key.
  for (const auto& [key, log] : logs) {
    EXPECT_EQ(Canon(Cmd(conn.get(), {"TLOG", "GET", key})), Entries(log.Get(kMax)));
    EXPECT_EQ(Canon(Cmd(conn.get(), {"TLOG", "SIZE", key})), ":" + std::to_string(log.size()));
    EXPECT_EQ(Canon(Cmd(conn.get(), {"TLOG", "CUTOFF", key})), Ts(log.cutoff()));
    EXPECT_EQ(Canon(Cmd(conn.get(), {"EXISTS", key})), log.exists() ? ":1" : ":0");
  }
}

}  // namespace
}  // namespace ebb::test
