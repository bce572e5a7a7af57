#include "server/commands/arg_parser.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "protocol/reply_writer.h"
#include "server/errors.h"

namespace ebb::server {

bool ParseUint64(std::string_view text, uint64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  if (text == "0") {
    *value = 0;
    return true;
  }
  if (text[0] < '1' || text[0] > '9') return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *value = v;
  return true;
}

bool ParseInt64(std::string_view text, int64_t* value) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
    if (text == "0") return false;  // string2ll rejects "-0"
  }
  uint64_t magnitude = 0;
  if (!ParseUint64(text, &magnitude)) return false;
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kMaxPositive + 1) return false;
    *value = magnitude == kMaxPositive + 1 ? std::numeric_limits<int64_t>::min()
                                           : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > kMaxPositive) return false;
    *value = static_cast<int64_t>(magnitude);
  }
  return true;
}

bool ParseDouble(std::string_view text, double* value) {
  // Redis string2ld: no empty input, no leading space, the whole string consumed, not nan.
  if (text.empty() || text.size() > 5 * 1024 || std::isspace(static_cast<unsigned char>(text[0]))) {
    return false;
  }
  std::string copy(text);
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE || std::isnan(v)) return false;
  *value = v;
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool ArgParser::Token(std::string_view token) {
  if (!HasMore() || !EqualsIgnoreCase(args_[pos_], token)) return false;
  ++pos_;
  return true;
}

std::string_view ArgParser::Next() {
  if (!HasMore()) {
    SyntaxError();
    return {};
  }
  return args_[pos_++];
}

int64_t ArgParser::Int64() {
  std::string_view text = Next();
  if (failed_) return 0;
  int64_t v = 0;
  if (!ParseInt64(text, &v)) {
    Fail(kNotInteger);
    return 0;
  }
  return v;
}

uint64_t ArgParser::Uint64() {
  std::string_view text = Next();
  if (failed_) return 0;
  uint64_t v = 0;
  if (!ParseUint64(text, &v)) {
    Fail(kNotInteger);
    return 0;
  }
  return v;
}

int64_t ArgParser::Int64InRange(int64_t lo, int64_t hi, std::string_view out_of_range_error) {
  int64_t v = Int64();
  if (failed_) return 0;
  if (v < lo || v > hi) {
    Fail(out_of_range_error);
    return 0;
  }
  return v;
}

void ArgParser::SyntaxError() { Fail(kSyntaxError); }

void ArgParser::Fail(std::string_view error) {
  if (failed_) return;
  failed_ = true;
  error_ = std::string(error);
}

void ArgParser::ReplyError(protocol::ReplyWriter& reply) const { reply.Error(error_); }

}  // namespace ebb::server
