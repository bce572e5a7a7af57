#include "server/acl/acl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

#include "common/atomic_file.h"
#include "server/acl/acl_key_access.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/core/key_positions.h"

namespace ebb::server {
namespace {

// Whether the row names channels, and where: PUBLISH/SPUBLISH one, the subscribes all arguments.
enum class ChannelArgs { kNone, kFirst, kAll, kAllPatterns };

ChannelArgs ChannelArgsOf(const CommandSpec& spec) {
  const std::string& n = spec.full_name;
  if (n == "publish" || n == "spublish") return ChannelArgs::kFirst;
  if (n == "subscribe" || n == "ssubscribe") return ChannelArgs::kAll;
  if (n == "psubscribe") return ChannelArgs::kAllPatterns;
  return ChannelArgs::kNone;
}

// One selector's verdict on the request (Redis's ACLSelectorCheckCmd); `denied_arg` receives the
// index of the key or channel refused.
AclVerdict CheckSelector(const AclSelector& selector, const CommandSpec& spec, uint32_t flags,
                         std::span<const std::string_view> args, size_t* denied_arg) {
  auto denied = [&](AclVerdict verdict, size_t index) {
    *denied_arg = index;
    return verdict;
  };
  if (!(flags & kCmdNoAuth) && !selector.CanRun(spec, args)) return AclVerdict::kDeniedCommand;
  if (!selector.all_keys() && (spec.keys.first > 0 || spec.keys.numkeys > 0)) {
    std::vector<size_t> positions;
    FindKeyPositions(spec.keys, args, &positions);
    for (size_t k = 0; k < positions.size(); k++) {
      const size_t i = positions[k];
      if (!selector.CanAccessKey(args[i], AclKeyNeed(spec, args, k))) {
        return denied(AclVerdict::kDeniedKey, i);
      }
    }
  }
  const ChannelArgs channels = ChannelArgsOf(spec);
  switch (channels) {
    case ChannelArgs::kNone:
      break;
    case ChannelArgs::kFirst:
      if (args.size() > 1 && !selector.CanAccessChannel(args[1], false)) {
        return denied(AclVerdict::kDeniedChannel, 1);
      }
      break;
    case ChannelArgs::kAll:
    case ChannelArgs::kAllPatterns:
      for (size_t i = 1; i < args.size(); i++) {
        if (!selector.CanAccessChannel(args[i], channels == ChannelArgs::kAllPatterns)) {
          return denied(AclVerdict::kDeniedChannel, i);
        }
      }
      break;
  }
  return AclVerdict::kAllowed;
}

}  // namespace

Acl::Acl(const CommandTable* table) : table_(table) {
  auto user = std::make_unique<AclUser>(AclUser::Default(table));
  default_ = user.get();
  users_.emplace("default", std::move(user));
  UpdateAnonymous();
}

void Acl::SetRequirePass(std::string_view password) {
  default_->ApplyBuiltIn("resetpass");
  default_->ApplyBuiltIn(password.empty() ? std::string("nopass") : ">" + std::string(password));
  UpdateAnonymous();
}

const AclUser* Acl::Authenticate(std::string_view name, std::string_view password) const {
  const AclUser* user = Find(name);
  return user != nullptr && user->Authenticates(password) ? user : nullptr;
}

const AclUser* Acl::Find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second.get();
}

Result<AclCode> Acl::SetUser(std::string_view name, std::span<const std::string_view> rules) {
  if (AclStringHasSpaces(name)) return AclCode::kUserNameSpaces;
  auto it = users_.find(name);
  AclUser staged =
      it != users_.end() ? *it->second : AclUser(std::string(name), table_, pubsub_default_all_);
  staged.set_channels_default_all(pubsub_default_all_);
  size_t unmatched = 0;
  const std::optional<std::vector<std::string>> merged = MergeSelectorArguments(rules, &unmatched);
  if (!merged) return {AclCode::kUnmatchedParenthesis, rules[unmatched]};
  for (const std::string& rule : *merged) {
    if (const Result<AclCode> applied = staged.Apply(rule); !applied.ok()) {
      return {applied.code(), rule};
    }
  }
  if (it != users_.end()) {
    *it->second = std::move(staged);  // in place: clients holding the user see the change
  } else {
    users_.emplace(std::string(name), std::make_unique<AclUser>(std::move(staged)));
  }
  UpdateAnonymous();
  return {};
}

void Acl::DisconnectRevokedSubscribers(const AclUser& user, ClientRegistry& clients) {
  for (const auto& [id, client] : clients.all()) {
    if (client->user() != &user) continue;
    const PubSubState& subs = client->pubsub();
    bool revoked = false;
    for (const std::string& p : subs.patterns) revoked |= !user.CanAccessChannel(p, true);
    for (const std::string& c : subs.channels) revoked |= !user.CanAccessChannel(c, false);
    for (const std::string& c : subs.shard_channels) revoked |= !user.CanAccessChannel(c, false);
    if (revoked) client->RequestClose();
  }
}

Result<AclCode, int64_t> Acl::DeleteUsers(std::span<const std::string_view> names,
                                          ClientRegistry& clients) {
  for (std::string_view name : names) {
    if (name == "default") return AclCode::kDeleteDefault;
  }
  int64_t deleted = 0;
  for (std::string_view name : names) {
    auto it = users_.find(name);
    if (it == users_.end()) continue;
    for (const auto& [id, client] : clients.all()) {
      if (client->user() == it->second.get()) {
        client->set_user(nullptr);
        client->RequestClose();
      }
    }
    users_.erase(it);
    ++deleted;
  }
  return deleted;
}

Result<AclCode> Acl::LoadFile(const std::string& path, ClientRegistry* clients) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {AclCode::kAclFileUnreadable, AclFileOpenError(path, std::strerror(errno))};
  FileUsers file = ParseFileUsers(in, path);
  if (!file.errors.empty()) return {AclCode::kAclFileErrors, file.errors};
  ReplaceUsers(std::move(file.users), clients);
  return {};
}

Acl::FileUsers Acl::ParseFileUsers(std::istream& in, const std::string& path) const {
  FileUsers file;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const std::string where = path + ":" + std::to_string(line_number);
    std::vector<std::string> words;
    std::istringstream split(line);
    for (std::string w; split >> w;) words.push_back(std::move(w));
    if (words.empty()) continue;
    if (words[0] != "user" || words.size() < 2) {
      file.errors += AclFileNoUserKeyword(where);
      continue;
    }
    if (file.users.count(words[1]) != 0) {
      file.errors += AclFileDuplicateUser(words[1], line_number);
      continue;
    }
    auto user = std::make_unique<AclUser>(words[1], table_, pubsub_default_all_);
    const std::vector<std::string_view> rules(words.begin() + 2, words.end());
    const std::optional<std::vector<std::string>> merged = MergeSelectorArguments(rules, nullptr);
    if (!merged) {
      file.errors += AclFileUnmatchedParenthesis(where);
      continue;
    }
    for (const std::string& rule : *merged) {
      if (const Result<AclCode> applied = user->Apply(rule); !applied.ok()) {
        file.errors +=
            AclFileRuleError(where, rule, AclErrorText(applied, AclRuleWording::kReason));
        break;
      }
    }
    file.users.emplace(words[1], std::move(user));
  }
  return file;
}

void Acl::ReplaceUsers(std::map<std::string, std::unique_ptr<AclUser>, std::less<>> loaded,
                       ClientRegistry* clients) {
  // Clients of every user but `default` go: their users are replaced or gone.
  if (clients != nullptr) {
    for (const auto& [id, client] : clients->all()) {
      if (client->user() != nullptr && client->user() != default_) {
        client->set_user(nullptr);
        client->RequestClose();
      }
    }
  }
  // `default` is changed in place: clients and anonymous_ keep pointing at it.
  auto file_default = loaded.find("default");
  *default_ =
      file_default != loaded.end() ? std::move(*file_default->second) : AclUser::Default(table_);
  if (file_default != loaded.end()) loaded.erase(file_default);
  for (auto it = users_.begin(); it != users_.end();) {
    it = it->second.get() == default_ ? std::next(it) : users_.erase(it);
  }
  for (auto& [name, user] : loaded) users_.emplace(name, std::move(user));
  UpdateAnonymous();
}

Result<AclCode> Acl::LoadConfigUsers(const std::vector<std::vector<std::string>>& lines) {
  for (const std::vector<std::string>& line : lines) {
    std::vector<std::string_view> rules;
    if (line[0] == "default") rules.push_back("reset");
    rules.insert(rules.end(), line.begin() + 1, line.end());
    if (Result<AclCode> set = SetUser(line[0], rules); !set.ok()) return set;
  }
  return {};
}

std::vector<std::vector<std::string>> Acl::ConfigUserLines() const {
  const std::string builtin_default = AclUser::Default(table_).Describe();
  std::vector<std::vector<std::string>> lines;
  for (const auto& [name, user] : users_) {
    const std::string rules = user->Describe();
    if (user.get() == default_ && rules == builtin_default) continue;
    std::vector<std::string> line{name};
    std::istringstream words(rules);
    for (std::string w; words >> w;) line.push_back(std::move(w));
    lines.push_back(std::move(line));
  }
  return lines;
}

Result<AclCode> Acl::SaveFile(const std::string& path) const {
  std::string text;
  for (const auto& [name, user] : users_) text += ListLine(*user) + "\n";
  const std::string failed = ReplaceFileAtomically(path, text);
  if (!failed.empty()) return {AclCode::kSaveFailed, failed};
  return {};
}

AclVerdict Acl::Check(const AclUser& user, const CommandSpec& spec, uint32_t flags,
                      std::span<const std::string_view> args, size_t* denied_arg) {
  // Redis's ACLCheckAllUserCommandPerm: allowed when one selector allows; else the refusal that
  // got furthest (command < key < channel; among equals, the later argument).
  AclVerdict relevant = AclVerdict::kDeniedCommand;
  size_t relevant_arg = 0;
  for (const AclSelector& selector : user.selectors()) {
    size_t arg = 0;
    const AclVerdict verdict = CheckSelector(selector, spec, flags, args, &arg);
    if (verdict == AclVerdict::kAllowed) return verdict;
    if (verdict > relevant || (verdict == relevant && arg > relevant_arg)) {
      relevant = verdict;
      relevant_arg = arg;
    }
  }
  if (denied_arg != nullptr) *denied_arg = relevant_arg;
  return relevant;
}

AclVerdict Acl::CheckAndLog(const Client& client, const AclUser& user, const CommandSpec& spec,
                            uint32_t flags, std::span<const std::string_view> args,
                            AclLogContext context, int64_t now_ms) {
  size_t denied_arg = 0;
  const AclVerdict verdict = Check(user, spec, flags, args, &denied_arg);
  if (verdict == AclVerdict::kAllowed) return verdict;
  AclLogEntry entry{.context = context, .username = user.name(), .time_ms = now_ms};
  if (verdict == AclVerdict::kDeniedCommand || denied_arg >= args.size()) {
    entry.reason = AclLogReason::kCommand;
    entry.object = spec.full_name;
  } else {
    entry.reason = verdict == AclVerdict::kDeniedKey ? AclLogReason::kKey : AclLogReason::kChannel;
    entry.object = std::string(args[denied_arg]);
  }
  entry.client_info = client.InfoLine(now_ms, ClientUserName(client));
  log_.Add(std::move(entry), log_max_len_);
  return verdict;
}

void Acl::LogAuthFailure(const Client& client, std::string_view username, std::string_view command,
                         int64_t now_ms) {
  log_.Add({.reason = AclLogReason::kAuth,
            .context = client.multi().active ? AclLogContext::kMulti : AclLogContext::kToplevel,
            .object = std::string(command),
            .username = std::string(username),
            .time_ms = now_ms,
            .client_info = client.InfoLine(now_ms, ClientUserName(client))},
           log_max_len_);
}

std::string AclDeniedError(AclVerdict verdict, const CommandSpec& spec) {
  switch (verdict) {
    case AclVerdict::kDeniedCommand:
      return NoPermCommandError(spec.full_name);
    case AclVerdict::kDeniedKey:
      return std::string(kNoPermKeys);
    case AclVerdict::kDeniedChannel:
      return std::string(kNoPermChannels);
    case AclVerdict::kAllowed:
      break;
  }
  return std::string(kNoPerm);
}

std::string AclDryRunDeniedText(AclVerdict verdict, const CommandSpec& spec,
                                std::string_view object) {
  switch (verdict) {
    case AclVerdict::kDeniedKey:
      return "This user has no permissions to access the '" + std::string(object) + "' key";
    case AclVerdict::kDeniedChannel:
      return "This user has no permissions to access the '" + std::string(object) + "' channel";
    case AclVerdict::kDeniedCommand:
    case AclVerdict::kAllowed:
      break;
  }
  return "This user has no permissions to run the '" + spec.full_name + "' command";
}

std::string AclExecDeniedError(AclVerdict verdict) {
  std::string_view reason = kAclReasonUnknown;
  switch (verdict) {
    case AclVerdict::kDeniedCommand:
      reason = kAclReasonCommand;
      break;
    case AclVerdict::kDeniedKey:
      reason = kAclReasonKeys;
      break;
    case AclVerdict::kDeniedChannel:
      reason = kAclReasonChannels;
      break;
    case AclVerdict::kAllowed:
      break;
  }
  return std::string(kExecAclChanged) + std::string(reason);
}

std::string AclScriptDeniedError(AclVerdict verdict) {
  switch (verdict) {
    case AclVerdict::kDeniedCommand:
      return std::string(kAclScriptCommand);
    case AclVerdict::kDeniedKey:
      return std::string(kAclScriptKeys);
    case AclVerdict::kDeniedChannel:
      return std::string(kAclScriptChannel);
    case AclVerdict::kAllowed:
      break;
  }
  return std::string(kAclScriptUnknown);
}

}  // namespace ebb::server
