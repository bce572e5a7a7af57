// ConfigRegistry::ParseCommandLine: `ebb-server [conf-file] [--<option> value...]...` read the
// way redis-server reads its own (server.c main): options are configuration lines appended to
// the file. CLI11 only formats --help.
#include <CLI/CLI.hpp>
#include <iostream>
#include <set>

#include "common/strings.h"
#include "protocol/split_args.h"
#include "server/config/config.h"
#include "server/config/config_option.h"
#include "server/core/errors.h"

namespace ebb::server {
namespace {

bool IsOptionName(std::string_view arg) { return arg.size() > 2 && arg.starts_with("--"); }

}  // namespace

std::string VersionLine() {
  return "ebb server v=" EBB_VERSION " bits=" + std::to_string(8 * sizeof(void*));
}

Result<ConfigCode> ConfigRegistry::ParseCommandLine(int argc, char** argv, bool* exit_now) {
  *exit_now = false;
  if (argc > 1 && (std::string_view(argv[1]) == "-v" || std::string_view(argv[1]) == "--version")) {
    std::cout << VersionLine() << "\n";
    *exit_now = true;
    return {};
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg != "-h" && arg != "--help") continue;
    CLI::App app{"ebb: a Redis-protocol server for timestamped, expiring data", "ebb-server"};
    app.get_formatter()->column_width(40);
    app.add_option("config-file", "configuration file, applied before the options");
    for (const Option& opt : options_) {
      app.add_option("--" + opt.name, opt.doc)->default_str(opt.get(Config{}));
    }
    std::cout << app.help();
    *exit_now = true;
    return {};
  }
  int next = 1;
  std::string file;
  if (argc > 1 && argv[1][0] != '-') file = argv[next++];
  // The lines the options make, each its name and values.
  std::vector<std::vector<std::string>> lines;
  bool value_due = false;  // the last argument was a lone "--name": this one is its value
  for (int i = next; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!value_due && IsOptionName(arg)) {
      std::vector<std::string> words;
      if (!protocol::SplitArgs(arg.substr(2), &words) || words.empty()) {
        return {ConfigCode::kBadCommandLine, ConfigOptionUnbalancedQuotes(arg)};
      }
      const size_t equals = words[0].find('=');
      if (words.size() == 1 && equals != std::string::npos) {  // --name=value
        words = {words[0].substr(0, equals), words[0].substr(equals + 1)};
      } else if (words.size() == 1) {
        value_due = true;
        // `--save` with no value (last, or before another option) means save "".
        const bool next_is_option = i + 1 < argc && IsOptionName(argv[i + 1]);
        if (AsciiLower(words[0]) == "save" && (i + 1 == argc || next_is_option)) {
          words.emplace_back();
          value_due = false;
        }
      }
      lines.push_back(std::move(words));
      continue;
    }
    if (lines.empty()) {
      return {ConfigCode::kBadCommandLine, ConfigUnexpectedArgument(arg)};
    }
    lines.back().emplace_back(arg);
    value_due = false;
  }
  if (!file.empty()) {
    if (Result<ConfigCode> loaded = LoadFile(file); !loaded.ok()) return loaded;
  }
  std::set<std::string> seen;
  for (std::vector<std::string>& line : lines) {
    if (Result<ConfigCode> applied = ApplyLine(std::move(line), LineSource{}, &seen);
        !applied.ok()) {
      return applied;
    }
  }
  return {};
}

}  // namespace ebb::server
