// Server: the network side of ebb — listeners on every `bind` address, the connections, the
// periodic checks (idle timeout, output limits), signals and the graceful shutdown.
//
// One io_context thread (the caller of Run) runs every command and commits the WAL once per turn
// of its loop (docs/durability.md "Group commit", server/net/wal_turn_commit.h). After a turn that
// did work, the loop keeps polling for up to `io-poll-us` before it sleeps in epoll_wait (RunLoop;
// at 0 it waits once per pass, as Redis's loop).
// It never waits for the disk to read a table block: a command that needs one waits parked
// while the BlockReader reads it (server/net/connection.h), and shutdown waits for those reads.
// Owns: the io_context, the listeners, every connection, the client dispatcher, the WAL turn
// commits, the BlockReader, and the modes beside other servers — the replication master and
// replica link, FAILOVER, the cluster node, active-active and its WritePlanner — which it makes
// and installs on the ServerContext (and uninstalls before destroying them). Invariant: a
// connection lives in connections_ until it closes; replies leave in request order.
// Thread-safety: every method on the io thread, except construction and Run.
#pragma once

#include <poll.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/active_active/active_active.h"
#include "server/cluster/cluster.h"
#include "server/config/config.h"
#include "server/core/result.h"
#include "server/dispatch/dispatcher.h"
#include "server/io/block_reader.h"
#include "server/io/listen.h"
#include "server/io/tls.h"
#include "server/metrics/metrics_http.h"
#include "server/net/active_active_planner.h"
#include "server/net/before_wait.h"
#include "server/net/wal_turn_commit.h"
#include "server/replication/failover.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"

namespace ebb::server {

class AclUser;
class Client;
class Connection;
class ServerContext;

// Protected mode (Redis 7's security default): while it is on and the `default` user is nopass
// (whatever set it: requirepass, ACL SETUSER default, the aclfile), only loopback peers may
// connect; everyone else gets kProtectedModeDenied and is disconnected.
bool ProtectedModeRefuses(const Config& config, const AclUser& default_user,
                          const boost::asio::ip::address& peer);

class Server {
 public:
  // REQUIRES: context outlives the server; when context->has_keyspace(), the keyspace too.
  explicit Server(ServerContext* context);
  ~Server();

  // Binds and listens on every configured address at `port` (unless 0) and at `tls-port` (when
  // set, with the TLS context built from the tls-* options), and builds the TLS settings of the
  // links the tls-replication, tls-cluster and tls-peers options turn on (server/io/tls.h);
  // with cluster-enabled yes, loads the cluster-config-file and listens on the cluster bus port
  // too. With metrics-port set, listens there on every metrics-bind address for scrapes
  // (server/metrics/metrics_http.h). Then opens the active-active state and links the `peer`
  // options (docs/active-active.md). Fails naming the address, or what TLS, the cluster config or
  // the active-active state could not load (ListenErrorText).
  Result<ListenCode> Listen();
  // Serves until shutdown completes (SHUTDOWN, SIGTERM, SIGINT). Post: every connection is
  // closed.
  void Run();
  // Stops accepting, closes every connection after its pending replies, then ends Run.
  void Shutdown();

  ServerContext& context() { return *context_; }
  Dispatcher& dispatcher() { return dispatcher_; }
  boost::asio::io_context& io() { return io_; }
  // The once-per-loop-turn WAL commits, or nullptr when the server has no keyspace: the sync
  // (fdatasync; wal-fsync always) and the write-out (write(2); everysec, no).
  WalTurnCommit* wal_sync() { return wal_sync_.get(); }
  WalTurnCommit* wal_write_out() { return wal_write_out_.get(); }
  // Reads the table blocks waiting commands need, or nullptr when the server has no keyspace.
  BlockReader* block_reader() { return block_reader_.get(); }
  // Forgets a closed connection. REQUIRES: the io thread.
  void Remove(Connection* connection);
  // Resumes `connection` (Connection::ResumeAfterWriteStall) once the engine's write stall may
  // be over, or a deferred command (WAIT) may answer, or a FAILOVER's write pause lifted: when
  // the engine's stall listener fires, a replica acknowledges or the failover ends, and at the
  // latest at the next periodic check.
  void AwaitWriteRoom(const std::shared_ptr<Connection>& connection);

 private:
  // Listens on every bind address at `port`; `tls`: connections accepted there speak TLS.
  Result<ListenCode> Bind(int port, bool tls);
  void Accept(boost::asio::ip::tcp::acceptor& acceptor, bool tls);
  // A busy script's hook (ServerContext::ServeWhileBusy; docs/scripting.md, "Busy scripts"): the
  // loop's handler is still on the stack and io_ may not run, so this polls the listening
  // sockets and the connections that wait for input itself, without waiting, accepts the new
  // clients and serves every connection with input (the dispatcher answers -BUSY to what is not
  // allowed meanwhile). The caller's own connection is left alone, and so are TLS connections
  // (their stream reads only when the loop runs).
  void ServeWhileBusy(const Client& caller);
  void AcceptWhileBusy(boost::asio::ip::tcp::acceptor& acceptor, bool tls);
  void OnAccept(boost::asio::ip::tcp::socket socket, bool tls);
  void ScheduleCron();
  // The start-up line an operator looks for: the listening ports and addresses, the data
  // directory, about how many keys it holds (Keyspace::DbSize, never a full walk) and the mode.
  void LogServing();
  // Fires due expiry events every ExpiryEvents::kPollIntervalMs (server/services/expiry_events.h).
  void ScheduleExpiryPoll();
  // Resumes every connection waiting in AwaitWriteRoom; those still stalled wait again.
  void ResumeWriteStalled();
  void WaitDrained(int rounds_left);
  // Connects the server to the engine: its write-stall listener (again after a replica's full
  // resynchronisation replaced the engine).
  void WireEngine();
  // Runs io_ until the shutdown stops it. With io-poll-us 0 it runs as io_context::run (one
  // epoll_wait per pass of the loop, blocking when no handler is queued); a CONFIG SET of
  // io-poll-us above 0 takes effect at the next cron tick, which stops run for PollLoop.
  void RunLoop();
  // While io-poll-us is above 0: after a turn that ran handlers it polls (non-blocking) for up
  // to io-poll-us more before blocking: a request arriving in that window is served without the
  // thread going to sleep, and its sender's send(2) does not have to wake the thread (a cost
  // the client pays, and in a virtual machine an exit to the hypervisor). The price is up to
  // io-poll-us of CPU per idle gap. Returns when io-poll-us is 0 again or io_ stopped.
  void PollLoop();

  ServerContext* context_;
  // Run by the io thread alone, which alone starts, completes and cancels socket operations
  // (other threads only post to it): Asio's per-socket I/O locks are left out
  // (BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO; the scheduler and registrations keep theirs).
  boost::asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  // Right after io_, before anything makes its reactor (signals_ does): the WAL turn commits run
  // from it, before each epoll_wait of the loop.
  BeforeWait& before_wait_ = BeforeWait::Of(io_);
  Dispatcher dispatcher_;
  std::unique_ptr<WalTurnCommit> wal_sync_;
  std::unique_ptr<WalTurnCommit> wal_write_out_;
  struct Listener {
    std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor;
    bool tls;  // accepted connections speak TLS (tls-port)
  };
  std::vector<Listener> acceptors_;
  // The TLS settings of tls-port's connections (server/io/tls.h), or null without tls-port.
  std::unique_ptr<boost::asio::ssl::context> tls_context_;
  // The TLS settings of the links to other servers (tls-replication, tls-cluster, tls-peers).
  LinkTlsContexts link_tls_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer cron_timer_;
  uint64_t cron_ticks_ = 0;
  boost::asio::steady_timer expiry_timer_;
  boost::asio::steady_timer drain_timer_;
  std::unordered_map<Connection*, std::shared_ptr<Connection>> connections_;
  std::vector<std::weak_ptr<Connection>> write_stalled_;  // in the order they stalled
  // After connections_: destroyed first, it drops the connections its pending reads hold.
  std::unique_ptr<BlockReader> block_reader_;
  std::unique_ptr<ReplicationMaster> replication_master_;
  std::unique_ptr<ReplicaLink> replica_link_;
  std::unique_ptr<Failover> failover_;
  // With cluster-enabled yes: this server's cluster node and its bus (server/cluster/cluster.h).
  std::unique_ptr<cluster::Cluster> cluster_;
  std::unique_ptr<ActiveActive> active_active_;
  // Active-active's plans of clients' writes, as the dispatcher asks them.
  std::unique_ptr<ActiveActivePlanner> write_planner_;
  // With metrics-port set: GET /metrics on metrics-bind (server/metrics/metrics_http.h).
  std::unique_ptr<MetricsHttp> metrics_;
  bool shutting_down_ = false;
  // The cron stopped io_context::run because io-poll-us was set: RunLoop restarts it polling.
  bool leave_run_ = false;
  bool running_plain_ = false;    // RunLoop is inside io_context::run
  std::vector<pollfd> busy_fds_;  // ServeWhileBusy's, kept for their capacity
  std::vector<std::shared_ptr<Connection>> busy_served_;
};

}  // namespace ebb::server
