// ConfigRegistry::ParseCommandLine: `ebb-server [conf-file] [--<option> value...]...` with CLI11.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>

#include "server/config/config.h"
#include "server/config/config_option.h"

namespace ebb::server {

bool ConfigRegistry::ParseCommandLine(int argc, char** argv, std::string* error, bool* exit_now) {
  *exit_now = false;
  CLI::App app{"ebb: a Redis-protocol server for timestamped, expiring data", "ebb-server"};
  app.get_formatter()->column_width(40);
  std::string file;
  app.add_option("config-file", file, "configuration file, applied before the flags");
  std::map<std::string, CLI::Option*> flags;
  for (const Option& opt : options_) {
    CLI::Option* flag = app.add_option("--" + opt.name, opt.doc);
    if (opt.max_values < 0) {
      flag->expected(opt.min_values, INT_MAX);
    } else {
      flag->expected(opt.min_values, opt.max_values);
    }
    flag->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    flag->default_str(opt.get(Config{}));
    flag->allow_extra_args(opt.max_values != 1);
    flags[opt.name] = flag;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    *exit_now = true;
    return true;
  } catch (const CLI::ParseError& e) {
    *error = e.what();
    return false;
  }
  if (!file.empty() && !LoadFile(file, error)) return false;
  for (const Option& opt : options_) {
    CLI::Option* flag = flags[opt.name];
    if (flag->count() == 0) continue;
    const std::vector<std::string>& results = flag->results();
    // Values of all occurrences, flattened. Fixed-size options are split back into occurrences;
    // the others (bind) take every value at once.
    size_t per = opt.max_values < 0 ? results.size() : static_cast<size_t>(opt.max_values);
    if (per == 0 || results.size() % per != 0) {
      *error = "--" + opt.name + ": wrong number of arguments";
      return false;
    }
    for (size_t i = 0; i < results.size(); i += per) {
      std::vector<std::string> values(results.begin() + i, results.begin() + i + per);
      std::string reason;
      if (!Apply(opt, values, /*append=*/opt.repeatable && i > 0, &reason)) {
        std::string shown;
        for (const std::string& v : values) shown += (shown.empty() ? "" : " ") + v;
        *error = "invalid value '" + shown + "' for '--" + opt.name + "': " + reason;
        return false;
      }
    }
  }
  return true;
}

}  // namespace ebb::server
