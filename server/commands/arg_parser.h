// ArgParser: walks a command's arguments once, latching the first error (Dragonfly style), plus
// Redis's strict integer parsing.
//
//   ArgParser p(ctx.args, 2);             // start after "SET key"
//   while (p.HasMore()) {
//     if (p.Token("NX")) nx = true;
//     else if (p.Token("EX")) ex = p.Int64();
//     else p.SyntaxError();
//   }
//   if (p.Failed()) return p.ReplyError(ctx.reply);
//
// Invariants: after the first failure every accessor returns a neutral value (0, "") and
// HasMore() is false, so loops end; error() keeps the first error's text.
// Thread-safety: none; a parser lives on one handler's stack.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

// Redis's string2ll: an optional '-', then decimal digits with no leading zero ("0" alone is
// fine; "-0", "+1", " 1", "01", "" are not), within int64. Returns false otherwise.
bool ParseInt64(std::string_view text, int64_t* value);
// Decimal digits only (no sign, no leading zero unless "0"), within uint64.
bool ParseUint64(std::string_view text, uint64_t* value);
// Redis's strtold-based float parsing for commands like INCRBYFLOAT: no spaces, no nan.
bool ParseDouble(std::string_view text, double* value);
// ASCII case-insensitive equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

class ArgParser {
 public:
  // REQUIRES: start <= args.size().
  ArgParser(std::span<const std::string_view> args, size_t start) : args_(args), pos_(start) {}

  // True when arguments remain and no error has been latched.
  bool HasMore() const { return !failed_ && pos_ < args_.size(); }
  // If the next argument equals `token` (case-insensitive), consumes it and returns true.
  bool Token(std::string_view token);
  // Consumes and returns the next argument; none left -> latches kSyntaxError, returns "".
  std::string_view Next();
  // Consume the next argument as an integer; missing -> syntax error, malformed -> kNotInteger.
  int64_t Int64();
  uint64_t Uint64();
  // Like Int64 but also requires lo <= value <= hi; else latches `out_of_range_error`.
  int64_t Int64InRange(int64_t lo, int64_t hi, std::string_view out_of_range_error);

  // Latches an error (only the first one is kept).
  void SyntaxError();
  void Fail(std::string_view error);

  bool Failed() const { return failed_; }
  const std::string& error() const { return error_; }
  // Replies with the latched error. REQUIRES: Failed().
  void ReplyError(protocol::ReplyWriter& reply) const;

  // Index of the next unconsumed argument.
  size_t position() const { return pos_; }
  size_t remaining() const { return failed_ ? 0 : args_.size() - pos_; }

 private:
  std::span<const std::string_view> args_;
  size_t pos_;
  bool failed_ = false;
  std::string error_;
};

}  // namespace ebb::server
