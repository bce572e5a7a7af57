#include "server/errors.h"

#include <algorithm>
#include <cctype>

namespace ebb::server {
namespace {

// Like printf's "%.*s": at most n bytes, stopping at a NUL byte.
std::string_view Prefix(std::string_view s, size_t n) {
  s = s.substr(0, std::min(s.size(), n));
  return s.substr(0, s.find('\0'));
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string WrongArgsError(std::string_view name) {
  std::string out = "ERR wrong number of arguments for '";
  out += name;
  out += "' command";
  return out;
}

std::string UnknownCommandError(std::string_view name, std::span<const std::string_view> args) {
  // Redis: for (i=1; i<argc && sdslen(args)<128; i++) args += "'%.*s' " with 128-sdslen(args).
  std::string list;
  for (size_t i = 0; i < args.size() && list.size() < 128; ++i) {
    size_t room = 128 - list.size();
    list += '\'';
    list += Prefix(args[i], room);
    list += "' ";
  }
  std::string out = "ERR unknown command '";
  out += Prefix(name, 128);
  out += "', with args beginning with: ";
  out += list;
  return out;
}

std::string UnknownSubcommandError(std::string_view container, std::string_view sub) {
  std::string out = "ERR unknown subcommand '";
  out += Prefix(sub, 128);
  out += "'. Try ";
  out += Upper(container);
  out += " HELP.";
  return out;
}

std::string InvalidExpireTimeError(std::string_view cmd) {
  std::string out = "ERR invalid expire time in '";
  out += cmd;
  out += "' command";
  return out;
}

std::string InvalidDurationError(std::string_view text) {
  std::string out = "ERR invalid duration '";
  out += text;
  out += "'";
  return out;
}

std::string SubcommandSyntaxError(std::string_view container, std::string_view sub) {
  std::string out = "ERR unknown subcommand or wrong number of arguments for '";
  out += Prefix(sub, 128);
  out += "'. Try ";
  out += Upper(container);
  out += " HELP.";
  return out;
}

}  // namespace ebb::server
