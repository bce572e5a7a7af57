// ConfigRegistry::Option: one row of ebb's option table, and the table itself (config_options.cc).
//
// A row knows its name, documentation, whether CONFIG SET may change it, how many values one
// file line takes, and three functions: apply (parse values into a Config), get (the CONFIG GET
// text) and lines (the values of the file lines that reproduce the current value).
// Internal to server/config/; the rest of the server uses config.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "server/config/config.h"

namespace ebb::server {

struct ConfigRegistry::Option {
  std::string name;  // lower case, Redis's name where Redis has the option
  std::string doc;   // one line
  bool mutable_at_runtime = true;
  // true: CONFIG SET only from clients enable-protected-configs admits (kProtectedOptions).
  bool is_protected = false;
  int min_values = 1;  // values on one file line / command-line occurrence
  int max_values = 1;  // -1: no upper bound
  // true: a CONFIG SET value is split into several values (sdssplitargs), as Redis does for
  // bind and client-output-buffer-limit.
  bool split_set_value = false;
  // true: repeated lines in one source append (ttl-rule); false: the last line wins.
  bool repeatable = false;
  // true: CONFIG GET does not list it (`user`, whose rules may hold passwords; Redis has no
  // such config either).
  bool hidden_from_get = false;

  // Parses `values` into *config. append: this is a repeated line of a repeatable option.
  // Returns false with *reason (Redis's wording, e.g. "argument must be 'yes' or 'no'").
  std::function<bool(Config* config, const std::vector<std::string>& values, bool append,
                     std::string* reason)>
      apply;
  std::function<std::string(const Config&)> get;
  // The values of each file line for the current value (one inner vector per line; none for an
  // empty list).
  std::function<std::vector<std::vector<std::string>>(const Config&)> lines;
};

// Every option ebb has, in the order CONFIG GET and conf/ebb.conf list them.
std::vector<ConfigRegistry::Option> BuildOptionTable();

}  // namespace ebb::server
