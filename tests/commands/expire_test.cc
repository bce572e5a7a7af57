// Expiry commands through the command layer, as Redis's own expire.tcl checks them, on string,
// TREG and TLOG keys, with DEBUG CLOCK instead of sleeping; restarts keep expiries exactly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class ExpireTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
  }
  static std::string Int(int64_t v) { return "(integer) " + std::to_string(v); }
};

TEST_F(ExpireTest, SetTimeoutsMultipleTimesThenTheKeyExpires) {
  ASSERT_EQ(R({"SET", "x", "foobar"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "x", "5"}), Int(1));
  EXPECT_EQ(R({"TTL", "x"}), Int(5));
  EXPECT_EQ(R({"EXPIRE", "x", "10"}), Int(1));
  EXPECT_EQ(R({"TTL", "x"}), Int(10));
  EXPECT_EQ(R({"EXPIRE", "x", "2"}), Int(1));
  EXPECT_EQ(R({"GET", "x"}), "\"foobar\"");
  Advance(1999);
  EXPECT_EQ(R({"GET", "x"}), "\"foobar\"");
  EXPECT_EQ(R({"PTTL", "x"}), Int(1));
  Advance(1);
  EXPECT_EQ(R({"GET", "x"}), "(nil)");
  EXPECT_EQ(R({"TTL", "x"}), Int(-2));
  // Writing the key again after it expired works and starts without a TTL.
  ASSERT_EQ(R({"SET", "x", "again"}), "OK");
  EXPECT_EQ(R({"TTL", "x"}), Int(-1));
}

TEST_F(ExpireTest, ExpireAtAndPexpireAt) {
  ASSERT_EQ(R({"SET", "x", "foo"}), "OK");
  EXPECT_EQ(R({"EXPIREAT", "x", std::to_string(kPinnedNowMs / 1000 + 2)}), Int(1));
  EXPECT_EQ(R({"PTTL", "x"}), Int(2000));
  EXPECT_EQ(R({"PEXPIREAT", "x", std::to_string(kPinnedNowMs + 150)}), Int(1));
  EXPECT_EQ(R({"PTTL", "x"}), Int(150));
  EXPECT_EQ(R({"PEXPIRETIME", "x"}), Int(kPinnedNowMs + 150));
  EXPECT_EQ(R({"EXPIRETIME", "x"}), Int((kPinnedNowMs + 150) / 1000));
  Advance(149);
  EXPECT_EQ(R({"EXISTS", "x"}), Int(1));
  Advance(1);
  EXPECT_EQ(R({"EXISTS", "x"}), Int(0));
}

TEST_F(ExpireTest, PexpireSetsSubSecondExpiresAndTtlRounds) {
  ASSERT_EQ(R({"SET", "x", "v"}), "OK");
  EXPECT_EQ(R({"PEXPIRE", "x", "1499"}), Int(1));
  EXPECT_EQ(R({"TTL", "x"}), Int(1));  // (1499 + 500) / 1000
  EXPECT_EQ(R({"PEXPIRE", "x", "1500"}), Int(1));
  EXPECT_EQ(R({"TTL", "x"}), Int(2));
  EXPECT_EQ(R({"PTTL", "x"}), Int(1500));
}

TEST_F(ExpireTest, PersistUndoesAnExpire) {
  ASSERT_EQ(R({"SET", "x", "foo"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "x", "50"}), Int(1));
  EXPECT_EQ(R({"TTL", "x"}), Int(50));
  EXPECT_EQ(R({"PERSIST", "x"}), Int(1));
  EXPECT_EQ(R({"TTL", "x"}), Int(-1));
  EXPECT_EQ(R({"GET", "x"}), "\"foo\"");
  EXPECT_EQ(R({"PERSIST", "x"}), Int(0));        // not volatile
  EXPECT_EQ(R({"PERSIST", "missing"}), Int(0));  // not there
}

TEST_F(ExpireTest, NoExpiryAndMissingKeyReplies) {
  ASSERT_EQ(R({"SET", "foo", "bar"}), "OK");
  for (const char* cmd : {"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"}) {
    EXPECT_EQ(R({cmd, "foo"}), Int(-1)) << cmd;
    EXPECT_EQ(R({cmd, "missing"}), Int(-2)) << cmd;
  }
}

TEST_F(ExpireTest, OverflowsAreInvalidExpireTimes) {
  ASSERT_EQ(R({"SET", "foo", "bar"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "foo", "10000000000000000"}),
            "(error) ERR invalid expire time in 'expire' command");
  EXPECT_EQ(R({"EXPIRE", "foo", "9223370399119966"}),
            "(error) ERR invalid expire time in 'expire' command");
  EXPECT_EQ(R({"EXPIRE", "foo", "-9223372036854775808"}),
            "(error) ERR invalid expire time in 'expire' command");
  EXPECT_EQ(R({"PEXPIRE", "foo", "9223372036854770000"}),
            "(error) ERR invalid expire time in 'pexpire' command");
  EXPECT_EQ(R({"EXPIREAT", "foo", "9223372036854776"}),
            "(error) ERR invalid expire time in 'expireat' command");
  EXPECT_EQ(R({"TTL", "foo"}), Int(-1));  // untouched
  EXPECT_EQ(R({"EXPIRE", "foo", "922337039911996"}), Int(1));
  EXPECT_EQ(R({"PEXPIREAT", "foo", "9223372036854770000"}), Int(1));
  EXPECT_EQ(R({"PEXPIRETIME", "foo"}), Int(9223372036854770000));
  EXPECT_EQ(R({"PEXPIREAT", "foo", "-9223372036854770000"}), Int(1));
  EXPECT_EQ(R({"TTL", "foo"}), Int(-2));
}

TEST_F(ExpireTest, BadArguments) {
  ASSERT_EQ(R({"SET", "foo", "bar"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "foo", "ten"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"EXPIRE", "foo", "+1"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"EXPIRE", "foo"}), "(error) ERR wrong number of arguments for 'expire' command");
  EXPECT_EQ(R({"TTL"}), "(error) ERR wrong number of arguments for 'ttl' command");
  EXPECT_EQ(R({"EXPIRE", "foo", "200", "AB"}), "(error) ERR Unsupported option AB");
  EXPECT_EQ(R({"EXPIRE", "foo", "200", "NX", "XX"}),
            "(error) ERR NX and XX, GT or LT options at the same time are not compatible");
  EXPECT_EQ(R({"EXPIRE", "foo", "200", "NX", "GT"}),
            "(error) ERR NX and XX, GT or LT options at the same time are not compatible");
  EXPECT_EQ(R({"EXPIRE", "foo", "200", "NX", "LT"}),
            "(error) ERR NX and XX, GT or LT options at the same time are not compatible");
  EXPECT_EQ(R({"EXPIRE", "foo", "200", "GT", "LT"}),
            "(error) ERR GT and LT options at the same time are not compatible");
  EXPECT_EQ(R({"TTL", "foo"}), Int(-1));
}

TEST_F(ExpireTest, ConditionsNxXxGtLt) {
  ASSERT_EQ(R({"SET", "foo", "bar", "EX", "100"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "foo", "200", "NX"}), Int(0));
  EXPECT_EQ(R({"TTL", "foo"}), Int(100));
  EXPECT_EQ(R({"EXPIRE", "foo", "200", "XX"}), Int(1));
  EXPECT_EQ(R({"TTL", "foo"}), Int(200));
  EXPECT_EQ(R({"EXPIRE", "foo", "100", "GT"}), Int(0));
  EXPECT_EQ(R({"EXPIRE", "foo", "300", "gt"}), Int(1));
  EXPECT_EQ(R({"TTL", "foo"}), Int(300));
  EXPECT_EQ(R({"EXPIRE", "foo", "400", "LT"}), Int(0));
  EXPECT_EQ(R({"EXPIRE", "foo", "150", "LT", "XX"}), Int(1));
  EXPECT_EQ(R({"TTL", "foo"}), Int(150));
  EXPECT_EQ(R({"EXPIRE", "foo", "250", "XX", "GT"}), Int(1));
  EXPECT_EQ(R({"TTL", "foo"}), Int(250));

  ASSERT_EQ(R({"SET", "p", "bar"}), "OK");  // persistent: an infinite TTL
  EXPECT_EQ(R({"EXPIRE", "p", "200", "XX"}), Int(0));
  EXPECT_EQ(R({"EXPIRE", "p", "200", "GT"}), Int(0));
  EXPECT_EQ(R({"TTL", "p"}), Int(-1));
  EXPECT_EQ(R({"EXPIRE", "p", "100", "LT"}), Int(1));
  EXPECT_EQ(R({"TTL", "p"}), Int(100));
  ASSERT_EQ(R({"PERSIST", "p"}), Int(1));
  EXPECT_EQ(R({"EXPIRE", "p", "100", "NX"}), Int(1));
  EXPECT_EQ(R({"TTL", "p"}), Int(100));

  for (const char* flag : {"NX", "XX", "GT", "LT"}) {
    EXPECT_EQ(R({"EXPIRE", "none", "100", flag}), Int(0)) << flag;
  }
}

TEST_F(ExpireTest, NegativeOrPastTimesDeleteTheKey) {
  ASSERT_EQ(R({"SET", "foo", "bar", "EX", "100"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "foo", "-10", "LT"}), Int(1));
  EXPECT_EQ(R({"TTL", "foo"}), Int(-2));
  ASSERT_EQ(R({"SET", "foo", "bar"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "foo", "-10", "LT"}), Int(1));
  EXPECT_EQ(R({"EXISTS", "foo"}), Int(0));
  ASSERT_EQ(R({"SET", "foo", "bar"}), "OK");
  EXPECT_EQ(R({"PEXPIREAT", "foo", std::to_string(kPinnedNowMs)}), Int(1));  // exactly now: expired
  EXPECT_EQ(R({"EXISTS", "foo"}), Int(0));
  ASSERT_EQ(R({"SET", "foo", "bar"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "foo", "0"}), Int(1));
  EXPECT_EQ(R({"GET", "foo"}), "(nil)");
}

TEST_F(ExpireTest, WholeTregAndTlogKeysExpire) {
  ASSERT_EQ(R({"TREG", "SET", "reg", "v", "7"}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "log", "a", "1"}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "log", "b", "2"}), "OK");
  EXPECT_EQ(R({"PEXPIRE", "reg", "100"}), Int(1));
  EXPECT_EQ(R({"PEXPIRE", "log", "200"}), Int(1));
  EXPECT_EQ(R({"PTTL", "log"}), Int(200));
  EXPECT_EQ(R({"TLOG", "SIZE", "log"}), Int(2));  // expiry keeps the contents
  EXPECT_EQ(R({"TREG", "GET", "reg"}), "1) \"v\"\n2) (integer) 7");
  Advance(100);
  EXPECT_EQ(R({"TREG", "GET", "reg"}), "(nil)");
  EXPECT_EQ(R({"TYPE", "reg"}), "none");
  EXPECT_EQ(R({"TLOG", "SIZE", "log"}), Int(2));
  Advance(100);
  EXPECT_EQ(R({"TLOG", "SIZE", "log"}), Int(0));
  EXPECT_EQ(R({"TLOG", "GET", "log"}), "(empty array)");
  EXPECT_EQ(R({"EXISTS", "log"}), Int(0));
  // A new log under the same name starts empty.
  ASSERT_EQ(R({"TLOG", "INS", "log", "c", "3"}), "OK");
  EXPECT_EQ(R({"TLOG", "SIZE", "log"}), Int(1));
  EXPECT_EQ(R({"TTL", "log"}), Int(-1));
}

TEST_F(ExpireTest, RestartKeepsExpiriesExactly) {
  // Absolute times far in the future: after a restart the clock is the system clock again.
  const int64_t far = 4'000'000'000'000;
  ASSERT_EQ(R({"SET", "s", "v"}), "OK");
  ASSERT_EQ(R({"PEXPIREAT", "s", std::to_string(far + 1)}), Int(1));
  ASSERT_EQ(R({"TREG", "SET", "r", "v", "1"}), "OK");
  ASSERT_EQ(R({"PEXPIREAT", "r", std::to_string(far + 2)}), Int(1));
  ASSERT_EQ(R({"TLOG", "INS", "l", "v", "1"}), "OK");
  ASSERT_EQ(R({"PEXPIREAT", "l", std::to_string(far + 3)}), Int(1));
  ASSERT_EQ(R({"SET", "p", "v"}), "OK");
  ASSERT_EQ(R({"SET", "short", "v", "PX", "10"}), "OK");
  ebb_->Reopen();
  EXPECT_EQ(R({"PEXPIRETIME", "s"}), Int(far + 1));
  EXPECT_EQ(R({"PEXPIRETIME", "r"}), Int(far + 2));
  EXPECT_EQ(R({"PEXPIRETIME", "l"}), Int(far + 3));
  EXPECT_EQ(R({"PEXPIRETIME", "p"}), Int(-1));
  ASSERT_EQ(R({"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 10)}), "OK");
  EXPECT_EQ(R({"EXISTS", "short"}), Int(0));
  ASSERT_EQ(R({"DEBUG", "CLOCK", "SET", std::to_string(far + 2)}), "OK");
  EXPECT_EQ(R({"EXISTS", "s", "r", "l", "p"}), Int(2));  // s and r gone at their exact ms
}

}  // namespace
}  // namespace ebb::test
