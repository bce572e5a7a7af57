// AclUser: one ACL user as Redis 7 has it — on/off, passwords (kept as SHA-256 hex), and its
// permissions as selectors (acl_selector.h): the root selector, which the permission rules given
// outside parentheses change, then the selectors added with "(<rules>)", in the order added.
//
// User rules (Redis 7's words): on, off, nopass, resetpass, >password, <password, #sha256hex,
// !sha256hex, sanitize-payload, skip-sanitize-payload, "(<selector rules>)", clearselectors
// (removes the added selectors, not the root), reset; any other rule is the root selector's.
// A selector's rules inside "(...)" are separated by spaces; MergeSelectorArguments joins a
// selector written across several arguments ("(~a", "+get)") first, as ACL SETUSER and the
// aclfile do.
//
// Thread-safety: a value; used on the command thread only.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/acl/acl_selector.h"

namespace ebb::server {

// Redis's ACLMergeSelectorArguments: each run of arguments from one starting with '(' (and not
// ending with ')') to the next ending with ')' becomes one, joined by spaces; the others stay.
// nullopt when a '(' is never closed, with *unmatched the index of the argument opening it.
std::optional<std::vector<std::string>> MergeSelectorArguments(
    std::span<const std::string_view> args, size_t* unmatched);

class Client;

class AclUser {
 public:
  // A new user as ACL SETUSER creates one: off, no password, no command or key, and every
  // channel when `all_channels` (acl-pubsub-default allchannels), else none.
  // REQUIRES: table outlives the user and has all its rows added.
  AclUser(std::string name, const CommandTable* table, bool all_channels = false);

  // Redis's default user: on, nopass, every command, key and channel.
  static AclUser Default(const CommandTable* table);

  const std::string& name() const { return name_; }
  // Whether the `reset` rule ends with allchannels, and a selector added with "(...)" starts
  // with every channel (acl-pubsub-default at the time the rule applies).
  void set_channels_default_all(bool all) { channels_default_all_ = all; }

  // Applies one rule (after MergeSelectorArguments); a refused rule changes nothing. Refusals
  // (acl_code.h): a selector's (acl_selector.h), kNoSuchPassword (a password to remove that the
  // user does not have), kBadPasswordHash (a hash that is not 64 lowercase hexadecimal digits).
  Result<AclCode> Apply(std::string_view rule);
  // Apply for a rule ebb itself gives, which always applies (on, nopass, >password, the rules
  // `reset` stands for). REQUIRES: the rule applies.
  void ApplyBuiltIn(std::string_view rule);

  bool enabled() const { return enabled_; }
  bool nopass() const { return nopass_; }
  // True when the user is on and `password` is one of its passwords or it is nopass. The
  // comparison is of SHA-256 digests, in time independent of where they differ.
  bool Authenticates(std::string_view password) const;

  // True when one selector allows every command, key and channel: the dispatcher skips the
  // checks.
  bool unrestricted() const { return unrestricted_; }
  // The root selector first, then the added ones in the order added.
  const std::vector<AclSelector>& selectors() const { return selectors_; }
  const AclSelector& root() const { return selectors_.front(); }
  // Whether one of the selectors admits the channel (AclSelector::CanAccessChannel).
  bool CanAccessChannel(std::string_view channel, bool is_pattern) const;

  // ACL GETUSER / ACL LIST pieces, in Redis's format.
  std::vector<std::string_view> Flags() const;  // "on"|"off", ["nopass"], "sanitize-payload"...
  const std::vector<std::string>& password_hashes() const { return password_hashes_; }
  // ACL LIST's line after "user <name> ": flags, passwords, the root selector, then each added
  // selector in parentheses.
  std::string Describe() const;

 private:
  // "(<rules>)": a selector with those rules, added only if all apply.
  Result<AclCode> AddSelector(std::string_view rule);
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
  std::vector<AclSelector> selectors_;        // never empty: [0] is the root
  bool unrestricted_ = false;
};

// The name CLIENT LIST and the ACL log show for `client`'s user: the user it authenticated as,
// or "default" before it has.
std::string_view ClientUserName(const Client& client);

}  // namespace ebb::server
