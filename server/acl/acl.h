// Acl: the server's ACL users (Redis 7's ACL) and the permission check every command passes.
//
// The `default` user always exists: on, nopass, everything allowed, until `requirepass` (which
// sets its one password, or nopass when empty) or ACL SETUSER default changes it. A client that
// has not authenticated acts as `default` while `default` is on and nopass; otherwise it must
// AUTH first (NOAUTH).
//
// Users are held by pointer-stable storage: a client keeps a pointer to the user it
// authenticated as, and ACL SETUSER changes the user in place (all rules or none), so the client's
// permissions follow at its next command. ACL DELUSER disconnects the user's clients.
//
// Users persist in the `aclfile` (LoadFile / SaveFile: ACL LOAD, ACL SAVE, and at startup).
// Refusals and failed authentications are kept for ACL LOG (acl_log.h).
// Users also come from the config file's `user` lines (LoadConfigUsers; CONFIG REWRITE writes
// them back), never together with an aclfile.
//
// Thread-safety: none; used on the command thread only.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/acl/acl_code.h"
#include "server/acl/acl_log.h"
#include "server/acl/acl_user.h"
#include "server/core/client.h"
#include "server/core/result.h"

namespace ebb::server {

// Why a command is refused (Redis's ACL_DENIED_*).
enum class AclVerdict { kAllowed, kDeniedCommand, kDeniedKey, kDeniedChannel };

class Acl {
 public:
  // REQUIRES: table outlives the Acl and has all its rows added.
  explicit Acl(const CommandTable* table);

  const AclUser& default_user() const { return *default_; }
  // Whom a client that has not authenticated acts as: `default` while it is on and nopass,
  // else nullptr (the client must AUTH: NOAUTH).
  const AclUser* anonymous() const { return anonymous_; }
  // Whom `client` acts as: the user it authenticated as, else anonymous(); nullptr when it must
  // authenticate first (NOAUTH).
  const AclUser* UserOf(const Client& client) const {
    return client.user() != nullptr ? client.user() : anonymous_;
  }

  // `acl-pubsub-default`: whether users created from now on (ACL SETUSER, ACL LOAD), and the
  // `reset` rule, get allchannels rather than resetchannels. Existing users keep their channels.
  void set_pubsub_default_all(bool all) { pubsub_default_all_ = all; }

  // `requirepass`: "" makes `default` nopass, anything else its one password.
  void SetRequirePass(std::string_view password);

  // AUTH / HELLO AUTH: the user if `name` exists, is on and `password` is one of its passwords
  // (or it is nopass); else nullptr.
  const AclUser* Authenticate(std::string_view name, std::string_view password) const;

  const AclUser* Find(std::string_view name) const;
  // ACL SETUSER: creates the user if new, then applies every rule to a copy; the user changes
  // only if all apply. Refusals (acl_code.h): a rule's, with the rule as the detail;
  // kUserNameSpaces; kUnmatchedParenthesis.
  Result<AclCode> SetUser(std::string_view name, std::span<const std::string_view> rules);
  // After ACL SETUSER changed `user`: disconnects its clients subscribed to a channel, pattern
  // or shard channel the user may no longer access (Redis 7's ACLKillPubsubClientsIfNeeded).
  static void DisconnectRevokedSubscribers(const AclUser& user, ClientRegistry& clients);
  // ACL DELUSER: removes the named users (none when one is `default`: kDeleteDefault),
  // disconnecting their clients; returns how many existed.
  // REQUIRES (on success): no client still points at a removed user after this returns —
  // done here by clearing their user and asking them to close.
  Result<AclCode, int64_t> DeleteUsers(std::span<const std::string_view> names,
                                       ClientRegistry& clients);
  // ACL LOAD (and startup with `aclfile`): replaces every user with the file's `user <name>
  // <rule> ...` lines (blank lines skipped), all or nothing. Users not in the file are dropped
  // and every client authenticated as a user other than `default` is disconnected (Redis 7.0);
  // `default` takes the file's rules, or Redis's defaults (on, nopass, everything) if the file
  // has none. Refusals: kAclFileUnreadable, kAclFileErrors (every refused line's error, each
  // "<path>:<line>: <reason>. "; AclErrorText adds "WARNING: ACL errors detected, no change to
  // the previously active ACL rules was performed").
  Result<AclCode> LoadFile(const std::string& path, ClientRegistry* clients);
  // The config file's `user <name> <rule> ...` lines (Redis's `user` directive), at start, in
  // order: each user is created — `default` reset first — and given its rules. Stops at the first
  // refusal, SetUser's (worded for the log by AclErrorText(r, AclRuleWording::kUserDeclaration):
  // "Error in user declaration '<rule>': <reason>").
  Result<AclCode> LoadConfigUsers(const std::vector<std::vector<std::string>>& lines);
  // The `user` lines CONFIG REWRITE writes: each user's name, then ACL LIST's rules; `default`
  // only when it differs from the built-in default user.
  std::vector<std::vector<std::string>> ConfigUserLines() const;
  // ACL SAVE: writes ACL LIST's lines to `path` atomically (ReplaceFileAtomically). Refusal:
  // kSaveFailed, with what failed as the detail.
  Result<AclCode> SaveFile(const std::string& path) const;

  // ACL LIST's line for a user: "user <name> <rules>" (also the aclfile's lines).
  static std::string ListLine(const AclUser& user) {
    return "user " + user.name() + " " + user.Describe();
  }

  // Every user by name, in name order (ACL LIST, ACL USERS).
  const std::map<std::string, std::unique_ptr<AclUser>, std::less<>>& users() const {
    return users_;
  }

  // The permission check (Redis's ACLCheckAllPerm): allowed when one of the user's selectors
  // allows the command row, every key at the row's key positions for the access the request needs
  // to it (acl_key_access.h), and the channels of PUBLISH/SPUBLISH, (S)SUBSCRIBE and PSUBSCRIBE.
  // Else the refusal that got furthest in any selector: command, then key, then channel, and
  // among equals the later argument. `args` is the whole request, args[0] the command name.
  // `flags`: the row's flags with its container's; a kCmdNoAuth row (AUTH, HELLO, QUIT, RESET)
  // skips the command check, as Redis.
  // `denied_arg` (optional) receives the index in `args` of the key or channel refused.
  static AclVerdict Check(const AclUser& user, const CommandSpec& spec, uint32_t flags,
                          std::span<const std::string_view> args, size_t* denied_arg = nullptr);

  // Check for `client` acting as `user`, with a refusal kept in the ACL LOG as happening in
  // `context` at `now_ms`.
  AclVerdict CheckAndLog(const Client& client, const AclUser& user, const CommandSpec& spec,
                         uint32_t flags, std::span<const std::string_view> args,
                         AclLogContext context, int64_t now_ms);
  // ACL LOG: a failed AUTH or HELLO AUTH (`command`, as the client sent it) naming `username`.
  void LogAuthFailure(const Client& client, std::string_view username, std::string_view command,
                      int64_t now_ms);
  AclLog& log() { return log_; }
  // `acllog-max-len`: the most entries the log keeps.
  void set_log_max_len(size_t len) { log_max_len_ = len; }

 private:
  // The aclfile's users, or the errors of its refused lines (LoadFile's kAclFileErrors detail).
  struct FileUsers {
    std::map<std::string, std::unique_ptr<AclUser>, std::less<>> users;
    std::string errors;
  };
  FileUsers ParseFileUsers(std::istream& in, const std::string& path) const;
  // LoadFile's change once the file is read: `loaded` replaces every user.
  void ReplaceUsers(std::map<std::string, std::unique_ptr<AclUser>, std::less<>> loaded,
                    ClientRegistry* clients);
  void UpdateAnonymous() {
    anonymous_ = default_->enabled() && default_->nopass() ? default_ : nullptr;
  }

  const CommandTable* table_;
  std::map<std::string, std::unique_ptr<AclUser>, std::less<>> users_;
  AclUser* default_;          // users_["default"], which is never removed
  const AclUser* anonymous_;  // see anonymous()
  AclLog log_;
  size_t log_max_len_ = 128;
  bool pubsub_default_all_ = false;
};

// The NOPERM reply for a refusal (Redis 7's words), without the leading '-'.
std::string AclDeniedError(AclVerdict verdict, const CommandSpec& spec);
// ACL DRYRUN's answer for a refusal (Redis 7's words): "This user has no permissions to run the
// '<command>' command", "... to access the '<key>' key", "... to access the '<channel>' channel";
// `object` is the key or channel refused.
std::string AclDryRunDeniedText(AclVerdict verdict, const CommandSpec& spec,
                                std::string_view object);
// The error EXEC answers, in place of its reply, for a queued command the ACL refuses when the
// transaction runs (Redis 7's words): "NOPERM ACLs rules changed between the moment the
// transaction was accumulated and the EXEC call. This command is no longer allowed for the
// following reason: <reason>".
std::string AclExecDeniedError(AclVerdict verdict);
// The error a script's redis.call gets instead (Redis 7's words): "The user executing the script
// can't run this command or subcommand", "... can't access at least one of the keys mentioned in
// the command arguments", "... can't publish to the channel mentioned in the command".
std::string AclScriptDeniedError(AclVerdict verdict);

}  // namespace ebb::server
