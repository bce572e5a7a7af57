// libFuzzer target for protocol::RequestParser.
//
// The first bytes choose parser limits and how the rest is split into arrivals; the rest is the
// byte stream of one connection. The target checks what a connection relies on:
//   - kComplete consumes 1..size bytes; kNeedMore and kError consume nothing;
//   - arguments lie within the consumed request or are decoded inline arguments;
//   - feeding the same bytes in pieces (random splits, then byte by byte) yields the same
//     requests as feeding them at once. The only allowed difference is Redis's own: a "too big"
//     error may fire earlier when a long line arrives without its end yet;
//   - a window of requests parsed ahead (ParsedAhead, ParseAppending) gives each request it keeps
//     exactly as parsing it in turn does, and keeps every multibulk one it reached.
// Build and run: `make fuzz-smoke` (20 s) or `make fuzz` (5 min).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "protocol/parsed_ahead.h"
#include "protocol/request_parser.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ebb::protocol::ParsedAhead;
using ebb::protocol::ParseError;
using ebb::protocol::ParserLimits;
using ebb::protocol::ParseStatus;
using ebb::protocol::RequestParser;

struct Outcome {
  std::vector<std::vector<std::string>> requests;
  ParseError error = ParseError::kNone;
};

using ebb::fuzz::Check;

bool TooBig(ParseError e) {
  return e == ParseError::kTooBigInline || e == ParseError::kTooBigMultibulkCount ||
         e == ParseError::kTooBigBulkCount;
}

// Feeds `input` in pieces ending at `ends` (ascending, last == size).
Outcome Feed(const std::string& input, const std::vector<size_t>& ends,
             const ParserLimits& limits) {
  RequestParser parser;
  Outcome out;
  std::string buffer;
  size_t fed = 0;
  for (size_t end : ends) {
    buffer.append(input, fed, end - fed);
    fed = end;
    for (size_t guard = 0; guard <= input.size() + 1; ++guard) {
      size_t consumed = 12345;
      ParseStatus st = parser.Parse(buffer, limits, &consumed);
      if (st == ParseStatus::kNeedMore) {
        Check(consumed == 0, "kNeedMore consumed bytes");
        break;
      }
      if (st == ParseStatus::kError) {
        Check(consumed == 0, "kError consumed bytes");
        Check(parser.error() != ParseError::kNone, "kError without error()");
        Check(parser.ErrorText().rfind("ERR Protocol error: ", 0) == 0, "error text prefix");
        out.error = parser.error();
        return out;
      }
      Check(consumed > 0 && consumed <= buffer.size(), "kComplete consumed out of range");
      std::vector<std::string> args;
      size_t plain_bytes = 0;
      for (std::string_view a : parser.args()) {
        const bool inside =
            a.data() >= buffer.data() && a.data() + a.size() <= buffer.data() + consumed;
        if (inside) plain_bytes += a.size();
        args.emplace_back(a);
      }
      Check(plain_bytes <= consumed, "arguments exceed the request");
      out.requests.push_back(std::move(args));
      buffer.erase(0, consumed);
    }
  }
  return out;
}

void Compare(const Outcome& whole, const Outcome& split) {
  if (split.requests.size() == whole.requests.size() && split.error == whole.error) {
    Check(split.requests == whole.requests, "split feeding changed the requests");
    return;
  }
  // Only an earlier "too big" error may differ.
  Check(TooBig(split.error), "split feeding ended differently");
  Check(split.requests.size() <= whole.requests.size(), "split feeding produced more requests");
  for (size_t i = 0; i < split.requests.size(); ++i) {
    Check(split.requests[i] == whole.requests[i], "split feeding changed a request");
  }
}

// Parses `input` in turn from its start, and as windows of ParsedAhead from each request on:
// every request a window keeps is taken as the turn parsed it.
void CheckParsedAhead(const std::string& input, const ParserLimits& limits, size_t window) {
  RequestParser parser;
  ParsedAhead ahead;
  size_t at = 0;
  size_t kept_until = 0;  // the window filled last reached this far
  for (size_t guard = 0; guard <= input.size() && at < input.size(); ++guard) {
    size_t consumed = 0;
    if (parser.Parse(std::string_view(input).substr(at), limits, &consumed) !=
        ParseStatus::kComplete) {
      break;
    }
    const std::vector<std::string_view> turn(parser.args().begin(), parser.args().end());
    ParsedAhead::Taken taken;
    const bool kept = ahead.Take(input, at, limits, &taken);
    if (at < kept_until) {
      Check(kept == (input[at] == '*' && !turn.empty()), "a window skipped a request it reached");
    }
    if (kept) {
      Check(taken.consumed == consumed, "a kept request's length differs");
      Check(std::equal(taken.args.begin(), taken.args.end(), turn.begin(), turn.end()),
            "a kept request's arguments differ");
    }
    at += consumed;
    if (at >= kept_until) {
      kept_until = ahead.Fill(input, at, window, limits, [](auto) {});
      Check(kept_until >= at && kept_until <= input.size(), "a window ended out of range");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  ParserLimits limits;
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      break;
    case 1:
      limits = ParserLimits::Unauthenticated();
      break;
    default:
      limits.max_bulk_len = fdp.ConsumeIntegralInRange<size_t>(0, 64);
      limits.max_inline_len = fdp.ConsumeIntegralInRange<size_t>(0, 64);
      limits.max_multibulk_len = fdp.ConsumeIntegralInRange<size_t>(0, 8);
      limits.unauthenticated = fdp.ConsumeBool();
      break;
  }
  const size_t pieces = fdp.ConsumeIntegralInRange<size_t>(1, 8);
  std::vector<size_t> cut_seeds;
  for (size_t i = 0; i < pieces; ++i) cut_seeds.push_back(fdp.ConsumeIntegral<uint16_t>());
  const std::string input = fdp.ConsumeRemainingBytesAsString();

  const Outcome whole = Feed(input, {input.size()}, limits);
  CheckParsedAhead(input, limits, 1 + pieces);

  std::vector<size_t> ends;
  for (size_t seed : cut_seeds) ends.push_back(input.empty() ? 0 : seed % (input.size() + 1));
  ends.push_back(input.size());
  std::sort(ends.begin(), ends.end());
  Compare(whole, Feed(input, ends, limits));

  if (input.size() <= 2048) {
    std::vector<size_t> every;
    for (size_t i = 1; i <= input.size(); ++i) every.push_back(i);
    if (every.empty()) every.push_back(0);
    Compare(whole, Feed(input, every, limits));
  }
  return 0;
}
