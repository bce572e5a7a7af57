#include "server/cluster/cluster.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <fstream>
#include <random>
#include <sstream>

#include "common/wall_clock.h"
#include "server/cluster/nodes_conf.h"
#include "server/net/listen.h"
#include "server/pubsub.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::cluster {

using boost::asio::ip::tcp;

namespace {

constexpr int64_t kForgetTtlMs = 60000;  // Redis's CLUSTER_BLACKLIST_TTL

size_t RandomIndex(size_t n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return n == 0 ? 0 : rng() % n;
}

}  // namespace

Cluster::Cluster(ServerContext* context, boost::asio::io_context& io)
    : context_(context), io_(io), cron_timer_(io) {}

Cluster::~Cluster() { Stop(); }

std::string Cluster::ConfigPath() const {
  const std::string& file = context_->config().cluster_config_file;
  if (!file.empty() && file.front() == '/') return file;
  return context_->config().dir + "/" + file;
}

int64_t Cluster::node_timeout() const { return context_->config().cluster_node_timeout_ms; }

int Cluster::MyPort() const {
  const Config& c = context_->config();
  return c.cluster_announce_port != 0 ? c.cluster_announce_port : c.port;
}

int Cluster::MyBusPort() const {
  const Config& c = context_->config();
  if (c.cluster_announce_bus_port != 0) return c.cluster_announce_bus_port;
  return c.cluster_port != 0 ? c.cluster_port : c.port + 10000;
}

bool Cluster::Load(std::string* error) {
  const std::string path = ConfigPath();
  config_writer_ = std::make_unique<ConfigWriter>(path);
  std::ifstream in(path, std::ios::binary);
  std::string text;
  if (in) {
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  const int64_t now = WallMs();
  if (text.find_first_not_of(" \r\n\t") == std::string::npos) {
    state_ = std::make_unique<ClusterState>(RandomNodeName());
    spdlog::info("No cluster configuration found, I'm {}", state_->myself()->name);
  } else if (!ParseNodesConfig(text, now, &state_, error)) {
    return false;
  } else {
    spdlog::info("Node configuration loaded, I'm {}", state_->myself()->name);
  }
  Node* me = state_->myself();
  me->port = MyPort();
  me->cport = MyBusPort();
  if (!context_->config().cluster_announce_ip.empty())
    me->ip = context_->config().cluster_announce_ip;
  state_->UpdateHealth(context_->config().cluster_require_full_coverage);
  const std::string save_error = SaveNow();
  if (!save_error.empty()) {
    *error = "Can't write the cluster config file: " + save_error;
    return false;
  }
  return true;
}

bool Cluster::Listen(std::string* error) {
  const int port = context_->config().cluster_port != 0 ? context_->config().cluster_port
                                                        : context_->config().port + 10000;
  if (port > 65535) {
    *error =
        "Redis port number too high. Cluster communication port is 10,000 port numbers "
        "higher than your Redis port. Your Redis port number must be 55535 or less.";
    return false;
  }
  if (!ListenOnAddresses(io_, context_->config().bind, port, &acceptors_, error)) {
    *error = "Cluster bus: " + *error;
    return false;
  }
  if (acceptors_.empty()) {
    *error = "No address to listen on for the cluster bus";
    return false;
  }
  return true;
}

void Cluster::Start() {
  for (auto& acceptor : acceptors_) Accept(acceptor.get());
  Cron();
}

void Cluster::Accept(tcp::acceptor* acceptor) {
  acceptor->async_accept([this, acceptor](const boost::system::error_code& ec, tcp::socket s) {
    if (stopped_ || ec == boost::asio::error::operation_aborted) return;
    if (!ec) {
      auto link = std::make_shared<BusLink>(io_, this, /*inbound=*/true, WallMs());
      links_[link.get()] = link;
      link->Start(std::move(s));
      return Accept(acceptor);
    }
    // E.g. out of file descriptors: retry shortly instead of spinning.
    spdlog::warn("Accepting a cluster bus connection: {}", ec.message());
    auto timer = std::make_shared<boost::asio::steady_timer>(io_, std::chrono::milliseconds(100));
    timer->async_wait([this, timer, acceptor](const boost::system::error_code& wait_ec) {
      if (!wait_ec && !stopped_) Accept(acceptor);
    });
  });
}

void Cluster::Stop() {
  if (stopped_) return;
  stopped_ = true;
  cron_timer_.cancel();
  boost::system::error_code ec;
  for (auto& acceptor : acceptors_) acceptor->close(ec);
  for (auto& [raw, link] : links_) link->Close();
  links_.clear();
  if (state_ != nullptr) {
    for (const auto& [name, n] : state_->nodes()) n->link = n->inbound_link = nullptr;
    if (todo_ & kTodoSave) SaveNow();
  }
  if (config_writer_ != nullptr) config_writer_->Flush();
  PauseWrites(false);
}

// ---------------------------------------------------------------- todo

void Cluster::Later(int todo) {
  todo_ |= todo;
  if (todo_posted_) return;
  todo_posted_ = true;
  boost::asio::post(io_, [this] { RunTodo(); });
}

void Cluster::RunTodo() {
  todo_posted_ = false;
  if (stopped_) return;
  const int todo = todo_;
  todo_ = 0;
  if (todo & kTodoHandleFailover) HandleReplicaFailover(WallMs());
  if (todo & kTodoUpdateState)
    state_->UpdateHealth(context_->config().cluster_require_full_coverage);
  if (todo & kTodoSave) config_writer_->Submit(NodesConfigText(*state_));  // logs its errors
}

std::string Cluster::SaveNow() { return config_writer_->Write(NodesConfigText(*state_)); }

// ---------------------------------------------------------------- SlotOwnership

bool Cluster::cluster_ok() const { return state_->health() == ClusterState::Health::kOk; }

bool Cluster::OwnsSlot(int slot) const { return state_->slot_owner(slot) == state_->myself(); }

bool Cluster::ReplicatesSlot(int slot) const {
  const Node* me = state_->myself();
  return me->is_replica() && me->master != nullptr && state_->slot_owner(slot) == me->master;
}

NodeAddress Cluster::ClientAddress(const Node& n) const { return {n.ip, n.port}; }

bool Cluster::SlotOwner(int slot, NodeAddress* owner) const {
  const Node* n = state_->slot_owner(slot);
  if (n == nullptr) return false;
  *owner = ClientAddress(*n);
  return true;
}

bool Cluster::MigratingTo(int slot, NodeAddress* target) const {
  const Node* n = state_->migrating_to(slot);
  if (n == nullptr || !OwnsSlot(slot)) return false;
  *target = ClientAddress(*n);
  return true;
}

bool Cluster::Importing(int slot) const { return state_->importing_from(slot) != nullptr; }

// ---------------------------------------------------------------- links

void Cluster::CreateLink(Node* n, int64_t now_ms) {
  auto link = std::make_shared<BusLink>(io_, this, /*inbound=*/false, now_ms);
  link->node = n;
  n->link = link.get();
  links_[link.get()] = link;
  link->Connect(n->ip, n->cport);
}

void Cluster::FreeLink(BusLink* link) {
  auto it = links_.find(link);
  if (it == links_.end()) return;
  std::shared_ptr<BusLink> keep = std::move(it->second);
  links_.erase(it);
  keep->Close();
  if (Node* n = keep->node) {
    if (n->link == link) n->link = nullptr;
    if (n->inbound_link == link) n->inbound_link = nullptr;
  }
  // Released after the current handler: the link may be on the stack.
  boost::asio::post(io_, [keep] {});
}

void Cluster::FreeNodeLinks(Node* n) {
  if (n->link != nullptr) FreeLink(n->link);
  if (n->inbound_link != nullptr) FreeLink(n->inbound_link);
}

void Cluster::DeleteNode(Node* n) {
  FreeNodeLinks(n);
  for (auto& [raw, link] : links_) {
    if (link->node == n) link->node = nullptr;
  }
  if (mf_replica_ == n) mf_replica_ = nullptr;
  state_->DeleteNode(n);
}

void Cluster::OnLinkConnected(BusLink* link) {
  Node* n = link->node;
  if (n == nullptr) return;
  // Keep the time of a ping that is still unanswered: a link that keeps reconnecting must not
  // hide a node that does not answer.
  const int64_t old_ping_sent = n->ping_sent_ms;
  SendPing(link, (n->flags & kFlagMeet) ? MessageType::kMeet : MessageType::kPing);
  if (old_ping_sent != 0) n->ping_sent_ms = old_ping_sent;
  n->flags &= static_cast<uint16_t>(~kFlagMeet);
}

void Cluster::OnLinkError(BusLink* link, std::string_view why) {
  if (link->node != nullptr && !link->inbound()) {
    spdlog::debug("Cluster bus link to {} lost: {}", link->node->name, why);
  }
  FreeLink(link);
}

// ---------------------------------------------------------------- sending

BusMessage Cluster::Header(MessageType type) const {
  const Node* me = state_->myself();
  const Node* master = me->is_replica() && me->master != nullptr ? me->master : me;
  BusMessage m;
  m.type = type;
  m.sender = me->name;
  m.myip = context_->config().cluster_announce_ip;
  m.port = static_cast<uint16_t>(MyPort());
  m.cport = static_cast<uint16_t>(MyBusPort());
  m.flags = me->flags;
  m.state = static_cast<uint8_t>(state_->health());
  m.slots = master->slots;
  if (me->is_replica() && me->master != nullptr) m.slaveof = me->master->name;
  m.current_epoch = state_->current_epoch();
  m.config_epoch = master->config_epoch;
  m.offset = MyReplicationOffset();
  if (me->is_master() && mf_end_ms_ != 0) m.mflags0 |= kMsgFlagPaused;
  return m;
}

uint64_t Cluster::MyReplicationOffset() const {
  if (state_->myself()->is_replica()) {
    const ReplicaLink* link = context_->replica_link();
    return link != nullptr ? link->offset() : 0;
  }
  const ReplicationMaster* master = context_->replication_master();
  return master != nullptr ? master->end_offset() : 0;
}

uint64_t Cluster::ReplicationOffset(const Node& n) const {
  return n.is_myself() ? MyReplicationOffset() : n.repl_offset;
}

void Cluster::Send(BusLink* link, const BusMessage& m) {
  if (link == nullptr) return;
  sent_[static_cast<int>(m.type)]++;
  link->Send(EncodeMessage(m));
}

void Cluster::SendPing(BusLink* link, MessageType type) {
  const int64_t now = WallMs();
  BusMessage m = Header(type);
  // Gossip about a tenth of the nodes (at least 3), plus every node this one flags PFAIL.
  const size_t fresh = state_->nodes().size() > 2 ? state_->nodes().size() - 2 : 0;
  size_t wanted = std::max<size_t>(3, state_->nodes().size() / 10);
  wanted = std::min(wanted, fresh);
  std::vector<Node*> candidates;
  for (const auto& [name, n] : state_->nodes()) candidates.push_back(n.get());
  std::vector<Node*> chosen;
  for (size_t tries = 0; chosen.size() < wanted && tries < wanted * 3; tries++) {
    Node* n = candidates[RandomIndex(candidates.size())];
    if (n->is_myself() || n->timed_out()) continue;
    if (n->flags & (kFlagHandshake | kFlagNoAddr)) continue;
    if (n->link == nullptr && n->num_slots == 0) continue;
    if (std::find(chosen.begin(), chosen.end(), n) != chosen.end()) continue;
    chosen.push_back(n);
  }
  for (Node* n : candidates) {
    if (n->timed_out() && !n->in_handshake() && n->has_address()) chosen.push_back(n);
  }
  for (Node* n : chosen) {
    GossipEntry g;
    g.name = n->name;
    g.ping_sent = static_cast<uint32_t>(n->ping_sent_ms / 1000);
    g.pong_received = static_cast<uint32_t>(n->pong_received_ms / 1000);
    g.ip = n->ip;
    g.port = static_cast<uint16_t>(n->port);
    g.cport = static_cast<uint16_t>(n->cport);
    g.flags = n->flags;
    g.pport = static_cast<uint16_t>(n->pport);
    m.gossip.push_back(std::move(g));
  }
  if (link->node != nullptr && type == MessageType::kPing) link->node->ping_sent_ms = now;
  Send(link, m);
}

void Cluster::Broadcast(const BusMessage& m) {
  for (const auto& [name, n] : state_->nodes()) {
    if (n->link == nullptr || n->is_myself() || n->in_handshake()) continue;
    Send(n->link, m);
  }
}

void Cluster::BroadcastPong(bool local_replicas_only) {
  const Node* me = state_->myself();
  for (const auto& [name, n] : state_->nodes()) {
    if (n->link == nullptr || n->is_myself() || n->in_handshake()) continue;
    if (local_replicas_only) {
      const bool local =
          n->is_replica() && n->master != nullptr && (n->master == me->master || n->master == me);
      if (!local) continue;
    }
    SendPing(n->link, MessageType::kPong);
  }
}

void Cluster::BroadcastFail(Node* n) {
  BusMessage m = Header(MessageType::kFail);
  m.about = n->name;
  Broadcast(m);
}

void Cluster::PropagatePublish(bool shard, std::string_view channel, std::string_view message) {
  BusMessage m = Header(shard ? MessageType::kPublishShard : MessageType::kPublish);
  m.channel = std::string(channel);
  m.message = std::string(message);
  if (!shard) return Broadcast(m);
  const Node* me = state_->myself();
  const Node* master = me->is_replica() && me->master != nullptr ? me->master : me;
  for (const auto& [name, n] : state_->nodes()) {
    if (n->link == nullptr || n->is_myself() || n->in_handshake()) continue;
    if (n.get() == master || n->master == master) Send(n->link, m);
  }
}

void Cluster::SendUpdate(BusLink* link, Node* n) {
  if (link == nullptr) return;
  BusMessage m = Header(MessageType::kUpdate);
  m.about = n->name;
  m.update_config_epoch = n->config_epoch;
  m.update_slots = n->slots;
  Send(link, m);
}

// ---------------------------------------------------------------- MEET

bool Cluster::HandshakeInProgress(const std::string& ip, int port, int cport) const {
  for (const auto& [name, n] : state_->nodes()) {
    if (n->in_handshake() && n->ip == ip && n->port == port && n->cport == cport) return true;
  }
  return false;
}

std::string Cluster::StartHandshake(const std::string& ip, int port, int cport) {
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(ip, ec);
  if (ec || port <= 0 || port > 65535 || cport <= 0 || cport > 65535) return "invalid";
  const std::string normalized = AddressText(address);
  if (HandshakeInProgress(normalized, port, cport)) return "";
  Node* n = state_->AddNode(RandomNodeName(), kFlagHandshake | kFlagMeet, WallMs());
  n->ip = normalized;
  n->port = port;
  n->cport = cport;
  return "";
}

std::string Cluster::Meet(const std::string& ip, int port, int cport) {
  if (!StartHandshake(ip, port, cport).empty()) {
    return fmt::format("ERR Invalid node address specified: {}:{}", ip, port);
  }
  return "";
}

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
    if (m.current_epoch > state_->current_epoch()) state_->set_current_epoch(m.current_epoch);
    if (m.config_epoch > sender->config_epoch) {
      sender->config_epoch = m.config_epoch;
      Later(kTodoSave | kTodoUpdateState);
    }
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

  if (ping_like) {
    if (Node* ln = link->node; ln != nullptr && !link->inbound()) {
      if (ln->in_handshake()) {
        if (sender != nullptr) {
          // Already known under its real name: the handshake node is a duplicate.
          if (sender->ip != ln->ip || sender->port != ln->port) {
            sender->ip = ln->ip;
            sender->port = m.port;
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
        sender = ln;
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
      StartHandshake(g.ip, g.port, g.cport);
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

// ---------------------------------------------------------------- cron

void Cluster::Cron() {
  if (stopped_) return;
  cron_iteration_++;
  const int64_t now = WallMs();
  const int64_t timeout = node_timeout();
  const int64_t handshake_timeout = std::max<int64_t>(timeout, 1000);
  for (auto it = forgotten_.begin(); it != forgotten_.end();) {
    it = it->second <= now ? forgotten_.erase(it) : std::next(it);
  }
  Node* me = state_->myself();
  if (context_->config().cluster_announce_ip.empty() == false) {
    me->ip = context_->config().cluster_announce_ip;
  }
  me->port = MyPort();
  me->cport = MyBusPort();

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
  all.clear();
  for (const auto& [name, n] : state_->nodes()) all.push_back(n.get());

  // Once a second, ping one of five random nodes: the one whose pong is oldest.
  if (cron_iteration_ % 10 == 0) {
    Node* oldest = nullptr;
    for (int i = 0; i < 5 && !all.empty(); i++) {
      Node* n = all[RandomIndex(all.size())];
      if (n->link == nullptr || n->ping_sent_ms != 0) continue;
      if (n->flags & (kFlagMyself | kFlagHandshake)) continue;
      if (oldest == nullptr || n->pong_received_ms < oldest->pong_received_ms) oldest = n;
    }
    if (oldest != nullptr) SendPing(oldest->link, MessageType::kPing);
  }

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

  FollowMasterIfNeeded();
  CheckManualFailoverTimeout(now);
  if (me->is_replica()) {
    HandleManualFailover();
    HandleReplicaFailover(now);
  }
  state_->UpdateHealth(context_->config().cluster_require_full_coverage);

  cron_timer_.expires_after(std::chrono::milliseconds(kCronMs));
  cron_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) Cron();
  });
}

// ---------------------------------------------------------------- roles

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
  if (link->is_replica() && link->host() == master->ip && link->port() == master->port) return;
  link->ReplicateFrom(master->ip, master->port);
}

// ---------------------------------------------------------------- commands

void Cluster::AddSlots(const std::vector<int>& slots) {
  for (int j : slots) {
    state_->set_importing(j, nullptr);
    state_->AddSlot(state_->myself(), j);
  }
  Later(kTodoSave | kTodoUpdateState);
}

void Cluster::DelSlots(const std::vector<int>& slots) {
  for (int j : slots) {
    state_->set_importing(j, nullptr);
    state_->set_migrating(j, nullptr);
    state_->DelSlot(j);
  }
  Later(kTodoSave | kTodoUpdateState);
}

void Cluster::FlushSlots() {
  state_->DelNodeSlots(state_->myself());
  Later(kTodoSave | kTodoUpdateState);
}

std::string Cluster::SetSlotMigrating(int slot, std::string_view node) {
  if (state_->slot_owner(slot) != state_->myself()) {
    return fmt::format("ERR I'm not the owner of hash slot {}", slot);
  }
  Node* n = state_->Find(node);
  if (n == nullptr) return fmt::format("ERR I don't know about node {}", node);
  if (n->is_replica()) return "ERR Target node is not a master";
  state_->set_migrating(slot, n);
  Later(kTodoSave | kTodoUpdateState);
  return "";
}

std::string Cluster::SetSlotImporting(int slot, std::string_view node) {
  if (state_->slot_owner(slot) == state_->myself()) {
    return fmt::format("ERR I'm already the owner of hash slot {}", slot);
  }
  Node* n = state_->Find(node);
  if (n == nullptr) return fmt::format("ERR I don't know about node {}", node);
  if (n->is_replica()) return "ERR Target node is not a master";
  state_->set_importing(slot, n);
  Later(kTodoSave | kTodoUpdateState);
  return "";
}

void Cluster::SetSlotStable(int slot) {
  state_->set_importing(slot, nullptr);
  state_->set_migrating(slot, nullptr);
  Later(kTodoSave | kTodoUpdateState);
}

std::string Cluster::SetSlotNode(int slot, std::string_view node) {
  Node* me = state_->myself();
  Node* n = state_->Find(node);
  if (n == nullptr) return fmt::format("ERR Unknown node {}", node);
  if (n->is_replica()) return "ERR Target node is not a master";
  auto count = context_->keyspace().CountKeysInSlot(slot);
  const uint64_t keys = count.ok() ? *count : 0;
  if (state_->slot_owner(slot) == me && n != me && keys != 0) {
    return fmt::format(
        "ERR Can't assign hashslot {} to a different node while I still hold keys for this hash "
        "slot.",
        slot);
  }
  if (keys == 0 && state_->migrating_to(slot) != nullptr) state_->set_migrating(slot, nullptr);
  const bool was_mine = state_->slot_owner(slot) == me;
  state_->DelSlot(slot);
  state_->AddSlot(n, slot);
  if (was_mine && n != me && me->num_slots == 0 &&
      context_->config().cluster_allow_replica_migration) {
    spdlog::warn("Configuration change detected. Reconfiguring myself as a replica of {}", n->name);
    SetMyMaster(n);
  }
  if (n == me && state_->importing_from(slot) != nullptr) {
    if (state_->BumpConfigEpochWithoutConsensus()) {
      spdlog::warn("configEpoch updated after importing slot {}", slot);
    }
    state_->set_importing(slot, nullptr);
    BroadcastPong(/*local_replicas_only=*/false);
  }
  Later(kTodoSave | kTodoUpdateState);
  return "";
}

std::string Cluster::SetConfigEpoch(int64_t epoch) {
  if (epoch < 0) return fmt::format("ERR Invalid config epoch specified: {}", epoch);
  if (state_->nodes().size() > 1) {
    return "ERR The user can assign a config epoch only when the node does not know any other "
           "node.";
  }
  if (state_->myself()->config_epoch != 0) return "ERR Node config epoch is already non-zero";
  state_->myself()->config_epoch = static_cast<uint64_t>(epoch);
  spdlog::warn("configEpoch set to {} via CLUSTER SET-CONFIG-EPOCH", epoch);
  if (state_->current_epoch() < static_cast<uint64_t>(epoch)) {
    state_->set_current_epoch(static_cast<uint64_t>(epoch));
  }
  Later(kTodoSave | kTodoUpdateState);
  return "";
}

bool Cluster::BumpEpoch() {
  const bool bumped = state_->BumpConfigEpochWithoutConsensus();
  if (bumped) Later(kTodoSave);
  return bumped;
}

bool Cluster::DatabaseEmpty() const {
  auto size = context_->keyspace().DbSize(0);
  return size.ok() && *size == 0;
}

std::string Cluster::Reset(bool hard) {
  Node* me = state_->myself();
  if (me->is_master() && !DatabaseEmpty()) {
    return "ERR CLUSTER RESET can't be called with master nodes containing keys";
  }
  if (me->is_replica()) {
    state_->SetAsMaster(me);
    if (ReplicaLink* link = context_->replica_link()) link->Promote("CLUSTER RESET");
    auto flushed = context_->keyspace().FlushAll();
    if (!flushed.ok()) spdlog::warn("CLUSTER RESET could not empty the replica's data");
  }
  ResetManualFailover();
  for (int j = 0; j < kSlots; j++) {
    state_->set_migrating(j, nullptr);
    state_->set_importing(j, nullptr);
  }
  state_->DelNodeSlots(me);
  std::vector<Node*> others;
  for (const auto& [name, n] : state_->nodes()) {
    if (!n->is_myself()) others.push_back(n.get());
  }
  for (Node* n : others) DeleteNode(n);
  if (hard) {
    state_->set_current_epoch(0);
    state_->set_last_vote_epoch(0);
    me->config_epoch = 0;
    spdlog::warn("configEpoch set to 0 via CLUSTER RESET HARD");
    const std::string old_name = me->name;
    state_->RenameNode(me, RandomNodeName());
    spdlog::info("Node hard reset, now I'm {}", me->name);
  }
  Later(kTodoSave | kTodoUpdateState);
  return "";
}

std::string Cluster::Forget(std::string_view node) {
  Node* n = state_->Find(node);
  if (n == nullptr) return fmt::format("ERR Unknown node {}", node);
  if (n->is_myself()) return "ERR I tried hard but I can't forget myself...";
  if (state_->myself()->is_replica() && state_->myself()->master == n) {
    return "ERR Can't forget my master!";
  }
  forgotten_[n->name] = WallMs() + kForgetTtlMs;
  DeleteNode(n);
  Later(kTodoSave | kTodoUpdateState);
  return "";
}

std::string Cluster::Replicate(std::string_view node) {
  Node* n = state_->Find(node);
  if (n == nullptr) return fmt::format("ERR Unknown node {}", node);
  Node* me = state_->myself();
  if (n == me) return "ERR Can't replicate myself";
  if (n->is_replica()) return "ERR I can only replicate a master, not a replica.";
  if (me->is_master() && (me->num_slots != 0 || !DatabaseEmpty())) {
    return "ERR To set a master the node must be empty and without assigned slots.";
  }
  SetMyMaster(n);
  Later(kTodoSave | kTodoUpdateState);
  return "";
}

int64_t Cluster::CountFailureReports(std::string_view node, std::string* error) {
  Node* n = state_->Find(node);
  if (n == nullptr) {
    *error = fmt::format("ERR Unknown node {}", node);
    return 0;
  }
  return state_->CountFailureReports(n, WallMs(), node_timeout());
}

std::string Cluster::InfoText() const {
  int assigned = 0, ok = 0, pfail = 0, fail = 0;
  for (int j = 0; j < kSlots; j++) {
    const Node* n = state_->slot_owner(j);
    if (n == nullptr) continue;
    assigned++;
    if (n->failed()) {
      fail++;
    } else if (n->timed_out()) {
      pfail++;
    } else {
      ok++;
    }
  }
  const Node* me = state_->myself();
  std::string out = fmt::format(
      "cluster_state:{}\r\ncluster_slots_assigned:{}\r\ncluster_slots_ok:{}\r\n"
      "cluster_slots_pfail:{}\r\ncluster_slots_fail:{}\r\ncluster_known_nodes:{}\r\n"
      "cluster_size:{}\r\ncluster_current_epoch:{}\r\ncluster_my_epoch:{}\r\n",
      cluster_ok() ? "ok" : "fail", assigned, ok, pfail, fail, state_->nodes().size(),
      state_->size(), state_->current_epoch(), state_->EffectiveConfigEpoch(me));
  int64_t total = 0;
  for (int i = 0; i < kMessageTypeCount; i++) {
    if (sent_[i] == 0) continue;
    total += sent_[i];
    out += fmt::format("cluster_stats_messages_{}_sent:{}\r\n", MessageTypeName(i), sent_[i]);
  }
  out += fmt::format("cluster_stats_messages_sent:{}\r\n", total);
  total = 0;
  for (int i = 0; i < kMessageTypeCount; i++) {
    if (received_[i] == 0) continue;
    total += received_[i];
    out +=
        fmt::format("cluster_stats_messages_{}_received:{}\r\n", MessageTypeName(i), received_[i]);
  }
  out += fmt::format("cluster_stats_messages_received:{}\r\n", total);
  out += "total_cluster_links_buffer_limit_exceeded:0\r\n";
  return out;
}

std::string Cluster::NodesText() const {
  return DescribeNodes(*state_, /*include_handshake=*/true);
}

std::vector<Cluster::LinkInfo> Cluster::Links() const {
  std::vector<LinkInfo> out;
  for (const auto& [name, n] : state_->nodes()) {
    for (const BusLink* link : {n->link, n->inbound_link}) {
      if (link == nullptr) continue;
      out.push_back({!link->inbound(), n->name, link->ctime_ms(), link->send_buffer_used() > 0,
                     link->send_buffer_used()});
    }
  }
  return out;
}

}  // namespace ebb::server::cluster
