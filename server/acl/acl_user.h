// AclUser: one ACL user as Redis 7 has it — on/off, passwords (kept as SHA-256 hex), the commands
// it may run, the keys and Pub/Sub channels it may touch — built from ACL SETUSER's rules.
//
// Rules (Redis 7's words): on, off, nopass, resetpass, >password, <password, #sha256hex,
// !sha256hex, ~pattern, %R~pattern, %W~pattern, %RW~pattern, allkeys, resetkeys, &pattern,
// allchannels, resetchannels, +command, -command, +command|subcommand, -command|subcommand,
// +command|first-arg (a command without subcommands allowed with that first argument only, as
// SELECT|0 or DEBUG|OBJECT), +@category, -@category, allcommands, nocommands, sanitize-payload,
// skip-sanitize-payload, reset. Selectors ("(...)", clearselectors) are refused as a syntax error.
//
// Commands are a bit per command-table row (CommandSpec::id): +command allows the row and all its
// subcommands, +@category every row of the category (acl_categories.h). A user given +@all also
// keeps it when described ("+@all -get"), as Redis's future-commands bit.
//
// Thread-safety: a value; used on the command thread only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ebb::server {

class CommandTable;
struct CommandSpec;

// What a key pattern admits: reads (%R~), writes (%W~) or both (~).
enum AclKeyAccess : uint32_t { kAclRead = 1, kAclWrite = 2, kAclReadWrite = 3 };

// Redis's ACLStringHasSpaces: true when `text` holds whitespace (isspace) or a NUL. A user name,
// key pattern or channel pattern with one is refused ("Syntax error", "Usernames can't contain
// spaces or null characters"): the aclfile could not read it back as the same rule, and a newline
// would start a line of its own there.
bool AclStringHasSpaces(std::string_view text);

class AclUser {
 public:
  // A new user as ACL SETUSER creates one: off, no password, no command or key, and every
  // channel when `all_channels` (acl-pubsub-default allchannels), else none.
  // REQUIRES: table outlives the user and has all its rows added.
  AclUser(std::string name, const CommandTable* table, bool all_channels = false);

  // Redis's default user: on, nopass, every command, key and channel.
  static AclUser Default(const CommandTable* table);

  const std::string& name() const { return name_; }
  // Whether the `reset` rule ends with allchannels (acl-pubsub-default at the time it applies).
  void set_channels_default_all(bool all) { channels_default_all_ = all; }

  // Applies one rule. Returns "" or Redis's reason: "Syntax error", "Unknown command or category
  // name in ACL", "The password you are trying to remove from the user does not exist", "The
  // password hash must be exactly 64 characters and contain only lowercase hexadecimal
  // characters", "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid ...".
  std::string Apply(std::string_view rule);

  bool enabled() const { return enabled_; }
  bool nopass() const { return nopass_; }
  // True when the user is on and `password` is one of its passwords or it is nopass. The
  // comparison is of SHA-256 digests, in time independent of where they differ.
  bool Authenticates(std::string_view password) const;

  // True when every command, key and channel is allowed: the dispatcher skips the checks.
  bool unrestricted() const { return unrestricted_; }
  // `args`: the whole request (a first-arg rule looks at args[1]).
  bool CanRun(const CommandSpec& spec, std::span<const std::string_view> args) const;
  // `need`: kAclRead, kAclWrite or both.
  bool CanAccessKey(std::string_view key, uint32_t need) const;
  // A channel name (PUBLISH, SUBSCRIBE) is matched against the user's patterns; a pattern
  // (PSUBSCRIBE) must equal one of them literally, as Redis.
  bool CanAccessChannel(std::string_view channel, bool is_pattern) const;

  // ACL GETUSER / ACL LIST pieces, in Redis's format.
  std::vector<std::string_view> Flags() const;  // "on"|"off", ["nopass"], "sanitize-payload"...
  const std::vector<std::string>& password_hashes() const { return password_hashes_; }
  std::string CommandRules() const;  // "+@all", "-@all +get", ...
  std::string KeyRules() const;      // "~*", "%R~a* ~b", or ""
  std::string ChannelRules() const;  // "&*", "&news.*", or ""
  // ACL LIST's line after "user <name> ".
  std::string Describe() const;

 private:
  struct KeyPattern {
    std::string pattern;
    uint32_t access;
  };
  std::string ApplyCommandRule(std::string_view rule);
  // +command|first-arg for a row without subcommands (Redis's allowed_firstargs).
  std::string AllowFirstArg(const CommandSpec& spec, std::string_view arg);
  // Sets `allow` on the row and, for a container, on all its subcommands; the row's first-args
  // go (when `first_args` is given).
  void SetCommand(std::vector<bool>* bits, const CommandSpec& spec, bool allow,
                  std::unordered_map<size_t, std::vector<std::string>>* first_args) const;
  void SetCategory(std::vector<bool>* bits, int category, bool allow,
                   std::unordered_map<size_t, std::vector<std::string>>* first_args) const;
  void Recompute();

  std::string name_;
  const CommandTable* table_;
  bool enabled_ = false;
  bool nopass_ = false;
  // Which of sanitize-payload / skip-sanitize-payload was given last, if either (Redis lists
  // only a flag that is set: a new user has neither, `reset` sets sanitize-payload).
  enum class SanitizePayload { kUnset, kSanitize, kSkip };
  SanitizePayload sanitize_payload_ = SanitizePayload::kUnset;
  bool channels_default_all_ = false;         // see set_channels_default_all()
  std::vector<std::string> password_hashes_;  // SHA-256 hex, in the order added
  std::vector<bool> allowed_;                 // by CommandSpec::id
  // By CommandSpec::id of a row not allowed: the first arguments it may run with, as given.
  std::unordered_map<size_t, std::vector<std::string>> first_args_;
  bool all_commands_ = false;  // +@all given last among +@all / -@all
  bool all_keys_ = false;
  std::vector<KeyPattern> keys_;
  bool all_channels_ = false;
  std::vector<std::string> channels_;
  bool unrestricted_ = false;
};

}  // namespace ebb::server
