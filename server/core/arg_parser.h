// ArgParser: the one way a command reads its arguments (the Parse step of every handler).
//
// It walks the arguments once, from the first one after the command (or subcommand) name, and
// latches the first error in Redis's words (Dragonfly's CmdArgParser): after a failure every
// accessor returns a neutral value (0, "", -1) and HasMore() is false, so option loops end by
// themselves and Parse returns whatever it has; the handler then replies the error.
//
//   SetOptions o;
//   o.key = args.Next();
//   o.value = args.Next();
//   OptionGroup condition, expiry;                    // [NX | XX], [EX s | PX ms | KEEPTTL]
//   while (args.HasMore()) {
//     if (int i = args.Choice({"NX", "XX"}, &condition); i >= 0) o.condition = i;
//     else if (args.Token("GET")) o.get = true;
//     else if (int e = args.Choice({"EX", "PX", "KEEPTTL"}, &expiry); e >= 0) ...
//     else args.SyntaxError();
//   }
//
// Keywords match case-insensitively. An option group is Redis's [A | B]: giving A twice is
// allowed (the last value wins, as SET EX 1 EX 2), giving A and B is a syntax error.
// Numbers follow Redis: integers are string2ll ("ERR value is not an integer or out of range"),
// TLOG/TREG timestamps and counts are digits (common/strings.h).
// Thread-safety: none; a parser lives on one handler's stack.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

// The options of one [A | B | ...] group: which one was given, if any.
struct OptionGroup {
  int chosen = -1;
};

class ArgParser {
 public:
  // REQUIRES: start <= args.size().
  ArgParser(std::span<const std::string_view> args, size_t start) : args_(args), pos_(start) {}

  // True when arguments remain and no error has been latched.
  bool HasMore() const { return !failed_ && pos_ < args_.size(); }
  // Arguments not yet consumed (0 after a failure).
  size_t remaining() const { return failed_ ? 0 : args_.size() - pos_; }
  // Index of the next unconsumed argument.
  size_t position() const { return pos_; }

  // If the next argument equals `token`, consumes it and returns true.
  bool Token(std::string_view token);
  // If the next argument equals one of `tokens`, consumes it and returns its index; else -1.
  // With `group`: a second, different choice from the same group latches a syntax error.
  int Choice(std::initializer_list<std::string_view> tokens, OptionGroup* group = nullptr);

  // The argument at `index` of the whole request (0: the command's name), consumed or not.
  // REQUIRES: index < the number of arguments.
  std::string_view at(size_t index) const { return args_[index]; }
  // The next argument, not consumed. REQUIRES: HasMore().
  std::string_view Peek() const { return args_[pos_]; }
  // Consumes and returns the next argument; none left latches a syntax error and returns "".
  std::string_view Next();
  // Consumes the next argument as a number: none left -> syntax error; malformed ->
  // "ERR value is not an integer or out of range" (or `error` when given).
  int64_t Int64(std::string_view error = {});
  uint64_t Uint64(std::string_view error = {});
  // One or more digits, leading zeros allowed (TLOG/TREG timestamps and counts).
  uint64_t Digits(std::string_view error = {});
  // Like Int64 but also requires lo <= value <= hi; else latches `out_of_range_error`.
  int64_t Int64InRange(int64_t lo, int64_t hi, std::string_view out_of_range_error);

  // Latch an error (only the first one is kept).
  void SyntaxError();
  void Fail(std::string_view error);

  // Ends parsing: arguments left unread latch a syntax error. True when nothing failed.
  bool Finish();
  bool failed() const { return failed_; }
  // The latched error's text ("ERR syntax error"). REQUIRES: failed().
  const std::string& error() const { return error_; }
  // Replies with the latched error. REQUIRES: failed().
  void ReplyError(protocol::ReplyWriter& reply) const;

 private:
  std::span<const std::string_view> args_;
  size_t pos_;
  bool failed_ = false;
  std::string error_;
};

}  // namespace ebb::server
