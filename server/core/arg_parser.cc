#include "server/core/arg_parser.h"

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/core/errors.h"

namespace ebb::server {

bool ArgParser::Token(std::string_view token) {
  if (!HasMore() || !EqualsIgnoreCase(args_[pos_], token)) return false;
  ++pos_;
  return true;
}

int ArgParser::Choice(std::initializer_list<std::string_view> tokens, OptionGroup* group) {
  if (!HasMore()) return -1;
  int index = 0;
  for (std::string_view token : tokens) {
    if (EqualsIgnoreCase(args_[pos_], token)) {
      ++pos_;
      if (group != nullptr) {
        if (group->chosen >= 0 && group->chosen != index) SyntaxError();
        group->chosen = index;
      }
      return failed_ ? -1 : index;
    }
    ++index;
  }
  return -1;
}

std::string_view ArgParser::Next() {
  if (!HasMore()) {
    SyntaxError();
    return {};
  }
  return args_[pos_++];
}

int64_t ArgParser::Int64(std::string_view error) {
  const std::string_view text = Next();
  int64_t v = 0;
  if (!failed_ && !ParseInt64(text, &v)) Fail(error.empty() ? kNotInteger : error);
  return failed_ ? 0 : v;
}

uint64_t ArgParser::Uint64(std::string_view error) {
  const std::string_view text = Next();
  uint64_t v = 0;
  if (!failed_ && !ParseUint64(text, &v)) Fail(error.empty() ? kNotInteger : error);
  return failed_ ? 0 : v;
}

uint64_t ArgParser::Digits(std::string_view error) {
  const std::string_view text = Next();
  uint64_t v = 0;
  if (!failed_ && !ParseDigits(text, &v)) Fail(error.empty() ? kNotInteger : error);
  return failed_ ? 0 : v;
}

int64_t ArgParser::Int64InRange(int64_t lo, int64_t hi, std::string_view out_of_range_error) {
  const int64_t v = Int64();
  if (!failed_ && (v < lo || v > hi)) Fail(out_of_range_error);
  return failed_ ? 0 : v;
}

void ArgParser::SyntaxError() { Fail(kSyntaxError); }

void ArgParser::Fail(std::string_view error) {
  if (failed_) return;
  failed_ = true;
  error_ = std::string(error);
}

bool ArgParser::Finish() {
  if (HasMore()) SyntaxError();
  return !failed_;
}

void ArgParser::ReplyError(protocol::ReplyWriter& reply) const { reply.Error(error_); }

}  // namespace ebb::server
