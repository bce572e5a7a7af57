#include "protocol/request_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ebb::protocol {
namespace {

using Args = std::vector<std::string>;

struct Outcome {
  std::vector<Args> requests;  // complete requests in order (empty ones included)
  std::string error;           // ErrorText() if parsing stopped on an error
  size_t consumed = 0;         // bytes consumed in total
};

Args Copy(std::span<const std::string_view> args) { return Args(args.begin(), args.end()); }

// Feeds `input` the way a connection would: bytes arrive in chunks whose boundaries are at
// `splits`; after each arrival the parser is called until it needs more.
Outcome Feed(std::string_view input, const std::vector<size_t>& splits,
             const ParserLimits& limits = ParserLimits()) {
  RequestParser parser;
  Outcome out;
  std::string buffer;
  size_t fed = 0;
  std::vector<size_t> ends = splits;
  ends.push_back(input.size());
  for (size_t end : ends) {
    buffer.append(input.substr(fed, end - fed));
    fed = end;
    for (int guard = 0; guard < 10000; ++guard) {
      size_t consumed = 123;
      ParseStatus st = parser.Parse(buffer, limits, &consumed);
      if (st == ParseStatus::kNeedMore) {
        EXPECT_EQ(consumed, 0u);
        break;
      }
      if (st == ParseStatus::kError) {
        EXPECT_EQ(consumed, 0u);
        out.error = parser.ErrorText();
        return out;
      }
      EXPECT_GT(consumed, 0u);
      EXPECT_LE(consumed, buffer.size());
      out.requests.push_back(Copy(parser.args()));
      buffer.erase(0, consumed);
      out.consumed += consumed;
    }
  }
  return out;
}

Outcome FeedWhole(std::string_view input, const ParserLimits& limits = ParserLimits()) {
  return Feed(input, {}, limits);
}

TEST(RequestParserTest, MultibulkRequest) {
  Outcome out = FeedWhole("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n");
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0], (Args{"SET", "k", "hello"}));
}

TEST(RequestParserTest, ArgsAreViewsIntoInput) {
  std::string input = "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n";
  RequestParser parser;
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(input, ParserLimits(), &consumed), ParseStatus::kComplete);
  EXPECT_EQ(consumed, input.size());
  ASSERT_EQ(parser.args().size(), 2u);
  EXPECT_EQ(parser.args()[1].data(), input.data() + 17);
}

TEST(RequestParserTest, BinarySafeBulk) {
  std::string value("a\r\n\0b", 5);
  Outcome out = FeedWhole("*2\r\n$4\r\nECHO\r\n$5\r\n" + value + "\r\n");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0][1], value);
}

TEST(RequestParserTest, EmptyMultibulkAndInlineLinesAreConsumedWithoutArgs) {
  Outcome out = FeedWhole("*0\r\n*-1\r\n\r\n\n   \r\nPING\r\n");
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.requests.size(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(out.requests[i].empty()) << i;
  EXPECT_EQ(out.requests[5], (Args{"PING"}));
}

TEST(RequestParserTest, NeedMoreConsumesNothing) {
  RequestParser parser;
  size_t consumed = 9;
  EXPECT_EQ(parser.Parse("", ParserLimits(), &consumed), ParseStatus::kNeedMore);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(parser.Parse("*1\r\n$4\r\nPI", ParserLimits(), &consumed), ParseStatus::kNeedMore);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(parser.Parse("*1\r\n$4\r\nPING\r\n", ParserLimits(), &consumed),
            ParseStatus::kComplete);
  EXPECT_EQ(consumed, 14u);
  EXPECT_EQ(parser.args()[0], "PING");
}

TEST(RequestParserTest, InlineCommand) {
  Outcome out = FeedWhole("set key value\r\nget key\n");
  ASSERT_EQ(out.requests.size(), 2u);
  EXPECT_EQ(out.requests[0], (Args{"set", "key", "value"}));
  EXPECT_EQ(out.requests[1], (Args{"get", "key"}));
}

TEST(RequestParserTest, InlineQuoting) {
  Outcome out = FeedWhole(
      "set \"a b\" 'c d'\n"
      "echo \"\\x41\"\n"
      "echo \"\\n\\r\\t\\b\\a\\\\\\\"\\q\"\n"
      "echo 'it\\'s' 'a\\b'\n"
      "echo \"\" ''\n");
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.requests.size(), 5u);
  EXPECT_EQ(out.requests[0], (Args{"set", "a b", "c d"}));
  EXPECT_EQ(out.requests[1], (Args{"echo", "A"}));
  EXPECT_EQ(out.requests[2], (Args{"echo", "\n\r\t\b\a\\\"q"}));
  EXPECT_EQ(out.requests[3], (Args{"echo", "it's", "a\\b"}));
  EXPECT_EQ(out.requests[4], (Args{"echo", "", ""}));
}

TEST(RequestParserTest, QuoteOpeningInsideAnArgument) {
  Outcome out = FeedWhole("echo a\"b c\" x\n");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0], (Args{"echo", "ab c", "x"}));
}

TEST(RequestParserTest, EmptyQuotedArguments) {
  Outcome out = FeedWhole("echo \"\" ''\n");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0], (Args{"echo", "", ""}));
}

TEST(RequestParserTest, UnbalancedQuotes) {
  for (std::string line :
       {"set \"foo\n", "set \"foo\"bar\n", "set 'foo\n", "set 'a'b\n", "echo a\"b c\"d\n"}) {
    Outcome out = FeedWhole(line);
    EXPECT_EQ(out.error, "ERR Protocol error: unbalanced quotes in request") << line;
    EXPECT_TRUE(out.requests.empty()) << line;
  }
}

TEST(RequestParserTest, InlineWithoutNewlineWaitsThenFailsWhenTooBig) {
  ParserLimits limits;
  EXPECT_EQ(FeedWhole(std::string(limits.max_inline_len, 'a')).error, "");
  EXPECT_EQ(FeedWhole(std::string(limits.max_inline_len + 1, 'a')).error,
            "ERR Protocol error: too big inline request");
  // A long line that does end is fine, as in Redis.
  Outcome out = FeedWhole("echo " + std::string(100000, 'x') + "\n");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0][1].size(), 100000u);
}

TEST(RequestParserTest, MultibulkLengthErrors) {
  for (std::string bad : {"*x\r\n", "*\r\n", "*+1\r\n", "*01\r\n", "*1a\r\n",
                          "*99999999999999999999\r\n", "*1048577\r\n"}) {
    EXPECT_EQ(FeedWhole(bad).error, "ERR Protocol error: invalid multibulk length") << bad;
  }
  EXPECT_EQ(FeedWhole("*1048576\r\n").error, "");  // at the limit: waits for the bulks
}

TEST(RequestParserTest, BulkLengthErrors) {
  for (std::string bad :
       {"*1\r\n$x\r\n", "*1\r\n$-1\r\n", "*1\r\n$\r\n", "*1\r\n$01\r\n", "*1\r\n$536870913\r\n"}) {
    EXPECT_EQ(FeedWhole(bad).error, "ERR Protocol error: invalid bulk length") << bad;
  }
  EXPECT_EQ(FeedWhole("*1\r\n$536870912\r\n").error, "");  // at proto-max-bulk-len: waits
}

// Whole requests as the one-pass path takes them and as it leaves them to the general path
// (a count or length it does not read, one over a limit, a line that is not all there): the
// same requests and errors as Redis's rules give.
TEST(RequestParserTest, WholeRequestsParseAsTheGeneralPathParsesThem) {
  // The byte after each '\r' is skipped unchecked; "$0" is an empty argument.
  Outcome out = FeedWhole("*2\rX$3\rYGET\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n");
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.requests.size(), 2u);
  EXPECT_EQ(out.requests[0], (Args{"GET", ""}));
  EXPECT_EQ(out.requests[1], (Args{"PING"}));
  EXPECT_EQ(FeedWhole("*-3\r\n*1\r\n$1\r\na\r\n").requests, (std::vector<Args>{Args{}, Args{"a"}}));
  EXPECT_EQ(FeedWhole("*1\r\n$01\r\na\r\n").error, "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*1\r\n$-1\r\n\r\n").error, "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*01\r\n$1\r\na\r\n").error, "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(FeedWhole("*2\r\n$1\r\na\r\n:1\r\n").error,
            "ERR Protocol error: expected '$', got ':'");
  // A count of 19 digits is past what the one-pass path reads: the general path bounds it.
  EXPECT_EQ(FeedWhole("*1000000000000000000\r\n$1\r\na\r\n").error,
            "ERR Protocol error: invalid multibulk length");
  ParserLimits limits;
  limits.max_bulk_len = 2;
  limits.max_multibulk_len = 2;
  EXPECT_EQ(FeedWhole("*1\r\n$3\r\nabc\r\n", limits).error,
            "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", limits).error,
            "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(FeedWhole("*2\r\n$2\r\nab\r\n$1\r\nc\r\n", limits).requests,
            (std::vector<Args>{Args{"ab", "c"}}));
  // One- and two-digit counts and lengths are read without the digit loop; three go through it.
  std::string twelve = "*12\r\n";
  Args expected;
  for (int i = 0; i < 12; ++i) {
    expected.push_back(std::string(static_cast<size_t>(i * 9), 'x'));
    twelve += "$" + std::to_string(i * 9) + "\r\n" + expected.back() + "\r\n";
  }
  EXPECT_EQ(FeedWhole(twelve + "*1\r\n$100\r\n" + std::string(100, 'y') + "\r\n").requests,
            (std::vector<Args>{expected, Args{std::string(100, 'y')}}));
  EXPECT_EQ(FeedWhole("*1\r\n$05\r\nabcde\r\n").error, "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*1\r\n$9x\r\n").error, "ERR Protocol error: invalid bulk length");
}

TEST(RequestParserTest, ExpectedDollar) {
  EXPECT_EQ(FeedWhole("*1\r\nx3\r\nabc\r\n").error, "ERR Protocol error: expected '$', got 'x'");
  EXPECT_EQ(FeedWhole("*2\r\n$1\r\na\r\n:1\r\n").error,
            "ERR Protocol error: expected '$', got ':'");
}

TEST(RequestParserTest, TooBigCountStrings) {
  EXPECT_EQ(FeedWhole("*" + std::string(70000, '1')).error,
            "ERR Protocol error: too big mbulk count string");
  EXPECT_EQ(FeedWhole("*1\r\n$" + std::string(70000, '1')).error,
            "ERR Protocol error: too big bulk count string");
}

TEST(RequestParserTest, ConfiguredLimits) {
  ParserLimits limits;
  limits.max_bulk_len = 4;
  limits.max_multibulk_len = 2;
  limits.max_inline_len = 8;
  EXPECT_EQ(FeedWhole("*2\r\n$4\r\nabcd\r\n$4\r\nefgh\r\n", limits).error, "");
  EXPECT_EQ(FeedWhole("*3\r\n", limits).error, "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(FeedWhole("*1\r\n$5\r\n", limits).error, "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("123456789", limits).error, "ERR Protocol error: too big inline request");
  EXPECT_EQ(FeedWhole("*123456789", limits).error,
            "ERR Protocol error: too big mbulk count string");
}

TEST(RequestParserTest, UnauthenticatedLimits) {
  ParserLimits limits = ParserLimits::Unauthenticated();
  EXPECT_EQ(limits.max_multibulk_len, 10u);
  EXPECT_EQ(limits.max_bulk_len, 16384u);
  std::string ten = "*10\r\n";
  for (int i = 0; i < 10; ++i) ten += "$1\r\na\r\n";
  Outcome ok = FeedWhole(ten + "*1\r\n$16384\r\n" + std::string(16384, 'v') + "\r\n", limits);
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.requests.size(), 2u);
  EXPECT_EQ(FeedWhole("*11\r\n", limits).error,
            "ERR Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(FeedWhole("*1\r\n$16385\r\n", limits).error,
            "ERR Protocol error: unauthenticated bulk length");
  EXPECT_EQ(FeedWhole("*1\r\n$-2\r\n", limits).error, "ERR Protocol error: invalid bulk length");
}

TEST(RequestParserTest, ErrorAfterCompleteRequestsKeepsThem) {
  Outcome out = FeedWhole("PING\r\n*1\r\n$4\r\nPING\r\n*z\r\n");
  EXPECT_EQ(out.requests.size(), 2u);
  EXPECT_EQ(out.error, "ERR Protocol error: invalid multibulk length");
}

// The cases of Redis's tests/unit/protocol.tcl.
TEST(RequestParserTest, RedisProtocolSuiteCases) {
  EXPECT_EQ(FeedWhole("\r\nPING\r\n").requests, (std::vector<Args>{{}, {"PING"}}));
  EXPECT_EQ(FeedWhole("*-10\r\nPING\r\n").requests, (std::vector<Args>{{}, {"PING"}}));
  EXPECT_EQ(FeedWhole("*3000000000\r\n").error, "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(FeedWhole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n").error,
            "ERR Protocol error: expected '$', got 'f'");
  EXPECT_EQ(FeedWhole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$-10\r\n").error,
            "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$2000000000\r\n").error,
            "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$blabla\r\n").error,
            "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*1\r\nfoo\r\n").error, "ERR Protocol error: expected '$', got 'f'");
  EXPECT_EQ(FeedWhole("set \"\"\"test-key\"\"\" test-value\r\n").error,
            "ERR Protocol error: unbalanced quotes in request");
  // "Protocol desync regression test": a long payload never reaching its line end.
  const std::string payload(70000, 'A');
  EXPECT_EQ(FeedWhole(std::string("\0", 1) + payload).error,
            "ERR Protocol error: too big inline request");
  EXPECT_EQ(FeedWhole("*\0" + payload).error, "ERR Protocol error: too big mbulk count string");
  EXPECT_EQ(FeedWhole("*1\r\n$\0" + payload).error,
            "ERR Protocol error: too big bulk count string");
}

// Several pipelined requests, multibulk and inline mixed, split at every byte boundary (one
// split) and at every pair of boundaries in a shorter input (two splits), and byte by byte.
TEST(RequestParserTest, EverySplitGivesTheSameRequests) {
  const std::string input =
      "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$10\r\nvalue\r\nxyz\r\n"
      "PING\r\n"
      "set \"a b\" 'c d' \"\\x41\"\n"
      "*0\r\n"
      "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"
      "\r\n"
      "*1\r\n$4\r\nQUIT\r\n";
  const std::vector<Args> expected = {{"SET", "key", "value\r\nxyz"},
                                      {"PING"},
                                      {"set", "a b", "c d", "A"},
                                      {},
                                      {"ECHO", ""},
                                      {},
                                      {"QUIT"}};
  Outcome whole = FeedWhole(input);
  ASSERT_EQ(whole.error, "");
  ASSERT_EQ(whole.requests, expected);
  EXPECT_EQ(whole.consumed, input.size());

  for (size_t i = 0; i <= input.size(); ++i) {
    Outcome out = Feed(input, {i});
    ASSERT_EQ(out.requests, expected) << "split at " << i;
    ASSERT_EQ(out.consumed, input.size());
  }
  const std::string short_input = input.substr(0, 60);
  const Outcome short_whole = FeedWhole(short_input);
  for (size_t i = 0; i <= short_input.size(); ++i) {
    for (size_t j = i; j <= short_input.size(); ++j) {
      Outcome out = Feed(short_input, {i, j});
      ASSERT_EQ(out.requests, short_whole.requests) << "splits at " << i << ", " << j;
    }
  }
  std::vector<size_t> every;
  for (size_t i = 1; i < input.size(); ++i) every.push_back(i);
  Outcome bytewise = Feed(input, every);
  EXPECT_EQ(bytewise.requests, expected);
}

TEST(RequestParserTest, ErrorsAreTheSameAtEverySplit) {
  const std::string input = "PING\r\n*2\r\n$3\r\nGET\r\n#3\r\nkey\r\n";
  for (size_t i = 0; i <= input.size(); ++i) {
    Outcome out = Feed(input, {i});
    EXPECT_EQ(out.error, "ERR Protocol error: expected '$', got '#'") << i;
    EXPECT_EQ(out.requests.size(), 1u) << i;
  }
}

TEST(RequestParserTest, LargeBulkArrivingInPiecesIsComplete) {
  const std::string payload(1 << 20, 'p');
  const std::string input =
      "*2\r\n$3\r\nSET\r\n$" + std::to_string(payload.size()) + "\r\n" + payload + "\r\n";
  std::vector<size_t> splits;
  for (size_t at = 1000; at < input.size(); at += 4096) splits.push_back(at);
  Outcome out = Feed(input, splits);
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0][1], payload);
}

TEST(RequestParserTest, ResetForgetsPartialRequest) {
  RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.Parse("*2\r\n$3\r\nGET\r\n", ParserLimits(), &consumed), ParseStatus::kNeedMore);
  parser.Reset();
  EXPECT_EQ(parser.Parse("PING\r\n", ParserLimits(), &consumed), ParseStatus::kComplete);
  ASSERT_EQ(parser.args().size(), 1u);
  EXPECT_EQ(parser.args()[0], "PING");
}

}  // namespace
}  // namespace ebb::protocol
