#include "protocol/request_parser.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "common/strings.h"
#include "protocol/split_args.h"

namespace ebb::protocol {

ParserLimits ParserLimits::Unauthenticated() {
  ParserLimits limits;
  limits.max_multibulk_len = 10;
  limits.max_bulk_len = 16384;
  limits.unauthenticated = true;
  return limits;
}

void RequestParser::Reset() {
  in_multibulk_ = false;
  pos_ = 0;
  remaining_ = 0;
  bulk_len_ = -1;
  arg_refs_.clear();
  owned_.clear();
}

size_t RequestParser::MemoryUsage() const {
  return arg_refs_.capacity() * sizeof(ArgRef) + args_.capacity() * sizeof(std::string_view) +
         owned_.capacity();
}

void RequestParser::ReleaseMemory() {
  if (in_multibulk_) return;
  std::vector<ArgRef>().swap(arg_refs_);
  std::vector<std::string_view>().swap(args_);
  std::string().swap(owned_);
}

ParseStatus RequestParser::Parse(std::string_view input, const ParserLimits& limits,
                                 size_t* consumed) {
  *consumed = 0;
  error_ = ParseError::kNone;
  args_.clear();
  // The common case first, with no state to reset: a whole, well-formed multibulk request and
  // no earlier one half parsed (the general path resets what it reads before it starts).
  if (!in_multibulk_ && !input.empty() && input[0] == '*' &&
      ParseWholeMultibulk(input, limits, consumed, &args_)) {
    return ParseStatus::kComplete;
  }
  return ParseGeneral(input, limits, consumed);
}

ParseStatus RequestParser::ParseGeneral(std::string_view input, const ParserLimits& limits,
                                        size_t* consumed) {
  args_.clear();
  if (in_multibulk_ && pos_ > input.size()) Reset();  // the caller broke the contract: restart
  if (in_multibulk_) return ParseMultibulk(input, limits, consumed);
  Reset();
  if (input.empty()) return ParseStatus::kNeedMore;
  if (input[0] == '*') return ParseMultibulk(input, limits, consumed);
  return ParseInline(input, limits, consumed);
}

namespace {

// Reads "<digits>\r" at `p` (before `end`): a number string2ll takes with no sign (no leading
// zero unless "0") and at most 18 digits, so it cannot overflow. Returns the position after the
// '\r', or nullptr for anything else (the general path then decides: a sign, a longer number,
// a malformed one, the line not all here).
[[gnu::always_inline]] inline const char* ReadShortCount(const char* p, const char* end,
                                                         uint64_t* value) {
  // One or two digits — every argument count and length of a short request — without the loop.
  if (end - p >= 3) {
    const unsigned d0 = static_cast<unsigned char>(p[0]) - '0';
    const unsigned d1 = static_cast<unsigned char>(p[1]) - '0';
    if (d0 <= 9 && p[1] == '\r') {
      *value = d0;
      return p + 2;
    }
    if (d0 - 1 <= 8 && d1 <= 9 && p[2] == '\r') {  // no leading zero
      *value = d0 * 10 + d1;
      return p + 3;
    }
  }
  const char* const first = p;
  uint64_t v = 0;
  while (p < end && *p >= '0' && *p <= '9') v = v * 10 + static_cast<uint64_t>(*p++ - '0');
  const size_t digits = static_cast<size_t>(p - first);
  if (digits == 0 || digits > 18 || (digits > 1 && *first == '0')) return nullptr;
  if (p == end || *p != '\r') return nullptr;
  *value = v;
  return p + 1;
}

}  // namespace

ParseStatus RequestParser::ParseAppending(std::string_view input, const ParserLimits& limits,
                                          size_t* consumed, std::vector<std::string_view>* out) {
  *consumed = 0;
  error_ = ParseError::kNone;
  if (!in_multibulk_ && !input.empty() && input[0] == '*' &&
      ParseWholeMultibulk(input, limits, consumed, out)) {
    return ParseStatus::kComplete;
  }
  const ParseStatus status = ParseGeneral(input, limits, consumed);
  if (status == ParseStatus::kComplete) out->insert(out->end(), args_.begin(), args_.end());
  return status;
}

// The common case in one pass: the whole request is here and well formed, with a positive count
// and bulk lengths within the limits. Arguments go straight to *out. Anything else returns
// false having changed nothing the general path reads, and that path parses the request again
// from its start: every error, every partial request and every odd number is decided there.
bool RequestParser::ParseWholeMultibulk(std::string_view input, const ParserLimits& limits,
                                        size_t* consumed, std::vector<std::string_view>* out) {
  const char* const begin = input.data();
  const char* const end = begin + input.size();
  uint64_t count = 0;
  const char* p = ReadShortCount(begin + 1, end, &count);
  // The byte after each '\r' is skipped unchecked, as the general path (and Redis) skips it.
  if (p == nullptr || p >= end || count == 0 || count > limits.max_multibulk_len) return false;
  ++p;
  const size_t held = out->size();
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = 0;
    const char* bulk = p < end && *p == '$' ? ReadShortCount(p + 1, end, &len) : nullptr;
    if (bulk == nullptr || bulk >= end || len > limits.max_bulk_len ||
        static_cast<uint64_t>(end - bulk - 1) < len + 2) {
      out->resize(held);
      return false;
    }
    p = bulk + 1;
    out->emplace_back(p, static_cast<size_t>(len));
    p += len + 2;
  }
  *consumed = static_cast<size_t>(p - begin);
  return true;
}

ParseStatus RequestParser::ParseMultibulk(std::string_view input, const ParserLimits& limits,
                                          size_t* consumed) {
  if (!in_multibulk_) {
    // Parse tried ParseWholeMultibulk already. The count line: up to the first '\r', which must be
    // followed by one more byte.
    size_t cr = input.find('\r');
    if (cr == std::string_view::npos) {
      if (input.size() > limits.max_inline_len) {
        return Fail(ParseError::kTooBigMultibulkCount, consumed);
      }
      return ParseStatus::kNeedMore;
    }
    if (cr + 2 > input.size()) return ParseStatus::kNeedMore;
    int64_t count = 0;
    if (!ParseInt64(input.substr(1, cr - 1), &count)) {
      return Fail(ParseError::kInvalidMultibulkLength, consumed);
    }
    if (count > 0 && static_cast<uint64_t>(count) > limits.max_multibulk_len) {
      return Fail(limits.unauthenticated ? ParseError::kUnauthenticatedMultibulkLength
                                         : ParseError::kInvalidMultibulkLength,
                  consumed);
    }
    if (count <= 0) return Complete(input, cr + 2, consumed);
    in_multibulk_ = true;
    pos_ = cr + 2;
    remaining_ = count;
    bulk_len_ = -1;
    arg_refs_.reserve(static_cast<size_t>(std::min<int64_t>(count, 1024)));
  }

  while (remaining_ > 0) {
    if (bulk_len_ < 0) {
      std::string_view rest = input.substr(pos_);
      size_t cr = rest.find('\r');
      if (cr == std::string_view::npos) {
        if (rest.size() > limits.max_inline_len) {
          return Fail(ParseError::kTooBigBulkCount, consumed);
        }
        return ParseStatus::kNeedMore;
      }
      if (cr + 2 > rest.size()) return ParseStatus::kNeedMore;
      if (rest[0] != '$') {
        bad_char_ = rest[0];
        return Fail(ParseError::kExpectedDollar, consumed);
      }
      int64_t len = 0;
      if (!ParseInt64(rest.substr(1, cr - 1), &len) || len < 0) {
        return Fail(ParseError::kInvalidBulkLength, consumed);
      }
      if (static_cast<uint64_t>(len) > limits.max_bulk_len) {
        return Fail(limits.unauthenticated ? ParseError::kUnauthenticatedBulkLength
                                           : ParseError::kInvalidBulkLength,
                    consumed);
      }
      pos_ += cr + 2;
      bulk_len_ = len;
    }
    // The payload and the two bytes after it (Redis skips them without looking).
    size_t need = static_cast<size_t>(bulk_len_) + 2;
    if (input.size() - pos_ < need) return ParseStatus::kNeedMore;
    arg_refs_.push_back({Source::kInput, pos_, static_cast<size_t>(bulk_len_)});
    pos_ += need;
    bulk_len_ = -1;
    --remaining_;
  }
  return Complete(input, pos_, consumed);
}

ParseStatus RequestParser::ParseInline(std::string_view input, const ParserLimits& limits,
                                       size_t* consumed) {
  const void* found = std::memchr(input.data(), '\n', input.size());
  if (found == nullptr) {
    if (input.size() > limits.max_inline_len) return Fail(ParseError::kTooBigInline, consumed);
    return ParseStatus::kNeedMore;
  }
  size_t newline = static_cast<const char*>(found) - input.data();
  size_t line_end = newline;
  if (line_end > 0 && input[line_end - 1] == '\r') --line_end;
  if (!SplitInline(input, 0, line_end)) return Fail(ParseError::kUnbalancedQuotes, consumed);
  return Complete(input, newline + 1, consumed);
}

bool RequestParser::SplitInline(std::string_view input, size_t begin, size_t end) {
  return SplitArgs(input.substr(begin, end - begin), [&](const SplitToken& token) {
    if (token.quoted) {
      arg_refs_.push_back({Source::kOwned, owned_.size(), token.value.size()});
      owned_.append(token.value);
    } else {
      arg_refs_.push_back({Source::kInput, begin + token.start, token.value.size()});
    }
  });
}

ParseStatus RequestParser::Complete(std::string_view input, size_t request_len, size_t* consumed) {
  args_.reserve(arg_refs_.size());
  for (const ArgRef& ref : arg_refs_) {
    const std::string_view base = ref.source == Source::kInput ? input : std::string_view(owned_);
    args_.push_back(base.substr(ref.offset, ref.len));
  }
  *consumed = request_len;
  in_multibulk_ = false;
  pos_ = 0;
  remaining_ = 0;
  bulk_len_ = -1;
  arg_refs_.clear();
  return ParseStatus::kComplete;
}

ParseStatus RequestParser::Fail(ParseError error, size_t* consumed) {
  Reset();
  error_ = error;
  *consumed = 0;
  return ParseStatus::kError;
}

std::string RequestParser::ErrorText() const {
  std::string what;
  switch (error_) {
    case ParseError::kNone:
      what = "none";
      break;
    case ParseError::kInvalidMultibulkLength:
      what = "invalid multibulk length";
      break;
    case ParseError::kInvalidBulkLength:
      what = "invalid bulk length";
      break;
    case ParseError::kExpectedDollar:
      what = std::string("expected '$', got '") + bad_char_ + "'";
      break;
    case ParseError::kTooBigInline:
      what = "too big inline request";
      break;
    case ParseError::kUnbalancedQuotes:
      what = "unbalanced quotes in request";
      break;
    case ParseError::kTooBigMultibulkCount:
      what = "too big mbulk count string";
      break;
    case ParseError::kTooBigBulkCount:
      what = "too big bulk count string";
      break;
    case ParseError::kUnauthenticatedMultibulkLength:
      what = "unauthenticated multibulk length";
      break;
    case ParseError::kUnauthenticatedBulkLength:
      what = "unauthenticated bulk length";
      break;
  }
  return "ERR Protocol error: " + what;
}

}  // namespace ebb::protocol
