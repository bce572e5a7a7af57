#include "server/net/server.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <utility>

#include "common/wall_clock.h"
#include "server/acl/acl.h"
#include "server/core/errors.h"
#include "server/io/listen.h"
#include "server/io/tls.h"
#include "server/metrics/memory_report.h"
#include "server/metrics/metrics.h"
#include "server/net/connection.h"
#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

using boost::asio::ip::tcp;

constexpr auto kCronInterval = std::chrono::milliseconds(100);
constexpr uint64_t kPeakMemoryTicks = 10;  // Cron ticks between samples of used_memory_peak
constexpr auto kDrainPoll = std::chrono::milliseconds(10);
constexpr int kDrainRounds = 300;         // up to 3 s for in-flight replies at shutdown
constexpr int kBusyAcceptsPerRound = 16;  // new clients one ServeWhileBusy round takes

}  // namespace

Server::Server(ServerContext* context)
    : context_(context),
      dispatcher_(context),
      signals_(io_, SIGTERM, SIGINT),
      cron_timer_(io_),
      expiry_timer_(io_),
      drain_timer_(io_) {
  if (context_->has_keyspace()) {
    types::Keyspace* ks = &context_->keyspace();
    wal_sync_ = std::make_unique<WalTurnCommit>(
        io_, [ks] { return ks->db().SyncWal(); },
        [this] { return std::chrono::microseconds(context_->config().wal_sync_delay_us); });
    wal_write_out_ = std::make_unique<WalTurnCommit>(io_, [ks] { return ks->db().FlushWal(); });
    WireEngine();
    block_reader_ = std::make_unique<BlockReader>(io_, &context_->stats());
    block_reader_->set_read_latency(ks->db().disk_read_latency());
    context_->set_block_reader(block_reader_.get());
    replication_master_ = std::make_unique<ReplicationMaster>(context_, io_);
    // An acknowledgement may complete a WAIT: resume the waiting connections after this turn.
    replication_master_->set_ack_listener(
        [this] { boost::asio::post(io_, [this] { ResumeWriteStalled(); }); });
    context_->set_replication_master(replication_master_.get());
    ReplicaLink::Hooks hooks;
    hooks.engine_idle = [this] { return block_reader_->idle(); };
    hooks.engine_reopened = [this] {
      WireEngine();
      context_->scripts().ReloadLibraries();  // the master's, from the snapshot
      context_->expiry_events().Reset();
      context_->expiry_events().Poll();
    };
    replica_link_ =
        std::make_unique<ReplicaLink>(context_, io_, replication_master_.get(), std::move(hooks));
    context_->set_replica_link(replica_link_.get());
    ServerContext::ReplicationProbes probes;
    probes.good_replicas = [master = replication_master_.get()](int64_t now_ms, int64_t lag_s) {
      return master->CountGood(now_ms, lag_s);
    };
    probes.master_link_up = [link = replica_link_.get()] { return link->link_up(); };
    context_->set_replication_probes(std::move(probes));
    failover_ =
        std::make_unique<Failover>(context_, replication_master_.get(), replica_link_.get());
    // The writes a FAILOVER held back run again once it ends.
    failover_->set_resume_listener(
        [this] { boost::asio::post(io_, [this] { ResumeWriteStalled(); }); });
    context_->set_failover(failover_.get());
    if (context_->config().cluster_enabled) {
      cluster_ = std::make_unique<cluster::Cluster>(context_, io_);
      // The writes a manual failover held back run again once it ends.
      cluster_->set_resume_listener(
          [this] { boost::asio::post(io_, [this] { ResumeWriteStalled(); }); });
    }
    active_active_ = std::make_unique<ActiveActive>(context_, io_);
    context_->set_active_active(active_active_.get());
    write_planner_ = std::make_unique<ActiveActivePlanner>(active_active_.get());
    context_->set_write_planner(write_planner_.get());
  }
  context_->set_shutdown_hook([this] { boost::asio::post(io_, [this] { Shutdown(); }); });
  context_->set_busy_hook([this](const Client& caller) { ServeWhileBusy(caller); });
}

void Server::WireEngine() {
  // Called on an engine thread with its lock held: only post.
  context_->keyspace().db().SetWriteStallListener(
      [this] { boost::asio::post(io_, [this] { ResumeWriteStalled(); }); });
}

Server::~Server() {
  context_->set_cluster(nullptr);
  cluster_.reset();
  context_->set_write_planner(nullptr);
  write_planner_.reset();
  context_->set_active_active(nullptr);
  active_active_.reset();  // joins the peer links
  context_->set_failover(nullptr);
  context_->set_writes_paused(false);
  failover_.reset();
  context_->set_replication_probes({});
  context_->set_replica_link(nullptr);
  replica_link_.reset();
  context_->set_replication_master(nullptr);
  replication_master_.reset();  // waits for its snapshot workers, removes the engine's tap
  if (context_->has_keyspace()) context_->keyspace().db().SetWriteStallListener(nullptr);
  context_->set_block_reader(nullptr);
  context_->set_shutdown_hook(nullptr);
  context_->set_busy_hook(nullptr);
}

Result<ListenCode> Server::Listen() {
  const Config& config = context_->config();
  if (config.tls_port > 0) {
    auto made = MakeTlsContext(config);
    if (!made.ok()) return {ListenCode::kTls, TlsErrorText(made.failure())};
    tls_context_ = std::move(*made);
  }
  if (Result<TlsCode> r = MakeLinkTlsContexts(config, &link_tls_); !r.ok()) {
    return {ListenCode::kTls, TlsErrorText(r)};
  }
  if (replica_link_ && config.tls_replication) replica_link_->set_tls(link_tls_.client.get());
  if (cluster_ && config.tls_cluster) {
    cluster_->set_tls(link_tls_.client.get(), link_tls_.bus_server.get());
  }
  if (active_active_ && config.tls_peers) active_active_->set_tls(link_tls_.client.get());
  if (config.port > 0) {
    if (Result<ListenCode> r = Bind(config.port, /*tls=*/false); !r.ok()) return r;
  }
  if (config.tls_port > 0) {
    if (Result<ListenCode> r = Bind(config.tls_port, /*tls=*/true); !r.ok()) return r;
  }
  if (acceptors_.empty()) return ListenCode::kNoAddress;
  if (config.metrics_port > 0) {
    metrics_ = std::make_unique<MetricsHttp>(io_, [this] { return RenderMetrics(*context_); });
    if (Result<ListenCode> r = metrics_->Listen(config.metrics_bind, config.metrics_port);
        !r.ok()) {
      return {ListenCode::kMetrics, ListenErrorText(r)};
    }
  }
  if (cluster_ != nullptr) {
    if (Result<cluster::ClusterCode> r = cluster_->Load(); !r.ok()) {
      return {ListenCode::kCluster, cluster::ClusterErrorText(r)};
    }
    if (Result<cluster::ClusterCode> r = cluster_->Listen(); !r.ok()) {
      return {ListenCode::kCluster, cluster::ClusterErrorText(r)};
    }
    context_->set_cluster(cluster_.get(), /*is_node=*/true);
  }
  if (active_active_) {
    storage::Status s = active_active_->Open();
    if (!s.ok()) return {ListenCode::kActiveActiveUnreadable, s.ToString()};
    if (Result<ActiveActiveCode> r = active_active_->Start(); !r.ok()) {
      return {ListenCode::kActiveActive, active_active_->ErrorText(r)};
    }
  }
  return {};
}

Result<ListenCode> Server::Bind(int port, bool tls) {
  std::vector<std::unique_ptr<tcp::acceptor>> opened;
  if (Result<ListenCode> r = ListenOnAddresses(io_, context_->config().bind, port, &opened);
      !r.ok()) {
    return r;
  }
  for (auto& acceptor : opened) acceptors_.push_back({std::move(acceptor), tls});
  return {};
}

void Server::Run() {
  for (auto& [acceptor, tls] : acceptors_) Accept(*acceptor, tls);
  if (metrics_) metrics_->Start();
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    spdlog::warn("Received {}, scheduling shutdown...", signo == SIGINT ? "SIGINT" : "SIGTERM");
    context_->RequestShutdown();
  });
  ScheduleCron();
  context_->expiry_events().Poll();  // builds the expiry index from the data when selected
  ScheduleExpiryPoll();
  LogServing();
  context_->set_startup_memory(AllocatedBytes());
  spdlog::info("Ready to accept connections tcp");
  if (replica_link_) replica_link_->Start();
  if (cluster_) cluster_->Start();
  RunLoop();
  if (cluster_) cluster_->Stop();
  // Before main closes the keyspace: no snapshot worker may be reading the engine then, and the
  // replica's position is written while the engine is there to say its sequence.
  if (replica_link_) replica_link_->Stop();
  if (replication_master_) replication_master_->Stop();
  if (active_active_) active_active_->Stop();
}

void Server::LogServing() {
  const Config& config = context_->config();
  const uint64_t keys = context_->KeyCount();
  std::string mode = "standalone";
  if (cluster_) {
    mode = "cluster";
  } else if (active_active_ && active_active_->enabled()) {
    mode = fmt::format("active-active with {} configured peers", config.peers.size());
  } else if (!config.replicaof_host.empty()) {
    mode = fmt::format("replica of {}:{}", config.replicaof_host, config.replicaof_port);
  }
  spdlog::info("Serving port {} tls-port {} on {} from '{}': about {} keys, {}", config.port,
               config.tls_port, fmt::join(config.bind, " "), config.dir, keys, mode);
  if (metrics_) {
    spdlog::info("Serving metrics at http://{}:{}/metrics", fmt::join(config.metrics_bind, " "),
                 config.metrics_port);
  }
}

void Server::ServeWhileBusy(const Client& caller) {
  if (shutting_down_) return;
  busy_fds_.clear();
  busy_served_.clear();
  for (auto& [acceptor, tls] : acceptors_) {
    busy_fds_.push_back({acceptor->native_handle(), POLLIN, 0});
  }
  for (const auto& [raw, connection] : connections_) {
    if (&connection->client() == &caller || !connection->ServableWhileBusy()) continue;
    busy_fds_.push_back({connection->native_handle(), POLLIN, 0});
    busy_served_.push_back(connection);
  }
  if (::poll(busy_fds_.data(), busy_fds_.size(), 0) <= 0) return;
  size_t i = 0;
  for (auto& [acceptor, tls] : acceptors_) {
    if (busy_fds_[i++].revents != 0) AcceptWhileBusy(*acceptor, tls);
  }
  for (const auto& connection : busy_served_) {
    // Checked again: serving the ones before may have changed it.
    if (busy_fds_[i++].revents != 0 && connection->ServableWhileBusy()) {
      connection->ServeWhileBusy();
    }
  }
  busy_served_.clear();  // a connection closed meanwhile is released here, not inside its own call
}

void Server::AcceptWhileBusy(tcp::acceptor& acceptor, bool tls) {
  // The acceptor is non-blocking (its pending async_accept made it so): this takes the clients
  // waiting now; the pending accept finds the queue empty when the loop runs again.
  for (int n = 0; n < kBusyAcceptsPerRound; ++n) {
    const int fd = ::accept4(acceptor.native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    tcp::socket socket(io_);
    boost::system::error_code ec;
    socket.assign(acceptor.local_endpoint(ec).protocol(), fd, ec);
    if (ec) {
      ::close(fd);
      return;
    }
    OnAccept(std::move(socket), tls);
  }
}

void Server::RunLoop() {
  while (!io_.stopped()) {
    if (context_->config().io_poll_us > 0) {
      PollLoop();
      continue;
    }
    // As Redis's loop: the queued handlers run, then one epoll_wait collects the next pass's
    // events, blocking when nothing else is queued. io_context::run keeps one scheduler context
    // for all its handlers; the cron stops it when io-poll-us is set (leave_run_).
    running_plain_ = true;
    io_.run();
    running_plain_ = false;
    if (!std::exchange(leave_run_, false)) break;  // stopped by the shutdown
    io_.restart();
  }
}

void Server::PollLoop() {
  using Clock = std::chrono::steady_clock;
  Clock::time_point last_work = Clock::now();
  while (!io_.stopped()) {
    const auto poll_for = std::chrono::microseconds(context_->config().io_poll_us);
    if (poll_for.count() == 0) return;
    if (io_.poll() > 0) {
      last_work = Clock::now();
      continue;
    }
    if (Clock::now() - last_work < poll_for) continue;
    if (io_.run_one() == 0) return;  // stopped, or out of work
    last_work = Clock::now();
  }
}

void Server::Accept(tcp::acceptor& acceptor, bool tls) {
  acceptor.async_accept([this, &acceptor, tls](const boost::system::error_code& ec, tcp::socket s) {
    if (shutting_down_ || ec == boost::asio::error::operation_aborted) return;
    if (!ec) {
      OnAccept(std::move(s), tls);
      return Accept(acceptor, tls);
    }
    // E.g. out of file descriptors: retry shortly instead of spinning.
    spdlog::warn("Accepting client connection: {}", ec.message());
    auto timer = std::make_shared<boost::asio::steady_timer>(io_, std::chrono::milliseconds(100));
    timer->async_wait([this, timer, &acceptor, tls](const boost::system::error_code& wait_ec) {
      if (!wait_ec && !shutting_down_) Accept(acceptor, tls);
    });
  });
}

bool ProtectedModeRefuses(const Config& config, const AclUser& default_user,
                          const boost::asio::ip::address& peer) {
  if (!config.protected_mode || !default_user.nopass()) return false;
  return !IsLoopbackPeer(peer);
}

void Server::OnAccept(tcp::socket socket, bool tls) {
  const Config& config = context_->config();
  boost::system::error_code ec;
  socket.set_option(tcp::no_delay(true), ec);
  if (config.tcp_keepalive_s > 0) {
    socket.set_option(boost::asio::socket_base::keep_alive(true), ec);
    int idle = static_cast<int>(config.tcp_keepalive_s);
    int interval = std::max(1, idle / 3);
    int count = 3;
    setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
    setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
  }
  if (context_->clients().size() >= static_cast<size_t>(config.maxclients)) {
    context_->stats().rejected_connections++;
    // Best effort, like Redis: one write of the error, then close (a TLS client, before its
    // handshake, cannot read plain text: it is just closed).
    std::string reply = "-" + std::string(kMaxClients) + "\r\n";
    if (!tls) boost::asio::write(socket, boost::asio::buffer(reply), ec);
    socket.close(ec);
    return;
  }
  const tcp::endpoint peer = socket.remote_endpoint(ec);
  if (!ec && ProtectedModeRefuses(config, context_->acl().default_user(), peer.address())) {
    context_->stats().rejected_connections++;
    spdlog::warn("Refused connection from {}: protected mode", peer.address().to_string());
    std::string reply = "-" + std::string(kProtectedModeDenied) + "\r\n";
    if (!tls) boost::asio::write(socket, boost::asio::buffer(reply), ec);
    socket.close(ec);
    return;
  }
  context_->stats().total_connections_received++;
  auto connection = std::make_shared<Connection>(
      this, std::move(socket), context_->clients().NextId(), tls ? tls_context_.get() : nullptr);
  connections_[connection.get()] = connection;
  connection->Start();
}

void Server::Remove(Connection* connection) {
  // Defer the release so the connection is not destroyed inside its own method.
  auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  std::shared_ptr<Connection> keep = std::move(it->second);
  connections_.erase(it);
  boost::asio::post(io_, [keep] {});
}

void Server::ScheduleExpiryPoll() {
  expiry_timer_.expires_after(std::chrono::milliseconds(ExpiryEvents::kPollIntervalMs));
  expiry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || shutting_down_) return;
    const auto began = std::chrono::steady_clock::now();
    context_->expiry_events().Poll();
    const auto took = std::chrono::steady_clock::now() - began;
    context_->latency().AddIfNeeded(
        "expire-cycle",
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()),
        context_->clock().NowMs() / 1000, context_->config().latency_monitor_threshold_ms);
    ScheduleExpiryPoll();
  });
}

void Server::AwaitWriteRoom(const std::shared_ptr<Connection>& connection) {
  write_stalled_.push_back(connection);
}

void Server::ResumeWriteStalled() {
  std::vector<std::weak_ptr<Connection>> waiting;
  waiting.swap(write_stalled_);
  for (const auto& weak : waiting) {
    if (auto connection = weak.lock()) connection->ResumeAfterWriteStall();
  }
}

void Server::ScheduleCron() {
  cron_timer_.expires_after(kCronInterval);
  cron_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || shutting_down_) return;
    int64_t now = WallMs();
    std::vector<std::shared_ptr<Connection>> all;
    all.reserve(connections_.size());
    for (auto& [ptr, conn] : connections_) all.push_back(conn);
    for (auto& conn : all) conn->Cron(now);
    if (failover_) failover_->Cron(now);  // first, as Redis's replicationCron
    if (replication_master_) replication_master_->Cron(now);
    if (active_active_) active_active_->Cron(now);
    // mallinfo2 walks every allocator arena: the peak is sampled once a second (and by each INFO
    // and MEMORY report), not at every tick.
    if (++cron_ticks_ % kPeakMemoryTicks == 0) {
      ServerStats& stats = context_->stats();
      stats.used_memory_peak = std::max(stats.used_memory_peak, AllocatedBytes());
    }
    context_->CollectLatencySamples();
    // io-poll-us set while the loop runs without polling: leave io_context::run for PollLoop.
    if (running_plain_ && context_->config().io_poll_us > 0 && !leave_run_) {
      leave_run_ = true;
      io_.stop();
    }
    // The engine's listener resumes stalled writers; this bounds the wait if a wake-up is lost.
    if (!write_stalled_.empty()) ResumeWriteStalled();
    ScheduleCron();
  });
}

void Server::Shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  spdlog::warn("User requested shutdown...");
  boost::system::error_code ec;
  for (auto& [acceptor, tls] : acceptors_) acceptor->close(ec);
  if (metrics_) metrics_->Stop();
  signals_.cancel(ec);
  cron_timer_.cancel();
  expiry_timer_.cancel();
  if (cluster_) cluster_->Stop();
  std::vector<std::shared_ptr<Connection>> all;
  for (auto& [ptr, conn] : connections_) all.push_back(conn);
  for (auto& conn : all) conn->CloseAfterWrite();
  WaitDrained(kDrainRounds);
}

void Server::WaitDrained(int rounds_left) {
  const bool reads_done = block_reader_ == nullptr || block_reader_->idle();
  if ((connections_.empty() && reads_done) || rounds_left <= 0) {
    std::vector<std::shared_ptr<Connection>> all;
    for (auto& [ptr, conn] : connections_) all.push_back(conn);
    for (auto& conn : all) conn->Close();
    io_.stop();
    return;
  }
  drain_timer_.expires_after(kDrainPoll);
  drain_timer_.async_wait(
      [this, rounds_left](const boost::system::error_code&) { WaitDrained(rounds_left - 1); });
}

}  // namespace ebb::server
