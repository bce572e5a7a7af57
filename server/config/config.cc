// ConfigRegistry: file loading, CONFIG GET/SET, REWRITE. The command line is in config_cli.cc,
// the option table in config_options.cc.
#include "server/config/config.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "common/atomic_file.h"
#include "common/glob.h"
#include "common/strings.h"
#include "protocol/split_args.h"
#include "server/config/config_option.h"
#include "server/config/redis_options.h"
#include "server/core/errors.h"

namespace ebb::server {

namespace {

bool CountFits(const ConfigRegistry::Option& opt, size_t n) {
  return n >= static_cast<size_t>(opt.min_values) &&
         (opt.max_values < 0 || n <= static_cast<size_t>(opt.max_values));
}

// A value as a config file line needs it: bare if it is plain, else "double quoted" with
// escapes that SplitArgs reads back to the same bytes.
std::string Quote(std::string_view v) {
  bool plain = !v.empty();
  for (unsigned char c : v) {
    if (c <= ' ' || c >= 127 || c == '"' || c == '\'' || c == '\\' || c == '#') plain = false;
  }
  if (plain) return std::string(v);
  std::string out = "\"";
  for (unsigned char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < ' ' || c >= 127) {
          char buf[5];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out += "\"";
  return out;
}

std::string FileLine(const std::string& name, const std::vector<std::string>& values) {
  std::string line = name;
  for (const std::string& v : values) line += " " + Quote(v);
  return line;
}

// Splits a config file line; false on unbalanced quotes. Comments and blank lines give no args.
bool SplitLine(const std::string& raw, std::vector<std::string>* args) {
  args->clear();
  size_t first = raw.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || raw[first] == '#') return true;
  return protocol::SplitArgs(raw, args);
}

}  // namespace

ConfigRegistry::ConfigRegistry() : options_(BuildOptionTable()) {}

ConfigRegistry::~ConfigRegistry() = default;

const ConfigRegistry::Option* ConfigRegistry::Find(std::string_view name) const {
  const std::string lower(MapRedisOptionName(AsciiLower(name)));
  for (const Option& opt : options_) {
    if (opt.name == lower) return &opt;
  }
  return nullptr;
}

bool ConfigRegistry::Apply(const Option& opt, const std::vector<std::string>& values, bool append,
                           std::string* reason) {
  Config copy = config_;
  if (!opt.apply(&copy, values, append, reason)) return false;
  config_ = std::move(copy);
  return true;
}

Result<ConfigCode> ConfigRegistry::LineRefused(LineSource source, std::string_view problem) {
  if (source.path.empty()) return {ConfigCode::kBadCommandLine, problem};
  return {ConfigCode::kBadConfigLine, ConfigFileLineError(source.path, source.line, problem)};
}

Result<ConfigCode> ConfigRegistry::ApplyLine(std::vector<std::string> args, LineSource source,
                                             std::set<std::string>* seen) {
  const std::string name = AsciiLower(args[0]);
  if (const char* reason = RedisOnlyOption(name)) {
    std::string line = name;
    for (size_t i = 1; i < args.size(); ++i) line += " " + Quote(args[i]);
    notices_.push_back("Ignoring Redis option '" + line + "': " + reason);
    return {};
  }
  const std::string_view prefix = source.path.empty() ? "--" : "";
  const Option* opt = Find(MapRedisOptionName(name));
  if (opt == nullptr) {
    return LineRefused(source, ConfigLineUnknownOption(std::string(prefix) + args[0]));
  }
  std::vector<std::string> values(args.begin() + 1, args.end());
  // As Redis does for its multi-argument options: one non-empty value holds them all, separated
  // by spaces (`client-output-buffer-limit "normal 8mb 4mb 5"`).
  if (opt->max_values != 1 && values.size() == 1 && !values[0].empty()) {
    std::vector<std::string> words;
    std::istringstream in(values[0]);
    for (std::string word; in >> word;) words.push_back(word);
    values = std::move(words);
  }
  if (!CountFits(*opt, values.size())) {
    return LineRefused(source, ConfigLineArgumentCount(std::string(prefix) + opt->name));
  }
  const bool append = opt->repeatable && !seen->insert(opt->name).second;
  std::string reason;
  if (!Apply(*opt, values, append, &reason)) {
    std::string shown;
    for (const std::string& v : values) shown += (shown.empty() ? "" : " ") + v;
    return LineRefused(source,
                       ConfigLineInvalidValue(shown, std::string(prefix) + opt->name, reason));
  }
  return {};
}

Result<ConfigCode> ConfigRegistry::LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {ConfigCode::kConfigFileUnreadable, path};
  std::set<std::string> seen;
  std::string raw;
  std::vector<std::string> args;
  for (int line_no = 1; std::getline(in, raw); ++line_no) {
    const LineSource source{.path = path, .line = line_no};
    if (!SplitLine(raw, &args)) return LineRefused(source, kConfigLineUnbalancedQuotes);
    if (args.empty()) continue;
    if (Result<ConfigCode> applied = ApplyLine(std::move(args), source, &seen); !applied.ok()) {
      return applied;
    }
  }
  config_file_ = path;
  file_values_.clear();
  for (const Option& opt : options_) file_values_[opt.name] = opt.get(config_);
  return {};
}

std::vector<std::pair<std::string, std::string>> ConfigRegistry::Get(
    std::string_view pattern) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Option& opt : options_) {
    if (opt.hidden_from_get) continue;
    if (GlobMatch(pattern, opt.name, /*nocase=*/true)) out.emplace_back(opt.name, opt.get(config_));
  }
  // A Redis alias asked for by its exact name answers under that name (lua-time-limit).
  const std::string lower = AsciiLower(pattern);
  const std::string_view mapped = MapRedisOptionName(lower);
  if (mapped != lower && lower.find_first_of("*?[\\") == std::string::npos) {
    if (const Option* opt = Find(mapped)) out.emplace_back(lower, opt->get(config_));
  }
  return out;
}

std::string ConfigErrorText(const Result<ConfigCode>& result, std::string_view name) {
  switch (result.code()) {
    case ConfigCode::kOk:
      return "";
    case ConfigCode::kUnknownOption:
      return ConfigUnknownOptionError(name);
    case ConfigCode::kImmutable:
      return ConfigSetFailedError(name, "can't set immutable config");
    case ConfigCode::kProtected:
      return ConfigSetFailedError(name, "can't set protected config");
    case ConfigCode::kUnbalancedQuotes:
      return ConfigSetFailedError(name, "unbalanced quotes");
    case ConfigCode::kInvalidValue:
      return ConfigSetFailedError(name, result.detail());
    case ConfigCode::kNoConfigFile:
      return std::string(kNoConfigFile);
    case ConfigCode::kRewriteFailed:
      return ConfigRewriteError(result.detail());
    case ConfigCode::kConfigFileUnreadable:
      return ConfigFileOpenError(result.detail());
    case ConfigCode::kBadConfigLine:
    case ConfigCode::kBadCommandLine:
      return result.detail();
  }
  return "";
}

Result<ConfigCode> ConfigRegistry::Set(std::string_view name, std::string_view value,
                                       bool may_set_protected) {
  const Option* opt = Find(MapRedisOptionName(AsciiLower(name)));
  if (opt == nullptr) return ConfigCode::kUnknownOption;
  if (!opt->mutable_at_runtime) return ConfigCode::kImmutable;
  if (opt->is_protected && !may_set_protected) return ConfigCode::kProtected;
  std::vector<std::string> values;
  if (opt->split_set_value) {
    if (!protocol::SplitArgs(value, &values)) return ConfigCode::kUnbalancedQuotes;
  } else {
    values.emplace_back(value);
  }
  std::string reason;
  const Config before = config_;
  if (!Apply(*opt, values, /*append=*/false, &reason)) {
    return {ConfigCode::kInvalidValue, reason};
  }
  for (const auto& check : set_checks_) {
    reason = check(opt->name, config_);
    if (!reason.empty()) {
      config_ = before;
      return {ConfigCode::kInvalidValue, reason};
    }
  }
  for (const auto& hook : hooks_) hook(opt->name, config_);
  return {};
}

void ConfigRegistry::OnChange(std::function<void(std::string_view, const Config&)> hook) {
  hooks_.push_back(std::move(hook));
}

void ConfigRegistry::OnSetCheck(std::function<std::string(std::string_view, const Config&)> check) {
  set_checks_.push_back(std::move(check));
}

std::vector<std::string> ConfigRegistry::FileLines(const Option& opt) const {
  std::vector<std::string> out;
  for (const auto& values : opt.lines(config_)) out.push_back(FileLine(opt.name, values));
  return out;
}

bool ConfigRegistry::UnchangedSinceLoad(const Option& opt) const {
  const auto it = file_values_.find(opt.name);
  return it != file_values_.end() && it->second == opt.get(config_);
}

Result<ConfigCode> ConfigRegistry::Rewrite() {
  if (config_file_.empty()) return ConfigCode::kNoConfigFile;
  std::vector<std::string> old_lines;
  {
    std::ifstream in(config_file_, std::ios::binary);
    // A missing file is rewritten from scratch, as Redis does.
    for (std::string raw; in && std::getline(in, raw);) old_lines.push_back(raw);
  }
  std::vector<std::string> out;
  std::set<std::string> written;
  std::vector<std::string> args;
  for (const std::string& raw : old_lines) {
    const Option* opt = SplitLine(raw, &args) && !args.empty() ? Find(args[0]) : nullptr;
    if (opt == nullptr || UnchangedSinceLoad(*opt)) {
      // Comments, blank lines, lines ebb does not understand, and the lines of an option whose
      // value is still what the file gave it, kept as written ("512mb" stays "512mb").
      out.push_back(raw);
      if (opt != nullptr) written.insert(opt->name);
      continue;
    }
    if (!written.insert(opt->name).second) continue;  // its first line already has every value
    for (std::string& line : FileLines(*opt)) out.push_back(std::move(line));
  }
  const Config defaults;
  bool header = false;
  for (const Option& opt : options_) {
    if (written.count(opt.name) || opt.get(config_) == opt.get(defaults)) continue;
    if (!header) {
      out.push_back("# Generated by CONFIG REWRITE");
      header = true;
    }
    for (std::string& line : FileLines(opt)) out.push_back(std::move(line));
  }

  std::string text;
  for (const std::string& line : out) text += line + '\n';
  if (std::string failure = ReplaceFileAtomically(config_file_, text); !failure.empty()) {
    return {ConfigCode::kRewriteFailed, failure};
  }
  for (const Option& opt : options_) file_values_[opt.name] = opt.get(config_);  // the file's now
  return {};
}

std::vector<ConfigRegistry::OptionInfo> ConfigRegistry::Options() const {
  const Config defaults;
  std::vector<OptionInfo> out;
  for (const Option& opt : options_) {
    out.push_back(
        {opt.name, opt.get(defaults), opt.doc, opt.mutable_at_runtime, !opt.hidden_from_get});
  }
  return out;
}

}  // namespace ebb::server
