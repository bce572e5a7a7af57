// AclSelector: one set of an ACL user's permissions, as Redis 7's selectors — the commands it may
// run, the keys and the Pub/Sub channels it may touch. A user has a root selector (its rules
// given outside parentheses) and any number of added ones ("(+get ~key)"); a request is allowed
// when one selector allows the command, every key for the access the command needs, and every
// channel (Acl::Check).
//
// Rules (Redis 7's words): ~pattern, %R~pattern, %W~pattern, %RW~pattern, allkeys, resetkeys,
// &pattern, allchannels, resetchannels, +command, -command, +command|subcommand,
// -command|subcommand, +command|first-arg (a command without subcommands allowed with that first
// argument only, as SELECT|0 or DEBUG|OBJECT), +@category, -@category, allcommands, nocommands.
//
// Commands are a bit per command-table row (CommandSpec::id): +command allows the row and all its
// subcommands, +@category every row of the category (acl_categories.h). A selector given +@all
// also keeps it when described ("+@all -get"), as Redis's future-commands bit. A category that
// holds no ebb command (@set, @list, ...) has no bits to set: the selector remembers the last
// rule given for it since +@all or -@all, and describes it ("+@all -@set"), so the rule a user
// wrote reads back and survives ACL SAVE and LOAD.
//
// Thread-safety: a value; used on the command thread only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/acl/acl_code.h"

namespace ebb::server {

class CommandTable;
struct CommandSpec;

// What a key pattern admits: reads (%R~), writes (%W~) or both (~). A command's key may need
// either, both, or neither (kAclAnyAccess: a key only tested for existence or size, which any
// pattern naming it admits) — acl_key_access.h.
enum AclKeyAccess : uint32_t { kAclAnyAccess = 0, kAclRead = 1, kAclWrite = 2, kAclReadWrite = 3 };

// Redis's ACLStringHasSpaces: true when `text` holds whitespace (isspace) or a NUL. A user name,
// key pattern or channel pattern with one is refused ("Syntax error", "Usernames can't contain
// spaces or null characters"): the aclfile could not read it back as the same rule, and a newline
// would start a line of its own there.
bool AclStringHasSpaces(std::string_view text);

class AclSelector {
 public:
  // A selector that allows nothing, and every channel when `all_channels` (acl-pubsub-default).
  // REQUIRES: table outlives the selector and has all its rows added.
  AclSelector(const CommandTable* table, bool all_channels);

  // Applies one rule; a refused rule changes nothing. Refusals (acl_code.h): kSyntaxError,
  // kUnknownName, kKeyPatternAfterAll, kChannelPatternAfterAll, kFirstArgOfSubcommand.
  Result<AclCode> Apply(std::string_view rule);

  // True when every command, key and channel is allowed.
  bool unrestricted() const { return unrestricted_; }
  // `args`: the whole request (a first-arg rule looks at args[1]).
  bool CanRun(const CommandSpec& spec, std::span<const std::string_view> args) const;
  bool all_keys() const { return all_keys_; }
  // `need`: an AclKeyAccess; a pattern admits the key when it grants all of `need`.
  bool CanAccessKey(std::string_view key, uint32_t need) const;
  bool all_channels() const { return all_channels_; }
  // A channel name (PUBLISH, SUBSCRIBE) is matched against the patterns; a pattern
  // (PSUBSCRIBE) must equal one of them literally, as Redis.
  bool CanAccessChannel(std::string_view channel, bool is_pattern) const;

  // ACL GETUSER's fields, in Redis's format.
  std::string CommandRules() const;  // "+@all", "-@all +get", ...
  std::string KeyRules() const;      // "~*", "%R~a* ~b", or ""
  std::string ChannelRules() const;  // "&*", "&news.*", or ""
  // ACL LIST's form: keys, then channels ("&*" or "resetchannels &a ..."), then commands.
  std::string Describe() const;

 private:
  struct KeyPattern {
    std::string pattern;
    uint32_t access;
  };
  using FirstArgs = std::unordered_map<size_t, std::vector<std::string>>;

  Result<AclCode> ApplyKeyPattern(std::string_view rule);
  Result<AclCode> ApplyChannelPattern(std::string_view rule);
  Result<AclCode> ApplyCommandRule(std::string_view rule);
  // +command|first-arg for a row without subcommands (Redis's allowed_firstargs).
  void AllowFirstArg(const CommandSpec& spec, std::string_view arg);
  // Sets `allow` on the row and, for a container, on all its subcommands; the row's first-args
  // go (when `first_args` is given).
  static void SetCommand(std::vector<bool>* bits, const CommandSpec& spec, bool allow,
                         FirstArgs* first_args);
  // Returns how many rows the category holds.
  size_t SetCategory(std::vector<bool>* bits, int category, bool allow,
                     FirstArgs* first_args) const;
  void Recompute();

  const CommandTable* table_;
  std::vector<bool> allowed_;  // by CommandSpec::id
  // By CommandSpec::id of a row not allowed: the first arguments it may run with, as given.
  FirstArgs first_args_;
  bool all_commands_ = false;  // +@all given last among +@all / -@all
  // By category index, for a category without rows: +1 or -1 for the last +@/-@ rule given it
  // since +@all / -@all, 0 for none.
  std::vector<int8_t> empty_category_rules_;
  bool all_keys_ = false;
  std::vector<KeyPattern> keys_;
  bool all_channels_ = false;
  std::vector<std::string> channels_;
  bool unrestricted_ = false;
};

}  // namespace ebb::server
