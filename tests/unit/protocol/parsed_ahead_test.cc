#include "protocol/parsed_ahead.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ebb::protocol {
namespace {

using Args = std::vector<std::string>;

Args CopyArgs(std::span<const std::string_view> args) { return Args(args.begin(), args.end()); }

// Every request of `input` from `from` on, parsed one by one by a fresh RequestParser (what a
// connection runs without a window): (offset, consumed, args) until one is not complete.
struct Parsed {
  size_t offset;
  size_t consumed;
  Args args;
};
std::vector<Parsed> OneByOne(std::string_view input, size_t from, const ParserLimits& limits) {
  std::vector<Parsed> out;
  RequestParser parser;
  for (size_t at = from; at < input.size();) {
    size_t consumed = 0;
    if (parser.Parse(input.substr(at), limits, &consumed) != ParseStatus::kComplete) break;
    out.push_back({at, consumed, CopyArgs(parser.args())});
    at += consumed;
  }
  return out;
}

TEST(ParseAppendingTest, AppendsWhatParseWouldGiveAndKeepsWhatWasThere) {
  const std::vector<std::string> requests = {
      "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
      "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$123\r\n" + std::string(123, 'v') + "\r\n",
      "*1\r\n$4\r\nPING\r\n",
      "GET \"quoted key\"\r\n",
      "*-1\r\n",  // a sign: the general path's, an empty request
  };
  for (const std::string& request : requests) {
    RequestParser reference;
    size_t expected_consumed = 0;
    ASSERT_EQ(reference.Parse(request, ParserLimits(), &expected_consumed), ParseStatus::kComplete)
        << request;
    RequestParser parser;
    std::vector<std::string_view> out = {"held"};
    size_t consumed = 0;
    ASSERT_EQ(parser.ParseAppending(request, ParserLimits(), &consumed, &out),
              ParseStatus::kComplete);
    EXPECT_EQ(consumed, expected_consumed);
    Args expected = {"held"};
    for (std::string_view arg : reference.args()) expected.emplace_back(arg);
    EXPECT_EQ(CopyArgs(out), expected) << request;
  }
}

TEST(ParseAppendingTest, LeavesTheArrayAsItWasUnlessComplete) {
  RequestParser parser;
  std::vector<std::string_view> out = {"held"};
  size_t consumed = 0;
  // Cut in its last argument, then in its count: the array keeps only what it held.
  EXPECT_EQ(parser.ParseAppending("*2\r\n$3\r\nGET\r\n$5\r\nke", ParserLimits(), &consumed, &out),
            ParseStatus::kNeedMore);
  EXPECT_EQ(CopyArgs(out), Args{"held"});
  parser.Reset();
  EXPECT_EQ(parser.ParseAppending("*2\r\n$3\r\nGET\r\n$x\r\n", ParserLimits(), &consumed, &out),
            ParseStatus::kError);
  EXPECT_EQ(CopyArgs(out), Args{"held"});
  // A bulk past the limit is the general path's error, with nothing appended.
  parser.Reset();
  ParserLimits small;
  small.max_bulk_len = 2;
  EXPECT_EQ(parser.ParseAppending("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", small, &consumed, &out),
            ParseStatus::kError);
  EXPECT_EQ(CopyArgs(out), Args{"held"});
}

TEST(ParsedAheadTest, TakesEachMultibulkRequestAsParsingItWouldGive) {
  const std::string input =
      "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"  // the running request: not the window's
      "*2\r\n$3\r\nGET\r\n$1\r\nb\r\n"
      "GET \"c d\"\r\n"  // inline: looked at, not kept
      "*3\r\n$3\r\nSET\r\n$1\r\ne\r\n$2\r\nvv\r\n"
      "*0\r\n"  // empty: not kept
      "*1\r\n$4\r\nPING\r\n"
      "*2\r\n$3\r\nGET\r\n$4\r\nf";  // cut: the window ends before it
  const ParserLimits limits;
  const std::vector<Parsed> expected = OneByOne(input, 0, limits);
  ASSERT_EQ(expected.size(), 6u);
  ParsedAhead ahead;
  std::vector<Args> named;
  const size_t end =
      ahead.Fill(input, expected[1].offset, 16, limits,
                 [&](std::span<const std::string_view> args) { named.push_back(CopyArgs(args)); });
  EXPECT_EQ(end, expected[5].offset + expected[5].consumed);
  EXPECT_EQ(named, (std::vector<Args>{{"GET", "b"}, {"SET", "e", "vv"}, {"PING"}}));
  for (size_t i = 1; i < expected.size(); ++i) {
    ParsedAhead::Taken taken;
    const bool kept = ahead.Take(input, expected[i].offset, limits, &taken);
    const bool multibulk = input[expected[i].offset] == '*' && !expected[i].args.empty();
    EXPECT_EQ(kept, multibulk) << i;
    if (!kept) continue;
    EXPECT_EQ(taken.consumed, expected[i].consumed);
    EXPECT_EQ(CopyArgs(taken.args), expected[i].args);
    ASSERT_LT(taken.index, named.size());
    EXPECT_EQ(named[taken.index], expected[i].args);  // the on_request call of the same number
  }
}

TEST(ParsedAheadTest, KeepsAtMostTheRequestsAskedFor) {
  std::string input;
  for (int i = 0; i < 10; ++i) input += "*2\r\n$3\r\nGET\r\n$1\r\n" + std::to_string(i) + "\r\n";
  const std::vector<Parsed> all = OneByOne(input, 0, ParserLimits());
  ParsedAhead ahead;
  int named = 0;
  const size_t end = ahead.Fill(input, 0, 4, ParserLimits(), [&](auto) { ++named; });
  EXPECT_EQ(named, 4);
  EXPECT_EQ(end, all[4].offset);
  ParsedAhead::Taken taken;
  EXPECT_FALSE(ahead.Take(input, all[4].offset, ParserLimits(), &taken));
}

TEST(ParsedAheadTest, RefusesAnotherInputOrOtherLimits) {
  const std::string input = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n*2\r\n$3\r\nGET\r\n$1\r\nb\r\n";
  ParsedAhead::Taken taken;
  ParsedAhead ahead;
  auto fill = [&] { ahead.Fill(input, 0, 16, ParserLimits(), [](auto) {}); };

  fill();
  const std::string copy = input;  // the same bytes elsewhere
  EXPECT_FALSE(ahead.Take(copy, 0, ParserLimits(), &taken));
  fill();
  EXPECT_FALSE(ahead.Take(std::string_view(input).substr(0, 10), 0, ParserLimits(), &taken));
  fill();
  EXPECT_FALSE(ahead.Take(input, 0, ParserLimits::Unauthenticated(), &taken));
  fill();
  ahead.Clear();
  EXPECT_FALSE(ahead.Take(input, 0, ParserLimits(), &taken));

  // Taken in order; one passed over (run from elsewhere) is not taken afterwards.
  fill();
  const size_t second = input.size() / 2;
  ASSERT_TRUE(ahead.Take(input, second, ParserLimits(), &taken));
  EXPECT_EQ(CopyArgs(taken.args), (Args{"GET", "b"}));
  EXPECT_EQ(taken.index, 1u);
  EXPECT_FALSE(ahead.Take(input, 0, ParserLimits(), &taken));
  EXPECT_FALSE(ahead.Take(input, second, ParserLimits(), &taken));
}

}  // namespace
}  // namespace ebb::protocol
