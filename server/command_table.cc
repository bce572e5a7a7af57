#include <cassert>
#include <cctype>

#include "server/command.h"

namespace ebb::server {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

void CommandTable::Add(CommandSpec spec) {
  std::string key = Lower(spec.name);
  assert(rows_.find(key) == rows_.end());
  rows_.emplace(std::move(key), std::move(spec));
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  if (name.size() > 64) return nullptr;
  auto it = rows_.find(Lower(name));
  return it == rows_.end() ? nullptr : &it->second;
}

const CommandSpec* CommandTable::FindSubcommand(const CommandSpec& container,
                                                std::string_view name) {
  std::string key = Lower(name);
  for (const CommandSpec& sub : container.subcommands) {
    if (sub.name == key) return &sub;
  }
  return nullptr;
}

}  // namespace ebb::server
