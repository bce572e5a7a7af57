// Cluster: what the node does with each bus message (Redis 7.0's clusterProcessPacket and
// the rules it applies): handshakes, gossip, slot claims settled by configEpoch, UPDATE, the
// epoch-collision rule, failure reports and FAIL. The class and its contract: cluster.h.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/wall_clock.h"
#include "server/cluster/cluster.h"
#include "server/cluster/nodes_conf.h"
#include "server/core/pubsub.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::cluster {

// ---------------------------------------------------------------- receiving

void Cluster::OnMessage(BusLink* link, std::string_view bytes) {
  BusMessage m;
  std::string error;
  if (!DecodeMessage(bytes, &m, &error)) {
    spdlog::warn("Cluster bus: dropping a link that sent a bad message ({})", error);
    FreeLink(link);
    return;
  }
  received_[static_cast<int>(m.type)]++;
  Process(link, m);
}

void Cluster::Process(BusLink* link, const BusMessage& m) {
  const int64_t now = WallMs();
  Node* me = state_->myself();
  Node* sender = nullptr;
  if (link->node != nullptr && !link->node->in_handshake()) {
    sender = link->node;
  } else {
    sender = state_->Find(m.sender);
  }
  if (sender != nullptr && link->inbound() && link->node == nullptr) {
    // The inbound link of a known node: remember it (a newer one replaces an older one).
    if (sender->inbound_link != nullptr && sender->inbound_link != link) {
      FreeLink(sender->inbound_link);
    }
    link->node = sender;
    sender->inbound_link = link;
  }
  if (sender != nullptr) sender->data_received_ms = now;
  if (sender != nullptr && !sender->in_handshake()) {
    LearnSenderEpochs(sender, m);
    sender->repl_offset = m.offset;
    // A replica that sees its master paused for a manual failover records its offset.
    if (mf_end_ms_ != 0 && me->is_replica() && me->master == sender &&
        (m.mflags0 & kMsgFlagPaused) && mf_master_offset_ == -1) {
      mf_master_offset_ = static_cast<int64_t>(m.offset);
      spdlog::warn("Received replication offset for paused master manual failover: {}",
                   mf_master_offset_);
    }
  }

  const bool ping_like =
      m.type == MessageType::kPing || m.type == MessageType::kPong || m.type == MessageType::kMeet;
  if (m.type == MessageType::kPing || m.type == MessageType::kMeet) {
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

  // Under tls-cluster the sender's plain port (its client port is the TLS one).
  if (ping_like && sender != nullptr) sender->pport = m.pport;
  if (ping_like) {
    if (Node* ln = link->node; ln != nullptr && !link->inbound()) {
      if (ln->in_handshake()) {
        if (sender != nullptr) {
          // Already known under its real name: the handshake node is a duplicate.
          if (sender->ip != ln->ip || sender->port != ln->port) {
            sender->ip = ln->ip;
            sender->port = m.port;
            sender->pport = m.pport;
            sender->cport = m.cport;
            FreeNodeLinks(sender);
          }
          DeleteNode(ln);
          Later(kTodoSave);
          return;
        }
        state_->RenameNode(ln, m.sender);
        spdlog::info("Handshake with node {} completed.", ln->name);
        ln->flags &= static_cast<uint16_t>(~kFlagHandshake);
        ln->flags |= m.flags & (kFlagMaster | kFlagSlave);
        Later(kTodoSave);
        // Its slot claims below are judged by the configEpoch this header carries: a node
        // that took the claims without the epoch would let any stale claim win the slots back.
        sender = ln;
        LearnSenderEpochs(sender, m);
      } else if (ln->name != m.sender) {
        // The node at this address is another node now: forget the address until gossip or
        // a new MEET tells it.
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
        return;
      }
    }
    if (m.type == MessageType::kPong && link->node != nullptr && !link->inbound() &&
        !link->node->in_handshake()) {
      Node* ln = link->node;
      ln->pong_received_ms = now;
      ln->ping_sent_ms = 0;
      if (ln->timed_out()) {
        ln->flags &= static_cast<uint16_t>(~kFlagPfail);
        Later(kTodoUpdateState);
      } else if (ln->failed()) {
        ClearFailureIfNeeded(ln);
      }
    }
    if (sender == nullptr || sender->in_handshake()) return;

    // The sender's role.
    if (m.slaveof.empty()) {
      if (sender->is_replica()) {
        state_->SetAsMaster(sender);
        Later(kTodoSave | kTodoUpdateState);
      }
    } else {
      Node* master = state_->Find(m.slaveof);
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

    // Its slots: a master's claims are decided by configEpoch.
    Node* sender_master = sender->is_master() ? sender : sender->master;
    bool dirty_slots = false;
    if (sender_master != nullptr) dirty_slots = sender_master->slots != m.slots;
    if (sender->is_master() && dirty_slots) UpdateSlotsConfigWith(sender, m.config_epoch, m.slots);
    if (sender_master != nullptr && dirty_slots) {
      // The sender claims a slot someone else serves under a newer epoch: tell it.
      for (int j = 0; j < kSlots; j++) {
        if (!m.slots.test(j)) continue;
        Node* owner = state_->slot_owner(j);
        if (owner == sender || owner == nullptr) continue;
        if (owner->config_epoch > m.config_epoch) {
          spdlog::debug("Node {} has old slots configuration, sending an UPDATE message about {}",
                        sender->name, owner->name);
          SendUpdate(sender->link != nullptr ? sender->link : link, owner);
          break;
        }
      }
    }
    if (sender->is_master() && me->is_master()) HandleConfigEpochCollision(sender);
    ProcessGossip(m, sender);
    return;
  }

  switch (m.type) {
    case MessageType::kFail: {
      if (sender == nullptr) return;
      Node* failing = state_->Find(m.about);
      if (failing != nullptr && !(failing->flags & (kFlagFail | kFlagMyself))) {
        spdlog::info("FAIL message received from {} about {}", sender->name, failing->name);
        failing->flags |= kFlagFail;
        failing->flags &= static_cast<uint16_t>(~kFlagPfail);
        failing->fail_time_ms = now;
        Later(kTodoSave | kTodoUpdateState);
      }
      return;
    }
    case MessageType::kPublish:
    case MessageType::kPublishShard:
      if (sender == nullptr) return;
      context_->pubsub().Publish(
          m.type == MessageType::kPublish ? PubSub::Kind::kChannel : PubSub::Kind::kShard,
          m.channel, m.message);
      return;
    case MessageType::kFailoverAuthRequest:
      if (sender == nullptr) return;
      SendFailoverAuthIfNeeded(sender, m);
      return;
    case MessageType::kFailoverAuthAck:
      if (sender == nullptr) return;
      if (sender->is_master() && sender->num_slots > 0 && m.current_epoch >= failover_auth_epoch_) {
        failover_auth_count_++;
        Later(kTodoHandleFailover);
      }
      return;
    case MessageType::kMfStart:
      if (sender == nullptr || sender->master != me) return;
      ResetManualFailover();
      mf_end_ms_ = now + kManualFailoverTimeoutMs;
      mf_replica_ = sender;
      PauseWrites(true);
      spdlog::warn("Manual failover requested by replica {}.", sender->name);
      // Tell the replica at once that this master paused, with its offset.
      SendPing(sender->link != nullptr ? sender->link : link, MessageType::kPing);
      return;
    case MessageType::kUpdate: {
      if (sender == nullptr) return;
      Node* n = state_->Find(m.about);
      if (n == nullptr || n->config_epoch >= m.update_config_epoch) return;
      if (n->is_replica()) state_->SetAsMaster(n);
      n->config_epoch = m.update_config_epoch;
      UpdateSlotsConfigWith(n, m.update_config_epoch, m.update_slots);
      Later(kTodoSave | kTodoUpdateState);
      return;
    }
    default:
      return;
  }
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
        if (g.flags & (kFlagFail | kFlagPfail)) {
          state_->AddFailureReport(n, sender, now);
          MarkFailingIfNeeded(n);
        } else {
          state_->DelFailureReport(n, sender);
        }
      }
      // A fresher pong seen by another node stands for one this node would have had.
      if (!(g.flags & (kFlagFail | kFlagPfail)) && n->ping_sent_ms == 0 &&
          n->fail_reports.empty()) {
        const int64_t pong = std::min<int64_t>(static_cast<int64_t>(g.pong_received) * 1000, now);
        if (pong > n->pong_received_ms) n->pong_received_ms = pong;
      }
      // A node this one cannot reach, seen elsewhere at another address: try that one.
      if ((n->flags & (kFlagFail | kFlagPfail)) && !(g.flags & (kFlagFail | kFlagPfail)) &&
          n->link == nullptr && (n->ip != g.ip || n->port != g.port || n->cport != g.cport)) {
        n->ip = g.ip;
        n->port = g.port;
        n->pport = g.pport;
        n->cport = g.cport;
        n->flags &= static_cast<uint16_t>(~kFlagNoAddr);
      }
    } else if (sender != nullptr || m.type == MessageType::kMeet) {
      // Unknown: meet it, unless it has no address or was just forgotten.
      if (g.flags & kFlagNoAddr) continue;
      auto forgotten = forgotten_.find(g.name);
      if (forgotten != forgotten_.end() && forgotten->second > now) continue;
      if (g.ip.empty()) continue;
      (void)StartHandshake(g.ip, g.port, g.cport);  // an invalid address is not met
    }
  }
}

void Cluster::UpdateSlotsConfigWith(Node* sender, uint64_t sender_config_epoch,
                                    const SlotBitmap& slots) {
  Node* me = state_->myself();
  if (sender == me) return;
  Node* current_master = me->is_master() ? me : me->master;
  Node* new_master = nullptr;
  std::vector<int> dirty;
  int migrated_our_slots = 0;
  for (int j = 0; j < kSlots; j++) {
    if (!slots.test(j)) continue;
    Node* owner = state_->slot_owner(j);
    if (owner == sender) continue;
    // A slot being imported is this node's business until SETSLOT NODE ends it.
    if (state_->importing_from(j) != nullptr) continue;
    if (owner == nullptr || owner->config_epoch < sender_config_epoch) {
      if (owner == me && sender != me) {
        auto count = context_->keyspace().CountKeysInSlot(j);
        if (count.ok() && *count > 0) dirty.push_back(j);
      }
      if (owner != nullptr && owner == current_master) {
        new_master = sender;
        migrated_our_slots++;
      }
      state_->DelSlot(j);
      state_->AddSlot(sender, j);
      Later(kTodoSave | kTodoUpdateState);
    }
  }
  if (new_master != nullptr && current_master->num_slots == 0 &&
      (context_->config().cluster_allow_replica_migration ||
       migrated_our_slots == sender->num_slots)) {
    spdlog::warn("Configuration change detected. Reconfiguring myself as a replica of {}",
                 sender->name);
    SetMyMaster(sender);
    Later(kTodoSave | kTodoUpdateState);
  } else {
    for (int j : dirty) DeleteKeysOfSlot(j);
  }
}

void Cluster::DeleteKeysOfSlot(int slot) {
  auto deleted = context_->keyspace().DeleteSlot(slot);
  if (!deleted.ok()) {
    spdlog::warn("Could not delete the keys of slot {}, which another node serves now", slot);
  }
}

void Cluster::HandleConfigEpochCollision(Node* sender) {
  Node* me = state_->myself();
  if (sender->config_epoch != me->config_epoch) return;
  // Only the node with the smaller name moves.
  if (sender->name <= me->name) return;
  state_->set_current_epoch(state_->current_epoch() + 1);
  me->config_epoch = state_->current_epoch();
  Later(kTodoSave);
  spdlog::warn("WARNING: configEpoch collision with node {}. configEpoch set to {}", sender->name,
               me->config_epoch);
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

}  // namespace ebb::server::cluster
