// The Redis string commands through the command layer, checked as Redis's own test suite checks
// them (tests/unit/type/string.tcl, incr.tcl): replies, error texts, option parsing, TTLs.
// Expiry is driven with DEBUG CLOCK, never by sleeping.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class StringsTest : public CommandTest {
 protected:
  void PinClock(int64_t ms = kPinnedNowMs) { CommandTest::PinClock(ms); }
};

TEST_F(StringsTest, SetAndGet) {
  EXPECT_EQ(R({"SET", "x", "foobar"}), "OK");
  EXPECT_EQ(R({"GET", "x"}), "\"foobar\"");
  EXPECT_EQ(R({"SET", "x", ""}), "OK");
  EXPECT_EQ(R({"GET", "x"}), "\"\"");
  EXPECT_EQ(R({"GET", "never"}), "(nil)");
  EXPECT_EQ(R({"set", "x", "lower"}), "OK");
  EXPECT_EQ(R({"GET", "x"}), "\"lower\"");
}

TEST_F(StringsTest, BigPayloadAndBinaryValues) {
  std::string big;
  for (int i = 0; i < 250'000; i++) big += "abcd";
  EXPECT_EQ(R({"SET", "big", big}), "OK");
  Reply reply = Cmd({"GET", "big"});
  EXPECT_EQ(reply.str(), big);
  const std::string binary("\x00\x01\r\n\xff", 5);
  EXPECT_EQ(R({"SET", std::string("bin\0key", 7), binary}), "OK");
  EXPECT_EQ(Cmd({"GET", std::string("bin\0key", 7)}).str(), binary);
  EXPECT_EQ(R({"GET", "bin"}), "(nil)");
}

TEST_F(StringsTest, ManyNumericKeysReadBackInReverse) {
  for (int i = 0; i < 1000; i++)
    ASSERT_EQ(R({"SET", "num:" + std::to_string(i), std::to_string(i)}), "OK");
  for (int i = 999; i >= 0; i--) {
    ASSERT_EQ(R({"GET", "num:" + std::to_string(i)}), "\"" + std::to_string(i) + "\"");
  }
}

TEST_F(StringsTest, SetNx) {
  EXPECT_EQ(R({"SETNX", "novar", "foobared"}), "(integer) 1");
  EXPECT_EQ(R({"GET", "novar"}), "\"foobared\"");
  EXPECT_EQ(R({"SETNX", "novar", "blabla"}), "(integer) 0");
  EXPECT_EQ(R({"GET", "novar"}), "\"foobared\"");
  EXPECT_EQ(R({"SETNX", "a"}), "(error) ERR wrong number of arguments for 'setnx' command");
}

TEST_F(StringsTest, SetNxAgainstVolatileKeys) {
  PinClock();
  EXPECT_EQ(R({"SET", "vx", "10"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "vx", "10000"}), "(integer) 1");
  EXPECT_EQ(R({"SETNX", "vx", "20"}), "(integer) 0");
  EXPECT_EQ(R({"GET", "vx"}), "\"10\"");
  EXPECT_EQ(R({"SET", "vy", "10"}), "OK");
  EXPECT_EQ(R({"EXPIRE", "vy", "1"}), "(integer) 1");
  Advance(2000);
  EXPECT_EQ(R({"SETNX", "vy", "20"}), "(integer) 1");
  EXPECT_EQ(R({"GET", "vy"}), "\"20\"");
}

TEST_F(StringsTest, ExtendedSetSyntaxErrors) {
  EXPECT_EQ(R({"SET", "foo", "bar", "non-existing-option"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SET", "foo", "bar", "NX", "XX"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SET", "foo", "bar", "EX", "10", "PX", "100"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SET", "foo", "bar", "KEEPTTL", "EX", "10"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SET", "foo", "bar", "EXAT", "10", "KEEPTTL"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SET", "foo", "bar", "EX"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SET", "foo", "bar", "PERSIST"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"SET", "foo"}), "(error) ERR wrong number of arguments for 'set' command");
  EXPECT_EQ(R({"EXISTS", "foo"}), "(integer) 0");
  // The same option twice is accepted (the last wins), as Redis does.
  PinClock();
  EXPECT_EQ(R({"SET", "foo", "bar", "EX", "10", "EX", "20", "NX", "NX"}), "OK");
  EXPECT_EQ(R({"TTL", "foo"}), "(integer) 20");
}

TEST_F(StringsTest, ExtendedSetNxXx) {
  EXPECT_EQ(R({"SET", "sn", "1", "nx"}), "OK");
  EXPECT_EQ(R({"SET", "sn", "2", "nx"}), "(nil)");
  EXPECT_EQ(R({"GET", "sn"}), "\"1\"");
  EXPECT_EQ(R({"SET", "sx", "1", "xx"}), "(nil)");
  EXPECT_EQ(R({"EXISTS", "sx"}), "(integer) 0");
  EXPECT_EQ(R({"SET", "sx", "bar"}), "OK");
  EXPECT_EQ(R({"SET", "sx", "2", "xx"}), "OK");
  EXPECT_EQ(R({"GET", "sx"}), "\"2\"");
}

TEST_F(StringsTest, ExtendedSetGet) {
  EXPECT_EQ(R({"SET", "g1", "bar"}), "OK");
  EXPECT_EQ(R({"SET", "g1", "bar2", "GET"}), "\"bar\"");
  EXPECT_EQ(R({"GET", "g1"}), "\"bar2\"");
  EXPECT_EQ(R({"SET", "g2", "bar", "GET"}), "(nil)");
  EXPECT_EQ(R({"GET", "g2"}), "\"bar\"");
  EXPECT_EQ(R({"SET", "g2", "baz", "GET", "XX"}), "\"bar\"");
  EXPECT_EQ(R({"GET", "g2"}), "\"baz\"");
  EXPECT_EQ(R({"SET", "g3", "bar", "GET", "XX"}), "(nil)");
  EXPECT_EQ(R({"GET", "g3"}), "(nil)");
  EXPECT_EQ(R({"SET", "g4", "bar", "GET", "NX"}), "(nil)");
  EXPECT_EQ(R({"GET", "g4"}), "\"bar\"");
  EXPECT_EQ(R({"SET", "g4", "baz", "GET", "NX"}), "\"bar\"");
  EXPECT_EQ(R({"GET", "g4"}), "\"bar\"");
}

TEST_F(StringsTest, ExtendedSetGetAgainstOtherTypeIsWrongType) {
  ASSERT_EQ(R({"TREG", "SET", "treg1", "waffle", "1"}), "OK");
  EXPECT_EQ(R({"SET", "treg1", "bar", "GET"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(R({"TYPE", "treg1"}), "treg");
  // Without GET, SET overwrites a key of any type.
  EXPECT_EQ(R({"SET", "treg1", "bar"}), "OK");
  EXPECT_EQ(R({"TYPE", "treg1"}), "string");
}

TEST_F(StringsTest, ExtendedSetExpiryOptions) {
  PinClock();
  EXPECT_EQ(R({"SET", "e1", "bar", "ex", "10"}), "OK");
  EXPECT_EQ(R({"PTTL", "e1"}), "(integer) 10000");
  EXPECT_EQ(R({"SET", "e2", "bar", "px", "10000"}), "OK");
  EXPECT_EQ(R({"PTTL", "e2"}), "(integer) 10000");
  EXPECT_EQ(R({"SET", "e3", "bar", "exat", std::to_string(kPinnedNowMs / 1000 + 10)}), "OK");
  EXPECT_EQ(R({"PTTL", "e3"}), "(integer) 10000");
  EXPECT_EQ(R({"SET", "e4", "bar", "pxat", std::to_string(kPinnedNowMs + 10000)}), "OK");
  EXPECT_EQ(R({"PTTL", "e4"}), "(integer) 10000");
  EXPECT_EQ(R({"SET", "e4", "val"}), "OK");
  EXPECT_EQ(R({"SET", "e4", "bar", "xx", "px", "10000"}), "OK");
  EXPECT_EQ(R({"PTTL", "e4"}), "(integer) 10000");
  // KEEPTTL keeps it; a plain SET clears it.
  Advance(4000);
  EXPECT_EQ(R({"SET", "e4", "kept", "KEEPTTL"}), "OK");
  EXPECT_EQ(R({"PTTL", "e4"}), "(integer) 6000");
  EXPECT_EQ(R({"SET", "e4", "plain"}), "OK");
  EXPECT_EQ(R({"PTTL", "e4"}), "(integer) -1");
  // Expiry at the exact millisecond.
  EXPECT_EQ(R({"SET", "e5", "bar", "PX", "100"}), "OK");
  Advance(99);
  EXPECT_EQ(R({"GET", "e5"}), "\"bar\"");
  Advance(1);
  EXPECT_EQ(R({"GET", "e5"}), "(nil)");
  // A past absolute time is valid and leaves the key expired.
  EXPECT_EQ(R({"SET", "e6", "bar", "PXAT", "1"}), "OK");
  EXPECT_EQ(R({"GET", "e6"}), "(nil)");
}

TEST_F(StringsTest, SetInvalidExpireTimes) {
  const std::string err = "(error) ERR invalid expire time in 'set' command";
  EXPECT_EQ(R({"SET", "inv", "bar", "EX", "10000000000000000"}), err);
  EXPECT_EQ(R({"SET", "inv", "bar", "EX", "-9999999999999999"}), err);
  EXPECT_EQ(R({"SET", "inv", "bar", "EX", "0"}), err);
  EXPECT_EQ(R({"SET", "inv", "bar", "PX", "0"}), err);
  EXPECT_EQ(R({"SET", "inv", "bar", "PX", "-1"}), err);
  EXPECT_EQ(R({"SET", "inv", "bar", "EXAT", "0"}), err);
  EXPECT_EQ(R({"SET", "inv", "bar", "PXAT", "-5"}), err);
  EXPECT_EQ(R({"SET", "inv", "bar", "PX", "9223372036854775807"}), err);  // now + px overflows
  EXPECT_EQ(R({"SET", "inv", "bar", "EX", "ten"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"EXISTS", "inv"}), "(integer) 0");
}

TEST_F(StringsTest, SetExAndPSetEx) {
  PinClock();
  EXPECT_EQ(R({"SETEX", "se", "12", "v"}), "OK");
  EXPECT_EQ(R({"GET", "se"}), "\"v\"");
  EXPECT_EQ(R({"TTL", "se"}), "(integer) 12");
  EXPECT_EQ(R({"SETEX", "se", "100", "w"}), "OK");  // overwrite old key
  EXPECT_EQ(R({"GET", "se"}), "\"w\"");
  EXPECT_EQ(R({"TTL", "se"}), "(integer) 100");
  EXPECT_EQ(R({"SETEX", "se", "-10", "x"}), "(error) ERR invalid expire time in 'setex' command");
  EXPECT_EQ(R({"SETEX", "se", "0", "x"}), "(error) ERR invalid expire time in 'setex' command");
  EXPECT_EQ(R({"SETEX", "se", "abc", "x"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"SETEX", "se", "1"}), "(error) ERR wrong number of arguments for 'setex' command");
  EXPECT_EQ(R({"PSETEX", "pse", "900", "v"}), "OK");  // sub-second expires
  EXPECT_EQ(R({"PTTL", "pse"}), "(integer) 900");
  Advance(900);
  EXPECT_EQ(R({"GET", "pse"}), "(nil)");
  EXPECT_EQ(R({"PSETEX", "pse", "0", "v"}), "(error) ERR invalid expire time in 'psetex' command");
}

TEST_F(StringsTest, GetEx) {
  PinClock();
  EXPECT_EQ(R({"SET", "gx", "bar"}), "OK");
  EXPECT_EQ(R({"GETEX", "gx", "ex", "10"}), "\"bar\"");
  EXPECT_EQ(R({"PTTL", "gx"}), "(integer) 10000");
  EXPECT_EQ(R({"GETEX", "gx", "px", "5000"}), "\"bar\"");
  EXPECT_EQ(R({"PTTL", "gx"}), "(integer) 5000");
  EXPECT_EQ(R({"GETEX", "gx", "exat", std::to_string(kPinnedNowMs / 1000 + 7)}), "\"bar\"");
  EXPECT_EQ(R({"PTTL", "gx"}), "(integer) 7000");
  EXPECT_EQ(R({"GETEX", "gx", "pxat", std::to_string(kPinnedNowMs + 3000)}), "\"bar\"");
  EXPECT_EQ(R({"PTTL", "gx"}), "(integer) 3000");
  EXPECT_EQ(R({"GETEX", "gx"}), "\"bar\"");  // no option: the TTL is unchanged
  EXPECT_EQ(R({"PTTL", "gx"}), "(integer) 3000");
  EXPECT_EQ(R({"GETEX", "gx", "persist"}), "\"bar\"");
  EXPECT_EQ(R({"PTTL", "gx"}), "(integer) -1");
  EXPECT_EQ(R({"GETEX", "gx", "non-existent-option"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"GETEX", "gx", "EX", "1", "PERSIST"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"GETEX", "gx", "KEEPTTL"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"GETEX"}), "(error) ERR wrong number of arguments for 'getex' command");
  EXPECT_EQ(R({"GETEX", "gx", "EX", "10000000000000000"}),
            "(error) ERR invalid expire time in 'getex' command");
  EXPECT_EQ(R({"GETEX", "gx", "EX", "-9999999999999999"}),
            "(error) ERR invalid expire time in 'getex' command");
  // A missing key is nil before the expire time is even looked at (Redis's order).
  EXPECT_EQ(R({"GETEX", "missing", "EX", "0"}), "(nil)");
  EXPECT_EQ(R({"SET", "gy", "bar", "PX", "1"}), "OK");
  Advance(2);
  EXPECT_EQ(R({"GETEX", "gy"}), "(nil)");
  EXPECT_EQ(R({"GET", "gy"}), "(nil)");
  // A past absolute time deletes the key after returning it.
  EXPECT_EQ(R({"SET", "gz", "bar"}), "OK");
  EXPECT_EQ(R({"GETEX", "gz", "PXAT", "1"}), "\"bar\"");
  EXPECT_EQ(R({"GET", "gz"}), "(nil)");
}

TEST_F(StringsTest, GetDelAndGetSet) {
  EXPECT_EQ(R({"SET", "gd", "bar"}), "OK");
  EXPECT_EQ(R({"GETDEL", "gd"}), "\"bar\"");
  EXPECT_EQ(R({"GETDEL", "gd"}), "(nil)");
  EXPECT_EQ(R({"EXISTS", "gd"}), "(integer) 0");
  EXPECT_EQ(R({"GETSET", "gs", "xyz"}), "(nil)");
  EXPECT_EQ(R({"GET", "gs"}), "\"xyz\"");
  EXPECT_EQ(R({"GETSET", "gs", "abc"}), "\"xyz\"");
  EXPECT_EQ(R({"GET", "gs"}), "\"abc\"");
  PinClock();
  EXPECT_EQ(R({"SET", "gs", "v", "EX", "100"}), "OK");
  EXPECT_EQ(R({"GETSET", "gs", "w"}), "\"v\"");
  EXPECT_EQ(R({"TTL", "gs"}), "(integer) -1");  // GETSET replaces the TTL like SET
}

TEST_F(StringsTest, MGetMSetMSetNx) {
  EXPECT_EQ(R({"SET", "m:foo", "BAR"}), "OK");
  EXPECT_EQ(R({"SET", "m:bar", "FOO"}), "OK");
  EXPECT_EQ(R({"MGET", "m:foo", "m:bar"}), "1) \"BAR\"\n2) \"FOO\"");
  EXPECT_EQ(R({"MGET", "m:foo", "m:baazz", "m:bar"}), "1) \"BAR\"\n2) (nil)\n3) \"FOO\"");
  EXPECT_EQ(R({"MSET", "m:x", "10", "m:y", "foo bar", "m:z", "x x x x x x x\n\n\r\n"}), "OK");
  EXPECT_EQ(R({"MGET", "m:x", "m:y", "m:z"}),
            "1) \"10\"\n2) \"foo bar\"\n3) \"x x x x x x x\\x0a\\x0a\\x0d\\x0a\"");
  EXPECT_EQ(R({"MSET", "m:x", "10", "m:y", "foo bar", "m:z"}),
            "(error) ERR wrong number of arguments for 'mset' command");
  EXPECT_EQ(R({"MSETNX", "m:x", "20", "m:y", "foo bar", "m:z"}),
            "(error) ERR wrong number of arguments for 'msetnx' command");
  EXPECT_EQ(R({"MSET", "m:x"}), "(error) ERR wrong number of arguments for 'mset' command");
  EXPECT_EQ(R({"MSET", "m:x", "xxx", "m:x", "yyy"}), "OK");
  EXPECT_EQ(R({"GET", "m:x"}), "\"yyy\"");
  EXPECT_EQ(R({"MSETNX", "m:x1", "xxx", "m:y2", "yyy", "m:x", "20"}), "(integer) 0");
  EXPECT_EQ(R({"EXISTS", "m:x1", "m:y2"}), "(integer) 0");
  EXPECT_EQ(R({"MSETNX", "m:x1", "xxx", "m:y2", "yyy"}), "(integer) 1");
  EXPECT_EQ(R({"MGET", "m:x1", "m:y2"}), "1) \"xxx\"\n2) \"yyy\"");
  EXPECT_EQ(R({"MSETNX", "m:x3", "xxx", "m:x3", "yyy"}), "(integer) 1");
  EXPECT_EQ(R({"GET", "m:x3"}), "\"yyy\"");
  EXPECT_EQ(R({"MSETNX", "m:x3", "xxx", "m:x3", "zzz"}), "(integer) 0");
  EXPECT_EQ(R({"GET", "m:x3"}), "\"yyy\"");
}

TEST_F(StringsTest, MGetAgainstOtherTypeIsNil) {
  ASSERT_EQ(R({"SET", "mt:foo", "BAR"}), "OK");
  ASSERT_EQ(R({"TREG", "SET", "mt:reg", "v", "1"}), "OK");
  EXPECT_EQ(R({"MGET", "mt:foo", "mt:none", "mt:reg"}), "1) \"BAR\"\n2) (nil)\n3) (nil)");
  EXPECT_EQ(R({"MSETNX", "mt:new", "1", "mt:reg", "2"}), "(integer) 0");
  EXPECT_EQ(R({"GET", "mt:reg"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(StringsTest, StrLen) {
  EXPECT_EQ(R({"STRLEN", "notakey"}), "(integer) 0");
  EXPECT_EQ(R({"SET", "myinteger", "-555"}), "OK");
  EXPECT_EQ(R({"STRLEN", "myinteger"}), "(integer) 4");
  EXPECT_EQ(R({"SET", "mystring", "foozzz0123456789 baz"}), "OK");
  EXPECT_EQ(R({"STRLEN", "mystring"}), "(integer) 20");
  ASSERT_EQ(R({"TREG", "SET", "strlen:reg", "v", "1"}), "OK");
  EXPECT_EQ(R({"STRLEN", "strlen:reg"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(StringsTest, Append) {
  EXPECT_EQ(R({"APPEND", "ap", "Hello"}), "(integer) 5");
  EXPECT_EQ(R({"APPEND", "ap", " World"}), "(integer) 11");
  EXPECT_EQ(R({"GET", "ap"}), "\"Hello World\"");
  EXPECT_EQ(R({"SET", "ap2", "1"}), "OK");
  EXPECT_EQ(R({"APPEND", "ap2", "2"}), "(integer) 2");
  EXPECT_EQ(R({"GET", "ap2"}), "\"12\"");
  EXPECT_EQ(R({"INCR", "ap2"}), "(integer) 13");
  PinClock();
  EXPECT_EQ(R({"SET", "ap3", "x", "PX", "5000"}), "OK");
  EXPECT_EQ(R({"APPEND", "ap3", "y"}), "(integer) 2");
  EXPECT_EQ(R({"PTTL", "ap3"}), "(integer) 5000");  // APPEND keeps the TTL
  ASSERT_EQ(R({"TREG", "SET", "ap:reg", "v", "1"}), "OK");
  EXPECT_EQ(R({"APPEND", "ap:reg", "x"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(StringsTest, SetRange) {
  EXPECT_EQ(R({"SETRANGE", "sr1", "0", "foo"}), "(integer) 3");
  EXPECT_EQ(R({"GET", "sr1"}), "\"foo\"");
  EXPECT_EQ(R({"SETRANGE", "sr2", "0", ""}), "(integer) 0");
  EXPECT_EQ(R({"EXISTS", "sr2"}), "(integer) 0");
  EXPECT_EQ(R({"SETRANGE", "sr3", "1", "foo"}), "(integer) 4");
  EXPECT_EQ(R({"GET", "sr3"}), "\"\\x00foo\"");
  EXPECT_EQ(R({"SET", "sr4", "foo"}), "OK");
  EXPECT_EQ(R({"SETRANGE", "sr4", "0", "b"}), "(integer) 3");
  EXPECT_EQ(R({"GET", "sr4"}), "\"boo\"");
  EXPECT_EQ(R({"SETRANGE", "sr4", "0", ""}), "(integer) 3");
  EXPECT_EQ(R({"GET", "sr4"}), "\"boo\"");
  EXPECT_EQ(R({"SETRANGE", "sr4", "1", "b"}), "(integer) 3");
  EXPECT_EQ(R({"GET", "sr4"}), "\"bbo\"");
  EXPECT_EQ(R({"SETRANGE", "sr4", "4", "bar"}), "(integer) 7");
  EXPECT_EQ(R({"GET", "sr4"}), "\"bbo\\x00bar\"");
  EXPECT_EQ(R({"SET", "sr5", "1234"}), "OK");
  EXPECT_EQ(R({"SETRANGE", "sr5", "5", "2"}), "(integer) 6");
  EXPECT_EQ(R({"GET", "sr5"}), "\"1234\\x002\"");
  EXPECT_EQ(R({"SETRANGE", "sr5", "-1", "world"}), "(error) ERR offset is out of range");
  EXPECT_EQ(R({"SETRANGE", "sr6", std::to_string(512ll * 1024 * 1024 - 4), "world"}),
            "(error) ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  EXPECT_EQ(R({"SETRANGE", "sr6", "9223372036854775807", "A"}),
            "(error) ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  EXPECT_EQ(R({"EXISTS", "sr6"}), "(integer) 0");
  ASSERT_EQ(R({"TREG", "SET", "sr:reg", "v", "1"}), "OK");
  EXPECT_EQ(R({"SETRANGE", "sr:reg", "0", "bar"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  PinClock();
  EXPECT_EQ(R({"SET", "sr7", "abc", "PX", "3000"}), "OK");
  EXPECT_EQ(R({"SETRANGE", "sr7", "1", "X"}), "(integer) 3");
  EXPECT_EQ(R({"PTTL", "sr7"}), "(integer) 3000");  // SETRANGE keeps the TTL
}

TEST_F(StringsTest, GetRangeAndSubstr) {
  EXPECT_EQ(R({"GETRANGE", "gr:none", "0", "-1"}), "\"\"");
  EXPECT_EQ(R({"SET", "gr", "Hello World"}), "OK");
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{"0", "3"}, "Hell"},
      {{"0", "-1"}, "Hello World"},
      {{"-4", "-1"}, "orld"},
      {{"5", "3"}, ""},
      {{"5", "5000"}, " World"},
      {{"-5000", "10000"}, "Hello World"},
      {{"0", "-100"}, "H"},
      {{"1", "-100"}, ""},
      {{"-1", "-100"}, ""},
      {{"-100", "-99"}, "H"},
      {{"-100", "-100"}, "H"},
      {{"-100", "-101"}, ""},
      {{"0", "4294967297"}, "Hello World"}};
  for (const auto& [range, expected] : cases) {
    EXPECT_EQ(R({"GETRANGE", "gr", range.first, range.second}), "\"" + expected + "\"")
        << range.first << " " << range.second;
  }
  EXPECT_EQ(R({"SET", "gr2", "abcde"}), "OK");
  EXPECT_EQ(R({"SUBSTR", "gr2", "0", "0"}), "\"a\"");
  EXPECT_EQ(R({"SUBSTR", "gr2", "-4", "-1"}), "\"bcde\"");
  EXPECT_EQ(R({"SUBSTR", "gr2", "7", "8"}), "\"\"");
  EXPECT_EQ(R({"GETRANGE", "gr2", "a", "1"}),
            "(error) ERR value is not an integer or out of range");
  ASSERT_EQ(R({"TREG", "SET", "gr:reg", "v", "1"}), "OK");
  EXPECT_EQ(R({"GETRANGE", "gr:reg", "0", "-1"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(StringsTest, IncrDecrFamily) {
  EXPECT_EQ(R({"INCR", "counter"}), "(integer) 1");
  EXPECT_EQ(R({"INCR", "counter"}), "(integer) 2");
  EXPECT_EQ(R({"DECR", "counter"}), "(integer) 1");
  EXPECT_EQ(R({"SET", "counter", "100"}), "OK");
  EXPECT_EQ(R({"INCR", "counter"}), "(integer) 101");
  EXPECT_EQ(R({"SET", "counter", "17179869184"}), "OK");
  EXPECT_EQ(R({"INCR", "counter"}), "(integer) 17179869185");
  EXPECT_EQ(R({"INCRBY", "counter", "17179869184"}), "(integer) 34359738369");
  EXPECT_EQ(R({"DECRBY", "counter", "17179869185"}), "(integer) 17179869184");
  EXPECT_EQ(R({"DECRBY", "counter", "-1"}), "(integer) 17179869185");
  EXPECT_EQ(R({"GET", "counter"}), "\"17179869185\"");
  EXPECT_EQ(R({"DECRBY", "key_not_exist", "1"}), "(integer) -1");
  EXPECT_EQ(R({"INCR", "key_not_exist"}), "(integer) 0");
  EXPECT_EQ(R({"INCRBY", "neg", "-5"}), "(integer) -5");
}

TEST_F(StringsTest, IncrDecrErrors) {
  const std::string not_int = "(error) ERR value is not an integer or out of range";
  for (const std::string bad : {"    11", "11    ", " 11 ", "1.5", "abc", "+1", "01", ""}) {
    ASSERT_EQ(R({"SET", "sp", bad}), "OK");
    EXPECT_EQ(R({"INCR", "sp"}), not_int) << "'" << bad << "'";
    EXPECT_EQ(R({"INCRBY", "sp", "1"}), not_int) << "'" << bad << "'";
    EXPECT_EQ(R({"GET", "sp"}), "\"" + bad + "\"");
  }
  EXPECT_EQ(R({"INCRBY", "ib", "1.5"}), not_int);
  EXPECT_EQ(R({"INCRBY", "ib", "9223372036854775808"}), not_int);
  EXPECT_EQ(R({"DECRBY", "ib", " 1"}), not_int);
  EXPECT_EQ(R({"EXISTS", "ib"}), "(integer) 0");
  EXPECT_EQ(R({"SET", "x0", "0"}), "OK");
  EXPECT_EQ(R({"DECRBY", "x0", "-9223372036854775808"}), "(error) ERR decrement would overflow");
  EXPECT_EQ(R({"SET", "max", "9223372036854775807"}), "OK");
  EXPECT_EQ(R({"INCR", "max"}), "(error) ERR increment or decrement would overflow");
  EXPECT_EQ(R({"SET", "min", "-9223372036854775808"}), "OK");
  EXPECT_EQ(R({"DECR", "min"}), "(error) ERR increment or decrement would overflow");
  EXPECT_EQ(R({"INCRBY", "min", "-1"}), "(error) ERR increment or decrement would overflow");
  EXPECT_EQ(R({"GET", "min"}), "\"-9223372036854775808\"");
  ASSERT_EQ(R({"TREG", "SET", "incr:reg", "v", "1"}), "OK");
  EXPECT_EQ(R({"INCR", "incr:reg"}),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(R({"INCR"}), "(error) ERR wrong number of arguments for 'incr' command");
  EXPECT_EQ(R({"INCRBY", "a"}), "(error) ERR wrong number of arguments for 'incrby' command");
}

TEST_F(StringsTest, IncrKeepsTheTtl) {
  PinClock();
  EXPECT_EQ(R({"SET", "it", "1", "PX", "8000"}), "OK");
  Advance(1000);
  EXPECT_EQ(R({"INCRBY", "it", "5"}), "(integer) 6");
  EXPECT_EQ(R({"PTTL", "it"}), "(integer) 7000");
}

TEST_F(StringsTest, WritesUseTheServerClockAsTimestamp) {
  PinClock(kPinnedNowMs + 777);
  EXPECT_EQ(R({"SET", "clk", "v"}), "OK");
  EXPECT_EQ(R({"GETMETA", "clk"}), "1) \"value\"\n2) \"v\"\n3) \"ts\"\n4) (integer) " +
                                       std::to_string(kPinnedNowMs + 777) +
                                       "\n5) \"ttl\"\n6) (integer) -1\n7) \"expire_at\"\n8) "
                                       "(integer) -1");
}

}  // namespace
}  // namespace ebb::test
