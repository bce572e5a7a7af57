// Cluster: this server as a Redis Cluster node (cluster-enabled yes; docs/cluster.md) — its node
// table and nodes.conf, the cluster bus, failure detection and failover — and the routing the
// dispatcher asks (SlotOwnership).
//
// The bus listens on cluster-port (port + 10000 by default; tls-port + 10000 with tls-cluster,
// when every link speaks TLS and nodes announce their TLS port) on the server's io_context, beside
// the clients: links (server/cluster/bus_link.h) connect, read and write asynchronously, and a
// 100 ms cron (Redis's clusterCron) opens missing links, pings, times out handshakes, flags
// nodes PFAIL and runs the replica's election. Messages follow Redis 7.0's clusterProcessPacket:
// MEET/PING answered with PONG, handshakes resolved into the real node names, gossip that makes
// every node known to every node and spreads failure reports, slot claims decided by configEpoch
// (with UPDATE sent to a node that claims stale slots and the epoch-collision rule), FAIL
// broadcasts, votes (FAILOVER_AUTH_REQUEST/ACK) and manual failover (MFSTART).
//
// A replica (CLUSTER REPLICATE, or a master that lost its slots) follows its master through the
// server's ReplicaLink; a replica that wins an election promotes itself through the same link
// (ReplicaLink::Promote). A manual failover pauses the master's clients' writes as FAILOVER does
// (ServerContext::set_writes_paused).
//
// Every change Redis saves is handed to the cluster-config-file's writer at the end of the loop
// turn (once, whatever changed), which replaces the file atomically and fsynced off the io
// thread (server/cluster/config_writer.h); what must be durable before a message leaves (votes,
// a new epoch) and CLUSTER SAVECONFIG wait for their write.
// Definitions: cluster.cc, cluster_receive.cc (bus messages), cluster_commands.cc (CLUSTER
// subcommands), cluster_failover.cc.
// Thread-safety: the io thread only.
#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/cluster/bus_link.h"
#include "server/cluster/bus_message.h"
#include "server/cluster/config_writer.h"
#include "server/cluster/node_table.h"
#include "server/dispatch/slot_ownership.h"

namespace ebb::server {
class ServerContext;
}

namespace ebb::server::cluster {

class Cluster : public SlotOwnership, public BusLink::Listener {
 public:
  // Redis's timing constants.
  static constexpr int64_t kCronMs = 100;
  static constexpr int64_t kManualFailoverTimeoutMs = 5000;
  static constexpr int64_t kManualFailoverPauseMultiplier = 2;

  // REQUIRES: context and io outlive the cluster; context has a keyspace, a replica link and a
  // replication master.
  Cluster(ServerContext* context, boost::asio::io_context& io);
  ~Cluster() override;

  // Reads the cluster-config-file from the dir, or creates this node (a new random name) and
  // writes the file. False with *error when the file exists but cannot be read or parsed, or
  // cannot be written.
  bool Load(std::string* error);
  // Listens on the bus port on every bind address. False with *error.
  bool Listen(std::string* error);
  // Starts the cron.
  void Start();
  // Closes the listener and every link; writes the file if a change is pending.
  void Stop();
  // tls-cluster: bus links speak TLS, outbound with `client`, inbound with `server`
  // (server/io/tls.h). REQUIRES: set before Listen; both outlive the cluster.
  void set_tls(boost::asio::ssl::context* client, boost::asio::ssl::context* server) {
    bus_client_tls_ = client;
    bus_server_tls_ = server;
  }
  // Called when the writes a manual failover held back may run again.
  void set_resume_listener(std::function<void()> listener) { resume_ = std::move(listener); }

  // ---- SlotOwnership
  bool cluster_ok() const override;
  bool OwnsSlot(int slot) const override;
  bool ReplicatesSlot(int slot) const override;
  bool SlotOwner(int slot, NodeAddress* owner) const override;
  bool MigratingTo(int slot, NodeAddress* target) const override;
  bool Importing(int slot) const override;

  // PUBLISH (shard false): sends the message to every other node, whose subscribers receive
  // it; SPUBLISH (shard true): to the other nodes of this node's shard (its master and replicas).
  void PropagatePublish(bool shard, std::string_view channel, std::string_view message);

  // ---- What the CLUSTER subcommands do (server/commands/cmd_cluster_node.cc). Each returns ""
  // or the error reply's text (without '-'), in Redis 7's words.
  ClusterState& state() { return *state_; }
  const ClusterState& state() const { return *state_; }
  std::string Meet(const std::string& ip, int port, int cport);
  // ADDSLOTS / DELSLOTS of the marked slots (checked by the caller).
  void AddSlots(const std::vector<int>& slots);
  void DelSlots(const std::vector<int>& slots);
  void FlushSlots();
  std::string SetSlotMigrating(int slot, std::string_view node);
  std::string SetSlotImporting(int slot, std::string_view node);
  void SetSlotStable(int slot);
  std::string SetSlotNode(int slot, std::string_view node);
  std::string SetConfigEpoch(int64_t epoch);
  // BUMPEPOCH: true when bumped.
  bool BumpEpoch();
  // SAVECONFIG now: "" or what failed.
  std::string SaveNow();
  std::string Reset(bool hard);
  std::string Forget(std::string_view node);
  std::string Replicate(std::string_view node);
  // CLUSTER FAILOVER [FORCE|TAKEOVER].
  std::string StartManualFailover(bool force, bool takeover);
  int64_t CountFailureReports(std::string_view node, std::string* error);
  // CLUSTER INFO's slot and node figures (also the metrics endpoint's): the slots with an owner,
  // and of those the ones whose owner is reachable, suspected down (pfail) or failed.
  struct Summary {
    bool ok = false;  // cluster_state:ok
    int slots_assigned = 0, slots_ok = 0, slots_pfail = 0, slots_fail = 0;
    size_t known_nodes = 0;
    int size = 0;  // masters serving at least one slot
    uint64_t current_epoch = 0, my_epoch = 0;
  };
  Summary Summarize() const;
  // CLUSTER INFO's text.
  std::string InfoText() const;
  // CLUSTER NODES's text; `plaintext_ports` as DescribeNode's.
  std::string NodesText(bool plaintext_ports) const;
  // The bus links, for CLUSTER LINKS.
  struct LinkInfo {
    bool outbound;
    std::string node;
    int64_t ctime_ms;
    bool writing;
    size_t send_buffer_used;
  };
  std::vector<LinkInfo> Links() const;
  // The address clients reach `n` at, and its health for CLUSTER SHARDS / SLOTS.
  NodeAddress ClientAddress(const Node& n) const;
  // The replication offset `n` last reported (this node's own for myself).
  uint64_t ReplicationOffset(const Node& n) const;
  // True when the server holds no key (CLUSTER RESET / REPLICATE / FLUSHSLOTS checks).
  bool DatabaseEmpty() const;

 private:
  // Things to do once at the end of the loop turn (Redis's clusterDoBeforeSleep).
  enum Todo : int { kTodoSave = 1, kTodoUpdateState = 2, kTodoHandleFailover = 4 };
  void Later(int todo);
  void RunTodo();

  // Accepts the bus connections of `acceptor`, one after the other.
  void Accept(boost::asio::ip::tcp::acceptor* acceptor);
  void Cron();
  int64_t node_timeout() const;
  // This node's addresses as the bus announces them (Redis 7.0's deriveAnnouncedPorts): the
  // client port — with tls-cluster the TLS one (cluster-announce-tls-port, else tls-port) —, the
  // plaintext port beside it (tls-cluster only, else 0) and the bus port.
  int MyPort() const;
  int MyPlaintextPort() const;
  int MyBusPort() const;
  // The port the bus listens on: cluster-port, else 10000 above the client port (the TLS one
  // with tls-cluster, as Redis).
  int BusPort() const;

  // Links.
  void CreateLink(Node* n, int64_t now_ms);
  void FreeLink(BusLink* link);
  void FreeNodeLinks(Node* n);
  // Removes `n` from the table with its links.
  void DeleteNode(Node* n);
  void OnLinkConnected(BusLink* link) override;
  void OnMessage(BusLink* link, std::string_view bytes) override;
  void OnLinkError(BusLink* link, std::string_view why) override;

  // Messages.
  BusMessage Header(MessageType type) const;
  void Send(BusLink* link, const BusMessage& m);
  void SendPing(BusLink* link, MessageType type);
  void Broadcast(const BusMessage& m);
  // PONG to every node (all) or to the replicas of this node's master only.
  void BroadcastPong(bool local_replicas_only);
  void BroadcastFail(Node* n);
  void SendUpdate(BusLink* link, Node* n);
  void Process(BusLink* link, const BusMessage& m);
  // What a message's header says of a known sender, taken before its slot claims are judged:
  // the cluster's current epoch and the sender's configEpoch (both only ever rise).
  void LearnSenderEpochs(Node* sender, const BusMessage& m);
  void ProcessGossip(const BusMessage& m, Node* sender);
  void UpdateSlotsConfigWith(Node* sender, uint64_t sender_config_epoch, const SlotBitmap& slots);
  void HandleConfigEpochCollision(Node* sender);
  void MarkFailingIfNeeded(Node* n);
  void ClearFailureIfNeeded(Node* n);
  std::string StartHandshake(const std::string& ip, int port, int cport);
  bool HandshakeInProgress(const std::string& ip, int port, int cport) const;

  // Roles and replication.
  void SetMyMaster(Node* master);
  void FollowMasterIfNeeded();

  // Failover (server/cluster/cluster_failover.cc).
  void HandleReplicaFailover(int64_t now_ms);
  int ReplicaRank() const;
  void RequestFailoverAuth();
  void SendFailoverAuthIfNeeded(Node* node, const BusMessage& request);
  void ReplaceMyMaster();
  void HandleManualFailover();
  void CheckManualFailoverTimeout(int64_t now_ms);
  void ResetManualFailover();
  void PauseWrites(bool paused);
  uint64_t MyReplicationOffset() const;
  void DeleteKeysOfSlot(int slot);

  std::string ConfigPath() const;

  ServerContext* context_;
  boost::asio::io_context& io_;
  std::unique_ptr<ClusterState> state_;
  std::unique_ptr<ConfigWriter> config_writer_;  // made by Load
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  std::unordered_map<BusLink*, std::shared_ptr<BusLink>> links_;
  boost::asio::ssl::context* bus_client_tls_ = nullptr;  // tls-cluster's, or null
  boost::asio::ssl::context* bus_server_tls_ = nullptr;
  boost::asio::steady_timer cron_timer_;
  std::function<void()> resume_;
  int todo_ = 0;
  bool todo_posted_ = false;
  bool stopped_ = false;
  uint64_t cron_iteration_ = 0;
  // Nodes FORGET put aside: not added again by gossip for a minute (Redis's blacklist).
  std::unordered_map<std::string, int64_t> forgotten_;
  std::array<int64_t, kMessageTypeCount> sent_{};
  std::array<int64_t, kMessageTypeCount> received_{};

  // The election (a replica).
  int64_t failover_auth_time_ms_ = 0;
  int failover_auth_count_ = 0;
  bool failover_auth_sent_ = false;
  int failover_auth_rank_ = 0;
  uint64_t failover_auth_epoch_ = 0;
  // Manual failover: on the master, the replica and the deadline; on the replica, the master's
  // offset once it paused (-1 before) and whether the election may start.
  int64_t mf_end_ms_ = 0;
  Node* mf_replica_ = nullptr;
  int64_t mf_master_offset_ = -1;
  bool mf_can_start_ = false;
  bool writes_paused_ = false;
};

}  // namespace ebb::server::cluster
