// Cluster's plumbing: the node's life (Load, Listen, Start, Stop), the work left for the end of
// the loop turn (saving nodes.conf, the health, the election), the bus links, the messages this
// node sends, and the dispatch of every message received to the job that handles it (gossip:
// cluster_gossip.cc, slots: cluster_slots.cc, failover: cluster_failover.cc). The class and its
// contract: cluster.h.
#include "server/cluster/cluster.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <fstream>
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

Result<ClusterCode> Cluster::Load() {
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
  } else {
    Result<ClusterCode, std::unique_ptr<ClusterState>> parsed = ParseNodesConfig(text, now);
    if (!parsed.ok()) return parsed.failure();
    state_ = std::move(*parsed);
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
    return {ClusterCode::kNodesConfUnwritable, saved.detail()};
  }
  return {};
}

Result<ClusterCode> Cluster::Listen() {
  const int port = BusPort();
  if (port > 65535) return ClusterCode::kBusPortTooHigh;
  if (Result<ListenCode> r = ListenOnAddresses(io_, context_->config().bind, port, &acceptors_);
      !r.ok()) {
    return {ClusterCode::kBusListen, ListenErrorText(r)};
  }
  if (acceptors_.empty()) return ClusterCode::kBusNoAddress;
  return {};
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
  if (config_writer_ != nullptr) (void)config_writer_->Flush();  // the writer logged a failure
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

Result<ClusterCode> Cluster::SaveNow() { return config_writer_->Write(NodesConfigText(*state_)); }

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

// ---------------------------------------------------------------- receiving

void Cluster::OnMessage(BusLink* link, std::string_view bytes) {
  BusMessage m;
  if (const Result<BusMessageCode> decoded = DecodeMessage(bytes, &m); !decoded.ok()) {
    spdlog::warn("Cluster bus: dropping a link that sent a bad message ({})",
                 BusMessageErrorText(decoded));
    FreeLink(link);
    return;
  }
  // Only this node sends under its name: a message that names it as its sender is forged (or
  // this node's own, looped back by a MEET of its own address), and taken as this node's word
  // it would let the link make this node a replica of itself, fail others in its name, or
  // move its address.
  if (m.sender == state_->myself()->name) {
    spdlog::warn("Cluster bus: dropping a link that sent a message under this node's name");
    FreeLink(link);
    return;
  }
  received_[static_cast<int>(m.type)]++;
  Process(link, m);
}

void Cluster::Process(BusLink* link, const BusMessage& m) {
  const int64_t now = WallMs();
  Node* sender = IdentifySender(link, m, now);
  switch (m.type) {
    case MessageType::kPing:
    case MessageType::kPong:
    case MessageType::kMeet:
      return ProcessPingPongMeet(link, m, sender, now);
    case MessageType::kFail:
      return ProcessFail(m, sender, now);
    case MessageType::kPublish:
    case MessageType::kPublishShard:
      return ProcessPublish(m, sender);
    case MessageType::kFailoverAuthRequest:
      if (sender == nullptr) return;
      return SendFailoverAuthIfNeeded(sender, m);
    case MessageType::kFailoverAuthAck:
      return ProcessFailoverAuthAck(m, sender);
    case MessageType::kMfStart:
      return ProcessMfStart(link, sender, now);
    case MessageType::kUpdate:
      return ProcessUpdate(m, sender);
    default:
      return;
  }
}

Node* Cluster::IdentifySender(BusLink* link, const BusMessage& m, int64_t now) {
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
  return sender;
}

void Cluster::ProcessPublish(const BusMessage& m, Node* sender) {
  if (sender == nullptr) return;
  context_->pubsub().Publish(
      m.type == MessageType::kPublish ? PubSub::Kind::kChannel : PubSub::Kind::kShard, m.channel,
      m.message);
}

}  // namespace ebb::server::cluster
