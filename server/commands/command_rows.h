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

// Every ArgSpec field in one call (the key and expiry commands' rows).
inline ArgSpec DocArg(std::string name, ArgType type, std::string token = "", bool optional = false,
                      bool multiple = false, std::vector<ArgSpec> children = {}) {
  ArgSpec arg;
  arg.name = std::move(name);
  arg.type = type;
  arg.token = std::move(token);
  arg.optional = optional;
  arg.multiple = multiple;
  arg.children = std::move(children);
  return arg;
}

// Every CommandSpec field a command-table row sets, with the key range spelled out
// (first_key/last_key/step as CommandSpec documents them).
inline CommandSpec KeyRangeRow(std::string name, int arity, uint32_t flags, int first_key,
                               int last_key, int step, std::string group, std::string since,
                               std::string summary, std::string complexity,
                               std::vector<ArgSpec> arguments, CommandHandler handler) {
  CommandSpec spec;
  spec.name = std::move(name);
  spec.arity = arity;
  spec.flags = flags;
  spec.first_key = first_key;
  spec.last_key = last_key;
  spec.step = step;
  spec.group = std::move(group);
  spec.since = std::move(since);
  spec.summary = std::move(summary);
  spec.complexity = std::move(complexity);
  spec.arguments = std::move(arguments);
  spec.handler = handler;
  return spec;
}

// A row whose keys start at `first_key` (0: none) and run to the last argument, except for the
// arities 2 and -3, which name exactly one key.
inline CommandSpec KeyedRow(std::string name, int arity, uint32_t flags, int first_key,
                            std::string group, std::string since, std::string summary,
                            std::string complexity, std::vector<ArgSpec> arguments,
                            CommandHandler handler) {
  const bool keyed = first_key > 0;
  const int last_key = !keyed ? 0 : (arity == 2 || arity == -3 ? first_key : -1);
  return KeyRangeRow(std::move(name), arity, flags, first_key, last_key, keyed ? 1 : 0,
                     std::move(group), std::move(since), std::move(summary), std::move(complexity),
                     std::move(arguments), handler);
}

}  // namespace ebb::server
