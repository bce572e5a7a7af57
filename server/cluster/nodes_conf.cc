#include "server/cluster/nodes_conf.h"

#include <fmt/format.h>

#include <vector>

#include "common/strings.h"

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

bool ParseNodesConfig(std::string_view text, int64_t now_ms, std::unique_ptr<ClusterState>* out,
                      std::string* error) {
  struct Line {
    int number;
    std::vector<std::string_view> fields;
  };
  std::vector<Line> lines;
  std::string_view myself_name;
  int number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    number++;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string_view> fields = SplitSpaces(line);
    if (fields.empty()) continue;
    if (fields[0] == "vars") {
      lines.push_back({number, std::move(fields)});
      continue;
    }
    if (fields.size() < 8 || !IsNodeName(fields[0])) {
      *error = fmt::format("Unrecoverable error: corrupted cluster config file \"{}\" (line {})",
                           line, number);
      return false;
    }
    for (std::string_view flag : SplitCommas(fields[2])) {
      if (flag == "myself") myself_name = fields[0];
    }
    lines.push_back({number, std::move(fields)});
  }
  if (myself_name.empty()) {
    *error = "Unrecoverable error: corrupted cluster config file (no 'myself' node)";
    return false;
  }
  auto state = std::make_unique<ClusterState>(std::string(myself_name));
  auto find_or_add = [&](std::string_view name) {
    Node* n = state->Find(name);
    return n != nullptr ? n : state->AddNode(std::string(name), 0, now_ms);
  };
  for (const Line& line : lines) {
    const auto& f = line.fields;
    auto fail = [&](std::string_view what) {
      *error = fmt::format("Unrecoverable error: corrupted cluster config file (line {}: {})",
                           line.number, what);
      return false;
    };
    if (f[0] == "vars") {
      for (size_t i = 1; i + 1 < f.size(); i += 2) {
        uint64_t v = 0;
        if (!ParseUint64(f[i + 1], &v)) return fail("bad vars value");
        if (f[i] == "currentEpoch") state->set_current_epoch(v);
        if (f[i] == "lastVoteEpoch") state->set_last_vote_epoch(v);
      }
      continue;
    }
    Node* n = find_or_add(f[0]);
    // ip:port@cport[,hostname]
    std::string_view address = f[1];
    address = address.substr(0, address.find(','));
    const size_t colon = address.rfind(':');
    if (colon == std::string_view::npos) return fail("bad address");
    n->ip = std::string(address.substr(0, colon));
    std::string_view ports = address.substr(colon + 1);
    const size_t at_sign = ports.find('@');
    int64_t port = 0, cport = 0;
    if (!ParseInt64(ports.substr(0, at_sign), &port)) return fail("bad port");
    if (at_sign != std::string_view::npos) {
      if (!ParseInt64(ports.substr(at_sign + 1), &cport)) return fail("bad bus port");
    } else {
      cport = port + 10000;
    }
    n->port = static_cast<int>(port);
    n->cport = static_cast<int>(cport);
    uint16_t flags = 0;
    for (std::string_view flag : SplitCommas(f[2])) {
      bool known = flag == "noflags";
      for (const FlagName& fn : kFlagNames) {
        if (flag == fn.name) {
          flags |= fn.flag;
          known = true;
        }
      }
      if (!known) return fail("unknown flag");
    }
    n->flags = flags;
    if (f[3] != "-") {
      if (!IsNodeName(f[3])) return fail("bad master name");
      state->SetReplicaOf(n, find_or_add(f[3]));
    }
    int64_t ping = 0, pong = 0;
    uint64_t epoch = 0;
    if (!ParseInt64(f[4], &ping) || !ParseInt64(f[5], &pong) || !ParseUint64(f[6], &epoch)) {
      return fail("bad number");
    }
    n->ping_sent_ms = ping != 0 ? now_ms : 0;
    n->pong_received_ms = pong != 0 ? now_ms : 0;
    n->config_epoch = epoch;
    for (size_t i = 8; i < f.size(); i++) {
      std::string_view s = f[i];
      if (s.front() == '[') {
        // [slot->-name] migrating, [slot-<-name] importing
        const size_t dash = s.find('-');
        if (dash == std::string_view::npos || s.back() != ']' || s.size() < dash + 3 + 1) {
          return fail("bad slot mark");
        }
        int slot = 0;
        if (!ParseSlot(s.substr(1, dash - 1), &slot)) return fail("bad slot");
        const std::string_view direction = s.substr(dash, 3);
        const std::string_view other = s.substr(dash + 3, s.size() - dash - 4);
        if (!IsNodeName(other)) return fail("bad node in slot mark");
        if (direction == "->-") {
          state->set_migrating(slot, find_or_add(other));
        } else if (direction == "-<-") {
          state->set_importing(slot, find_or_add(other));
        } else {
          return fail("bad slot mark");
        }
        continue;
      }
      const size_t dash = s.find('-');
      int first = 0, last = 0;
      if (dash == std::string_view::npos) {
        if (!ParseSlot(s, &first)) return fail("bad slot");
        last = first;
      } else if (!ParseSlot(s.substr(0, dash), &first) || !ParseSlot(s.substr(dash + 1), &last) ||
                 first > last) {
        return fail("bad slot range");
      }
      for (int j = first; j <= last; j++) {
        if (!state->AddSlot(n, j)) return fail("slot assigned twice");
      }
    }
  }
  if (state->MaxEpoch() > state->current_epoch()) state->set_current_epoch(state->MaxEpoch());
  *out = std::move(state);
  return true;
}

}  // namespace ebb::server::cluster
