// Cluster's node table, kept by gossip (Redis 7.0's clusterCron and the PING / PONG / MEET part
// of clusterProcessPacket): the cron that opens links, pings and flags nodes PFAIL; handshakes
// that turn a MEET's address into a named node; the sender's role and the nodes its gossip
// tells of; failure reports, FAIL and its clearing; and this node's own master. The class and its
// contract: cluster.h.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>
#include <vector>

#include "common/wall_clock.h"
#include "server/cluster/cluster.h"
#include "server/cluster/gossip_section.h"
#include "server/cluster/nodes_conf.h"
#include "server/io/listen.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::cluster {

namespace {

size_t RandomIndex(size_t n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return n == 0 ? 0 : rng() % n;
}

}  // namespace

// ---------------------------------------------------------------- PING / PONG / MEET

void Cluster::ProcessPingPongMeet(BusLink* link, const BusMessage& m, Node* sender, int64_t now) {
  if (m.type == MessageType::kPing || m.type == MessageType::kMeet) {
    AnswerPingOrMeet(link, m, sender, now);
  }
  // Under tls-cluster the sender's plain port (its client port is the TLS one).
  if (sender != nullptr) sender->pport = m.pport;
  if (!ResolveOutboundLinkNode(link, m, &sender, now)) return;
  if (m.type == MessageType::kPong) RecordPong(link, now);
  if (sender == nullptr || sender->in_handshake()) return;
  LearnSenderRole(sender, m);
  LearnSenderSlots(link, sender, m);
  if (sender->is_master() && state_->myself()->is_master()) HandleConfigEpochCollision(sender);
  ProcessGossip(m, sender);
}

void Cluster::AnswerPingOrMeet(BusLink* link, const BusMessage& m, Node* sender, int64_t now) {
  Node* me = state_->myself();
  // Learn the address this node is reached at from the connection, unless it is announced.
  if ((me->ip.empty() || m.type == MessageType::kMeet) &&
      context_->config().cluster_announce_ip.empty()) {
    std::string ip = link->LocalIp();
    if (!ip.empty() && ip != me->ip) {
      me->ip = ip;
      spdlog::info("IP address for this node updated to {}", ip);
      Later(kTodoSave);
    }
  }
  if (sender == nullptr && m.type == MessageType::kMeet) {
    Node* n = state_->AddNode(RandomNodeName(), kFlagHandshake, now);
    n->ip = m.myip.empty() ? link->PeerIp() : m.myip;
    n->port = m.port;
    n->pport = m.pport;
    n->cport = m.cport;
    Later(kTodoSave);
    // Trusted because it is a MEET: whoever the sender knows, this node will meet.
    ProcessGossip(m, nullptr);
  }
  SendPing(link, MessageType::kPong);
}

bool Cluster::ResolveOutboundLinkNode(BusLink* link, const BusMessage& m, Node** sender,
                                      int64_t now) {
  Node* ln = link->node;
  if (ln == nullptr || link->inbound()) return true;
  if (ln->in_handshake()) {
    if (*sender != nullptr) {
      // Already known under its real name: the handshake node is a duplicate.
      if ((*sender)->ip != ln->ip || (*sender)->port != ln->port) {
        (*sender)->ip = ln->ip;
        (*sender)->port = m.port;
        (*sender)->pport = m.pport;
        (*sender)->cport = m.cport;
        FreeNodeLinks(*sender);
      }
      DeleteNode(ln);
      Later(kTodoSave);
      return false;
    }
    state_->RenameNode(ln, m.sender);
    spdlog::info("Handshake with node {} completed.", ln->name);
    ln->flags &= static_cast<uint16_t>(~kFlagHandshake);
    ln->flags |= m.flags & (kFlagMaster | kFlagSlave);
    Later(kTodoSave);
    // Its slot claims are judged by the configEpoch this header carries: a node that took the
    // claims without the epoch would let any stale claim win the slots back.
    *sender = ln;
    LearnSenderEpochs(ln, m);
  } else if (ln->name != m.sender) {
    // The node at this address is another node now: forget the address until gossip or a new
    // MEET tells it.
    spdlog::info(
        "PONG contains mismatching sender ID. About node {} added {} ms ago, "
        "having flags {}",
        ln->name, now - ln->ctime_ms, ln->flags);
    ln->flags |= kFlagNoAddr;
    ln->ip.clear();
    ln->port = 0;
    ln->cport = 0;
    FreeLink(link);
    Later(kTodoSave);
    return false;
  }
  return true;
}

void Cluster::RecordPong(BusLink* link, int64_t now) {
  Node* ln = link->node;
  if (ln == nullptr || link->inbound() || ln->in_handshake()) return;
  ln->pong_received_ms = now;
  ln->ping_sent_ms = 0;
  if (ln->timed_out()) {
    ln->flags &= static_cast<uint16_t>(~kFlagPfail);
    Later(kTodoUpdateState);
  } else if (ln->failed()) {
    ClearFailureIfNeeded(ln);
  }
}

void Cluster::LearnSenderRole(Node* sender, const BusMessage& m) {
  if (m.slaveof.empty()) {
    if (sender->is_replica()) {
      state_->SetAsMaster(sender);
      Later(kTodoSave | kTodoUpdateState);
    }
    return;
  }
  Node* master = state_->Find(m.slaveof);
  if (master == sender) return;  // no node replicates itself: the claim is ignored
  if (sender->is_master()) {
    state_->DelNodeSlots(sender);
    state_->SetReplicaOf(sender, nullptr);
    sender->flags &= static_cast<uint16_t>(~kFlagMigrateTo);
    Later(kTodoSave | kTodoUpdateState);
  }
  if (master != nullptr && sender->master != master) {
    state_->SetReplicaOf(sender, master);
    Later(kTodoSave);
  }
}

void Cluster::ProcessFail(const BusMessage& m, Node* sender, int64_t now) {
  if (sender == nullptr) return;
  Node* failing = state_->Find(m.about);
  if (failing == nullptr || (failing->flags & (kFlagFail | kFlagMyself))) return;
  spdlog::info("FAIL message received from {} about {}", sender->name, failing->name);
  failing->flags |= kFlagFail;
  failing->flags &= static_cast<uint16_t>(~kFlagPfail);
  failing->fail_time_ms = now;
  Later(kTodoSave | kTodoUpdateState);
}

void Cluster::LearnSenderEpochs(Node* sender, const BusMessage& m) {
  if (m.current_epoch > state_->current_epoch()) state_->set_current_epoch(m.current_epoch);
  if (m.config_epoch > sender->config_epoch) {
    sender->config_epoch = m.config_epoch;
    Later(kTodoSave | kTodoUpdateState);
  }
}

void Cluster::ProcessGossip(const BusMessage& m, Node* sender) {
  const int64_t now = WallMs();
  for (const GossipEntry& g : m.gossip) {
    if (!IsNodeName(g.name)) continue;
    Node* n = state_->Find(g.name);
    if (n != nullptr) {
      if (sender != nullptr && sender->is_master() && !n->is_myself()) {
        if (GossipReportsFailure(g)) {
          state_->AddFailureReport(n, sender, now);
          MarkFailingIfNeeded(n);
        } else {
          state_->DelFailureReport(n, sender);
        }
      }
      LearnFromGossip(n, g, now);
    } else if (sender != nullptr || m.type == MessageType::kMeet) {
      // Unknown: meet it, unless it has no address or was just forgotten.
      if (g.flags & kFlagNoAddr) continue;
      if (forgotten_.Holds(g.name, now)) continue;
      if (g.ip.empty()) continue;
      (void)StartHandshake(g.ip, g.port, g.cport);  // an invalid address is not met
    }
  }
}

void Cluster::MarkFailingIfNeeded(Node* n) {
  const int quorum = state_->size() / 2 + 1;
  if (!n->timed_out() || n->failed()) return;
  int failures = state_->CountFailureReports(n, WallMs(), node_timeout());
  if (state_->myself()->is_master()) failures++;
  if (failures < quorum) return;
  spdlog::info("Marking node {} as failing (quorum reached).", n->name);
  n->flags &= static_cast<uint16_t>(~kFlagPfail);
  n->flags |= kFlagFail;
  n->fail_time_ms = WallMs();
  BroadcastFail(n);
  Later(kTodoSave | kTodoUpdateState);
}

void Cluster::ClearFailureIfNeeded(Node* n) {
  const int64_t now = WallMs();
  if (n->is_replica() || n->num_slots == 0) {
    spdlog::info("Clear FAIL state for node {}: {} is reachable again.", n->name,
                 n->is_replica() ? "replica" : "master without slots");
    n->flags &= static_cast<uint16_t>(~kFlagFail);
    Later(kTodoSave | kTodoUpdateState);
  } else if (now - n->fail_time_ms > node_timeout() * 2) {
    spdlog::info(
        "Clear FAIL state for node {}: is reachable again and nobody is serving its "
        "slots after some time.",
        n->name);
    n->flags &= static_cast<uint16_t>(~kFlagFail);
    Later(kTodoSave | kTodoUpdateState);
  }
}

// ---------------------------------------------------------------- pings and handshakes

void Cluster::SendPing(BusLink* link, MessageType type) {
  const int64_t now = WallMs();
  BusMessage m = Header(type);
  for (const Node* n : GossipNodes(*state_, RandomIndex)) m.gossip.push_back(GossipEntryOf(*n));
  if (link->node != nullptr && type == MessageType::kPing) link->node->ping_sent_ms = now;
  Send(link, m);
}

void Cluster::BroadcastFail(Node* n) {
  BusMessage m = Header(MessageType::kFail);
  m.about = n->name;
  Broadcast(m);
}

bool Cluster::HandshakeInProgress(const std::string& ip, int port, int cport) const {
  for (const auto& [name, n] : state_->nodes()) {
    if (n->in_handshake() && n->ip == ip && n->port == port && n->cport == cport) return true;
  }
  return false;
}

Result<ClusterCode> Cluster::StartHandshake(const std::string& ip, int port, int cport) {
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(ip, ec);
  if (ec || port <= 0 || port > 65535 || cport <= 0 || cport > 65535) {
    return {ClusterCode::kInvalidNodeAddress, fmt::format("{}:{}", ip, port)};
  }
  const std::string normalized = AddressText(address);
  if (HandshakeInProgress(normalized, port, cport)) return {};
  Node* n = state_->AddNode(RandomNodeName(), kFlagHandshake | kFlagMeet, WallMs());
  n->ip = normalized;
  n->port = port;
  n->cport = cport;
  return {};
}

// ---------------------------------------------------------------- cron

void Cluster::Cron() {
  if (stopped_) return;
  cron_iteration_++;
  const int64_t now = WallMs();
  forgotten_.Expire(now);
  RefreshMyAddress();
  ConnectNodes(now);
  // Once a second.
  if (cron_iteration_ % 10 == 0) PingOldestOfRandomNodes();
  CheckNodeTimeouts(now);
  FollowMasterIfNeeded();
  CheckManualFailoverTimeout(now);
  if (state_->myself()->is_replica()) {
    HandleManualFailover();
    HandleReplicaFailover(now);
  }
  state_->UpdateHealth(context_->config().cluster_require_full_coverage);

  cron_timer_.expires_after(std::chrono::milliseconds(kCronMs));
  cron_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) Cron();
  });
}

void Cluster::RefreshMyAddress() {
  Node* me = state_->myself();
  if (!context_->config().cluster_announce_ip.empty()) {
    me->ip = context_->config().cluster_announce_ip;
  }
  me->port = MyPort();
  me->pport = MyPlaintextPort();
  me->cport = MyBusPort();
}

void Cluster::ConnectNodes(int64_t now) {
  const int64_t handshake_timeout = std::max<int64_t>(node_timeout(), 1000);
  std::vector<Node*> all;
  for (const auto& [name, n] : state_->nodes()) all.push_back(n.get());
  for (Node* n : all) {
    if (n->is_myself() || !n->has_address()) continue;
    if (n->in_handshake() && now - n->ctime_ms > handshake_timeout) {
      DeleteNode(n);
      continue;
    }
    if (n->link == nullptr) CreateLink(n, now);
  }
}

void Cluster::PingOldestOfRandomNodes() {
  std::vector<Node*> all;
  for (const auto& [name, n] : state_->nodes()) all.push_back(n.get());
  Node* oldest = nullptr;
  for (int i = 0; i < 5 && !all.empty(); i++) {
    Node* n = all[RandomIndex(all.size())];
    if (n->link == nullptr || n->ping_sent_ms != 0) continue;
    if (n->flags & (kFlagMyself | kFlagHandshake)) continue;
    if (oldest == nullptr || n->pong_received_ms < oldest->pong_received_ms) oldest = n;
  }
  if (oldest != nullptr) SendPing(oldest->link, MessageType::kPing);
}

void Cluster::CheckNodeTimeouts(int64_t now) {
  const int64_t timeout = node_timeout();
  const Node* me = state_->myself();
  std::vector<Node*> all;
  for (const auto& [name, n] : state_->nodes()) all.push_back(n.get());
  for (Node* n : all) {
    if (n->flags & (kFlagMyself | kFlagNoAddr | kFlagHandshake)) continue;
    const int64_t ping_delay = now - n->ping_sent_ms;
    const int64_t data_delay = now - n->data_received_ms;
    // A link that does not answer for half the timeout is reconnected (the node may just have
    // lost it).
    if (n->link != nullptr && now - n->link->ctime_ms() > timeout && n->ping_sent_ms != 0 &&
        ping_delay > timeout / 2 && data_delay > timeout / 2) {
      FreeLink(n->link);
    }
    // A link still connecting queues the ping: a node that refuses connections times out.
    if (n->link != nullptr && n->ping_sent_ms == 0 && now - n->pong_received_ms > timeout / 2) {
      SendPing(n->link, MessageType::kPing);
      continue;
    }
    if (mf_end_ms_ != 0 && me->is_master() && mf_replica_ == n && n->link != nullptr) {
      SendPing(n->link, MessageType::kPing);
      continue;
    }
    if (n->ping_sent_ms == 0) continue;
    const int64_t node_delay = std::min(ping_delay, data_delay);
    if (node_delay > timeout && !(n->flags & (kFlagPfail | kFlagFail))) {
      spdlog::debug("*** NODE {} possibly failing", n->name);
      n->flags |= kFlagPfail;
    }
  }
}

// ---------------------------------------------------------------- this node's master

void Cluster::SetMyMaster(Node* master) {
  Node* me = state_->myself();
  if (me->is_master()) {
    me->flags &= static_cast<uint16_t>(~kFlagMigrateTo);
    for (int j = 0; j < kSlots; j++) {
      state_->set_migrating(j, nullptr);
      state_->set_importing(j, nullptr);
    }
  }
  state_->SetReplicaOf(me, master);
  ResetManualFailover();
  FollowMasterIfNeeded();
}

void Cluster::FollowMasterIfNeeded() {
  Node* me = state_->myself();
  ReplicaLink* link = context_->replica_link();
  if (link == nullptr || !me->is_replica() || me->master == nullptr) return;
  const Node* master = me->master;
  if (!master->has_address() || master->ip.empty() || master->port == 0) return;
  // Under tls-cluster the master announces its TLS port, and its plain one beside it: the
  // replica connects to the one its tls-replication speaks.
  const int port =
      !context_->config().tls_replication && master->pport != 0 ? master->pport : master->port;
  if (link->is_replica() && link->host() == master->ip && link->port() == port) return;
  link->ReplicateFrom(master->ip, port);
}

}  // namespace ebb::server::cluster
