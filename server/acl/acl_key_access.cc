#include "server/acl/acl_key_access.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "server/acl/acl_selector.h"
#include "server/core/command.h"

namespace ebb::server {
namespace {

// The rows whose keys all need the same access other than their flags' (Redis 7's key specs:
// RW/OW/RM with INSERT, UPDATE or DELETE and no ACCESS need W; RO without ACCESS needs neither;
// EVAL, EVALSHA and FCALL, not write rows themselves, give their keys RW ACCESS UPDATE).
std::optional<uint32_t> NamedAccess(std::string_view full_name) {
  static constexpr std::pair<std::string_view, uint32_t> kRows[] = {
      {"append", kAclWrite},
      {"del", kAclWrite},
      {"delete", kAclWrite},
      {"eval", kAclReadWrite},
      {"evalsha", kAclReadWrite},
      {"exists", kAclAnyAccess},
      {"fcall", kAclReadWrite},
      {"expire", kAclWrite},
      {"expireat", kAclWrite},
      {"memory|usage", kAclAnyAccess},
      {"mset", kAclWrite},
      {"msetnx", kAclWrite},
      {"object|encoding", kAclAnyAccess},
      {"object|freq", kAclAnyAccess},
      {"object|idletime", kAclAnyAccess},
      {"object|refcount", kAclAnyAccess},
      {"persist", kAclWrite},
      {"pexpire", kAclWrite},
      {"pexpireat", kAclWrite},
      {"psetex", kAclWrite},
      {"put", kAclWrite},
      {"restore", kAclWrite},
      {"restore-asking", kAclWrite},
      {"setex", kAclWrite},
      {"setnx", kAclWrite},
      {"setrange", kAclWrite},
      {"strlen", kAclAnyAccess},
      {"tlog|clr", kAclWrite},
      {"tlog|ins", kAclWrite},
      {"tlog|size", kAclAnyAccess},
      {"tlog|trim", kAclWrite},
      {"tlog|trimat", kAclWrite},
      {"touch", kAclAnyAccess},
      {"treg|set", kAclWrite},
      {"type", kAclAnyAccess},
      {"unlink", kAclWrite},
      {"watch", kAclAnyAccess}};
  for (const auto& [row, access] : kRows) {
    if (row == full_name) return access;
  }
  return std::nullopt;
}

bool AnyArgIs(std::span<const std::string_view> args, size_t from, std::string_view word) {
  return from < args.size() && std::any_of(args.begin() + from, args.end(),
                                           [&](auto a) { return EqualsIgnoreCase(a, word); });
}

// Redis's bitfieldGetKeys: read-only while every operation is a complete GET or OVERFLOW.
bool BitfieldReadOnly(std::span<const std::string_view> args) {
  for (size_t i = 2; i < args.size(); i++) {
    const size_t rest = args.size() - i - 1;
    if (EqualsIgnoreCase(args[i], "get") && rest >= 2) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "overflow") && rest >= 1) {
      i += 1;
    } else {
      return false;  // SET, INCRBY, or a syntax error: assumed to write, as Redis
    }
  }
  return true;
}

}  // namespace

uint32_t AclKeyNeed(const CommandSpec& spec, std::span<const std::string_view> args,
                    size_t ordinal) {
  const std::string& name = spec.full_name;
  if (name == "set") return AnyArgIs(args, 3, "get") ? kAclReadWrite : kAclWrite;
  if (name == "bitfield") return BitfieldReadOnly(args) ? kAclRead : kAclReadWrite;
  if (name == "copy") return ordinal == 0 ? kAclRead : kAclWrite;
  if (name == "rename" || name == "renamenx") return ordinal == 0 ? kAclReadWrite : kAclWrite;
  if (name == "bitop") return ordinal == 0 ? kAclWrite : kAclRead;
  if (const std::optional<uint32_t> named = NamedAccess(name)) return *named;
  return (spec.flags & kCmdWrite) ? kAclReadWrite : kAclRead;
}

}  // namespace ebb::server
