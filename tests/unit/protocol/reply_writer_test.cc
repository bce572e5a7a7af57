#include "protocol/reply_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace ebb::protocol {
namespace {

// The bytes `write` appends in RESP2 and in RESP3.
std::string Resp(int version, const std::function<void(ReplyWriter&)>& write) {
  std::string out;
  ReplyWriter writer(&out, version);
  write(writer);
  return out;
}

void ExpectBoth(const std::function<void(ReplyWriter&)>& write, const std::string& resp2,
                const std::string& resp3) {
  EXPECT_EQ(Resp(2, write), resp2);
  EXPECT_EQ(Resp(3, write), resp3);
}

TEST(ReplyWriterTest, SameInBothProtocols) {
  ExpectBoth([](ReplyWriter& w) { w.Ok(); }, "+OK\r\n", "+OK\r\n");
  ExpectBoth([](ReplyWriter& w) { w.SimpleString("PONG"); }, "+PONG\r\n", "+PONG\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Integer(0); }, ":0\r\n", ":0\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Integer(-42); }, ":-42\r\n", ":-42\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Integer(INT64_MIN); }, ":-9223372036854775808\r\n",
             ":-9223372036854775808\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Bulk("hello"); }, "$5\r\nhello\r\n", "$5\r\nhello\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Bulk(""); }, "$0\r\n\r\n", "$0\r\n\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Bulk(std::string("a\0\r\n", 4)); },
             std::string("$4\r\na\0\r\n\r\n", 10), std::string("$4\r\na\0\r\n\r\n", 10));
  ExpectBoth([](ReplyWriter& w) { w.ArrayHeader(3); }, "*3\r\n", "*3\r\n");
  ExpectBoth([](ReplyWriter& w) { w.ArrayHeader(0); }, "*0\r\n", "*0\r\n");
}

// Bulk lays out values under 100 bytes in one piece and longer ones in three: the lengths on
// both sides of each digit count and of that bound.
TEST(ReplyWriterTest, BulkLengths) {
  for (size_t n : {1, 9, 10, 11, 99, 100, 101, 1000}) {
    const std::string value(n, 'v');
    const std::string expected = "$" + std::to_string(n) + "\r\n" + value + "\r\n";
    EXPECT_EQ(Resp(2, [&](ReplyWriter& w) { w.Bulk(value); }), expected) << n;
  }
  std::string out = "+OK\r\n";  // appended after what the buffer holds
  ReplyWriter writer(&out, 2);
  writer.Bulk("ab");
  EXPECT_EQ(out, "+OK\r\n$2\r\nab\r\n");
}

// BulkAndUnsigned writes what ArrayHeader(2), Bulk and Unsigned write, in one piece or not.
TEST(ReplyWriterTest, BulkAndUnsignedIsAnArrayOfBoth) {
  const std::string long_value(150, 'x');
  for (const std::string& value :
       {std::string(), std::string("v"), std::string(99, 'y'), std::string(100, 'z'), long_value}) {
    for (uint64_t v : {uint64_t{0}, uint64_t{1764475200123}, uint64_t{INT64_MAX},
                       uint64_t{INT64_MAX} + 1, UINT64_MAX}) {
      for (int version : {2, 3}) {
        const std::string one = Resp(version, [&](ReplyWriter& w) { w.BulkAndUnsigned(value, v); });
        const std::string parts = Resp(version, [&](ReplyWriter& w) {
          w.ArrayHeader(2);
          w.Bulk(value);
          w.Unsigned(v);
        });
        EXPECT_EQ(one, parts) << value.size() << " " << v << " RESP" << version;
      }
    }
  }
  EXPECT_EQ(Resp(2, [](ReplyWriter& w) { w.BulkAndUnsigned("ab", 42); }),
            "*2\r\n$2\r\nab\r\n:42\r\n");
}

TEST(ReplyWriterTest, Errors) {
  ExpectBoth([](ReplyWriter& w) { w.Error("ERR syntax error"); }, "-ERR syntax error\r\n",
             "-ERR syntax error\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Error("-WRONGTYPE x"); }, "-WRONGTYPE x\r\n",
             "-WRONGTYPE x\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Error("ERR a\r\nb\nc"); }, "-ERR a  b c\r\n",
             "-ERR a  b c\r\n");
  ExpectBoth([](ReplyWriter& w) { w.SimpleString("x\ny"); }, "+x y\r\n", "+x y\r\n");
}

TEST(ReplyWriterTest, Unsigned) {
  ExpectBoth([](ReplyWriter& w) { w.Unsigned(7); }, ":7\r\n", ":7\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Unsigned(INT64_MAX); }, ":9223372036854775807\r\n",
             ":9223372036854775807\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Unsigned(uint64_t{INT64_MAX} + 1); },
             "$19\r\n9223372036854775808\r\n", "(9223372036854775808\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Unsigned(UINT64_MAX); }, "$20\r\n18446744073709551615\r\n",
             "(18446744073709551615\r\n");
}

TEST(ReplyWriterTest, Nulls) {
  ExpectBoth([](ReplyWriter& w) { w.Null(); }, "$-1\r\n", "_\r\n");
  ExpectBoth([](ReplyWriter& w) { w.NullArray(); }, "*-1\r\n", "_\r\n");
}

TEST(ReplyWriterTest, AggregateHeaders) {
  ExpectBoth([](ReplyWriter& w) { w.MapHeader(7); }, "*14\r\n", "%7\r\n");
  ExpectBoth([](ReplyWriter& w) { w.MapHeader(0); }, "*0\r\n", "%0\r\n");
  ExpectBoth([](ReplyWriter& w) { w.SetHeader(2); }, "*2\r\n", "~2\r\n");
}

TEST(ReplyWriterTest, Doubles) {
  ExpectBoth([](ReplyWriter& w) { w.Double(1.5); }, "$3\r\n1.5\r\n", ",1.5\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(3); }, "$1\r\n3\r\n", ",3\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(-0.0); }, "$2\r\n-0\r\n", ",-0\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(0.1); }, "$3\r\n0.1\r\n", ",0.1\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(1e15); }, "$16\r\n1000000000000000\r\n",
             ",1000000000000000\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(1e300); }, "$6\r\n1e+300\r\n", ",1e+300\r\n");
  // %g layout of the shortest digits: fixed for exponents -4..16, scientific outside.
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(0.0001); }), ",0.0001\r\n");
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(0.00012); }), ",0.00012\r\n");
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(1e-5); }), ",1e-05\r\n");
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(1.5e-7); }), ",1.5e-07\r\n");
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(1e16); }), ",10000000000000000\r\n");
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(1e17); }), ",1e+17\r\n");
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(-2.5e16); }), ",-25000000000000000\r\n");
  EXPECT_EQ(Resp(3, [](ReplyWriter& w) { w.Double(3.14159); }), ",3.14159\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(INFINITY); }, "$3\r\ninf\r\n", ",inf\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(-INFINITY); }, "$4\r\n-inf\r\n", ",-inf\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Double(std::nan("")); }, "$3\r\nnan\r\n", ",nan\r\n");
}

TEST(ReplyWriterTest, Bools) {
  ExpectBoth([](ReplyWriter& w) { w.Bool(true); }, ":1\r\n", "#t\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Bool(false); }, ":0\r\n", "#f\r\n");
}

TEST(ReplyWriterTest, Verbatim) {
  ExpectBoth([](ReplyWriter& w) { w.Verbatim("txt", "a\r\nb"); }, "$4\r\na\r\nb\r\n",
             "=8\r\ntxt:a\r\nb\r\n");
  ExpectBoth([](ReplyWriter& w) { w.Verbatim("txt", ""); }, "$0\r\n\r\n", "=4\r\ntxt:\r\n");
}

TEST(ReplyWriterTest, BigNumber) {
  ExpectBoth([](ReplyWriter& w) { w.BigNumber("-123456789012345678901234567890"); },
             "$31\r\n-123456789012345678901234567890\r\n", "(-123456789012345678901234567890\r\n");
}

TEST(ReplyWriterTest, AppendsAndSwitchesProtocol) {
  std::string out = "prefix";
  ReplyWriter w(&out);
  EXPECT_EQ(w.protocol(), 2);
  w.Null();
  w.set_protocol(3);
  EXPECT_EQ(w.protocol(), 3);
  w.Null();
  EXPECT_EQ(out, "prefix$-1\r\n_\r\n");
  EXPECT_EQ(w.size(), out.size());
}

TEST(ReplyWriterTest, NestedReply) {
  // HELLO-like map with an array value, in both protocols.
  auto write = [](ReplyWriter& w) {
    w.MapHeader(2);
    w.Bulk("proto");
    w.Integer(3);
    w.Bulk("modules");
    w.ArrayHeader(0);
  };
  ExpectBoth(write, "*4\r\n$5\r\nproto\r\n:3\r\n$7\r\nmodules\r\n*0\r\n",
             "%2\r\n$5\r\nproto\r\n:3\r\n$7\r\nmodules\r\n*0\r\n");
}

}  // namespace
}  // namespace ebb::protocol
