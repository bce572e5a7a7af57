// libFuzzer target for the cluster's two readers of hostile bytes: a bus message
// (server/cluster/bus_message.h), what any node or stranger on the bus port sends, and the
// cluster-config-file (server/cluster/nodes_conf.h), what the disk holds.
//
// The first byte picks the reader (even: a message, odd: a nodes.conf text). Each refuses the
// bytes or accepts them, and what it accepts must hold up:
// - a message: its names are node names (or no master), its epochs below 2^63, and its encoding
//   decodes to a message that encodes to the same bytes;
// - a file: no node in the table is its own master, and the file the node would write from it
//   is one it starts from again, reading back to the same text — a node always starts from the
//   file it wrote.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "server/cluster/bus_message.h"
#include "server/cluster/node_table.h"
#include "server/cluster/nodes_conf.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace ebb::server::cluster;  // NOLINT: a fuzz target of this one namespace

using ebb::fuzz::Check;

void Message(std::string_view bytes) {
  BusMessage m;
  if (!DecodeMessage(bytes, &m).ok()) return;
  Check(IsNodeName(m.sender), "a sender that is no node name");
  Check(m.slaveof.empty() || IsNodeName(m.slaveof), "a master that is no node name");
  Check(m.current_epoch <= static_cast<uint64_t>(INT64_MAX) &&
            m.config_epoch <= static_cast<uint64_t>(INT64_MAX),
        "an epoch of 2^63 or more");
  const std::string encoded = EncodeMessage(m);
  BusMessage again;
  Check(DecodeMessage(encoded, &again).ok(), "a message's encoding is refused");
  Check(EncodeMessage(again) == encoded, "a message's encoding does not read back to itself");
}

void NodesConf(std::string_view text) {
  constexpr int64_t kNowMs = 1700000000000;
  auto parsed = ParseNodesConfig(text, kNowMs);
  if (!parsed.ok()) return;
  const std::unique_ptr<ClusterState>& state = *parsed;
  for (const auto& [name, node] : state->nodes()) {
    Check(node->master != node.get(), "a node that is its own master");
  }
  const std::string written = NodesConfigText(*state);
  auto reread = ParseNodesConfig(written, kNowMs);
  if (!reread.ok()) fprintf(stderr, "%s\n", ClusterErrorText(reread).c_str());
  Check(reread.ok(), "the file written from an accepted one is refused");
  Check(NodesConfigText(**reread) == written, "the file written does not read back to itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    Message(bytes);
  } else {
    NodesConf(bytes);
  }
  return 0;
}
