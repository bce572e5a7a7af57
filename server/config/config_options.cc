// The option table. Each builder below makes one kind of row; BuildOptionTable() lists them.
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
#include "server/config/config_option.h"
#include "server/core/latency_histogram.h"
#include "server/services/keyspace_events.h"

namespace ebb::server {

namespace {

using Option = ConfigRegistry::Option;
using Values = std::vector<std::string>;
using Lines = std::vector<std::vector<std::string>>;

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

Option Bool(std::string name, std::string doc, bool mut, bool Config::*member,
            bool on_off = false) {
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
              uint64_t max = UINT64_MAX) {
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

// Why a TTL of 0 is refused: it would expire every write the moment it is made.
constexpr char kZeroTtl[] = "a TTL must be above 0 (use 'unlimited' for no expiry)";

Option Duration(std::string name, std::string doc, bool mut, int64_t Config::*member,
                bool allow_unlimited, bool allow_zero = true) {
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

// The limit of one client class; replica limits are accepted and kept (ebb has no replicas).
ebb::server::ClientOutputBufferLimit* LimitOfClass(Config* c, const std::string& name) {
  const std::string lower = AsciiLower(name);
  if (lower == "normal") return &c->client_output_buffer_limit_normal;
  if (lower == "pubsub") return &c->client_output_buffer_limit_pubsub;
  if (lower == "replica" || lower == "slave") return &c->client_output_buffer_limit_replica;
  return nullptr;
}

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

// What CONFIG SET may change only for clients enable-protected-configs admits: who may connect
// and how they authenticate, and the limits that bound the server's memory and connections.
constexpr std::string_view kProtectedOptions[] = {
    "protected-mode",
    "requirepass",
    "maxclients",
    "proto-max-bulk-len",
    "client-query-buffer-limit",
    "client-output-buffer-limit",
    "maxmemory",
};

}  // namespace

std::vector<Option> BuildOptionTable() {
  constexpr bool kMutable = true, kImmutable = false;
  std::vector<Option> t;
  t.push_back(
      Bind("bind", "addresses to listen on (one or more IPv4/IPv6 addresses)", &Config::bind));
  t.push_back(
      Integer("port", "TCP port to listen on (0: none)", kImmutable, &Config::port, 0, 65535));
  t.push_back(String("aclfile", "file of ACL users (ACL LOAD/SAVE, loaded at startup; \"\": none)",
                     kImmutable, &Config::aclfile));
  t.push_back(Users());
  t.push_back(Enum("acl-pubsub-default",
                   "the channels a new ACL user, or one given `reset`, starts with: "
                   "resetchannels (none) or allchannels",
                   kMutable, &Config::acl_pubsub_default, {"allchannels", "resetchannels"}));
  t.push_back(Integer("tls-port", "TCP port for TLS connections (0: none)", kImmutable,
                      &Config::tls_port, 0, 65535));
  t.push_back(String("tls-cert-file", "the server's X.509 certificate (PEM)", kImmutable,
                     &Config::tls_cert_file));
  t.push_back(String("tls-key-file", "the private key of tls-cert-file (PEM)", kImmutable,
                     &Config::tls_key_file));
  t.push_back(String("tls-key-file-pass", "the passphrase of tls-key-file, if it has one",
                     kImmutable, &Config::tls_key_file_pass));
  t.push_back(String("tls-ca-cert-file", "CA certificates that sign client certificates (PEM)",
                     kImmutable, &Config::tls_ca_cert_file));
  t.push_back(String("tls-ca-cert-dir", "a directory of CA certificates (OpenSSL's hashed names)",
                     kImmutable, &Config::tls_ca_cert_dir));
  t.push_back(Enum("tls-auth-clients",
                   "client certificates: yes (required), optional (checked if given), no",
                   kImmutable, &Config::tls_auth_clients, {"yes", "no", "optional"}));
  t.push_back(String("tls-protocols",
                     "TLS versions to accept, e.g. \"TLSv1.2 TLSv1.3\" (\"\": both)", kImmutable,
                     &Config::tls_protocols));
  t.push_back(String("tls-ciphers", "TLSv1.2 cipher list (OpenSSL syntax; \"\": OpenSSL's default)",
                     kImmutable, &Config::tls_ciphers));
  t.push_back(String("tls-ciphersuites",
                     "TLSv1.3 cipher suites (OpenSSL syntax; \"\": OpenSSL's default)", kImmutable,
                     &Config::tls_ciphersuites));
  t.push_back(String("tls-client-cert-file",
                     "the certificate links to other servers present (\"\": tls-cert-file)",
                     kImmutable, &Config::tls_client_cert_file));
  t.push_back(String("tls-client-key-file", "the private key of tls-client-cert-file", kImmutable,
                     &Config::tls_client_key_file));
  t.push_back(String("tls-client-key-file-pass",
                     "the passphrase of tls-client-key-file, if it has one", kImmutable,
                     &Config::tls_client_key_file_pass));
  t.push_back(Bool("tls-replication", "a replica connects to its master over TLS", kImmutable,
                   &Config::tls_replication));
  t.push_back(Bool("tls-cluster",
                   "the cluster bus speaks TLS and nodes announce their tls-port to clients",
                   kImmutable, &Config::tls_cluster));
  t.push_back(Bool("tls-peers", "active-active peer links connect over TLS, to the peers' tls-port",
                   kImmutable, &Config::tls_peers));
  t.push_back(Integer("metrics-port", "HTTP port serving Prometheus metrics at /metrics (0: none)",
                      kImmutable, &Config::metrics_port, 0, 65535));
  t.push_back(Bind("metrics-bind", "addresses metrics-port listens on (read as bind)",
                   &Config::metrics_bind));
  t.push_back(Bool("protected-mode",
                   "while the default user is nopass, accept clients from loopback addresses only",
                   kMutable, &Config::protected_mode));
  t.push_back(String("requirepass", "password clients must AUTH with (empty: none)", kMutable,
                     &Config::requirepass));
  // At most 256: the database number is one byte of every engine key (docs/key-encoding.md).
  t.push_back(Integer("databases", "number of databases (SELECT 0..n-1)", kImmutable,
                      &Config::databases, 1, 256));
  t.push_back(String("dir", "directory holding the data files", kImmutable, &Config::dir));
  t.push_back(Integer("maxclients", "maximum number of connected clients", kMutable,
                      &Config::maxclients, 1, INT_MAX));
  t.push_back(Integer("timeout", "close a client idle for this many seconds (0: never)", kMutable,
                      &Config::timeout_s, 0, INT_MAX));
  t.push_back(Integer("tcp-keepalive", "TCP keepalive interval in seconds (0: off)", kMutable,
                      &Config::tcp_keepalive_s, 0, INT_MAX));
  t.push_back(Integer("io-poll-us",
                      "after serving requests, poll this many microseconds for more before "
                      "sleeping (0: sleep at once)",
                      kMutable, &Config::io_poll_us, 0, 1000000));
  t.push_back(Integer("busy-reply-threshold",
                      "milliseconds a script runs before other clients get -BUSY and SCRIPT KILL "
                      "may stop it (alias lua-time-limit)",
                      kMutable, &Config::busy_reply_threshold_ms, 0, INT64_MAX));
  t.push_back(Memory("lua-memory-limit",
                     "bytes the Lua heap may reach while a script or function runs; past it the "
                     "script fails with an error (0: no bound)",
                     kMutable, &Config::lua_memory_limit, 0));
  t.push_back(Memory("proto-max-bulk-len", "largest bulk string a request may carry", kMutable,
                     &Config::proto_max_bulk_len, 1024 * 1024, INT64_MAX));
  t.push_back(Memory("client-query-buffer-limit",
                     "largest unprocessed input a client may accumulate", kMutable,
                     &Config::client_query_buffer_limit, 1024 * 1024, INT64_MAX));
  t.push_back(Memory("repl-backlog-size",
                     "bytes of the replication stream kept so a replica that lost its link "
                     "resumes with a partial resynchronisation",
                     kMutable, &Config::repl_backlog_size, 16 * 1024, INT64_MAX));
  t.push_back(Integer("repl-backlog-ttl",
                      "seconds after its last replica left that a master frees its backlog (0: "
                      "never)",
                      kMutable, &Config::repl_backlog_ttl_s, 0, INT_MAX));
  t.push_back(Integer("repl-timeout",
                      "seconds without an acknowledgement before a master drops a replica, and "
                      "without data or ping before a replica drops its master's link",
                      kMutable, &Config::repl_timeout_s, 1, INT_MAX));
  t.push_back(Integer("repl-ping-replica-period",
                      "seconds between the pings a master sends its replicas on the stream",
                      kMutable, &Config::repl_ping_replica_period_s, 1, INT_MAX));
  t.push_back(Integer("min-replicas-to-write",
                      "a master refuses writes while fewer replicas are good (0: never)", kMutable,
                      &Config::min_replicas_to_write, 0, INT_MAX));
  t.push_back(Integer("min-replicas-max-lag",
                      "seconds since its last acknowledgement within which a replica is good",
                      kMutable, &Config::min_replicas_max_lag_s, 0, INT_MAX));
  t.push_back(ReplicaOf());
  t.push_back(Peers());
  t.push_back(Integer("max-clock-skew",
                      "ms a write's timestamp may be ahead of the clock in active-active mode "
                      "(0: no check)",
                      kMutable, &Config::max_clock_skew_ms, 0, INT64_MAX));
  t.push_back(Enum("max-clock-skew-action",
                   "what a write too far ahead gets: refuse (an error) or flag (counted in INFO "
                   "peers)",
                   kMutable, &Config::max_clock_skew_action, {"refuse", "flag"}));
  t.push_back(
      Integer("peer-backlog-size",
              "deltas of this node's origin log kept for its active-active peers (one further "
              "behind gets a snapshot)",
              kMutable, &Config::peer_backlog_size, 1, INT64_MAX));
  t.push_back(Memory("peer-output-limit",
                     "output a peer's stream may hold before the peer is dropped (it resumes)",
                     kMutable, &Config::peer_output_limit, 1024 * 1024, INT64_MAX));
  t.push_back(String("masterauth", "password a replica gives its master's AUTH", kMutable,
                     &Config::masterauth));
  t.push_back(String("masteruser", "user a replica gives its master's AUTH (empty: none)", kMutable,
                     &Config::masteruser));
  t.push_back(Bool("replica-read-only", "a replica refuses writes from its clients (-READONLY)",
                   kMutable, &Config::replica_read_only));
  t.push_back(Bool("replica-serve-stale-data",
                   "a replica whose master link is down still answers data commands", kMutable,
                   &Config::replica_serve_stale_data));
  t.push_back(Bool("cluster-enabled", "whether this server is a Redis Cluster node", kImmutable,
                   &Config::cluster_enabled));
  t.push_back(String("cluster-config-file",
                     "the cluster node's own state file, in the dir (written by ebb)", kImmutable,
                     &Config::cluster_config_file));
  t.push_back(Integer("cluster-node-timeout",
                      "milliseconds a node may be unreachable before it is failing", kMutable,
                      &Config::cluster_node_timeout_ms, 1, INT64_MAX));
  t.push_back(Integer("cluster-port", "TCP port of the cluster bus (0: port + 10000)", kImmutable,
                      &Config::cluster_port, 0, 65535));
  t.push_back(String("cluster-announce-ip", "the address other nodes and clients are given",
                     kMutable, &Config::cluster_announce_ip));
  t.push_back(Integer("cluster-announce-port", "the client port announced (0: port)", kMutable,
                      &Config::cluster_announce_port, 0, 65535));
  t.push_back(Integer("cluster-announce-tls-port",
                      "with tls-cluster, the TLS client port announced (0: tls-port)", kMutable,
                      &Config::cluster_announce_tls_port, 0, 65535));
  t.push_back(Integer("cluster-announce-bus-port", "the bus port announced (0: cluster-port)",
                      kMutable, &Config::cluster_announce_bus_port, 0, 65535));
  t.push_back(Bool("cluster-require-full-coverage",
                   "whether the cluster stops serving when any slot has no node", kMutable,
                   &Config::cluster_require_full_coverage));
  t.push_back(Bool("cluster-allow-reads-when-down",
                   "whether reads are served while the cluster is down", kMutable,
                   &Config::cluster_allow_reads_when_down));
  t.push_back(Integer("cluster-replica-validity-factor",
                      "a replica disconnected longer than node-timeout x this does not fail over "
                      "(0: always may)",
                      kMutable, &Config::cluster_replica_validity_factor, 0, INT32_MAX));
  t.push_back(
      Integer("cluster-migration-barrier",
              "replicas a master keeps before one may migrate to an orphaned master (accepted; "
              "ebb does not migrate replicas)",
              kMutable, &Config::cluster_migration_barrier, 0, INT32_MAX));
  t.push_back(Bool("cluster-allow-replica-migration",
                   "whether a master left without slots becomes a replica of their new owner",
                   kMutable, &Config::cluster_allow_replica_migration));
  t.push_back(Bool("cluster-replica-no-failover",
                   "whether this replica never starts an automatic failover", kMutable,
                   &Config::cluster_replica_no_failover));
  t.push_back(Integer("replica-priority",
                      "the replica's priority for promotion by Sentinel (lower first, 0: never)",
                      kMutable, &Config::replica_priority, 0, INT_MAX));
  t.push_back(String("replica-announce-ip", "the address a replica gives its master", kMutable,
                     &Config::replica_announce_ip));
  t.push_back(Integer("replica-announce-port",
                      "the port a replica gives its master (0: its own port)", kMutable,
                      &Config::replica_announce_port, 0, 65535));
  t.push_back(Bool("replica-announced", "whether Sentinel lists this replica", kMutable,
                   &Config::replica_announced));
  t.push_back(OutputBufferLimit());
  t.push_back(NotifyKeyspaceEvents());
  t.push_back(Bool("latency-tracking", "record each command's latency for INFO latencystats",
                   kMutable, &Config::latency_tracking));
  t.push_back(LatencyPercentiles());
  t.push_back(Integer("slowlog-log-slower-than",
                      "SLOWLOG keeps commands that ran at least this many microseconds (-1: none, "
                      "0: every command)",
                      kMutable, &Config::slowlog_log_slower_than_us, -1, INT64_MAX));
  t.push_back(Integer("slowlog-max-len", "the most entries SLOWLOG keeps", kMutable,
                      &Config::slowlog_max_len, 0, INT64_MAX));
  t.push_back(Integer("acllog-max-len", "the most entries ACL LOG keeps", kMutable,
                      &Config::acllog_max_len, 0, INT64_MAX));
  t.push_back(Integer("latency-monitor-threshold",
                      "LATENCY samples events that take at least this many milliseconds (0: "
                      "the latency monitor is off)",
                      kMutable, &Config::latency_monitor_threshold_ms, 0, INT64_MAX));
  t.push_back(ProtectedAction("enable-debug-command",
                              "allow DEBUG: no, yes, or local (only from loopback clients)",
                              &Config::enable_debug_command));
  t.push_back(ProtectedAction("enable-protected-configs",
                              "allow CONFIG SET of protected options (requirepass, protected-mode, "
                              "limits): no, yes, or local (only from loopback clients)",
                              &Config::enable_protected_configs));
  t.push_back(Enum("loglevel", "log verbosity: debug, verbose, notice, warning", kMutable,
                   &Config::loglevel, {"debug", "verbose", "notice", "warning"}));
  t.push_back(
      String("logfile", "log file path (empty: standard output)", kImmutable, &Config::logfile));
  t.push_back(Enum("wal-fsync", "when the WAL is fsynced: always, everysec, no", kMutable,
                   &Config::wal_fsync, {"always", "everysec", "no"}));
  t.push_back(Integer("wal-sync-delay-us",
                      "under wal-fsync always, how long a sync shared by several clients waits "
                      "for more writes to join it (0: none)",
                      kMutable, &Config::wal_sync_delay_us, 0, 1000000));
  t.push_back(Memory("maxmemory",
                     "bound on memtables, table index and filter blocks, the TLOG cache and client "
                     "buffers together: above it, writes that add data get -OOM (0: none)",
                     kMutable, &Config::maxmemory, 0));
  t.push_back(Memory("memtable-size", "memtable size that triggers a flush to an SST file",
                     kImmutable, &Config::memtable_size, 1024));
  t.push_back(Memory("block-cache-size", "capacity of the SST block cache", kImmutable,
                     &Config::block_cache_size, 0));
  t.push_back(Bool("use-direct-reads",
                   "read SST files with O_DIRECT (the block cache is their only cache); "
                   "align new ones' blocks to pages",
                   kImmutable, &Config::use_direct_reads));
  t.push_back(Memory("tlog-cache-size", "memory for the newest entries of recently read logs",
                     kImmutable, &Config::tlog_cache_size, 0));
  t.push_back(Memory("block-size", "target size of an SST data block", kImmutable,
                     &Config::block_size, 256, 16 << 20));
  t.push_back(Enum("compression", "SST block compression: none, lz4, zstd", kImmutable,
                   &Config::compression, {"none", "lz4", "zstd"}));
  t.push_back(Bool("expiration",
                   "master switch: off freezes expiry (what has expired stays gone, nothing "
                   "more expires; expiry times are still recorded)",
                   kMutable, &Config::expiration, /*on_off=*/true));
  t.push_back(Duration("default-ttl", "TTL of writes that give none and match no ttl-rule",
                       kMutable, &Config::default_ttl_ms, /*allow_unlimited=*/true,
                       /*allow_zero=*/false));
  t.push_back(TtlRules());
  t.push_back(Duration("default-retrieval-grace", "GRACE of reads that give none (0: none)",
                       kMutable, &Config::default_retrieval_grace_ms,
                       /*allow_unlimited=*/false));
  t.push_back(Bool("expiry-whole-file",
                   "delete SST files whose rows have all expired without rewriting them", kMutable,
                   &Config::expiry_whole_file));
  t.push_back(Duration("expiry-purge-deadline",
                       "expired data is physically removed within this long (unlimited: no "
                       "deadline)",
                       kMutable, &Config::expiry_purge_deadline_ms, /*allow_unlimited=*/true));
  for (Option& opt : t) {
    opt.is_protected = std::find(std::begin(kProtectedOptions), std::end(kProtectedOptions),
                                 opt.name) != std::end(kProtectedOptions);
  }
  return t;
}

}  // namespace ebb::server
