// TTL policy through the command layer: a write's own option > the first matching ttl-rule >
// default-ttl, NOTTL opting out — from the command line and from CONFIG SET; every duration form;
// `expiration off`. Time is pinned with DEBUG CLOCK, so remaining TTLs are exact.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

// Each test starts its runner with its own options (ebb-server's command line).
class TtlTest : public CommandTest {
 protected:
  void SetUp() override {}
  void StartWith(std::vector<std::string> options) {
    ebb_ = std::make_unique<CommandRunner>(std::move(options));
    PinClock(kPinnedNowMs);
  }
  // PTTL as a number (-1: none, -2: missing).
  std::string Pttl(const std::string& key) { return R({"PTTL", key}); }
};

TEST_F(TtlTest, PrecedenceFromTheCommandLine) {
  StartWith({"--default-ttl", "10s", "--ttl-rule", "session:*", "1m", "--ttl-rule", "keep:*",
             "unlimited", "--ttl-rule", "s*", "5s"});
  ASSERT_EQ(R({"PUT", "plain", "v"}), "OK");
  EXPECT_EQ(Pttl("plain"), "(integer) 10000");  // default-ttl
  ASSERT_EQ(R({"PUT", "session:1", "v"}), "OK");
  EXPECT_EQ(Pttl("session:1"), "(integer) 60000");  // first matching rule, not the later s*
  ASSERT_EQ(R({"PUT", "sx", "v"}), "OK");
  EXPECT_EQ(Pttl("sx"), "(integer) 5000");
  ASSERT_EQ(R({"PUT", "keep:1", "v"}), "OK");
  EXPECT_EQ(Pttl("keep:1"), "(integer) -1");  // an unlimited rule beats default-ttl
  ASSERT_EQ(R({"PUT", "session:2", "v", "TTL", "3s"}), "OK");
  EXPECT_EQ(Pttl("session:2"), "(integer) 3000");  // the write's own option wins
  ASSERT_EQ(R({"PUT", "session:3", "v", "NOTTL"}), "OK");
  EXPECT_EQ(Pttl("session:3"), "(integer) -1");
  ASSERT_EQ(R({"PUT", "plain2", "v", "NOTTL"}), "OK");
  EXPECT_EQ(Pttl("plain2"), "(integer) -1");

  // The Redis string commands follow the same policy when they give no TTL.
  ASSERT_EQ(R({"SET", "a", "v"}), "OK");
  EXPECT_EQ(Pttl("a"), "(integer) 10000");
  ASSERT_EQ(R({"SET", "session:4", "v", "PX", "1234"}), "OK");
  EXPECT_EQ(Pttl("session:4"), "(integer) 1234");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "1000"}), "OK");
  ASSERT_EQ(R({"SET", "session:4", "w", "KEEPTTL"}), "OK");
  EXPECT_EQ(Pttl("session:4"), "(integer) 234");
  ASSERT_EQ(R({"MSET", "m1", "1", "session:m", "2"}), "OK");
  EXPECT_EQ(Pttl("m1"), "(integer) 10000");
  EXPECT_EQ(Pttl("session:m"), "(integer) 60000");
  EXPECT_EQ(R({"INCR", "counter"}), "(integer) 1");
  EXPECT_EQ(Pttl("counter"), "(integer) 10000");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "400"}), "OK");
  EXPECT_EQ(R({"INCR", "counter"}), "(integer) 2");  // an existing key keeps its expiry
  EXPECT_EQ(Pttl("counter"), "(integer) 9600");
  EXPECT_EQ(R({"APPEND", "session:5", "x"}), "(integer) 1");
  EXPECT_EQ(Pttl("session:5"), "(integer) 60000");
  EXPECT_EQ(R({"SETNX", "nx", "v"}), "(integer) 1");
  EXPECT_EQ(Pttl("nx"), "(integer) 10000");
  EXPECT_EQ(R({"GETSET", "keep:2", "v"}), "(nil)");
  EXPECT_EQ(Pttl("keep:2"), "(integer) -1");

  // And the policy's expiry is real: default-ttl keys vanish after 10 s.
  ASSERT_EQ(R({"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 10'000)}), "OK");
  EXPECT_EQ(R({"GET", "plain"}), "(nil)");
  EXPECT_EQ(R({"GET", "keep:1"}), "\"v\"");
}

TEST_F(TtlTest, PolicyFollowsConfigSet) {
  StartWith({});
  ASSERT_EQ(R({"PUT", "a", "v"}), "OK");
  EXPECT_EQ(Pttl("a"), "(integer) -1");  // default-ttl unlimited, no rules
  ASSERT_EQ(R({"CONFIG", "SET", "default-ttl", "2h"}), "OK");
  ASSERT_EQ(R({"PUT", "a", "v"}), "OK");
  EXPECT_EQ(Pttl("a"), "(integer) 7200000");
  ASSERT_EQ(R({"CONFIG", "SET", "ttl-rule", "x:* 2s y:* unlimited"}), "OK");
  ASSERT_EQ(R({"PUT", "x:1", "v"}), "OK");
  EXPECT_EQ(Pttl("x:1"), "(integer) 2000");
  ASSERT_EQ(R({"SET", "y:1", "v"}), "OK");
  EXPECT_EQ(Pttl("y:1"), "(integer) -1");
  ASSERT_EQ(R({"PUT", "b", "v"}), "OK");
  EXPECT_EQ(Pttl("b"), "(integer) 7200000");
  ASSERT_EQ(R({"CONFIG", "SET", "default-ttl", "unlimited"}), "OK");
  ASSERT_EQ(R({"PUT", "b", "v"}), "OK");
  EXPECT_EQ(Pttl("b"), "(integer) -1");
  // Rows keep the expiry they were written with when the policy changes later.
  EXPECT_EQ(Pttl("a"), "(integer) 7200000");
}

TEST_F(TtlTest, ASeriesWithoutRetentionTakesThePolicyWindow) {
  StartWith(
      {"--default-ttl", "10s", "--ttl-rule", "m:*", "2s", "--ttl-rule", "keep:*", "unlimited"});
  ASSERT_EQ(R({"TS.ADD", "m:1", "1000", "1"}), "(integer) 1000");  // created by TS.ADD
  ASSERT_EQ(R({"TS.CREATE", "m:2"}), "OK");
  ASSERT_EQ(R({"TS.CREATE", "m:3", "RETENTION", "0"}), "OK");  // its own: keep everything
  ASSERT_EQ(R({"TS.INCRBY", "plain", "1", "TIMESTAMP", "1000"}), "(integer) 1000");
  ASSERT_EQ(R({"TS.CREATE", "keep:1"}), "OK");
  for (const char* key : {"m:1", "m:2", "m:3", "plain", "keep:1"}) {
    ASSERT_EQ(R({"TS.ADD", key, "1000", "1", "ON_DUPLICATE", "LAST"}), "(integer) 1000");
    ASSERT_EQ(R({"TS.ADD", key, "5000", "2"}), "(integer) 5000");
  }
  // A window is measured from the newest sample, as RETENTION's is.
  EXPECT_EQ(R({"TS.RANGE", "m:1", "-", "+"}), "1) 1) (integer) 5000\n   2) 2");
  EXPECT_EQ(R({"TS.RANGE", "m:2", "-", "+"}), "1) 1) (integer) 5000\n   2) 2");
  EXPECT_EQ(R({"TS.ADD", "m:2", "2999", "1"}),
            "(error) ERR TSDB: Timestamp is older than retention");
  EXPECT_EQ(R({"TS.RANGE", "m:3", "-", "+", "COUNT", "1"}), "1) 1) (integer) 1000\n   2) 1");
  EXPECT_EQ(R({"TS.RANGE", "plain", "-", "+", "COUNT", "1"}), "1) 1) (integer) 1000\n   2) 1");
  EXPECT_EQ(R({"TS.RANGE", "keep:1", "-", "+", "COUNT", "1"}), "1) 1) (integer) 1000\n   2) 1");
  ASSERT_EQ(R({"TS.ADD", "plain", "20000", "3"}), "(integer) 20000");  // default-ttl: 10 s
  EXPECT_EQ(R({"TS.RANGE", "plain", "-", "+", "COUNT", "1"}), "1) 1) (integer) 20000\n   2) 3");
  // The window is the series' own from then on: TS.ALTER changes it, the policy does not.
  ASSERT_EQ(R({"CONFIG", "SET", "ttl-rule", ""}), "OK");
  ASSERT_EQ(R({"TS.ADD", "m:1", "5001", "4"}), "(integer) 5001");
  EXPECT_EQ(R({"TS.ADD", "m:1", "2999", "1"}),
            "(error) ERR TSDB: Timestamp is older than retention");
  ASSERT_EQ(R({"TS.ALTER", "m:1", "RETENTION", "0"}), "OK");
  EXPECT_EQ(R({"TS.ADD", "m:1", "2999", "1"}), "(integer) 2999");
}

TEST_F(TtlTest, EveryDurationForm) {
  StartWith({});
  const std::vector<std::pair<std::string, std::string>> forms = {
      {"1500", "1500"},         {"1500ms", "1500"},   {"90s", "90000"},    {"2m", "120000"},
      {"1h", "3600000"},        {"1d", "86400000"},   {"1w", "604800000"}, {"1f", "1209600000"},
      {"2d7h32m", "199920000"}, {"1h30m", "5400000"}, {"1s500ms", "1500"}, {"0", "0"}};
  for (const auto& [text, ms] : forms) {
    ASSERT_EQ(R({"PUT", "k", "v", "TTL", text}), "OK") << text;
    if (ms == "0") {
      EXPECT_EQ(R({"GET", "k"}), "(nil)") << "a zero TTL expires at once";
    } else {
      EXPECT_EQ(Pttl("k"), "(integer) " + ms) << text;
    }
  }
  ASSERT_EQ(R({"PUT", "k", "v", "TTL", "unlimited"}), "OK");
  EXPECT_EQ(Pttl("k"), "(integer) -1");
  for (const std::string bad : {"", "5x", "m", "-5s", "1.5s", "s5", "1 s", "+5", "5S", "ms",
                                "99999999999999999999", "1000000000000000f"}) {
    EXPECT_EQ(R({"PUT", "k", "v", "TTL", bad}), "(error) ERR invalid duration '" + bad + "'")
        << bad;
  }
}

TEST_F(TtlTest, ExpirationOffRecordsButNothingExpires) {
  StartWith({"--expiration", "off"});
  ASSERT_EQ(R({"PUT", "a", "v", "TTL", "100"}), "OK");
  ASSERT_EQ(R({"SET", "b", "v", "PX", "100"}), "OK");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "1000"}), "OK");
  EXPECT_EQ(R({"GET", "a"}), "\"v\"");
  EXPECT_EQ(R({"GET", "b"}), "\"v\"");
  EXPECT_EQ(R({"GETMETA", "a"}), "1) \"value\"\n2) \"v\"\n3) \"ts\"\n4) (integer) " +
                                     std::to_string(kPinnedNowMs) +
                                     "\n5) \"ttl\"\n6) (integer) 0\n7) \"expire_at\"\n8) "
                                     "(integer) " +
                                     std::to_string(kPinnedNowMs + 100));
  ASSERT_EQ(R({"CONFIG", "SET", "expiration", "on"}), "OK");
  EXPECT_EQ(R({"GET", "a"}), "(nil)");
  EXPECT_EQ(R({"GET", "b"}), "(nil)");
  // Off again: what has expired stays expired; what has not stops expiring.
  ASSERT_EQ(R({"CONFIG", "SET", "expiration", "off"}), "OK");
  EXPECT_EQ(R({"GET", "a"}), "(nil)");
  ASSERT_EQ(R({"PUT", "c", "v", "TTL", "100"}), "OK");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "1000"}), "OK");
  EXPECT_EQ(R({"GET", "c"}), "\"v\"");
  // The frozen expiry clock survives a restart (the server's clock moves on after it).
  ebb_->Reopen();
  ASSERT_EQ(R({"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 2000)}), "OK");
  EXPECT_EQ(R({"GET", "c"}), "\"v\"");
  EXPECT_EQ(R({"GET", "a"}), "(nil)");
}

}  // namespace
}  // namespace ebb::test
