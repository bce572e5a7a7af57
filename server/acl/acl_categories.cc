#include "server/acl/acl_categories.h"

#include <array>

#include "common/strings.h"
#include "server/command.h"

namespace ebb::server {
namespace {

constexpr std::array<std::string_view, 23> kNames = {
    "keyspace", "read",        "write",      "set",         "sortedset", "list",  "hash", "string",
    "bitmap",   "hyperloglog", "geo",        "stream",      "pubsub",    "admin", "fast", "slow",
    "blocking", "dangerous",   "connection", "transaction", "scripting", "tlog",  "treg"};

uint64_t Bit(std::string_view name) { return uint64_t{1} << FindAclCategory(name); }

}  // namespace

std::span<const std::string_view> AclCategoryNames() { return kNames; }

int FindAclCategory(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); i++) {
    if (EqualsIgnoreCase(kNames[i], name)) return static_cast<int>(i);
  }
  return -1;
}

uint64_t AclCategoriesOf(const CommandSpec& spec) {
  uint64_t bits = 0;
  if (spec.flags & kCmdWrite) bits |= Bit("write");
  if (spec.flags & kCmdReadOnly) bits |= Bit("read");
  if (spec.flags & (kCmdAdmin | kCmdDebug)) bits |= Bit("admin") | Bit("dangerous");
  if (spec.flags & kCmdPubSub) bits |= Bit("pubsub");
  bits |= (spec.flags & kCmdFast) ? Bit("fast") : Bit("slow");
  static constexpr std::pair<std::string_view, std::string_view> kGroups[] = {
      {"generic", "keyspace"},
      {"string", "string"},
      {"bitmap", "bitmap"},
      {"connection", "connection"},
      {"transactions", "transaction"},
      {"scripting", "scripting"},
      {"pubsub", "pubsub"},
      {"tlog", "tlog"},
      {"treg", "treg"}};
  for (const auto& [group, category] : kGroups) {
    if (spec.group == group) bits |= Bit(category);
  }
  return bits;
}

std::vector<std::string> AclCategoryList(const CommandSpec& spec) {
  const uint64_t bits = AclCategoriesOf(spec);
  std::vector<std::string> out;
  for (size_t i = 0; i < kNames.size(); i++) {
    if (bits & (uint64_t{1} << i)) out.push_back("@" + std::string(kNames[i]));
  }
  return out;
}

}  // namespace ebb::server
