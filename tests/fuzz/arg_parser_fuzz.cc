// libFuzzer target for the command argument parser (server/core/arg_parser.h) and the number
// parsing under it (common/strings.h).
//
//  - ParseInt64/ParseUint64 must accept exactly the canonical decimal texts of 64-bit integers
//    (Redis string2ll: no '+', no "-0", no leading zeros, no spaces), checked by printing the
//    value back; ParseDigits exactly the digit strings that fit 64 bits (leading zeros allowed);
//    ParseDouble never yields NaN.
//  - ArgParser is driven through a random sequence of calls over random arguments and compared
//    with a model: the position only advances over consumed arguments, the first error is
//    latched (later errors never replace it), after an error every accessor is neutral and
//    HasMore() is false, option groups refuse a second, different choice, and ReplyError writes
//    that error as a RESP error line.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/core/arg_parser.h"
#include "server/core/errors.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ebb::server::ArgParser;

using ebb::fuzz::Check;

template <typename T>
bool Canonical(std::string_view text, T* value) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  if (std::to_string(v) != text) return false;
  *value = v;
  return true;
}

void CheckIntegers(std::string_view text) {
  int64_t i = 7, ref_i = 7;
  const bool ok = ebb::ParseInt64(text, &i);
  Check(ok == Canonical(text, &ref_i), "ParseInt64 accepts differently from string2ll");
  if (ok) Check(i == ref_i, "ParseInt64 value differs");
  uint64_t u = 7, ref_u = 7;
  const bool uok = ebb::ParseUint64(text, &u);
  Check(uok == Canonical(text, &ref_u), "ParseUint64 accepts differently");
  if (uok) Check(u == ref_u, "ParseUint64 value differs");
  uint64_t digits = 7, ref_digits = 7;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ref_digits);
  const bool ref_ok = !text.empty() && ec == std::errc() && end == text.data() + text.size();
  const bool dok = ebb::ParseDigits(text, &digits);
  Check(dok == ref_ok, "ParseDigits accepts differently");
  if (dok) Check(digits == ref_digits, "ParseDigits value differs");
  double d = 0;
  if (ebb::ParseDouble(text, &d)) Check(!std::isnan(d), "ParseDouble returned NaN");
}

void DriveParser(FuzzedDataProvider& fdp) {
  std::vector<std::string> storage;
  const size_t n = fdp.ConsumeIntegralInRange<size_t>(0, 8);
  static const char* kWords[] = {"NX", "xx", "EX", "-1", "0", "9223372036854775808", "ab", ""};
  for (size_t i = 0; i < n; ++i) {
    storage.push_back(fdp.ConsumeBool() ? kWords[fdp.ConsumeIntegralInRange<int>(0, 7)]
                                        : fdp.ConsumeRandomLengthString(24));
  }
  std::vector<std::string_view> args(storage.begin(), storage.end());
  const size_t start = fdp.ConsumeIntegralInRange<size_t>(0, args.size());
  ArgParser p(args, start);
  ebb::server::OptionGroup group;
  int group_model = -1;  // the model's group choice

  size_t pos = start;
  std::string error;  // model: "" until the first failure
  auto fail = [&](std::string_view e) {
    if (error.empty()) error = std::string(e);
  };
  for (int step = 0; step < 32 && fdp.remaining_bytes() > 0; ++step) {
    const bool more = error.empty() && pos < args.size();
    Check(p.HasMore() == more, "HasMore differs from the model");
    switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: {
        const std::string token = fdp.ConsumeBool() ? "nx" : fdp.ConsumeRandomLengthString(4);
        const bool expect = more && ebb::EqualsIgnoreCase(args[pos], token);
        Check(p.Token(token) == expect, "Token differs from the model");
        if (expect) ++pos;
        break;
      }
      case 1: {
        const std::string_view got = p.Next();
        if (more) {
          Check(got == args[pos], "Next returned another argument");
          ++pos;
        } else {
          Check(got.empty(), "Next after the end returned text");
          fail(ebb::server::kSyntaxError);
        }
        break;
      }
      case 2: {
        const int64_t got = p.Int64();
        if (!more) {
          fail(ebb::server::kSyntaxError);
          Check(got == 0, "Int64 after the end is not 0");
          break;
        }
        int64_t v = 0;
        if (Canonical(args[pos], &v)) {
          Check(got == v, "Int64 value differs");
        } else {
          Check(got == 0, "Int64 of a non-integer is not 0");
          fail(ebb::server::kNotInteger);
        }
        ++pos;
        break;
      }
      case 3: {
        const uint64_t got = p.Uint64();
        if (!more) {
          fail(ebb::server::kSyntaxError);
          Check(got == 0, "Uint64 after the end is not 0");
          break;
        }
        uint64_t v = 0;
        if (Canonical(args[pos], &v)) {
          Check(got == v, "Uint64 value differs");
        } else {
          Check(got == 0, "Uint64 of a non-integer is not 0");
          fail(ebb::server::kNotInteger);
        }
        ++pos;
        break;
      }
      case 4: {
        const int64_t lo = fdp.ConsumeIntegralInRange<int64_t>(-5, 5);
        const int64_t hi = lo + fdp.ConsumeIntegralInRange<int64_t>(0, 10);
        const int64_t got = p.Int64InRange(lo, hi, "ERR out of range");
        if (!more) {
          fail(ebb::server::kSyntaxError);
          Check(got == 0, "Int64InRange after the end is not 0");
          break;
        }
        int64_t v = 0;
        if (!Canonical(args[pos], &v)) {
          fail(ebb::server::kNotInteger);
          Check(got == 0, "Int64InRange of a non-integer is not 0");
        } else if (v < lo || v > hi) {
          fail("ERR out of range");
          Check(got == 0, "Int64InRange out of range is not 0");
        } else {
          Check(got == v, "Int64InRange value differs");
        }
        ++pos;
        break;
      }
      case 7: {
        const int got = p.Choice({"NX", "XX"}, &group);
        int matched = -1;
        if (more && ebb::EqualsIgnoreCase(args[pos], "NX")) matched = 0;
        if (more && ebb::EqualsIgnoreCase(args[pos], "XX")) matched = 1;
        if (matched >= 0) {
          ++pos;
          if (group_model >= 0 && group_model != matched) {
            fail(ebb::server::kSyntaxError);
            Check(got == -1, "Choice of a second group member did not fail");
          } else {
            Check(got == matched, "Choice returned another index");
          }
          group_model = matched;
        } else {
          Check(got == -1, "Choice matched nothing but returned an index");
        }
        break;
      }
      case 5:
        p.SyntaxError();
        fail(ebb::server::kSyntaxError);
        break;
      default: {
        const std::string e = "ERR " + fdp.ConsumeRandomLengthString(8);
        p.Fail(e);
        fail(e);
        break;
      }
    }
    Check(p.failed() == !error.empty(), "Failed differs from the model");
    Check(p.error() == error, "the latched error is not the first one");
    Check(p.position() == pos, "position differs from the model");
    Check(p.remaining() == (error.empty() ? args.size() - pos : 0), "remaining differs");
  }
  if (p.failed()) {
    std::string out;
    ebb::protocol::ReplyWriter reply(&out);
    p.ReplyError(reply);
    std::string expected_text = error;
    for (char& c : expected_text) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    Check(out == "-" + expected_text + "\r\n", "ReplyError did not write the latched error");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  if (fdp.ConsumeBool()) {
    CheckIntegers(fdp.ConsumeRemainingBytesAsString());
  } else {
    DriveParser(fdp);
  }
  return 0;
}
