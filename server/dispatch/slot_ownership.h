// SlotOwnership: what the command layer needs to know about the cluster to route a keyed
// command (Redis Cluster's hash slots; docs/cluster.md).
//
// With `cluster-enabled yes` the server's cluster node implements it and installs it on the
// ServerContext; the dispatcher asks it, for every command that names keys, who serves the
// keys' slot, and answers -MOVED, -ASK, -TRYAGAIN or -CLUSTERDOWN instead of running the command
// when this node must not. Without cluster mode there is no instance (ServerContext::cluster()
// is nullptr) and nothing is asked.
// It lives in dispatch/, the layer that routes by it (the names keep the cluster namespace):
// cluster/ implements it from above, and the dispatcher needs nothing else of the cluster.
// Thread-safety: none; used only on the command (io) thread, like everything the node owns.
#pragma once

#include <cstdint>
#include <string>

namespace ebb::server::cluster {

// Redis Cluster's key space: 16384 hash slots, CRC16 of the key or of its {hash tag}.
inline constexpr int kSlots = 16384;

// Where a client is sent: the address clients use (cluster-announce-ip/port when set).
struct NodeAddress {
  std::string host;
  int port = 0;
  // With tls-cluster, `port` is the node's TLS port and this its plain one (0: none).
  int plaintext_port = 0;
};

// The port a client is told for `address`, as Redis 7.0: under tls-cluster a client connected
// in clear text gets the plain port, a TLS client the TLS one.
inline int PortFor(const NodeAddress& address, bool tls_client) {
  return !tls_client && address.plaintext_port != 0 ? address.plaintext_port : address.port;
}

class SlotOwnership {
 public:
  virtual ~SlotOwnership() = default;

  // False while the cluster is down (cluster_state:fail in CLUSTER INFO): commands get
  // -CLUSTERDOWN, except reads when cluster-allow-reads-when-down is yes.
  virtual bool cluster_ok() const = 0;
  // True when this node is a master that owns `slot`. REQUIRES: 0 <= slot < kSlots.
  virtual bool OwnsSlot(int slot) const = 0;
  // True when this node is a replica of the master that owns `slot` (it may serve reads to a
  // client that sent READONLY).
  virtual bool ReplicatesSlot(int slot) const = 0;
  // The owner of `slot` as clients reach it; false when no node serves it.
  virtual bool SlotOwner(int slot, NodeAddress* owner) const = 0;
  // True when this node owns `slot` and it is MIGRATING (CLUSTER SETSLOT slot MIGRATING id):
  // *target is where a key this node no longer holds is sent with -ASK.
  virtual bool MigratingTo(int slot, NodeAddress* target) const = 0;
  // True when `slot` is IMPORTING into this node (CLUSTER SETSLOT slot IMPORTING id): a client
  // that sent ASKING just before may run its command here.
  virtual bool Importing(int slot) const = 0;
};

}  // namespace ebb::server::cluster
