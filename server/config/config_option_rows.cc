// The option-table rows of single options whose value has a syntax of its own
// (config_option_builders.h).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "common/units.h"
#include "server/config/config_option_builders.h"
#include "server/core/latency_histogram.h"
#include "server/services/keyspace_events.h"

namespace ebb::server::option_rows {

namespace {

// One rule's file/CONFIG GET values: glob, duration, and the options that are not defaults.
std::vector<std::string> RuleValues(const TtlRule& r) {
  std::vector<std::string> values = {r.pattern, FormatDuration(r.ttl_ms)};
  if (!r.expiration) values.insert(values.end(), {"expiration", "off"});
  if (r.mode == storage::ExpiryMode::kPerItem) values.insert(values.end(), {"mode", "per-item"});
  if (r.mode == storage::ExpiryMode::kWholeFile)
    values.insert(values.end(), {"mode", "whole-file"});
  return values;
}

// Parses rules from `v`: each `<glob> <duration>` followed by any of `expiration on|off` and
// `mode per-item|whole-file`.
bool ParseRules(const Values& v, std::vector<TtlRule>* rules, std::string* reason) {
  for (size_t i = 0; i < v.size();) {
    if (i + 1 >= v.size()) {
      *reason = "ttl-rule needs <glob> <duration> [expiration on|off] [mode per-item|whole-file]";
      return false;
    }
    TtlRule rule;
    rule.pattern = v[i];
    if (!ParseDuration(v[i + 1], &rule.ttl_ms)) {
      *reason = "invalid duration '" + v[i + 1] + "'";
      return false;
    }
    if (rule.ttl_ms == 0) {
      *reason = kZeroTtl;
      return false;
    }
    i += 2;
    while (i + 1 < v.size()) {
      const std::string option = AsciiLower(v[i]);
      const std::string value = AsciiLower(v[i + 1]);
      if (option == "expiration") {
        if (value != "on" && value != "off") {
          *reason = "ttl-rule expiration must be 'on' or 'off'";
          return false;
        }
        rule.expiration = value == "on";
      } else if (option == "mode") {
        if (value == "per-item") {
          rule.mode = storage::ExpiryMode::kPerItem;
        } else if (value == "whole-file") {
          rule.mode = storage::ExpiryMode::kWholeFile;
        } else {
          *reason = "ttl-rule mode must be 'per-item' or 'whole-file'";
          return false;
        }
      } else {
        break;  // the next rule's glob
      }
      i += 2;
    }
    rules->push_back(std::move(rule));
  }
  return true;
}

}  // namespace

Option TtlRules() {
  Option o;
  o.name = "ttl-rule";
  o.doc =
      "<glob> <duration> [expiration on|off] [mode per-item|whole-file]: TTL for keys matching "
      "glob; repeatable, first match wins";
  o.min_values = 2;
  o.max_values = -1;
  o.split_set_value = true;
  o.repeatable = true;
  o.apply = [](Config* c, const Values& v, bool append, std::string* reason) {
    std::vector<TtlRule> rules = append ? c->ttl_rules : std::vector<TtlRule>{};
    if (!ParseRules(v, &rules, reason)) return false;
    c->ttl_rules = std::move(rules);
    return true;
  };
  o.get = [](const Config& c) {
    std::string out;
    for (const TtlRule& r : c.ttl_rules) {
      for (const std::string& value : RuleValues(r)) out += (out.empty() ? "" : " ") + value;
    }
    return out;
  };
  o.lines = [](const Config& c) {
    Lines lines;
    for (const TtlRule& r : c.ttl_rules) lines.push_back(RuleValues(r));
    return lines;
  };
  return o;
}

namespace {

// The limit of one client class; replica limits are accepted and kept (ebb has no replicas).
ebb::server::ClientOutputBufferLimit* LimitOfClass(Config* c, const std::string& name) {
  const std::string lower = AsciiLower(name);
  if (lower == "normal") return &c->client_output_buffer_limit_normal;
  if (lower == "pubsub") return &c->client_output_buffer_limit_pubsub;
  if (lower == "replica" || lower == "slave") return &c->client_output_buffer_limit_replica;
  return nullptr;
}

}  // namespace

Option OutputBufferLimit() {
  Option o;
  o.name = "client-output-buffer-limit";
  o.doc =
      "<normal|pubsub|replica> <hard> <soft> <soft-seconds>: disconnect clients whose pending "
      "output passes hard, or stays above soft that long (0 = off; pubsub: 32mb 8mb 60)";
  o.min_values = 4;
  o.max_values = -1;  // several classes on one line, as Redis
  o.split_set_value = true;
  o.apply = [](Config* c, const Values& v, bool, std::string* reason) {
    if (v.empty() || v.size() % 4 != 0) {
      *reason = "Wrong number of arguments in buffer limit configuration.";
      return false;
    }
    Config updated = *c;
    for (size_t i = 0; i < v.size(); i += 4) {
      ebb::server::ClientOutputBufferLimit* limit = LimitOfClass(&updated, v[i]);
      if (limit == nullptr) {
        *reason = "Invalid client class specified in buffer limit configuration.";
        return false;
      }
      int64_t seconds = 0;
      uint64_t hard = 0, soft = 0;
      if (!ParseMemorySize(v[i + 1], &hard) || !ParseMemorySize(v[i + 2], &soft) ||
          !ParseInt64(v[i + 3], &seconds) || seconds < 0) {
        *reason = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
        return false;
      }
      *limit = {hard, soft, seconds};
    }
    c->client_output_buffer_limit_normal = updated.client_output_buffer_limit_normal;
    c->client_output_buffer_limit_pubsub = updated.client_output_buffer_limit_pubsub;
    c->client_output_buffer_limit_replica = updated.client_output_buffer_limit_replica;
    return true;
  };
  auto words = [](const Config& c) {
    Lines::value_type out;
    auto add = [&out](const char* name, const ebb::server::ClientOutputBufferLimit& l) {
      out.insert(out.end(), {name, std::to_string(l.hard_bytes), std::to_string(l.soft_bytes),
                             std::to_string(l.soft_seconds)});
    };
    add("normal", c.client_output_buffer_limit_normal);
    add("slave", c.client_output_buffer_limit_replica);
    add("pubsub", c.client_output_buffer_limit_pubsub);
    return out;
  };
  o.get = [words](const Config& c) {
    std::string text;
    for (const std::string& w : words(c)) text += (text.empty() ? "" : " ") + w;
    return text;
  };
  o.lines = [words](const Config& c) {
    Lines lines;
    const auto all = words(c);
    for (size_t i = 0; i < all.size(); i += 4)
      lines.emplace_back(all.begin() + i, all.begin() + i + 4);
    return lines;
  };
  return o;
}

Option NotifyKeyspaceEvents() {
  return Single(
      "notify-keyspace-events",
      "keyspace notifications to publish, as Redis's letters (K E g $ x ... A; T: TLOG and "
      "TREG; \"\": none)",
      true,
      [](Config* c, const std::string& text, std::string* reason) {
        uint32_t classes = 0;
        if (!ebb::server::ParseNotifyClasses(text, &classes)) {
          *reason = "Invalid event class character. Use 'Ag$lshzxeKEtmdnT'.";
          return false;
        }
        c->notify_keyspace_events = classes;
        return true;
      },
      [](const Config& c) { return ebb::server::NotifyClassesText(c.notify_keyspace_events); });
}

// no|yes|local: who may do a protected action (enable-debug-command, enable-protected-configs).
Option ProtectedAction(std::string name, std::string doc, DebugCommandPolicy Config::*member) {
  return Single(
      std::move(name), std::move(doc), false,
      [member](Config* c, const std::string& text, std::string* reason) {
        const std::string v = AsciiLower(text);
        if (v == "no") {
          c->*member = DebugCommandPolicy::kNo;
        } else if (v == "yes") {
          c->*member = DebugCommandPolicy::kYes;
        } else if (v == "local") {
          c->*member = DebugCommandPolicy::kLocal;
        } else {
          *reason = "argument(s) must be one of the following: no, yes, local";
          return false;
        }
        return true;
      },
      [member](const Config& c) -> std::string {
        switch (c.*member) {
          case DebugCommandPolicy::kNo:
            return "no";
          case DebugCommandPolicy::kYes:
            return "yes";
          case DebugCommandPolicy::kLocal:
            return "local";
        }
        return "no";
      });
}

// `replicaof <host> <port>`: the master this server replicates from (no line: none).
Option ReplicaOf() {
  Option o;
  o.name = "replicaof";
  o.doc = "replicate the master at host and port (docs/replication.md)";
  o.mutable_at_runtime = false;
  o.min_values = 2;
  o.max_values = 2;
  o.apply = [](Config* c, const Values& v, bool, std::string* reason) {
    int64_t port = 0;
    if (!ParseInt64(v[1], &port) || port < 0 || port > 65535) {
      *reason = "Invalid master port";
      return false;
    }
    if (AsciiLower(v[0]) == "no" && AsciiLower(v[1]) == "one") {
      c->replicaof_host.clear();
      c->replicaof_port = 0;
      return true;
    }
    c->replicaof_host = v[0];
    c->replicaof_port = static_cast<int>(port);
    return true;
  };
  o.get = [](const Config& c) {
    return c.replicaof_host.empty() ? std::string()
                                    : c.replicaof_host + " " + std::to_string(c.replicaof_port);
  };
  o.lines = [](const Config& c) {
    if (c.replicaof_host.empty()) return Lines{};
    return Lines{{c.replicaof_host, std::to_string(c.replicaof_port)}};
  };
  return o;
}

// `peer <host> <port>`: an active-active peer linked at start; repeatable.
Option Peers() {
  Option o;
  o.name = "peer";
  o.doc =
      "an active-active peer at host and port, linked at start; repeatable "
      "(docs/active-active.md)";
  o.mutable_at_runtime = false;
  o.min_values = 2;
  o.max_values = 2;
  o.repeatable = true;
  o.apply = [](Config* c, const Values& v, bool append, std::string* reason) {
    int64_t port = 0;
    if (!ParseInt64(v[1], &port) || port <= 0 || port > 65535) {
      *reason = "Invalid peer port";
      return false;
    }
    if (!append) c->peers.clear();
    c->peers.emplace_back(v[0], static_cast<int>(port));
    return true;
  };
  o.get = [](const Config& c) {
    std::string out;
    for (const auto& [host, port] : c.peers) {
      out += (out.empty() ? "" : " ") + host + " " + std::to_string(port);
    }
    return out;
  };
  o.lines = [](const Config& c) {
    Lines lines;
    for (const auto& [host, port] : c.peers) lines.push_back({host, std::to_string(port)});
    return lines;
  };
  return o;
}

// `user <name> [rule ...]`: an ACL user made at start; repeatable, one line per user.
Option Users() {
  Option o;
  o.name = "user";
  o.doc =
      "an ACL user made at start: its name, then ACL SETUSER's rules; repeatable, not with aclfile";
  o.mutable_at_runtime = false;
  o.hidden_from_get = true;
  o.min_values = 1;
  o.max_values = -1;
  o.repeatable = true;
  o.apply = [](Config* c, const Values& v, bool append, std::string* reason) {
    if (!append) c->users.clear();
    for (const Values& user : c->users) {
      if (user[0] == v[0]) {
        *reason = "Duplicate user found. A user can only be defined once in config files";
        return false;
      }
    }
    c->users.push_back(v);
    return true;
  };
  o.get = [](const Config& c) {
    std::string out;
    for (const Values& user : c.users) {
      for (const std::string& word : user) out += word + " ";
      out += "\n";
    }
    return out;
  };
  o.lines = [](const Config& c) { return c.users; };
  return o;
}

Option LatencyPercentiles() {
  Option o;
  o.name = "latency-tracking-info-percentiles";
  o.doc = "percentiles of each command's latency INFO latencystats prints (\"\": none)";
  o.max_values = -1;
  o.split_set_value = true;
  o.apply = [](Config* c, const Values& v, bool, std::string* reason) {
    std::vector<double> percentiles;
    if (!(v.size() == 1 && v[0].empty())) {  // "" is the empty list, as Redis
      for (const std::string& text : v) {
        double p = 0;
        if (!ParseDouble(text, &p)) {
          *reason = "Invalid latency-tracking-info-percentiles parameters";
          return false;
        }
        if (p > 100.0 || p < 0.0) {
          *reason = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
          return false;
        }
        percentiles.push_back(p);
      }
    }
    c->latency_tracking_info_percentiles = std::move(percentiles);
    return true;
  };
  o.get = [](const Config& c) {
    std::string text;
    for (double p : c.latency_tracking_info_percentiles) {
      text += (text.empty() ? "" : " ") + PercentileText(p);
    }
    return text;
  };
  o.lines = [](const Config& c) {
    Lines::value_type words;
    for (double p : c.latency_tracking_info_percentiles) words.push_back(PercentileText(p));
    if (words.empty()) words.push_back("");
    return Lines{words};
  };
  return o;
}

}  // namespace ebb::server::option_rows
