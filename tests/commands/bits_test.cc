// SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, INCRBYFLOAT, OBJECT and TOUCH as Redis 7 documents
// them: replies, error texts, BYTE/BIT ranges with negative indexes, offset limits, and the
// string rows' rules for writes (a new version at the clock, never below the old one; the
// expiry kept; a key created gets the TTL policy's).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class BitsTest : public CommandTest {};

TEST_F(BitsTest, SetBitAndGetBit) {
  EXPECT_EQ(Do({"SETBIT", "b", "7", "1"}), ":0");
  EXPECT_EQ(Do({"GET", "b"}), "$\x01");
  EXPECT_EQ(Do({"SETBIT", "b", "7", "1"}), ":1");
  EXPECT_EQ(Do({"SETBIT", "b", "0", "1"}), ":0");
  EXPECT_EQ(Do({"GET", "b"}), "$\x81");
  EXPECT_EQ(Do({"SETBIT", "b", "17", "1"}), ":0");  // grows with zero bytes
  EXPECT_EQ(Cmd({"GET", "b"}).str(), std::string("\x81\x00\x40", 3));
  EXPECT_EQ(Do({"SETBIT", "b", "7", "0"}), ":1");
  EXPECT_EQ(Do({"GETBIT", "b", "0"}), ":1");
  EXPECT_EQ(Do({"GETBIT", "b", "7"}), ":0");
  EXPECT_EQ(Do({"GETBIT", "b", "17"}), ":1");
  EXPECT_EQ(Do({"GETBIT", "b", "100000"}), ":0");
  EXPECT_EQ(Do({"GETBIT", "missing", "3"}), ":0");
  EXPECT_EQ(Do({"EXISTS", "missing"}), ":0");
}

TEST_F(BitsTest, BitArgumentErrors) {
  const std::string offset = "-ERR bit offset is not an integer or out of range";
  EXPECT_EQ(Do({"SETBIT", "b", "-1", "1"}), offset);
  EXPECT_EQ(Do({"SETBIT", "b", "x", "1"}), offset);
  EXPECT_EQ(Do({"SETBIT", "b", "4294967296", "1"}), offset);  // byte 512 MB
  EXPECT_EQ(Do({"GETBIT", "b", "4294967296"}), offset);
  EXPECT_EQ(Do({"SETBIT", "b", "1", "2"}), "-ERR bit is not an integer or out of range");
  EXPECT_EQ(Do({"SETBIT", "b", "1", "-1"}), "-ERR bit is not an integer or out of range");
  EXPECT_EQ(Do({"SETBIT", "b", "x", "2"}), offset);  // the offset is checked first
  EXPECT_EQ(Do({"EXISTS", "b"}), ":0");
  // proto-max-bulk-len bounds the offset.
  EXPECT_EQ(Do({"CONFIG", "SET", "proto-max-bulk-len", "1048576"}), "+OK");
  EXPECT_EQ(Do({"SETBIT", "b", "8388608", "1"}), offset);
  EXPECT_EQ(Do({"SETBIT", "b", "8388607", "1"}), ":0");
  EXPECT_EQ(Do({"STRLEN", "b"}), ":1048576");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "1000"}), "+OK");
  EXPECT_EQ(Do({"SETBIT", "log", "1", "1"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(Do({"GETBIT", "log", "1"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(BitsTest, SetBitKeepsTheRowsRules) {
  PinClock(kPinnedNowMs);
  EXPECT_EQ(Do({"SET", "b", "\x01", "PX", "60000"}), "+OK");
  Advance(1000);
  EXPECT_EQ(Do({"SETBIT", "b", "0", "1"}), ":0");
  EXPECT_EQ(Do({"PTTL", "b"}), ":59000");  // the expiry is kept
  EXPECT_EQ(Do({"GET", "b"}), "$\x81");
  // A key SETBIT creates gets the TTL policy's expiry (none here).
  EXPECT_EQ(Do({"SETBIT", "fresh", "0", "1"}), ":0");
  EXPECT_EQ(Do({"PTTL", "fresh"}), ":-1");
}

TEST_F(BitsTest, BitCount) {
  EXPECT_EQ(Do({"BITCOUNT", "missing"}), ":0");
  EXPECT_EQ(Do({"BITCOUNT", "missing", "0"}), ":0");  // looked up before the range, as Redis
  EXPECT_EQ(Do({"SET", "s", "foobar"}), "+OK");
  EXPECT_EQ(Do({"BITCOUNT", "s"}), ":26");
  EXPECT_EQ(Do({"BITCOUNT", "s", "0", "0"}), ":4");
  EXPECT_EQ(Do({"BITCOUNT", "s", "1", "1"}), ":6");
  EXPECT_EQ(Do({"BITCOUNT", "s", "1", "1", "BYTE"}), ":6");
  EXPECT_EQ(Do({"BITCOUNT", "s", "5", "30", "BIT"}), ":17");
  EXPECT_EQ(Do({"BITCOUNT", "s", "-2", "-1"}), ":7");
  EXPECT_EQ(Do({"BITCOUNT", "s", "-1", "-2"}), ":0");
  EXPECT_EQ(Do({"BITCOUNT", "s", "0", "1000"}), ":26");
  EXPECT_EQ(Do({"BITCOUNT", "s", "0", "1000", "bit"}), ":26");
  EXPECT_EQ(Do({"BITCOUNT", "s", "0"}), "-ERR syntax error");
  EXPECT_EQ(Do({"BITCOUNT", "s", "0", "1", "hello"}), "-ERR syntax error");
  EXPECT_EQ(Do({"BITCOUNT", "s", "0", "1", "BIT", "x"}), "-ERR syntax error");
  EXPECT_EQ(Do({"BITCOUNT", "s", "a", "1"}), "-ERR value is not an integer or out of range");
  // Misaligned BIT ranges over whole words.
  std::string big(64, '\xff');
  EXPECT_EQ(Do({"SET", "big", big}), "+OK");
  EXPECT_EQ(Do({"BITCOUNT", "big", "3", "500", "BIT"}), ":498");
}

TEST_F(BitsTest, BitPos) {
  EXPECT_EQ(Do({"BITPOS", "missing", "0"}), ":0");
  EXPECT_EQ(Do({"BITPOS", "missing", "1"}), ":-1");
  EXPECT_EQ(Do({"BITPOS", "missing", "2"}), "-ERR The bit argument must be 1 or 0.");
  EXPECT_EQ(Cmd({"SET", "s", std::string("\xff\xf0\x00", 3)}).ToString(), "OK");
  EXPECT_EQ(Do({"BITPOS", "s", "0"}), ":12");
  EXPECT_EQ(Do({"BITPOS", "s", "1", "2"}), ":-1");
  EXPECT_EQ(Do({"BITPOS", "s", "1", "1"}), ":8");
  EXPECT_EQ(Do({"BITPOS", "s", "0", "2", "-1", "BYTE"}), ":16");
  EXPECT_EQ(Do({"BITPOS", "s", "1", "7", "15", "BIT"}), ":7");
  EXPECT_EQ(Do({"BITPOS", "s", "0", "7", "11", "BIT"}), ":-1");  // none clear in the range
  EXPECT_EQ(Do({"SET", "ones", "\xff\xff"}), "+OK");
  EXPECT_EQ(Do({"BITPOS", "ones", "0"}), ":16");             // no end: past the string
  EXPECT_EQ(Do({"BITPOS", "ones", "0", "0"}), ":16");        // start only: the same
  EXPECT_EQ(Do({"BITPOS", "ones", "0", "0", "-1"}), ":-1");  // an end given: none
  EXPECT_EQ(Do({"BITPOS", "ones", "1", "3", "2"}), ":-1");   // empty range
  EXPECT_EQ(Do({"BITPOS", "ones", "1", "0", "1", "nope"}), "-ERR syntax error");
  EXPECT_EQ(Do({"SET", "empty", ""}), "+OK");
  EXPECT_EQ(Do({"BITPOS", "empty", "0"}), ":-1");
}

TEST_F(BitsTest, BitOp) {
  EXPECT_EQ(Do({"SET", "a", "\xf0\x0f"}), "+OK");
  EXPECT_EQ(Do({"SET", "b", "\xff"}), "+OK");
  EXPECT_EQ(Do({"BITOP", "AND", "d", "a", "b"}), ":2");
  EXPECT_EQ(Cmd({"GET", "d"}).str(), std::string("\xf0\x00", 2));
  EXPECT_EQ(Do({"BITOP", "or", "d", "a", "b", "missing"}), ":2");
  EXPECT_EQ(Cmd({"GET", "d"}).str(), std::string("\xff\x0f", 2));
  EXPECT_EQ(Do({"BITOP", "XOR", "d", "a", "b"}), ":2");
  EXPECT_EQ(Cmd({"GET", "d"}).str(), std::string("\x0f\x0f", 2));
  EXPECT_EQ(Do({"BITOP", "NOT", "d", "a"}), ":2");
  EXPECT_EQ(Cmd({"GET", "d"}).str(), std::string("\x0f\xf0", 2));
  EXPECT_EQ(Do({"BITOP", "NOT", "d", "a", "b"}),
            "-ERR BITOP NOT must be called with a single source key.");
  EXPECT_EQ(Do({"BITOP", "NAND", "d", "a"}), "-ERR syntax error");
  // An empty result deletes the destination.
  EXPECT_EQ(Do({"BITOP", "AND", "d", "missing", "other"}), ":0");
  EXPECT_EQ(Do({"EXISTS", "d"}), ":0");
  EXPECT_EQ(Do({"TREG", "SET", "reg", "v", "1000"}), "+OK");
  EXPECT_EQ(Do({"BITOP", "AND", "d", "a", "reg"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(Do({"EXISTS", "d"}), ":0");
  // The destination is overwritten whatever it held, its TTL dropped.
  EXPECT_EQ(Do({"SET", "d", "x", "EX", "100"}), "+OK");
  EXPECT_EQ(Do({"BITOP", "OR", "d", "b"}), ":1");
  EXPECT_EQ(Do({"TTL", "d"}), ":-1");
}

TEST_F(BitsTest, BitField) {
  EXPECT_EQ(Do({"BITFIELD", "f", "SET", "i8", "0", "-100", "GET", "i8", "0"}), "[:0,:-100]");
  EXPECT_EQ(Do({"BITFIELD", "f", "SET", "u8", "#1", "255", "GET", "u4", "8"}), "[:0,:15]");
  EXPECT_EQ(Do({"STRLEN", "f"}), ":2");
  EXPECT_EQ(Do({"BITFIELD", "f", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "INCRBY", "u2",
                "102", "5", "OVERFLOW", "FAIL", "INCRBY", "i4", "104", "8"}),
            "[:1,:3,nil]");
  EXPECT_EQ(Do({"BITFIELD", "f", "OVERFLOW", "WRAP", "INCRBY", "i8", "0", "-100"}), "[:56]");
  EXPECT_EQ(Do({"BITFIELD", "f"}), "[]");
  EXPECT_EQ(Do({"BITFIELD_RO", "f", "GET", "i8", "0", "GET", "u8", "8"}), "[:56,:255]");
  EXPECT_EQ(Do({"BITFIELD_RO", "missing", "GET", "u8", "0"}), "[:0]");
  EXPECT_EQ(Do({"EXISTS", "missing"}), ":0");
  EXPECT_EQ(Do({"BITFIELD_RO", "f", "SET", "u8", "0", "1"}),
            "-ERR BITFIELD_RO only supports the GET subcommand");
  const std::string type_error =
      "-ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
      "i64 is.";
  EXPECT_EQ(Do({"BITFIELD", "f", "GET", "u64", "0"}), type_error);
  EXPECT_EQ(Do({"BITFIELD", "f", "GET", "i65", "0"}), type_error);
  EXPECT_EQ(Do({"BITFIELD", "f", "GET", "x8", "0"}), type_error);
  EXPECT_EQ(Do({"BITFIELD", "f", "OVERFLOW", "NOPE"}), "-ERR Invalid OVERFLOW type specified");
  EXPECT_EQ(Do({"BITFIELD", "f", "GET", "u8"}), "-ERR syntax error");
  EXPECT_EQ(Do({"BITFIELD", "f", "SET", "u8", "-1", "1"}),
            "-ERR bit offset is not an integer or out of range");
  EXPECT_EQ(Do({"BITFIELD", "f", "SET", "u8", "0", "x"}),
            "-ERR value is not an integer or out of range");
  // A FAIL on a missing key still creates it, zero-filled to the field, as Redis.
  EXPECT_EQ(Do({"BITFIELD", "g", "OVERFLOW", "FAIL", "SET", "u2", "8", "7"}), "[nil]");
  EXPECT_EQ(Cmd({"GET", "g"}).str(), std::string(2, '\0'));
  // The expiry is kept.
  PinClock(kPinnedNowMs);
  EXPECT_EQ(Do({"SET", "t", "a", "PX", "5000"}), "+OK");
  Advance(1000);
  EXPECT_EQ(Do({"BITFIELD", "t", "SET", "u8", "0", "98"}), "[:97]");
  EXPECT_EQ(Do({"GET", "t"}), "$b");
  EXPECT_EQ(Do({"PTTL", "t"}), ":4000");
}

TEST_F(BitsTest, Lcs) {
  EXPECT_EQ(Do({"MSET", "key1", "ohmytext", "key2", "mynewtext"}), "+OK");
  EXPECT_EQ(Do({"LCS", "key1", "key2"}), "$mytext");
  EXPECT_EQ(Do({"LCS", "key1", "key2", "LEN"}), ":6");
  EXPECT_EQ(Do({"LCS", "key1", "key2", "IDX"}),
            "[$matches,[[[:4,:7],[:5,:8]],[[:2,:3],[:0,:1]]],$len,:6]");
  EXPECT_EQ(Do({"LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"}),
            "[$matches,[[[:4,:7],[:5,:8],:4]],$len,:6]");
  EXPECT_EQ(Do({"LCS", "key1", "missing"}), "$");
  EXPECT_EQ(Do({"LCS", "key1", "key2", "LEN", "IDX"}),
            "-ERR If you want both the length and indexes, please just use IDX.");
  EXPECT_EQ(Do({"LCS", "key1", "key2", "NOPE"}), "-ERR syntax error");
  EXPECT_EQ(Do({"LCS", "key1", "key2", "MINMATCHLEN", "x"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "1000"}), "+OK");
  EXPECT_EQ(Do({"LCS", "key1", "log"}), "-ERR The specified keys must contain string values");
  // The table may not exceed proto-max-bulk-len.
  EXPECT_EQ(Do({"CONFIG", "SET", "proto-max-bulk-len", "1048576"}), "+OK");
  EXPECT_EQ(Do({"SET", "long1", std::string(600, 'a')}), "+OK");
  EXPECT_EQ(Do({"SET", "long2", std::string(600, 'b')}), "+OK");
  EXPECT_EQ(Do({"LCS", "long1", "long2"}),
            "-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
}

TEST_F(BitsTest, IncrByFloat) {
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "1"}), "$1");
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "0.25"}), "$1.25");
  EXPECT_EQ(Do({"SET", "f", "10.50"}), "+OK");
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "0.1"}), "$10.6");
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "-10.6"}), "$0");
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "5.0e3"}), "$5000");
  EXPECT_EQ(Do({"SET", "f", "17179869184"}), "+OK");
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "1.5"}), "$17179869185.5");
  EXPECT_EQ(Do({"SET", "s", " 11"}), "+OK");
  EXPECT_EQ(Do({"INCRBYFLOAT", "s", "1"}), "-ERR value is not a valid float");
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "abc"}), "-ERR value is not a valid float");
  EXPECT_EQ(Do({"INCRBYFLOAT", "f", "+inf"}), "-ERR increment would produce NaN or Infinity");
  EXPECT_EQ(Do({"GET", "f"}), "$17179869185.5");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "1000"}), "+OK");
  EXPECT_EQ(Do({"INCRBYFLOAT", "log", "x"}),  // the type is checked first
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
  // The expiry stays; the version supersedes the old one.
  PinClock(kPinnedNowMs);
  EXPECT_EQ(Do({"SET", "t", "1", "PX", "5000"}), "+OK");
  Advance(1000);
  EXPECT_EQ(Do({"INCRBYFLOAT", "t", "0.5"}), "$1.5");
  EXPECT_EQ(Do({"PTTL", "t"}), ":4000");
}

// Redis 7 leaves a string "raw" after SETRANGE, APPEND to an existing key, SETBIT, BITFIELD and
// BITOP, whatever its value, until a write replaces it (unit/type/string.tcl, "SETRANGE against
// integer-encoded key"); the writes that keep the value keep the encoding.
TEST_F(BitsTest, WritesRedisLeavesRawAreRaw) {
  EXPECT_EQ(Do({"SET", "k", "1234"}), "+OK");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "k"}), "$int");
  EXPECT_EQ(Do({"SETRANGE", "k", "0", "2"}), ":4");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "k"}), "$raw");
  EXPECT_EQ(Do({"GET", "k"}), "$2234");
  EXPECT_EQ(Do({"SET", "k", "1234"}), "+OK");
  EXPECT_EQ(Do({"SETRANGE", "k", "0", ""}), ":4");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "k"}), "$int");  // nothing was set
  EXPECT_EQ(Do({"SETRANGE", "k", "1", "3"}), ":4");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "k"}), "$raw");
  EXPECT_EQ(Do({"SETRANGE", "new", "0", "7"}), ":1");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "new"}), "$raw");
  // APPEND: a new key is encoded as SET's value would be; appending to an existing one is raw.
  EXPECT_EQ(Do({"APPEND", "a", "12"}), ":2");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "a"}), "$int");
  EXPECT_EQ(Do({"APPEND", "a", "3"}), ":3");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "a"}), "$raw");
  EXPECT_EQ(Do({"EXPIRE", "a", "100"}), ":1");
  EXPECT_EQ(Do({"PERSIST", "a"}), ":1");
  EXPECT_EQ(Do({"RENAME", "a", "b"}), "+OK");
  EXPECT_EQ(Do({"COPY", "b", "c"}), ":1");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "b"}), "$raw");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "c"}), "$raw");
  EXPECT_EQ(Do({"TYPE", "c"}), "+string");
  EXPECT_EQ(Do({"INCR", "b"}), ":124");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "b"}), "$int");
  EXPECT_EQ(Do({"SET", "c", "5"}), "+OK");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "c"}), "$int");
  EXPECT_EQ(Do({"SET", "s", "1"}), "+OK");
  EXPECT_EQ(Do({"SETBIT", "s", "6", "1"}), ":0");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "s"}), "$raw");
  EXPECT_EQ(Do({"BITOP", "OR", "dest", "c"}), ":1");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "dest"}), "$raw");
  EXPECT_EQ(Do({"SET", "f", "7"}), "+OK");
  EXPECT_EQ(Do({"BITFIELD", "f", "SET", "u8", "0", "50"}), "[:55]");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "f"}), "$raw");
}

TEST_F(BitsTest, ObjectAndTouch) {
  PinClock(kPinnedNowMs);
  EXPECT_EQ(Do({"SET", "i", "12345"}), "+OK");
  EXPECT_EQ(Do({"SET", "e", "012"}), "+OK");
  EXPECT_EQ(Do({"SET", "r", std::string(45, 'x')}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "1000"}), "+OK");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "i"}), "$int");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "e"}), "$embstr");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "r"}), "$raw");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "log"}), "$tlog");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "missing"}), "nil");
  EXPECT_EQ(Do({"OBJECT", "REFCOUNT", "i"}), ":1");
  Advance(7500);
  EXPECT_EQ(Do({"OBJECT", "IDLETIME", "i"}), ":7");
  EXPECT_TRUE(Do({"OBJECT", "FREQ", "i"}).starts_with("-ERR An LFU maxmemory policy is not"));
  EXPECT_EQ(Do({"OBJECT", "NOPE", "i"}), "-ERR unknown subcommand 'NOPE'. Try OBJECT HELP.");
  EXPECT_EQ(Do({"OBJECT", "ENCODING"}),
            "-ERR wrong number of arguments for 'object|encoding' command");
  EXPECT_EQ(Cmd({"OBJECT", "HELP"}).elements().front().str(),
            "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  EXPECT_EQ(Do({"TOUCH", "i", "missing", "log", "i"}), ":3");
}

}  // namespace
}  // namespace ebb::test
