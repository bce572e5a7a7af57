// The kinds of option-table rows any option may be of (config_option_builders.h).
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "common/strings.h"
#include "common/units.h"
#include "server/config/config_option_builders.h"

namespace ebb::server::option_rows {

// A row whose value is one text, with get == the single line's single value.
Option Single(std::string name, std::string doc, bool mut,
              std::function<bool(Config*, const std::string&, std::string*)> set,
              std::function<std::string(const Config&)> get) {
  Option o;
  o.name = std::move(name);
  o.doc = std::move(doc);
  o.mutable_at_runtime = mut;
  o.apply = [set](Config* c, const Values& v, bool, std::string* reason) {
    return set(c, v[0], reason);
  };
  o.get = get;
  o.lines = [get](const Config& c) { return Lines{{get(c)}}; };
  return o;
}

Option Bool(std::string name, std::string doc, bool mut, bool Config::*member, bool on_off) {
  return Single(
      std::move(name), std::move(doc), mut,
      [member, on_off](Config* c, const std::string& text, std::string* reason) {
        const std::string v = AsciiLower(text);
        if (v == "yes" || v == "on") {
          c->*member = true;
        } else if (v == "no" || v == "off") {
          c->*member = false;
        } else {
          *reason = on_off ? "argument must be 'on' or 'off'" : "argument must be 'yes' or 'no'";
          return false;
        }
        return true;
      },
      [member, on_off](const Config& c) -> std::string {
        if (on_off) return c.*member ? "on" : "off";
        return c.*member ? "yes" : "no";
      });
}

Option String(std::string name, std::string doc, bool mut, std::string Config::*member) {
  return Single(
      std::move(name), std::move(doc), mut,
      [member](Config* c, const std::string& text, std::string*) {
        c->*member = text;
        return true;
      },
      [member](const Config& c) { return c.*member; });
}

// A string restricted to `choices` (stored lower case).
Option Enum(std::string name, std::string doc, bool mut, std::string Config::*member,
            std::vector<std::string> choices) {
  return Single(
      std::move(name), std::move(doc), mut,
      [member, choices](Config* c, const std::string& text, std::string* reason) {
        const std::string v = AsciiLower(text);
        for (const std::string& choice : choices) {
          if (v == choice) {
            c->*member = v;
            return true;
          }
        }
        *reason = "argument(s) must be one of the following: ";
        for (size_t i = 0; i < choices.size(); ++i) *reason += (i ? ", " : "") + choices[i];
        return false;
      },
      [member](const Config& c) { return c.*member; });
}

Option Memory(std::string name, std::string doc, bool mut, uint64_t Config::*member, uint64_t min,
              uint64_t max) {
  return Single(
      std::move(name), std::move(doc), mut,
      [member, min, max](Config* c, const std::string& text, std::string* reason) {
        uint64_t v = 0;
        if (!ParseMemorySize(text, &v)) {
          *reason = "argument must be a memory value";
          return false;
        }
        if (v < min || v > max) {
          *reason = "argument must be between " + std::to_string(min) + " and " +
                    std::to_string(max) + " inclusive";
          return false;
        }
        c->*member = v;
        return true;
      },
      [member](const Config& c) { return FormatMemorySize(c.*member); });
}

Option Duration(std::string name, std::string doc, bool mut, int64_t Config::*member,
                bool allow_unlimited, bool allow_zero) {
  return Single(
      std::move(name), std::move(doc), mut,
      [member, allow_unlimited, allow_zero](Config* c, const std::string& text,
                                            std::string* reason) {
        int64_t v = 0;
        if (!ParseDuration(text, &v) || (v < 0 && !allow_unlimited)) {
          *reason = "invalid duration '" + text + "'";
          return false;
        }
        if (v == 0 && !allow_zero) {
          *reason = kZeroTtl;
          return false;
        }
        c->*member = v;
        return true;
      },
      [member](const Config& c) { return FormatDuration(c.*member); });
}

// A list of listening addresses, read as Redis reads `bind` (server/io/listen.h).
Option Bind(std::string name, std::string doc, std::vector<std::string> Config::*member) {
  Option o;
  o.name = name;
  o.doc = std::move(doc);
  o.mutable_at_runtime = false;
  o.max_values = -1;
  o.split_set_value = true;
  o.apply = [name, member](Config* c, const Values& v, bool, std::string* reason) {
    if (v.empty()) {
      *reason = name + " needs at least one address";
      return false;
    }
    c->*member = v;
    return true;
  };
  o.get = [member](const Config& c) {
    std::string out;
    for (const std::string& a : c.*member) out += (out.empty() ? "" : " ") + a;
    return out;
  };
  o.lines = [member](const Config& c) { return Lines{c.*member}; };
  return o;
}

}  // namespace ebb::server::option_rows
