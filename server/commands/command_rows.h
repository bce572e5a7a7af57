// Small builders for command-table rows, so a registration reads as one line per fact and
// omitted fields keep their defaults (no -Wmissing-field-initializers noise).
#pragma once

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "server/command.h"

namespace ebb::server {

inline ArgSpec Arg(std::string name, ArgType type = ArgType::kString) {
  ArgSpec a;
  a.name = std::move(name);
  a.type = type;
  return a;
}

inline ArgSpec Optional(ArgSpec a) {
  a.optional = true;
  return a;
}

inline ArgSpec Multiple(ArgSpec a) {
  a.multiple = true;
  return a;
}

// An argument introduced by a keyword ("ID <client-id>"); kPureToken when it carries no value.
inline ArgSpec TokenArg(std::string token, std::string name = {},
                        ArgType type = ArgType::kPureToken) {
  ArgSpec a;
  a.name = name.empty() ? token : std::move(name);
  for (char& c : a.name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  a.type = type;
  a.token = std::move(token);
  return a;
}

inline ArgSpec OneOf(std::string name, std::vector<ArgSpec> children) {
  ArgSpec a;
  a.name = std::move(name);
  a.type = ArgType::kOneOf;
  a.children = std::move(children);
  return a;
}

inline CommandSpec Row(std::string name, int arity, uint32_t flags, std::string group,
                       std::string summary, CommandHandler handler,
                       std::vector<ArgSpec> arguments = {}) {
  CommandSpec c;
  c.name = std::move(name);
  c.arity = arity;
  c.flags = flags;
  c.group = std::move(group);
  c.summary = std::move(summary);
  c.complexity = "O(1)";
  c.handler = handler;
  c.arguments = std::move(arguments);
  return c;
}

}  // namespace ebb::server
