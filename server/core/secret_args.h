// SecretArguments: which arguments of a command carry a secret, so SLOWLOG and MONITOR show
// "(redacted)" in their place, as Redis 7 redacts them (redactClientCommandArgument): every
// argument of AUTH, HELLO's AUTH username password, MIGRATE's AUTH password / AUTH2 username
// password, the value CONFIG SET gives requirepass or masterauth, and every argument of ACL
// SETUSER after the subcommand — its user name too, as Redis 7 (its rules may hold passwords).
// Thread-safety: a pure function.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace ebb::server {

struct CommandSpec;

inline constexpr std::string_view kRedactedArgument = "(redacted)";

// One flag per argument of `args` (args[0] is the command's name): true for a secret.
std::vector<bool> SecretArguments(const CommandSpec& spec, std::span<const std::string_view> args);

}  // namespace ebb::server
