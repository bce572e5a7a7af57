#include "server/acl/acl_user.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <optional>

#include "common/secrets.h"
#include "common/strings.h"
#include "server/core/client.h"
#include "server/core/digest.h"

namespace ebb::server {
namespace {

bool IsSha256Hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// The SHA-256 hex digest a password rule names: of the text after `plain` ('>' adds, '<'
// removes), or given after the other sign ('#', '!'); nothing when a given digest is malformed.
std::optional<std::string> PasswordRuleHash(std::string_view rule, char plain) {
  if (rule[0] == plain) return Sha256Hex(rule.substr(1));
  if (!IsSha256Hex(rule.substr(1))) return std::nullopt;
  return std::string(rule.substr(1));
}

// The rules inside "(...)", split at whitespace.
std::vector<std::string_view> SelectorRules(std::string_view body) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::vector<std::string_view> rules;
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && space(body[i])) i++;
    const size_t start = i;
    while (i < body.size() && !space(body[i])) i++;
    if (i > start) rules.push_back(body.substr(start, i - start));
  }
  return rules;
}

}  // namespace

std::optional<std::vector<std::string>> MergeSelectorArguments(
    std::span<const std::string_view> args, size_t* unmatched) {
  std::vector<std::string> merged;
  std::optional<size_t> open;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string_view arg = args[i];
    if (!open && arg.starts_with('(') && !arg.ends_with(')')) {
      open = i;
      merged.emplace_back(arg);
    } else if (open) {
      merged.back() += " " + std::string(arg);
      if (arg.ends_with(')')) open.reset();
    } else {
      merged.emplace_back(arg);
    }
  }
  if (open) {
    if (unmatched != nullptr) *unmatched = *open;
    return std::nullopt;
  }
  return merged;
}

AclUser::AclUser(std::string name, const CommandTable* table, bool all_channels)
    : name_(std::move(name)), table_(table), channels_default_all_(all_channels) {
  selectors_.emplace_back(table, all_channels);
}

AclUser AclUser::Default(const CommandTable* table) {
  AclUser u("default", table);
  for (std::string_view rule : {"on", "nopass", "allkeys", "allchannels", "allcommands"}) {
    u.ApplyBuiltIn(rule);
  }
  return u;
}

Result<AclCode> AclUser::Apply(std::string_view rule) {
  Result<AclCode> error;
  if (rule.empty()) {
    // Redis: an empty rule changes nothing.
  } else if (EqualsIgnoreCase(rule, "on")) {
    enabled_ = true;
  } else if (EqualsIgnoreCase(rule, "off")) {
    enabled_ = false;
  } else if (EqualsIgnoreCase(rule, "nopass")) {
    nopass_ = true;
    password_hashes_.clear();
  } else if (EqualsIgnoreCase(rule, "resetpass")) {
    nopass_ = false;
    password_hashes_.clear();
  } else if (EqualsIgnoreCase(rule, "sanitize-payload")) {
    sanitize_payload_ = SanitizePayload::kSanitize;
  } else if (EqualsIgnoreCase(rule, "skip-sanitize-payload")) {
    sanitize_payload_ = SanitizePayload::kSkip;
  } else if (rule[0] == '>' || rule[0] == '#') {
    const std::optional<std::string> hash = PasswordRuleHash(rule, '>');
    if (!hash) return AclCode::kBadPasswordHash;
    if (std::find(password_hashes_.begin(), password_hashes_.end(), *hash) ==
        password_hashes_.end()) {
      password_hashes_.push_back(*hash);
    }
    nopass_ = false;
  } else if (rule[0] == '<' || rule[0] == '!') {
    const std::optional<std::string> hash = PasswordRuleHash(rule, '<');
    if (!hash) return AclCode::kBadPasswordHash;
    auto it = std::find(password_hashes_.begin(), password_hashes_.end(), *hash);
    if (it == password_hashes_.end()) {
      return AclCode::kNoSuchPassword;
    }
    password_hashes_.erase(it);
  } else if (rule.size() >= 2 && rule.front() == '(' && rule.back() == ')') {
    error = AddSelector(rule);
  } else if (EqualsIgnoreCase(rule, "clearselectors")) {
    selectors_.erase(selectors_.begin() + 1, selectors_.end());
  } else if (EqualsIgnoreCase(rule, "reset")) {
    for (std::string_view r : {"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload",
                               "clearselectors", "-@all"}) {
      ApplyBuiltIn(r);
    }
    if (channels_default_all_) ApplyBuiltIn("allchannels");
  } else {
    error = selectors_.front().Apply(rule);
  }
  Recompute();
  return error;
}

void AclUser::ApplyBuiltIn(std::string_view rule) {
  [[maybe_unused]] const Result<AclCode> applied = Apply(rule);
  assert(applied.ok());
}

Result<AclCode> AclUser::AddSelector(std::string_view rule) {
  AclSelector selector(table_, channels_default_all_);
  for (std::string_view r : SelectorRules(rule.substr(1, rule.size() - 2))) {
    // A rule ending with ')' would end the selector early when ACL LIST's line is read back
    // from the aclfile, and the rules after it would change the root selector.
    if (r.ends_with(')')) return AclCode::kSyntaxError;
    Result<AclCode> applied = selector.Apply(r);
    if (!applied.ok()) return applied;
  }
  selectors_.push_back(std::move(selector));
  return {};
}

void AclUser::Recompute() {
  unrestricted_ = std::any_of(selectors_.begin(), selectors_.end(),
                              [](const AclSelector& s) { return s.unrestricted(); });
}

bool AclUser::Authenticates(std::string_view password) const {
  if (!enabled_) return false;
  if (nopass_) return true;
  const std::string hash = Sha256Hex(password);
  bool match = false;
  for (const std::string& h : password_hashes_) match |= SecretEquals(h, hash);
  return match;
}

bool AclUser::CanAccessChannel(std::string_view channel, bool is_pattern) const {
  return std::any_of(selectors_.begin(), selectors_.end(),
                     [&](const AclSelector& s) { return s.CanAccessChannel(channel, is_pattern); });
}

std::vector<std::string_view> AclUser::Flags() const {
  std::vector<std::string_view> out;
  out.push_back(enabled_ ? "on" : "off");
  if (nopass_) out.push_back("nopass");
  if (sanitize_payload_ == SanitizePayload::kSanitize) out.push_back("sanitize-payload");
  if (sanitize_payload_ == SanitizePayload::kSkip) out.push_back("skip-sanitize-payload");
  return out;
}

std::string AclUser::Describe() const {
  std::string out;
  for (std::string_view flag : Flags()) out += std::string(flag) + " ";
  for (const std::string& h : password_hashes_) out += "#" + h + " ";
  out += root().Describe();
  for (size_t i = 1; i < selectors_.size(); i++) out += " (" + selectors_[i].Describe() + ")";
  return out;
}

std::string_view ClientUserName(const Client& client) {
  return client.user() != nullptr ? std::string_view(client.user()->name()) : "default";
}

}  // namespace ebb::server
