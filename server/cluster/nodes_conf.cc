#include "server/cluster/nodes_conf.h"

#include <fmt/format.h>

#include <set>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "server/core/errors.h"

namespace ebb::server::cluster {
namespace {

struct FlagName {
  uint16_t flag;
  std::string_view name;
};
constexpr FlagName kFlagNames[] = {
    {kFlagMyself, "myself"}, {kFlagMaster, "master"},
    {kFlagSlave, "slave"},   {kFlagPfail, "fail?"},
    {kFlagFail, "fail"},     {kFlagHandshake, "handshake"},
    {kFlagNoAddr, "noaddr"}, {kFlagNoFailover, "nofailover"},
};

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && line[at] == ' ') at++;
    size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    if (end > at) out.push_back(line.substr(at, end - at));
    at = end;
  }
  return out;
}

std::vector<std::string_view> SplitCommas(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t at = 0;;) {
    const size_t end = s.find(',', at);
    out.push_back(s.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return out;
    at = end + 1;
  }
}

bool ParseSlot(std::string_view s, int* slot) {
  int64_t v = 0;
  if (!ParseInt64(s, &v) || v < 0 || v >= kSlots) return false;
  *slot = static_cast<int>(v);
  return true;
}

}  // namespace

std::string DescribeNode(const ClusterState& state, const Node& n, bool plaintext_ports) {
  const int port = plaintext_ports && n.pport != 0 ? n.pport : n.port;
  std::string out = fmt::format("{} {}:{}@{} ", n.name, n.ip, port, n.cport);
  size_t flags_at = out.size();
  for (const FlagName& f : kFlagNames) {
    if (n.flags & f.flag) {
      if (out.size() > flags_at) out += ',';
      out += f.name;
    }
  }
  if (out.size() == flags_at) out += "noflags";
  out += ' ';
  out += n.master != nullptr ? n.master->name : "-";
  fmt::format_to(std::back_inserter(out), " {} {} {} {}", n.ping_sent_ms, n.pong_received_ms,
                 state.EffectiveConfigEpoch(&n),
                 n.link != nullptr || n.is_myself() ? "connected" : "disconnected");
  for (int j = 0; j < kSlots && n.num_slots > 0; j++) {
    if (!n.slots.test(j)) continue;
    int end = j;
    while (end + 1 < kSlots && n.slots.test(end + 1)) end++;
    if (end == j) {
      fmt::format_to(std::back_inserter(out), " {}", j);
    } else {
      fmt::format_to(std::back_inserter(out), " {}-{}", j, end);
    }
    j = end;
  }
  if (n.is_myself()) {
    for (int j = 0; j < kSlots; j++) {
      if (const Node* to = state.migrating_to(j)) {
        fmt::format_to(std::back_inserter(out), " [{}->-{}]", j, to->name);
      } else if (const Node* from = state.importing_from(j)) {
        fmt::format_to(std::back_inserter(out), " [{}-<-{}]", j, from->name);
      }
    }
  }
  return out;
}

std::string DescribeNodes(const ClusterState& state, bool include_handshake, bool plaintext_ports) {
  std::string out;
  for (const auto& [name, n] : state.nodes()) {
    if (!include_handshake && n->in_handshake()) continue;
    out += DescribeNode(state, *n, plaintext_ports);
    out += '\n';
  }
  return out;
}

std::string NodesConfigText(const ClusterState& state) {
  return DescribeNodes(state, /*include_handshake=*/false) +
         fmt::format("vars currentEpoch {} lastVoteEpoch {}\n", state.current_epoch(),
                     state.last_vote_epoch());
}

namespace {

// One line of a cluster-config-file, split at its spaces.
struct ConfigLine {
  int number;
  std::vector<std::string_view> fields;
};

// The file's non-empty lines, and the name on the one flagged myself. Refusal: kNodesConfCorrupt,
// when a node's line is too short, does not start with a node's name or names a node already named.
Result<ClusterCode> SplitConfigLines(std::string_view text, std::vector<ConfigLine>* lines,
                                     std::string_view* myself_name) {
  int number = 0;
  std::set<std::string_view> names;  // of the nodes' lines so far
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    number++;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string_view> fields = SplitSpaces(line);
    if (fields.empty()) continue;
    if (fields[0] != "vars") {
      // A node on two lines would take the last one's flags: a file whose myself line is
      // followed by another line of the same name would start a node that is not itself.
      if (fields.size() < 8 || !IsNodeName(fields[0]) || !names.insert(fields[0]).second) {
        return {ClusterCode::kNodesConfCorrupt, NodesConfLineError(line, number)};
      }
      for (std::string_view flag : SplitCommas(fields[2])) {
        if (flag == "myself") *myself_name = fields[0];
      }
    }
    lines->push_back({number, std::move(fields)});
  }
  return {};
}

// The node of that name, added when the table has none. Each parser below returns "" or what is
// wrong with its field.
Node* FindOrAdd(ClusterState* state, std::string_view name, int64_t now_ms) {
  Node* n = state->Find(name);
  return n != nullptr ? n : state->AddNode(std::string(name), 0, now_ms);
}

// vars currentEpoch <n> lastVoteEpoch <m>
std::string_view ParseVars(const std::vector<std::string_view>& f, ClusterState* state) {
  for (size_t i = 1; i + 1 < f.size(); i += 2) {
    uint64_t v = 0;
    if (!ParseUint64(f[i + 1], &v)) return "bad vars value";
    if (f[i] == "currentEpoch") state->set_current_epoch(v);
    if (f[i] == "lastVoteEpoch") state->set_last_vote_epoch(v);
  }
  return {};
}

// ip:port@cport[,hostname]
std::string_view ParseAddress(std::string_view address, Node* n) {
  address = address.substr(0, address.find(','));
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return "bad address";
  n->ip = std::string(address.substr(0, colon));
  std::string_view ports = address.substr(colon + 1);
  const size_t at_sign = ports.find('@');
  int64_t port = 0, cport = 0;
  if (!ParseInt64(ports.substr(0, at_sign), &port) || port < 0 || port > 65535) return "bad port";
  if (at_sign != std::string_view::npos) {
    if (!ParseInt64(ports.substr(at_sign + 1), &cport)) return "bad bus port";
  } else {
    cport = port + 10000;  // an older file's: Redis's default bus port
  }
  // Past 55535 the default is no port either: refused as a written one would be.
  if (cport < 0 || cport > 65535) return "bad bus port";
  n->port = static_cast<int>(port);
  n->cport = static_cast<int>(cport);
  return {};
}

std::string_view ParseFlags(std::string_view text, uint16_t* flags) {
  *flags = 0;
  for (std::string_view flag : SplitCommas(text)) {
    bool known = flag == "noflags";
    for (const FlagName& fn : kFlagNames) {
      if (flag == fn.name) {
        *flags |= fn.flag;
        known = true;
      }
    }
    if (!known) return "unknown flag";
  }
  return {};
}

// [slot->-name] migrating, [slot-<-name] importing
std::string_view ParseSlotMark(std::string_view s, ClusterState* state, int64_t now_ms) {
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos || s.back() != ']' || s.size() < dash + 3 + 1) {
    return "bad slot mark";
  }
  int slot = 0;
  if (!ParseSlot(s.substr(1, dash - 1), &slot)) return "bad slot";
  const std::string_view direction = s.substr(dash, 3);
  const std::string_view other = s.substr(dash + 3, s.size() - dash - 4);
  if (!IsNodeName(other)) return "bad node in slot mark";
  if (direction == "->-") {
    state->set_migrating(slot, FindOrAdd(state, other, now_ms));
  } else if (direction == "-<-") {
    state->set_importing(slot, FindOrAdd(state, other, now_ms));
  } else {
    return "bad slot mark";
  }
  return {};
}

// <slot> or <first>-<last>, given to n.
std::string_view ParseSlotRange(std::string_view s, ClusterState* state, Node* n) {
  const size_t dash = s.find('-');
  int first = 0, last = 0;
  if (dash == std::string_view::npos) {
    if (!ParseSlot(s, &first)) return "bad slot";
    last = first;
  } else if (!ParseSlot(s.substr(0, dash), &first) || !ParseSlot(s.substr(dash + 1), &last) ||
             first > last) {
    return "bad slot range";
  }
  for (int j = first; j <= last; j++) {
    if (!state->AddSlot(n, j)) return "slot assigned twice";
  }
  return {};
}

// A node's line (the header's format).
std::string_view ParseNodeLine(const std::vector<std::string_view>& f, ClusterState* state,
                               int64_t now_ms) {
  Node* n = FindOrAdd(state, f[0], now_ms);
  if (std::string_view wrong = ParseAddress(f[1], n); !wrong.empty()) return wrong;
  if (std::string_view wrong = ParseFlags(f[2], &n->flags); !wrong.empty()) return wrong;
  if (f[3] != "-") {
    if (!IsNodeName(f[3])) return "bad master name";
    if (f[3] == f[0]) return "a node that is its own master";
    state->SetReplicaOf(n, FindOrAdd(state, f[3], now_ms));
  }
  int64_t ping = 0, pong = 0;
  uint64_t epoch = 0;
  if (!ParseInt64(f[4], &ping) || !ParseInt64(f[5], &pong) || !ParseUint64(f[6], &epoch)) {
    return "bad number";
  }
  n->ping_sent_ms = ping != 0 ? now_ms : 0;
  n->pong_received_ms = pong != 0 ? now_ms : 0;
  n->config_epoch = epoch;
  for (size_t i = 8; i < f.size(); i++) {
    const std::string_view wrong =
        f[i].front() == '[' ? ParseSlotMark(f[i], state, now_ms) : ParseSlotRange(f[i], state, n);
    if (!wrong.empty()) return wrong;
  }
  return {};
}

}  // namespace

Result<ClusterCode, std::unique_ptr<ClusterState>> ParseNodesConfig(std::string_view text,
                                                                    int64_t now_ms) {
  std::vector<ConfigLine> lines;
  std::string_view myself_name;
  if (Result<ClusterCode> split = SplitConfigLines(text, &lines, &myself_name); !split.ok()) {
    return split;
  }
  if (myself_name.empty()) return {ClusterCode::kNodesConfCorrupt, kNodesConfNoMyself};
  auto state = std::make_unique<ClusterState>(std::string(myself_name));
  for (const ConfigLine& line : lines) {
    const std::string_view wrong = line.fields[0] == "vars"
                                       ? ParseVars(line.fields, state.get())
                                       : ParseNodeLine(line.fields, state.get(), now_ms);
    if (!wrong.empty()) {
      return {ClusterCode::kNodesConfCorrupt, NodesConfFieldError(line.number, wrong)};
    }
  }
  if (state->MaxEpoch() > state->current_epoch()) state->set_current_epoch(state->MaxEpoch());
  return state;
}

}  // namespace ebb::server::cluster
