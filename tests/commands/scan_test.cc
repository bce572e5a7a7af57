// SCAN through a real ebb-server, as Redis's scan.tcl checks it (basic, COUNT, MATCH, TYPE,
// expired keys, guarantees under writes), plus INFO keyspace/expired_keys fed by the Keyspace.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"
#include "types/scan_cursor.h"

namespace ebb::test {
namespace {

class ScanTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
  }

  // key:0 .. key:n-1 (value "value:i"); extra args go after the value.
  void Populate(int n, std::vector<std::string> extra = {}) {
    for (int i = 0; i < n; ++i) {
      std::vector<std::string> args = {"SET", "key:" + std::to_string(i),
                                       "value:" + std::to_string(i)};
      args.insert(args.end(), extra.begin(), extra.end());
      ASSERT_EQ(R(args), "OK");
    }
  }

  // A full iteration with `options` after the cursor; `between` runs after each step.
  std::vector<std::string> ScanAll(const std::vector<std::string>& options,
                                   const std::function<void()>& between = nullptr) {
    std::vector<std::string> keys;
    std::string cursor = "0";
    for (int step = 0; step < 20000; ++step) {
      std::vector<std::string> args = {"SCAN", cursor};
      args.insert(args.end(), options.begin(), options.end());
      Reply reply = Cmd(args);
      EXPECT_EQ(reply.size(), 2u) << reply.ToString();
      if (reply.size() != 2) break;
      cursor = reply[0].str();
      for (const Reply& k : reply[1].elements()) keys.push_back(k.str());
      if (cursor == "0") break;
      if (between) between();
    }
    EXPECT_EQ(cursor, "0") << "SCAN did not finish";
    return keys;
  }
  static size_t Unique(const std::vector<std::string>& keys) {
    return std::set<std::string>(keys.begin(), keys.end()).size();
  }
};

TEST_F(ScanTest, Basic) {
  Populate(1000);
  std::vector<std::string> keys = ScanAll({});
  EXPECT_EQ(Unique(keys), 1000u);
  EXPECT_EQ(keys.size(), 1000u);
}

TEST_F(ScanTest, Count) {
  Populate(1000);
  EXPECT_EQ(Unique(ScanAll({"COUNT", "5"})), 1000u);
  Reply first = Cmd({"SCAN", "0", "COUNT", "5"});
  EXPECT_EQ(first[1].size(), 5u);
  EXPECT_NE(first[0].str(), "0");
}

TEST_F(ScanTest, Match) {
  Populate(1000);
  EXPECT_EQ(Unique(ScanAll({"MATCH", "key:1??"})), 100u);
}

TEST_F(ScanTest, Type) {
  Populate(100);
  ASSERT_EQ(R({"TLOG", "INS", "log", "a", "1"}), "OK");
  ASSERT_EQ(R({"TREG", "SET", "reg", "a", "1"}), "OK");
  EXPECT_EQ(ScanAll({"TYPE", "list"}).size(), 0u);  // a type ebb does not have: nothing
  EXPECT_EQ(ScanAll({"TYPE", "string1"}).size(), 0u);
  EXPECT_EQ(Unique(ScanAll({"TYPE", "string"})), 100u);
  EXPECT_EQ(ScanAll({"TYPE", "tlog"}), std::vector<std::string>{"log"});
  EXPECT_EQ(ScanAll({"TYPE", "TREG", "MATCH", "r*"}), std::vector<std::string>{"reg"});
  EXPECT_EQ(Unique(ScanAll({})), 102u);
}

TEST_F(ScanTest, ExpiredKeysAreNotReturned) {
  Populate(1000);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(R({"SET", "expiring:" + std::to_string(i), "v", "PX", "100"}), "OK");
  }
  EXPECT_EQ(Unique(ScanAll({"COUNT", "100"})), 2000u);
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "100"}), "OK");
  EXPECT_EQ(Unique(ScanAll({"COUNT", "100"})), 1000u);
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 1000");
}

TEST_F(ScanTest, GuaranteesUnderWriteLoad) {
  Populate(100);
  // Keys present throughout are all returned, even while others are deleted and added.
  int added = 0;
  std::vector<std::string> keys = ScanAll({"COUNT", "10"}, [&] {
    Cmd({"DEL", "key:" + std::to_string(90 + added % 10)});
    Cmd({"SET", "new:" + std::to_string(added++), "v"});
  });
  std::set<std::string> got(keys.begin(), keys.end());
  EXPECT_EQ(got.size(), keys.size()) << "a key was returned twice";
  for (int i = 0; i < 90; ++i) EXPECT_TRUE(got.count("key:" + std::to_string(i))) << i;
}

// Thousands of keys with long names while keys are written and deleted between calls: every
// cursor is an unsigned integer below 2^53 (what a 64-bit integer or a JavaScript Number holds),
// every key present throughout is returned once, and cursors work from any connection.
TEST_F(ScanTest, LongNamesUnderWriteLoadWithCursorsEveryClientHolds) {
  const std::string prefix = "tenant:" + std::string(120, 'x') + ":object:";
  std::set<std::string> stable;
  for (int i = 0; i < 3000; ++i) {
    const std::string key = prefix + std::to_string(i);
    ASSERT_EQ(R({"SET", key, "v"}), "OK");
    if (i % 10 != 0) stable.insert(key);
  }
  const size_t other = ebb_->AddClient();
  int step = 0;
  std::set<std::string> seen;
  size_t returned = 0;
  std::string cursor = "0";
  for (int calls = 0; calls < 5000; ++calls) {
    // Every other call goes through a second connection (a pool hands out either).
    const std::vector<std::string_view> args = {"SCAN", cursor, "COUNT", "37"};
    Reply reply = ParseResp(calls % 2 ? ebb_->RawAs(other, args) : ebb_->Raw(args));
    ASSERT_EQ(reply.size(), 2u) << reply.ToString();
    cursor = reply[0].str();
    for (const Reply& k : reply[1].elements()) {
      seen.insert(k.str());
      ++returned;
    }
    if (cursor == "0") break;
    const std::optional<uint64_t> value = types::ParseScanCursor(cursor);
    ASSERT_TRUE(value) << cursor;
    EXPECT_LT(*value, uint64_t{1} << 53) << cursor;
    // Between calls: delete and re-add keys that are not stable, add new ones.
    Cmd({"DEL", prefix + std::to_string(10 * (step % 300))});
    Cmd({"SET", prefix + "new:" + std::to_string(step), "v"});
    Cmd({"SET", prefix + std::to_string(10 * ((step + 150) % 300)), "again"});
    ++step;
  }
  EXPECT_EQ(cursor, "0");
  EXPECT_EQ(seen.size(), returned) << "a key was returned twice";
  for (const std::string& key : stable) EXPECT_TRUE(seen.count(key)) << key;
}

TEST_F(ScanTest, Errors) {
  EXPECT_EQ(R({"SCAN", "abc"}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", "-1"}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", "1.5"}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", ""}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", "18446744073709551616"}), "(error) ERR invalid cursor");  // above 2^64-1
  // A number that names no position: never handed out, or no longer held.
  EXPECT_EQ(R({"SCAN", "12345"}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", "18446744073709551615"}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", "4503599627370496"}), "(error) ERR invalid cursor");  // 2^52
  // A malformed cursor is checked before the options, as Redis does.
  EXPECT_EQ(R({"SCAN", "-5", "COUNT", "0"}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", "0", "COUNT", "0"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SCAN", "0", "COUNT", "x"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"SCAN", "0", "MATCH"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SCAN", "0", "FOO", "bar"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SCAN"}), "(error) ERR wrong number of arguments for 'scan' command");
  EXPECT_EQ(R({"SCAN", "0"}), "1) \"0\"\n2) (empty array)");
}

TEST_F(ScanTest, InfoKeyspaceAndExpiredKeys) {
  Populate(10);
  Populate(4, {"PX", "2000"});  // overwrites key:0..3 with a TTL
  std::string info = Cmd({"INFO", "keyspace"}).str();
  EXPECT_NE(info.find("db0:keys=10,expires=4,avg_ttl=2000"), std::string::npos) << info;
  ASSERT_EQ(R({"SET", "gone", "v"}), "OK");
  ASSERT_EQ(R({"EXPIRE", "gone", "-1"}), "(integer) 1");
  std::string stats = Cmd({"INFO", "stats"}).str();
  EXPECT_NE(stats.find("expired_keys:1\r\n"), std::string::npos) << stats;
  // A read that finds a key expired counts it, once.
  ASSERT_EQ(R({"SET", "lazy", "v", "PX", "100"}), "OK");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "100"}), "OK");
  EXPECT_EQ(R({"GET", "lazy"}), "(nil)");
  EXPECT_EQ(R({"EXISTS", "lazy"}), "(integer) 0");
  stats = Cmd({"INFO", "stats"}).str();
  EXPECT_NE(stats.find("expired_keys:2\r\n"), std::string::npos) << stats;
}

}  // namespace
}  // namespace ebb::test
