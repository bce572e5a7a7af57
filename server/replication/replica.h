// ReplicaLink: the replica side of replication (docs/replication.md, "The replica side") —
// REPLICAOF's outbound link to a master, the full resynchronisation that replaces the engine
// with the master's snapshot, and the stream applied record by record.
//
// The link runs on the server's io_context, never blocking it on the network: it connects
// (resolving the host; with tls-replication over TLS, the master's certificate verified
// first), speaks Redis's handshake one command at a time (PING, AUTH [user] pass
// when masterauth is set, REPLCONF listening-port, REPLCONF ip-address when
// replica-announce-ip is set, REPLCONF capa eof capa psync2, PSYNC), then either
//   +FULLRESYNC <replid> <offset>: the snapshot bulk is written through a SnapshotSink into
//     `<dir>.sync` as it arrives (never held whole) and synced; once no read is in flight the
//     engine is closed, the two directories exchanged (ExchangeDirectories), the engine opened
//     on the snapshot, every WATCH invalidated and the expiry index rebuilt; or
//   +CONTINUE [<replid>]: the stream resumes after the offset the replica asked from;
// then applies the stream: the whole records of each read gathered by ApplyReplicationRecord's
// rule (GatherReplicationRecord: the master's sequences reproduced; skipped when already held;
// a gap drops the link and asks for a full resynchronisation) into one engine write, every
// touched key's watchers invalidated, the applied bytes handed on to
// ReplicationMaster::FeedFromMaster (this server's backlog and replicas). Control records
// (storage/replication_record.h) change no data; a GETACK is answered with REPLCONF ACK as soon
// as the read that held it is applied. The offset it acknowledges (REPLCONF ACK: on GETACK, and
// every second) counts whole records applied — and, under `wal-fsync always`, synced.
//
// repl-timeout: a link on which the master sent nothing (no record, no ping, no keepalive
// newline) for longer is dropped and reconnected, as Redis's replicationCron does.
//
// A failed or lost link is retried after a backoff (kFirstRetry doubling up to kMaxRetry). The
// link is registered as a client (CLIENT LIST flag M, CLIENT KILL TYPE master closes it).
//
// Restarts. Every second, before every REPLCONF ACK and when it stops, the link writes its
// position — the master's replid, the offset applied and the engine's last sequence at that
// offset — to `<dir>/replication` (written whole and renamed). A replica started again with
// `replicaof` asks PSYNC from that position when its engine holds at least that sequence
// (records it already holds are skipped), so a restart costs a partial resynchronisation; one
// started without it and made a replica by REPLICAOF before any write does the same. Either way
// it reports at least every offset it acknowledged before it stopped.
//
// What it owns: the connection to the master (and its CLIENT LIST entry), `<dir>.sync` during a
// full resynchronisation, and `<dir>/replication`, the saved position. Invariants: offset()
// counts whole records applied, never bytes only received; a record is applied only while the
// engine's last sequence is the one the stream left it at (anything else asks for a full
// resynchronisation); a saved position is resumed from only when the engine holds its sequence.
// Where: replica.cc (REPLICAOF, promotion, the connection, the handshake, acknowledgements),
// replica_full_sync.cc (the snapshot and the swap), replica_stream.cc (the stream and the saved
// position).
//
// Thread-safety: every method on the io thread.
#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/io/tls.h"
#include "storage/replication_snapshot.h"
#include "storage/status.h"

namespace ebb::storage {
class WriteBatch;
}  // namespace ebb::storage

namespace ebb::server {

class Client;
class ReplicationMaster;
class ServerContext;

// Exchanges the directories `a` and `b` atomically (renameat2 RENAME_EXCHANGE) and syncs their
// parent; where the filesystem cannot exchange, renames `a` to `a.old` and `b` to `a` (a crash
// between the two leaves `a.old`, which RecoverDataDirectory puts back).
storage::Status ExchangeDirectories(const std::string& a, const std::string& b);
// At start, before the engine opens `dir` (named with or without a trailing '/'): puts
// `dir.old` back when `dir` is missing (a swap cut short) and removes the leftovers of a full
// resynchronisation (`dir.sync`, `dir.old`).
void RecoverDataDirectory(std::string dir);

class ReplicaLink {
 public:
  enum class State { kNone, kConnect, kConnecting, kHandshake, kTransfer, kLoading, kConnected };
  static constexpr auto kFirstRetry = std::chrono::milliseconds(50);
  static constexpr auto kMaxRetry = std::chrono::milliseconds(1000);

  struct Hooks {
    // True when no read of the engine is in flight (the engine may be closed).
    std::function<bool()> engine_idle;
    // After the engine was replaced: the server wires itself to the new one.
    std::function<void()> engine_reopened;
  };

  // REQUIRES: context, io and master outlive the link; the context has a keyspace.
  ReplicaLink(ServerContext* context, boost::asio::io_context& io, ReplicationMaster* master,
              Hooks hooks);
  ~ReplicaLink();

  // Starts following the `replicaof` option's master, if any (at server start).
  void Start();
  // REPLICAOF host port: follows that master from now on (a link to another master is closed).
  // Asks PSYNC with this server's replid and offset, so a server that held the same history
  // continues partially.
  void ReplicateFrom(const std::string& host, int port);
  // REPLICAOF NO ONE (or PSYNC FAILOVER, or an aborted FAILOVER): closes the link, keeps the
  // data, and becomes a master (the IDs shift: ReplicationMaster::StopFollowing); `why` goes in
  // the log line. No effect when not a replica.
  void Promote(std::string_view why = "user request from replication");
  // Closes the link and writes the position (the server is stopping). Idempotent.
  void Stop();
  // Closes the link (CLIENT KILL TYPE master); it reconnects after the backoff.
  void DropLink(std::string_view why);

  // tls-replication: links to the master from now on speak TLS with these settings
  // (server/io/tls.h). REQUIRES: set before Start; `tls` outlives the link.
  void set_tls(boost::asio::ssl::context* tls) { tls_ = tls; }

  bool is_replica() const { return !host_.empty(); }
  const std::string& host() const { return host_; }
  int port() const { return port_; }
  State state() const { return state_; }
  bool link_up() const { return state_ == State::kConnected; }
  // ROLE's state name: connect, connecting, handshake, sync, connected.
  std::string_view StateName() const;
  // Stream bytes applied (slave_repl_offset) and received (slave_read_repl_offset).
  uint64_t offset() const { return offset_; }
  uint64_t read_offset() const { return read_offset_; }
  // Seconds since the master last sent something (-1 with no link).
  int64_t LastIoSecondsAgo(int64_t now_ms) const;
  // Seconds since the link went down (-1: it was never up).
  int64_t DownSinceSeconds(int64_t now_ms) const;
  // The snapshot transfer: total bytes (-1 before its length is known) and bytes read.
  int64_t sync_total_bytes() const { return bulk_total_; }
  int64_t sync_read_bytes() const { return bulk_read_; }

 private:
  using tcp = boost::asio::ip::tcp;
  struct Position {
    std::string replid;
    uint64_t offset = 0;
    uint64_t sequence = 0;
  };

  // Follows host:port from now on (the link to any other master closed).
  void ConnectTo(const std::string& host, int port);
  void Connect();
  // tls-replication: the TLS handshake (the master's certificate verified); then OnConnected.
  void Handshake();
  void OnConnected();
  void ReadMore();
  void OnRead(const boost::system::error_code& ec, size_t n, uint64_t generation);
  // Handles what in_ holds in the current state. False once the link was dropped or the
  // bytes must wait (a snapshot being swapped in).
  bool Process();
  void SendCommand(const std::vector<std::string>& args);
  // Sends the handshake's current command.
  void SendHandshakeStep();
  void Flush();
  bool OnHandshakeReply(std::string_view line);
  bool OnPsyncReply(std::string_view line);
  bool ReadSnapshot();
  // Replaces the engine with the snapshot once no read is in flight.
  void TrySwap();
  void Swap();
  bool ApplyStream();
  // Registers the link as a client once the stream flows.
  void AttachClient();
  void Fail(std::string_view why);
  void CloseSocket();
  void ScheduleRetry();
  void ScheduleAck();
  void SendAck();
  // Takes `position` (loaded from disk, the engine holding at least its sequence) as the history
  // followed: PSYNC asks from it, INFO reports its offset.
  void ContinueFrom(const Position& position);
  // Saves the position, then acknowledges the offset applied (REPLCONF ACK).
  void AckApplied();
  // repl-timeout: drops the link (it reconnects) when the master sent nothing for longer while
  // connecting, in the handshake, receiving the snapshot or streaming. True if it dropped it.
  bool TimedOut(int64_t now_ms);
  void SavePosition(const std::string& dir, const Position& position);
  bool LoadPosition(Position* position);
  std::string PositionPath() const;
  // The data directory without a trailing '/': `<DataDir()>.sync` is its sibling.
  std::string DataDir() const;
  // Writes the batch ApplyStream gathered from a read's records (false: not applied, a full
  // resynchronisation is due).
  bool WriteGathered(const storage::WriteBatch& batch);
  // Invalidates the watchers of every key the applied batch touched (every watcher when it
  // deletes ranges), and loads the function libraries again when it wrote their row.
  void SignalRecordKeys(const storage::WriteBatch& batch);

  ServerContext* context_;
  boost::asio::io_context& io_;
  ReplicationMaster* master_;
  Hooks hooks_;

  std::string host_;  // "" : not a replica
  int port_ = 0;
  State state_ = State::kNone;
  uint64_t generation_ = 0;  // bumped whenever the socket closes: stale callbacks are ignored
  tcp::resolver resolver_;
  // The connection to the master (made anew for each), or null.
  std::shared_ptr<LinkStream> stream_;
  boost::asio::ssl::context* tls_ = nullptr;  // tls-replication's client settings, or null
  boost::asio::steady_timer retry_timer_;
  boost::asio::steady_timer ack_timer_;
  boost::asio::steady_timer swap_timer_;
  std::chrono::milliseconds retry_delay_ = kFirstRetry;
  std::array<char, 64 * 1024> buffer_;
  std::string in_;                               // bytes received and not yet handled
  std::vector<std::vector<std::string>> steps_;  // the handshake's commands, in order
  size_t step_ = 0;                              // the one awaiting its reply
  bool writing_ = false;
  std::string out_, out_sending_;

  // The history followed: the master's replid, the offset applied, the engine's sequence then.
  std::string replid_;
  uint64_t offset_ = 0;
  uint64_t read_offset_ = 0;
  uint64_t applied_sequence_ = 0;
  bool have_history_ = false;  // false: PSYNC ? -1
  Position saved_;             // the position last written
  // The position loaded at a start without `replicaof`, and the engine's last sequence then.
  std::optional<Position> restart_position_;
  uint64_t restart_sequence_ = 0;

  // The full resynchronisation under way.
  std::string sync_replid_;
  uint64_t sync_offset_ = 0;
  std::unique_ptr<storage::SnapshotSink> sink_;
  int64_t bulk_total_ = -1;
  int64_t bulk_read_ = 0;

  int64_t last_io_ms_ = 0;
  int64_t down_since_ms_ = 0;  // 0: never up
  std::unique_ptr<Client> client_;
};

}  // namespace ebb::server
