// Cluster: this server as a Redis Cluster node (cluster-enabled yes; docs/cluster.md).
//
// Owns: the node table (ClusterState: every known node, the slots' owners, migrating and
// importing marks, the epochs), the cluster-config-file it is saved to (through its
// ConfigWriter), the bus (its listeners and every BusLink), failure detection, the replica's
// election and manual failover. It answers the dispatcher's routing questions (SlotOwnership)
// and performs what the CLUSTER subcommands ask (the operations below, whose outcomes are
// ClusterCode: server/cluster/cluster_code.h).
// Thread: the io thread only — the bus, the cron and the commands all run on the server's
// io_context; only the config writer's fsync runs off it.
// Invariants: the node table's own (server/cluster/node_table.h: one owner per slot, a master;
// myself always present); a node's link and inbound_link are links this node holds (links_) or
// null; a vote leaves only once it is on disk, and an election's new epoch is written before
// its vote requests leave; a node FORGET removed is not added back by gossip for a minute;
// clients' writes are paused only while a manual failover this master agreed to is under way.
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
//
// Definitions, one file per job: cluster.cc (the node's life, the bus links, sending, and the
// dispatch of received messages), cluster_gossip.cc (the node table kept by gossip: cron,
// handshakes, failure detection, roles; the section a message gossips: gossip_section.h),
// cluster_slots.cc (slot ownership and the claims settled by configEpoch, whose rules SlotClaims
// keeps: slot_claims.h), cluster_failover.cc (the election, whose timing and votes FailoverElection
// keeps, and manual failover), cluster_operations.cc (the CLUSTER operations; the command rows are
// server/commands/cmd_cluster_{topology,slots,membership}.cc).
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
#include "server/cluster/cluster_code.h"
#include "server/cluster/config_writer.h"
#include "server/cluster/failover_election.h"
#include "server/cluster/forgotten_nodes.h"
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
  // writes the file. Refusals: ParseNodesConfig's, kNodesConfUnwritable.
  Result<ClusterCode> Load();
  // Listens on the bus port on every bind address. Refusals: kBusPortTooHigh, kBusListen,
  // kBusNoAddress.
  Result<ClusterCode> Listen();
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

  // ---- What the CLUSTER subcommands do (server/commands/cmd_cluster_*.cc). Each returns
  // success or an outcome whose error reply ClusterErrorText spells
  // (server/cluster/cluster_code.h).
  ClusterState& state() { return *state_; }
  const ClusterState& state() const { return *state_; }
  Result<ClusterCode> Meet(const std::string& ip, int port, int cport);
  // ADDSLOTS / DELSLOTS of the marked slots (checked by the caller).
  void AddSlots(const std::vector<int>& slots);
  void DelSlots(const std::vector<int>& slots);
  void FlushSlots();
  Result<ClusterCode> SetSlotMigrating(int slot, std::string_view node);
  Result<ClusterCode> SetSlotImporting(int slot, std::string_view node);
  void SetSlotStable(int slot);
  Result<ClusterCode> SetSlotNode(int slot, std::string_view node);
  Result<ClusterCode> SetConfigEpoch(int64_t epoch);
  // BUMPEPOCH: true when bumped.
  bool BumpEpoch();
  // SAVECONFIG now: kSaveFailed with what failed.
  Result<ClusterCode> SaveNow();
  Result<ClusterCode> Reset(bool hard);
  Result<ClusterCode> Forget(std::string_view node);
  Result<ClusterCode> Replicate(std::string_view node);
  // CLUSTER FAILOVER [FORCE|TAKEOVER].
  Result<ClusterCode> StartManualFailover(bool force, bool takeover);
  Result<ClusterCode, int64_t> CountFailureReports(std::string_view node);
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
  // ---- Plumbing (cluster.cc).
  // Things to do once at the end of the loop turn (Redis's clusterDoBeforeSleep).
  enum Todo : int { kTodoSave = 1, kTodoUpdateState = 2, kTodoHandleFailover = 4 };
  void Later(int todo);
  void RunTodo();
  std::string ConfigPath() const;
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
  uint64_t MyReplicationOffset() const;
  // Accepts the bus connections of `acceptor`, one after the other.
  void Accept(boost::asio::ip::tcp::acceptor* acceptor);
  // Links.
  void CreateLink(Node* n, int64_t now_ms);
  void FreeLink(BusLink* link);
  void FreeNodeLinks(Node* n);
  // Removes `n` from the table with its links.
  void DeleteNode(Node* n);
  void OnLinkConnected(BusLink* link) override;
  void OnMessage(BusLink* link, std::string_view bytes) override;
  void OnLinkError(BusLink* link, std::string_view why) override;
  // Sending.
  BusMessage Header(MessageType type) const;
  void Send(BusLink* link, const BusMessage& m);
  void Broadcast(const BusMessage& m);
  // PONG to every node (all) or to the replicas of this node's master only.
  void BroadcastPong(bool local_replicas_only);
  // Receiving: Process hands each type to the function of its job.
  void Process(BusLink* link, const BusMessage& m);
  // The known node that sent `m` (null for an unknown one), with what its header says of it:
  // the inbound link it came on, the time, its epochs and replication offset.
  Node* IdentifySender(BusLink* link, const BusMessage& m, int64_t now);
  void ProcessPublish(const BusMessage& m, Node* sender);

  // ---- The node table, kept by gossip (cluster_gossip.cc).
  // The 100 ms cron (Redis's clusterCron) and its steps.
  void Cron();
  // This node's announced address, from the configuration (it may change at run time).
  void RefreshMyAddress();
  // Drops handshakes that timed out and opens a link to every node that has none.
  void ConnectNodes(int64_t now);
  // Pings the node whose pong is oldest among five random ones.
  void PingOldestOfRandomNodes();
  // Reconnects silent links, pings the nodes due one, flags PFAIL the ones past the timeout.
  void CheckNodeTimeouts(int64_t now);
  // A PING, PONG or MEET with its gossip section.
  void SendPing(BusLink* link, MessageType type);
  void BroadcastFail(Node* n);
  // kInvalidNodeAddress when the address or a port is not one.
  Result<ClusterCode> StartHandshake(const std::string& ip, int port, int cport);
  bool HandshakeInProgress(const std::string& ip, int port, int cport) const;
  // PING / PONG / MEET: the handshake, the sender's role and slots, and its gossip.
  void ProcessPingPongMeet(BusLink* link, const BusMessage& m, Node* sender, int64_t now);
  // PING / MEET: learns this node's address, adds a MEET's unknown sender, answers PONG.
  void AnswerPingOrMeet(BusLink* link, const BusMessage& m, Node* sender, int64_t now);
  // On an outbound link: completes a handshake (the node's real name; *sender becomes it) or
  // forgets an address now held by another node. False when the message is done with.
  bool ResolveOutboundLinkNode(BusLink* link, const BusMessage& m, Node** sender, int64_t now);
  // A PONG on an outbound link: the node is reachable.
  void RecordPong(BusLink* link, int64_t now);
  // What a message's header says of a known sender, taken before its slot claims are judged:
  // the cluster's current epoch and the sender's configEpoch (both only ever rise).
  void LearnSenderEpochs(Node* sender, const BusMessage& m);
  void LearnSenderRole(Node* sender, const BusMessage& m);
  void ProcessGossip(const BusMessage& m, Node* sender);
  void MarkFailingIfNeeded(Node* n);
  void ClearFailureIfNeeded(Node* n);
  void ProcessFail(const BusMessage& m, Node* sender, int64_t now);
  // This node's master, and the replica link that follows it.
  void SetMyMaster(Node* master);
  void FollowMasterIfNeeded();

  // ---- Slots (cluster_slots.cc).
  // The sender's slot claims, judged by configEpoch; an UPDATE back for a stale claim.
  void LearnSenderSlots(BusLink* link, Node* sender, const BusMessage& m);
  void UpdateSlotsConfigWith(Node* sender, uint64_t sender_config_epoch, const SlotBitmap& slots);
  void HandleConfigEpochCollision(Node* sender);
  void SendUpdate(BusLink* link, Node* n);
  void ProcessUpdate(const BusMessage& m, Node* sender);
  void DeleteKeysOfSlot(int slot);

  // ---- Failover (cluster_failover.cc).
  // The replica's election, one step per call (the cron, and at the end of a loop turn).
  void HandleReplicaFailover(int64_t now_ms);
  // A replica whose master failed (or that a manual failover lets start), with data recent
  // enough (cluster-replica-validity-factor) and failover allowed.
  bool MayFailOver(int64_t now_ms, bool manual) const;
  // A new election is scheduled (server/cluster/failover_election.h): tells the other replicas
  // of the shard this node's offset.
  void AnnounceElection(int64_t now_ms);
  // A new epoch, saved, and the votes asked for.
  void StartElection();
  // A majority of the masters voted: this replica replaces its master.
  void WinElection();
  int ReplicaRank() const;
  void RequestFailoverAuth();
  void SendFailoverAuthIfNeeded(Node* node, const BusMessage& request);
  void ProcessFailoverAuthAck(const BusMessage& m, Node* sender);
  void ReplaceMyMaster();
  void ProcessMfStart(BusLink* link, Node* sender, int64_t now);
  void HandleManualFailover();
  void CheckManualFailoverTimeout(int64_t now_ms);
  void ResetManualFailover();
  void PauseWrites(bool paused);

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
  ForgottenNodes forgotten_;
  std::array<int64_t, kMessageTypeCount> sent_{};
  std::array<int64_t, kMessageTypeCount> received_{};

  // The election (a replica).
  FailoverElection election_;
  // Manual failover: on the master, the replica and the deadline; on the replica, the master's
  // offset once it paused (-1 before) and whether the election may start.
  int64_t mf_end_ms_ = 0;
  Node* mf_replica_ = nullptr;
  int64_t mf_master_offset_ = -1;
  bool mf_can_start_ = false;
  bool writes_paused_ = false;
};

}  // namespace ebb::server::cluster
