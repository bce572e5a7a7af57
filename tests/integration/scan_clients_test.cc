// SCAN through the clients Redis users run, against a spawned ebb-server holding thousands of
// keys with long names (strings, TLOGs, TREGs): redis-cli --scan (with and without --pattern),
// --bigkeys and --memkeys, and hiredis with the cursor parsed into a uint64_t by strtoull, as
// redis-cli does — each must see every key.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr int kStrings = 3000;
constexpr int kLogs = 100;
constexpr int kRegisters = 100;
constexpr int kKeys = kStrings + kLogs + kRegisters;

class ScanClientsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start()) << server_.error();
    c_ = server_.Connect();
    ASSERT_NE(c_, nullptr);
    const std::string name(100, 'n');
    std::vector<std::vector<std::string>> writes;
    for (int i = 0; i < kStrings; ++i) {
      const std::string key = "str:" + name + ":" + std::to_string(i);
      writes.push_back({"SET", key, std::string(i % 50 + 1, 'v')});
      strings_.insert(key);
    }
    for (int i = 0; i < kLogs; ++i) {
      const std::string key = "log:" + name + ":" + std::to_string(i);
      writes.push_back({"TLOG", "INS", key, "element", std::to_string(i + 1)});
      logs_.insert(key);
    }
    for (int i = 0; i < kRegisters; ++i) {
      const std::string key = "reg:" + name + ":" + std::to_string(i);
      writes.push_back({"TREG", "SET", key, "field", "1"});
      registers_.insert(key);
    }
    for (const auto& write : writes) Append(c_.get(), write);
    for (size_t i = 0; i < writes.size(); ++i) {
      const Reply reply = ReadReply(c_.get());
      ASSERT_EQ(reply.ToString(), "OK") << writes[i][0] << " " << writes[i][1];
    }
    ASSERT_EQ(Cmd(c_.get(), {"DBSIZE"}).integer(), kKeys);
    all_ = strings_;
    all_.insert(logs_.begin(), logs_.end());
    all_.insert(registers_.begin(), registers_.end());
  }

  // redis-cli against the server with `args`; its output (stdout and stderr), status in *status.
  std::string Cli(const std::string& args, int* status) {
    return Shell(
        "timeout 60 redis-cli -h 127.0.0.1 -p " + std::to_string(server_.port()) + " " + args,
        status);
  }

  TestServer server_;
  RedisConnection c_;
  std::set<std::string> strings_, logs_, registers_, all_;
};

TEST_F(ScanClientsTest, RedisCliScanListsEveryKey) {
  int status = 0;
  const std::vector<std::string> keys = Lines(Cli("--scan", &status));
  ASSERT_EQ(status, 0);
  EXPECT_EQ(keys.size(), all_.size());
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()), all_);
}

TEST_F(ScanClientsTest, RedisCliScanWithAPatternListsEveryMatchingKey) {
  int status = 0;
  const std::vector<std::string> logs = Lines(Cli("--scan --pattern 'log*'", &status));
  ASSERT_EQ(status, 0);
  EXPECT_EQ(std::set<std::string>(logs.begin(), logs.end()), logs_);
  const std::vector<std::string> regs = Lines(Cli("--scan --pattern 'r*'", &status));
  ASSERT_EQ(status, 0);
  EXPECT_EQ(std::set<std::string>(regs.begin(), regs.end()), registers_);
}

TEST_F(ScanClientsTest, RedisCliBigKeysSamplesEveryKeyAndSizesStrings) {
  int status = 0;
  const std::string out = Cli("--bigkeys", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("Sampled " + std::to_string(kKeys) + " keys in the keyspace!"),
            std::string::npos)
      << out;
  // STRLEN sizes the strings: 60 of each length 1..50.
  EXPECT_NE(
      out.find(std::to_string(kStrings) + " strings with " + std::to_string(60 * 1275) + " bytes"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find(std::to_string(kLogs) + " tlogs"), std::string::npos) << out;
  EXPECT_NE(out.find(std::to_string(kRegisters) + " tregs"), std::string::npos) << out;
}

TEST_F(ScanClientsTest, RedisCliMemKeysSamplesEveryKey) {
  int status = 0;
  const std::string out = Cli("--memkeys", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("Sampled " + std::to_string(kKeys) + " keys in the keyspace!"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(std::to_string(kStrings) + " strings with "), std::string::npos) << out;
  // MEMORY USAGE sizes every key: the biggest string and the strings' total are not 0 bytes.
  EXPECT_EQ(out.find(std::to_string(kStrings) + " strings with 0 bytes"), std::string::npos) << out;
  EXPECT_NE(out.find("Biggest string found"), std::string::npos) << out;
}

// hiredis, as redis-cli's own loop: the cursor parsed with strtoull into a uint64_t and sent
// back as that number's decimal.
TEST_F(ScanClientsTest, HiredisLoopWithA64BitCursorSeesEveryKey) {
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int calls = 0;
  do {
    const Reply reply = Cmd(c_.get(), {"SCAN", std::to_string(cursor), "COUNT", "25"});
    ASSERT_EQ(reply.size(), 2u) << reply.ToString();
    const std::string text = reply[0].str();
    errno = 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    ASSERT_EQ(errno, 0) << "cursor overflows a 64-bit integer: " << text;
    ASSERT_EQ(*end, '\0') << text;
    cursor = value;
    for (const Reply& key : reply[1].elements()) seen.insert(key.str());
  } while (cursor != 0 && ++calls < 10000);
  EXPECT_EQ(cursor, 0u);
  EXPECT_EQ(seen, all_);
}

}  // namespace
}  // namespace ebb::test
