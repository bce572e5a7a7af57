#include "server/acl/acl_categories.h"

#include <array>
#include <utility>

#include "common/strings.h"
#include "server/core/command.h"

namespace ebb::server {
namespace {

constexpr std::array<std::string_view, 24> kNames = {
    "keyspace",   "read",        "write",     "set",         "sortedset", "list",
    "hash",       "string",      "bitmap",    "hyperloglog", "geo",       "stream",
    "pubsub",     "admin",       "fast",      "slow",        "blocking",  "dangerous",
    "connection", "transaction", "scripting", "tlog",        "treg",      "timeseries"};

uint64_t Bit(std::string_view name) { return uint64_t{1} << FindAclCategory(name); }

// "keyspace dangerous" as bits. REQUIRES: every word is a category name.
uint64_t Named(std::string_view names) {
  uint64_t bits = 0;
  while (!names.empty()) {
    const size_t space = names.find(' ');
    bits |= Bit(names.substr(0, space));
    names = space == std::string_view::npos ? std::string_view() : names.substr(space + 1);
  }
  return bits;
}

// The rows Redis 7 names categories for that their group does not give (its JSON's
// "acl_categories"), space separated.
std::string_view NamedCategories(std::string_view full_name) {
  static constexpr std::pair<std::string_view, std::string_view> kRows[] = {
      {"asking", "connection"},
      {"command", "connection"},
      {"command|count", "connection"},
      {"command|docs", "connection"},
      {"command|getkeys", "connection"},
      {"command|help", "connection"},
      {"command|info", "connection"},
      {"command|list", "connection"},
      {"dbsize", "keyspace"},
      {"flushall", "keyspace dangerous"},
      {"flushdb", "keyspace dangerous"},
      {"info", "dangerous"},
      {"keys", "keyspace dangerous"},
      {"migrate", "keyspace dangerous"},
      {"readonly", "connection"},
      {"readwrite", "connection"},
      {"restore", "keyspace dangerous"},
      {"restore-asking", "keyspace dangerous"},
      {"role", "admin dangerous"},
      {"wait", "connection"}};
  for (const auto& [row, categories] : kRows) {
    if (row == full_name) return categories;
  }
  return {};
}

// The category Redis gives the rows of the group; none for a container (Redis gives CLIENT,
// OBJECT, FUNCTION... only @slow: their subcommands carry the categories).
uint64_t GroupCategory(const CommandSpec& spec) {
  if (!spec.subcommands.empty()) return 0;
  static constexpr std::pair<std::string_view, std::string_view> kGroups[] = {
      {"generic", "keyspace"},
      {"string", "string"},
      {"bitmap", "bitmap"},
      {"connection", "connection"},
      {"transactions", "transaction"},
      {"scripting", "scripting"},
      {"tlog", "tlog"},
      {"treg", "treg"},
      {"timeseries", "timeseries"}};
  for (const auto& [group, category] : kGroups) {
    if (spec.group == group) return Bit(category);
  }
  return 0;
}

}  // namespace

std::span<const std::string_view> AclCategoryNames() { return kNames; }

int FindAclCategory(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); i++) {
    if (EqualsIgnoreCase(kNames[i], name)) return static_cast<int>(i);
  }
  return -1;
}

uint64_t AclCategoriesOf(const CommandSpec& spec) {
  const std::string_view named = NamedCategories(spec.full_name);
  uint64_t bits = named.empty() ? GroupCategory(spec) : Named(named);
  if (spec.flags & kCmdWrite) bits |= Bit("write");
  // Redis leaves scripts out of @read (EVAL_RO, FCALL_RO): what they read is up to the script.
  if ((spec.flags & kCmdReadOnly) && !(bits & Bit("scripting"))) bits |= Bit("read");
  if (spec.flags & (kCmdAdmin | kCmdDebug)) bits |= Bit("admin") | Bit("dangerous");
  if (spec.flags & kCmdPubSub) bits |= Bit("pubsub");
  bits |= (spec.flags & kCmdFast) ? Bit("fast") : Bit("slow");
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
