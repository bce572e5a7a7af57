#include <cassert>

#include "common/strings.h"
#include "server/command.h"

namespace ebb::server {
namespace {

// Command names are ASCII and short: lowercase into `buf` without allocating.
constexpr size_t kMaxNameLength = 64;
std::string_view LowerInto(std::string_view s, char (&buf)[kMaxNameLength]) {
  for (size_t i = 0; i < s.size(); i++) buf[i] = AsciiLower(s[i]);
  return std::string_view(buf, s.size());
}

}  // namespace

void CommandTable::Add(CommandSpec spec) {
  std::string key = AsciiLower(spec.name);
  assert(rows_.find(key) == rows_.end());
  spec.full_name = key;
  spec.id = row_count_++;
  for (CommandSpec& sub : spec.subcommands) {
    sub.full_name = key + "|" + std::string(sub.name);
    sub.id = row_count_++;
  }
  auto row = rows_.emplace(std::move(key), std::move(spec)).first;
  index_.emplace(row->first, &row->second);
}

void CommandTable::Add(std::vector<CommandSpec> specs) {
  for (CommandSpec& spec : specs) Add(std::move(spec));
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  if (name.size() > kMaxNameLength) return nullptr;
  char buf[kMaxNameLength];
  auto it = index_.find(LowerInto(name, buf));
  return it == index_.end() ? nullptr : it->second;
}

const CommandSpec* CommandTable::FindSubcommand(const CommandSpec& container,
                                                std::string_view name) {
  if (name.size() > kMaxNameLength) return nullptr;
  char buf[kMaxNameLength];
  const std::string_view key = LowerInto(name, buf);
  for (const CommandSpec& sub : container.subcommands) {
    if (sub.name == key) return &sub;
  }
  return nullptr;
}

}  // namespace ebb::server
