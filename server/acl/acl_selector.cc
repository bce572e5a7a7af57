#include "server/acl/acl_selector.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "common/glob.h"
#include "common/strings.h"
#include "server/acl/acl_categories.h"
#include "server/core/command.h"

namespace ebb::server {
namespace {

// Every row of the table, subcommands after their container, in name order.
template <typename F>
void ForEachRow(const CommandTable& table, F&& f) {
  for (const auto& [name, spec] : table.rows()) {
    f(spec);
    for (const CommandSpec& sub : spec.subcommands) f(sub);
  }
}

}  // namespace

bool AclStringHasSpaces(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return c == '\0' || std::isspace(static_cast<unsigned char>(c));
  });
}

AclSelector::AclSelector(const CommandTable* table, bool all_channels)
    : table_(table),
      allowed_(table->row_count(), false),
      empty_category_rules_(AclCategoryNames().size(), 0),
      all_channels_(all_channels) {}

Result<AclCode> AclSelector::Apply(std::string_view rule) {
  Result<AclCode> error;
  if (EqualsIgnoreCase(rule, "allkeys") || rule == "~*") {
    all_keys_ = true;
    keys_.clear();
  } else if (EqualsIgnoreCase(rule, "resetkeys")) {
    all_keys_ = false;
    keys_.clear();
  } else if (rule.starts_with('~') || rule.starts_with('%')) {
    error = ApplyKeyPattern(rule);
  } else if (EqualsIgnoreCase(rule, "allchannels") || rule == "&*") {
    all_channels_ = true;
    channels_.clear();
  } else if (EqualsIgnoreCase(rule, "resetchannels")) {
    all_channels_ = false;
    channels_.clear();
  } else if (rule.starts_with('&')) {
    error = ApplyChannelPattern(rule);
  } else if (EqualsIgnoreCase(rule, "allcommands")) {
    error = ApplyCommandRule("+@all");
  } else if (EqualsIgnoreCase(rule, "nocommands")) {
    error = ApplyCommandRule("-@all");
  } else if (rule.starts_with('+') || rule.starts_with('-')) {
    error = ApplyCommandRule(rule);
  } else {
    error = AclCode::kSyntaxError;
  }
  Recompute();
  return error;
}

Result<AclCode> AclSelector::ApplyKeyPattern(std::string_view rule) {
  uint32_t access = kAclReadWrite;
  std::string_view pattern = rule.substr(1);
  if (rule[0] == '%') {
    const size_t tilde = rule.find('~');
    if (tilde == std::string_view::npos || tilde == 1) return AclCode::kSyntaxError;
    access = 0;
    for (char c : rule.substr(1, tilde - 1)) {
      if (c == 'R' || c == 'r') {
        access |= kAclRead;
      } else if (c == 'W' || c == 'w') {
        access |= kAclWrite;
      } else {
        return AclCode::kSyntaxError;
      }
    }
    pattern = rule.substr(tilde + 1);
  }
  if (all_keys_) {
    return AclCode::kKeyPatternAfterAll;
  }
  if (AclStringHasSpaces(pattern)) return AclCode::kSyntaxError;
  if (pattern == "*" && access == kAclReadWrite) {
    all_keys_ = true;
    keys_.clear();
    return {};
  }
  auto same = std::find_if(keys_.begin(), keys_.end(),
                           [&](const KeyPattern& k) { return k.pattern == pattern; });
  if (same != keys_.end()) {
    same->access |= access;
  } else {
    keys_.push_back({std::string(pattern), access});
  }
  return {};
}

Result<AclCode> AclSelector::ApplyChannelPattern(std::string_view rule) {
  if (all_channels_) {
    return AclCode::kChannelPatternAfterAll;
  }
  const std::string_view pattern = rule.substr(1);
  if (AclStringHasSpaces(pattern)) return AclCode::kSyntaxError;
  if (std::find(channels_.begin(), channels_.end(), pattern) == channels_.end()) {
    channels_.emplace_back(pattern);
  }
  return {};
}

Result<AclCode> AclSelector::ApplyCommandRule(std::string_view rule) {
  const bool allow = rule[0] == '+';
  const std::string_view name = rule.substr(1);
  if (name.starts_with('@')) {
    if (EqualsIgnoreCase(name, "@all")) {
      std::fill(allowed_.begin(), allowed_.end(), allow);
      first_args_.clear();
      all_commands_ = allow;
      std::fill(empty_category_rules_.begin(), empty_category_rules_.end(), 0);
      return {};
    }
    const int category = FindAclCategory(name.substr(1));
    if (category < 0) return AclCode::kUnknownName;
    if (SetCategory(&allowed_, category, allow, &first_args_) == 0) {
      empty_category_rules_[category] = allow ? 1 : -1;
    }
    return {};
  }
  // As Redis's lookupCommandBySds: "command" or "container|subcommand", nothing deeper.
  auto lookup = [this](std::string_view full) -> const CommandSpec* {
    const size_t bar = full.find('|');
    const CommandSpec* spec = table_->Find(full.substr(0, bar));
    if (spec == nullptr || bar == std::string_view::npos) return spec;
    if (spec->subcommands.empty()) return nullptr;
    return CommandTable::FindSubcommand(*spec, full.substr(bar + 1));
  };
  const size_t last_bar = name.rfind('|');
  if (allow && last_bar != std::string_view::npos) {
    const CommandSpec* base = lookup(name.substr(0, last_bar));
    if (base == nullptr) return AclCode::kUnknownName;
    if (base->full_name.find('|') != std::string::npos) {
      return AclCode::kFirstArgOfSubcommand;
    }
    if (last_bar + 1 == name.size()) return AclCode::kSyntaxError;
    if (base->subcommands.empty()) {
      AllowFirstArg(*base, name.substr(last_bar + 1));
      return {};
    }
  }
  const CommandSpec* spec = lookup(name);
  if (spec == nullptr) return AclCode::kUnknownName;
  SetCommand(&allowed_, *spec, allow, &first_args_);
  return {};
}

void AclSelector::AllowFirstArg(const CommandSpec& spec, std::string_view arg) {
  std::vector<std::string>& args = first_args_[spec.id];
  if (std::none_of(args.begin(), args.end(),
                   [&](const std::string& a) { return EqualsIgnoreCase(a, arg); })) {
    args.emplace_back(arg);
  }
}

void AclSelector::SetCommand(std::vector<bool>* bits, const CommandSpec& spec, bool allow,
                             FirstArgs* first_args) {
  (*bits)[spec.id] = allow;
  if (first_args != nullptr) first_args->erase(spec.id);
  for (const CommandSpec& sub : spec.subcommands) (*bits)[sub.id] = allow;
}

size_t AclSelector::SetCategory(std::vector<bool>* bits, int category, bool allow,
                                FirstArgs* first_args) const {
  const uint64_t bit = uint64_t{1} << category;
  size_t rows = 0;
  ForEachRow(*table_, [&](const CommandSpec& spec) {
    if (!(AclCategoriesOf(spec) & bit)) return;
    SetCommand(bits, spec, allow, first_args);
    rows++;
  });
  return rows;
}

void AclSelector::Recompute() {
  unrestricted_ = all_keys_ && all_channels_ &&
                  std::all_of(allowed_.begin(), allowed_.end(), [](bool b) { return b; });
}

bool AclSelector::CanRun(const CommandSpec& spec, std::span<const std::string_view> args) const {
  if (allowed_[spec.id]) return true;
  if (args.size() < 2) return false;
  auto it = first_args_.find(spec.id);
  return it != first_args_.end() &&
         std::any_of(it->second.begin(), it->second.end(),
                     [&](const std::string& a) { return EqualsIgnoreCase(a, args[1]); });
}

bool AclSelector::CanAccessKey(std::string_view key, uint32_t need) const {
  if (all_keys_) return true;
  for (const KeyPattern& k : keys_) {
    if ((k.access & need) == need && GlobMatch(k.pattern, key, /*nocase=*/false)) return true;
  }
  return false;
}

bool AclSelector::CanAccessChannel(std::string_view channel, bool is_pattern) const {
  if (all_channels_) return true;
  for (const std::string& p : channels_) {
    if (is_pattern ? p == channel : GlobMatch(p, channel, /*nocase=*/false)) return true;
  }
  return false;
}

// Redis's ACLDescribeSelectorCommandRules: start from +@all or -@all, then apply the category
// that best fits the remaining differences while one fits (more rows agree than disagree), then
// single commands for what is left. The rules rebuild exactly this bitmap.
std::string AclSelector::CommandRules() const {
  const bool additive = !all_commands_;
  std::string rules = additive ? "-@all" : "+@all";
  for (size_t j = 0; j < empty_category_rules_.size(); j++) {
    const int8_t rule = empty_category_rules_[j];
    if (rule == (additive ? 1 : -1)) {
      rules += std::string(additive ? " +@" : " -@") + std::string(AclCategoryNames()[j]);
    }
  }
  std::vector<bool> fake(allowed_.size(), !additive);
  std::vector<bool> temp = allowed_;
  std::vector<bool> applied(AclCategoryNames().size(), false);
  // Each row's categories, once: the search below counts them for every category, every round.
  std::vector<uint64_t> row_categories(allowed_.size(), 0);
  ForEachRow(*table_,
             [&](const CommandSpec& spec) { row_categories[spec.id] = AclCategoriesOf(spec); });
  for (;;) {
    int best = -1;
    size_t min_diff = SIZE_MAX, max_same = 0;
    for (size_t j = 0; j < applied.size(); j++) {
      if (applied[j]) continue;
      size_t on = 0, off = 0;
      ForEachRow(*table_, [&](const CommandSpec& spec) {
        if (row_categories[spec.id] & (uint64_t{1} << j)) (temp[spec.id] ? on : off)++;
      });
      const size_t diff = additive ? off : on;
      const size_t same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = static_cast<int>(j);
        min_diff = diff;
        max_same = same;
      }
    }
    if (best < 0) break;
    rules += std::string(additive ? " +@" : " -@") + std::string(AclCategoryNames()[best]);
    SetCategory(&fake, best, additive, nullptr);
    SetCategory(&temp, best, !additive, nullptr);
    applied[best] = true;
  }
  ForEachRow(*table_, [&](const CommandSpec& spec) {
    if (allowed_[spec.id] != fake[spec.id]) {
      rules += std::string(allowed_[spec.id] ? " +" : " -") + spec.full_name;
      SetCommand(&fake, spec, allowed_[spec.id], nullptr);
    }
    auto first = first_args_.find(spec.id);
    if (allowed_[spec.id] || first == first_args_.end()) return;
    for (const std::string& arg : first->second) rules += " +" + spec.full_name + "|" + arg;
  });
  return rules;
}

std::string AclSelector::KeyRules() const {
  if (all_keys_) return "~*";
  std::string out;
  for (const KeyPattern& k : keys_) {
    if (!out.empty()) out += ' ';
    out += k.access == kAclReadWrite ? "~" : (k.access == kAclRead ? "%R~" : "%W~");
    out += k.pattern;
  }
  return out;
}

std::string AclSelector::ChannelRules() const {
  if (all_channels_) return "&*";
  std::string out;
  for (const std::string& c : channels_) {
    if (!out.empty()) out += ' ';
    out += "&" + c;
  }
  return out;
}

std::string AclSelector::Describe() const {
  std::string out;
  const std::string keys = KeyRules();
  if (!keys.empty()) out += keys + " ";
  out += all_channels_ ? "&* " : "resetchannels ";
  if (!all_channels_) {
    for (const std::string& c : channels_) out += "&" + c + " ";
  }
  return out + CommandRules();
}

}  // namespace ebb::server
