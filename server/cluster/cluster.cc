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
#include "server/core/pubsub.h"
#include "server/io/listen.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::cluster {

using boost::asio::ip::tcp;

namespace {

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
  if (c.tls_cluster)
    return c.cluster_announce_tls_port != 0 ? c.cluster_announce_tls_port : c.tls_port;
  return c.cluster_announce_port != 0 ? c.cluster_announce_port : c.port;
}

int Cluster::MyPlaintextPort() const {
  const Config& c = context_->config();
  if (!c.tls_cluster) return 0;
  return c.cluster_announce_port != 0 ? c.cluster_announce_port : c.port;
}

int Cluster::BusPort() const {
  const Config& c = context_->config();
  if (c.cluster_port != 0) return c.cluster_port;
  return (c.tls_cluster ? c.tls_port : c.port) + 10000;
}

int Cluster::MyBusPort() const {
  const Config& c = context_->config();
  return c.cluster_announce_bus_port != 0 ? c.cluster_announce_bus_port : BusPort();
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
  me->pport = MyPlaintextPort();
  me->cport = MyBusPort();
  if (!context_->config().cluster_announce_ip.empty())
    me->ip = context_->config().cluster_announce_ip;
  state_->UpdateHealth(context_->config().cluster_require_full_coverage);
  if (const Result<ClusterCode> saved = SaveNow(); !saved.ok()) {
    *error = "Can't write the cluster config file: " + saved.detail();
    return false;
  }
  return true;
}

bool Cluster::Listen(std::string* error) {
  const int port = BusPort();
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
      auto link = std::make_shared<BusLink>(io_, this, /*inbound=*/true, WallMs(), bus_server_tls_);
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
    if (todo_ & kTodoSave) (void)SaveNow();  // the writer logged a failure
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

Result<ClusterCode> Cluster::SaveNow() {
  const std::string error = config_writer_->Write(NodesConfigText(*state_));
  if (!error.empty()) return {ClusterCode::kSaveFailed, error};
  return {};
}

// ---------------------------------------------------------------- SlotOwnership

bool Cluster::cluster_ok() const { return state_->health() == ClusterState::Health::kOk; }

bool Cluster::OwnsSlot(int slot) const { return state_->slot_owner(slot) == state_->myself(); }

bool Cluster::ReplicatesSlot(int slot) const {
  const Node* me = state_->myself();
  return me->is_replica() && me->master != nullptr && state_->slot_owner(slot) == me->master;
}

NodeAddress Cluster::ClientAddress(const Node& n) const { return {n.ip, n.port, n.pport}; }

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
  auto link = std::make_shared<BusLink>(io_, this, /*inbound=*/false, now_ms, bus_client_tls_);
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
  m.pport = static_cast<uint16_t>(MyPlaintextPort());
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

Result<ClusterCode> Cluster::Meet(const std::string& ip, int port, int cport) {
  return StartHandshake(ip, port, cport);
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
  me->pport = MyPlaintextPort();
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
  // Under tls-cluster the master announces its TLS port, and its plain one beside it: the
  // replica connects to the one its tls-replication speaks.
  const int port =
      !context_->config().tls_replication && master->pport != 0 ? master->pport : master->port;
  if (link->is_replica() && link->host() == master->ip && link->port() == port) return;
  link->ReplicateFrom(master->ip, port);
}

}  // namespace ebb::server::cluster
