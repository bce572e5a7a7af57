// The builders of the option table's rows; config_options.cc lists the rows (BuildOptionTable).
//
// Each builder makes one kind of row: how its values are parsed into a Config (apply, refusing a
// value with Redis's wording), printed for CONFIG GET (get) and written back as file lines
// (lines). config_option_kinds.cc holds the kinds any option may be of (an integer, a boolean,
// a memory size, a duration, ...); config_option_rows.cc the rows of single options whose value
// has a syntax of its own (ttl-rule, client-output-buffer-limit, replicaof, user, ...).
// Internal to server/config/. Thread-safety: pure functions; a row's functions hold no state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/strings.h"
#include "server/config/config_option.h"

namespace ebb::server::option_rows {

using Option = ConfigRegistry::Option;
using Values = std::vector<std::string>;
using Lines = std::vector<std::vector<std::string>>;

// Why a TTL of 0 is refused: it would expire every write the moment it is made.
inline constexpr char kZeroTtl[] = "a TTL must be above 0 (use 'unlimited' for no expiry)";

// --- Kinds (config_option_kinds.cc) ---

// A row whose value is one text, with get == the single line's single value.
Option Single(std::string name, std::string doc, bool mut,
              std::function<bool(Config*, const std::string&, std::string*)> set,
              std::function<std::string(const Config&)> get);

// An integer in [min, max] stored in a member of type T.
template <typename T>
Option Integer(std::string name, std::string doc, bool mut, T Config::*member, int64_t min,
               int64_t max) {
  return Single(
      std::move(name), std::move(doc), mut,
      [member, min, max](Config* c, const std::string& text, std::string* reason) {
        int64_t v = 0;
        if (!ParseInt64(text, &v)) {
          *reason = "argument couldn't be parsed into an integer";
          return false;
        }
        if (v < min || v > max) {
          *reason = "argument must be between " + std::to_string(min) + " and " +
                    std::to_string(max) + " inclusive";
          return false;
        }
        c->*member = static_cast<T>(v);
        return true;
      },
      [member](const Config& c) { return std::to_string(c.*member); });
}

// yes|no (on_off: on|off).
Option Bool(std::string name, std::string doc, bool mut, bool Config::*member, bool on_off = false);
Option String(std::string name, std::string doc, bool mut, std::string Config::*member);
// A string restricted to `choices` (stored lower case).
Option Enum(std::string name, std::string doc, bool mut, std::string Config::*member,
            std::vector<std::string> choices);
// A memory size (1gb, 100mb, ...) in [min, max].
Option Memory(std::string name, std::string doc, bool mut, uint64_t Config::*member, uint64_t min,
              uint64_t max = UINT64_MAX);
// A duration (10s, 5m, ...); allow_unlimited: "unlimited" (-1) too; !allow_zero: 0 refused.
Option Duration(std::string name, std::string doc, bool mut, int64_t Config::*member,
                bool allow_unlimited, bool allow_zero = true);
// A list of listening addresses, read as Redis reads `bind` (server/io/listen.h).
Option Bind(std::string name, std::string doc, std::vector<std::string> Config::*member);

// --- Rows of one option each (config_option_rows.cc) ---

Option TtlRules();
Option OutputBufferLimit();
Option NotifyKeyspaceEvents();
// no|yes|local: who may do a protected action (enable-debug-command, enable-protected-configs).
Option ProtectedAction(std::string name, std::string doc, DebugCommandPolicy Config::*member);
Option ReplicaOf();
Option Peers();
Option Users();
Option LatencyPercentiles();

}  // namespace ebb::server::option_rows
