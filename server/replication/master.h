// ReplicationMaster: the master side of replication (docs/replication.md) — PSYNC's answer, the
// full resynchronisation's snapshot, the backlog, and the stream to every attached replica.
//
// The stream: on the first PSYNC the master creates the backlog (repl-backlog-size bytes) and
// installs the engine's replication tap (storage/db.h). From then on every batch and range
// deletion the engine commits is encoded as a stream record and appended to the backlog at once
// (offsets, WAIT and INFO count it from then), and to the replicas' pending bytes; those go to
// every online replica's connection (Client::Push, in commit order) once per turn of the event
// loop, a single push however many writes the turn ran — as Redis fills each replica's buffer
// and writes it once per loop pass. A PSYNC pushes what is pending before it attaches anyone.
// The tap runs inside DB::Write on the io thread, so the stream needs no lock.
// Control records join the stream the same way: a `ping` every repl-ping-replica-period seconds
// (Cron) and a `getack` when someone waits for acknowledgements (RequestAck).
//
// PSYNC <replid> <offset>: +CONTINUE <replid> and the backlog's bytes from `offset` when the
// replid is this history (ReplicationIds::SameHistory) and the backlog holds `offset`; else
// +FULLRESYNC <replid> <end offset>, then the snapshot as one bulk payload (`$<length>\r\n`
// and the archive, storage/replication_snapshot.h), then the stream from that offset — held
// for the replica while the snapshot is made and sent. A worker thread makes the checkpoint
// (DB::Checkpoint, beside the data directory: `<dir>.repl-<n>`, removed after) and reads it out
// a chunk at a time; the io thread pushes each chunk once the replica's output has room, so the
// event loop never waits for the disk and memory stays bounded.
//
// A replica's history (docs/replication.md, "The replica side"): while the server follows a
// master (Follow), the tap is not installed; the replica link hands every stream record it
// applied to FeedFromMaster, byte for byte, so this server's backlog and offsets are its
// master's and its own replicas (and, after a promotion, its old master's other replicas)
// continue from them. StopFollowing (REPLICAOF NO ONE) shifts the IDs and installs the tap.
//
// What it owns: the replication IDs and the stream's end offset, the backlog, the attached
// replicas' state, and the snapshot jobs (their worker threads and checkpoint directories).
// Invariants: the backlog and every online replica receive the same records in commit order, a
// replica's from the offset its PSYNC was answered at; a replica is fed nothing while its
// snapshot is being made and sent (its stream is held for it).
//
// Thread-safety: every method on the io thread; the snapshot workers touch only their own job
// and talk to the io thread by posting.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "server/core/turn_end_task.h"
#include "server/replication/backlog.h"
#include "server/replication/replication_id.h"
#include "storage/replication_record.h"

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Client;
class ServerContext;

class ReplicationMaster {
 public:
  // How far the master may get ahead of a replica reading the snapshot: a chunk is pushed only
  // while less than this is waiting in its output.
  static constexpr size_t kSnapshotChunkBytes = 256 * 1024;
  static constexpr size_t kSnapshotOutputRoom = 1 << 20;

  // REQUIRES: context and io outlive this object, and the keyspace while it is set in context.
  ReplicationMaster(ServerContext* context, boost::asio::io_context& io);
  // Stop()s.
  ~ReplicationMaster();

  // Ends the snapshot workers (each stops at its next chunk; one making a checkpoint finishes
  // it first) and removes the engine's tap. The server calls it when its loop has ended, before
  // the keyspace closes. Idempotent.
  void Stop();

  enum class ReplicaState { kWaitSnapshot, kSendingSnapshot, kOnline };
  // Redis's name for a replica's state in INFO replication's slaveN line (and the metrics'
  // slave_state label): wait_bgsave, send_bulk, online.
  static std::string_view ReplicaStateName(ReplicaState state);
  struct Replica {
    uint64_t client_id = 0;
    std::string ip;
    int listening_port = 0;  // REPLCONF listening-port; 0: not told
    ReplicaState state = ReplicaState::kWaitSnapshot;
    std::string held;              // stream bytes waiting for the snapshot to be sent
    uint64_t ack_offset = 0;       // REPLCONF ACK's
    int64_t ack_time_ms = 0;       // when it last acknowledged (or attached)
    int64_t snapshot_push_ms = 0;  // when a chunk of its snapshot last went out (or it attached)
  };

  // PSYNC from `client`: writes +CONTINUE or +FULLRESYNC to `reply` and attaches the client as a
  // replica. `offset` is the first byte the replica wants (its offset + 1); replid "?" asks
  // for a full resynchronisation.
  void Psync(Client& client, protocol::ReplyWriter& reply, std::string_view replid, int64_t offset);
  // REPLCONF listening-port / ACK from `client` (ignored from a client that is not a replica,
  // as Redis does for ACK).
  void SetListeningPort(Client& client, int port);
  void Ack(Client& client, uint64_t offset, int64_t now_ms);

  // How many online replicas have acknowledged every stream byte up to `offset` (WAIT).
  int64_t CountAcked(uint64_t offset) const;
  // Online replicas whose last acknowledgement is at most `max_lag_s` seconds old
  // (min-replicas-to-write's good replicas).
  int64_t CountGood(int64_t now_ms, int64_t max_lag_s) const;
  // The periodic check (the server's cron), Redis's replicationCron: pings the replicas on the
  // stream every repl-ping-replica-period seconds; sends a newline every second to those
  // waiting for their snapshot to begin (outside the stream: it counts in no offset); drops a
  // replica whose acknowledgements stopped, or whose snapshot made no progress, for longer than
  // repl-timeout; frees the backlog repl-backlog-ttl seconds after the last replica left — the
  // history then restarts under a new ID, so no replica continues from bytes no longer held.
  // While following a master only the timeouts apply (the stream is the master's, pings
  // included).
  void Cron(int64_t now_ms);
  // Asks every replica for an acknowledgement: a GETACK control record goes on the stream once
  // this turn of the event loop is over (one however many callers asked meanwhile), and each
  // replica answers REPLCONF ACK once it has applied everything before it (WAIT, FAILOVER).
  // No effect while following a master or without replicas.
  void RequestAck();
  // The replica FAILOVER TO host port names: the one whose address (the IP it connected from)
  // is `host` and whose REPLCONF listening-port is `port`, or nullptr.
  const Replica* FindByAddress(std::string_view host, int port);
  // CONFIG SET repl-backlog-size: the backlog keeps its newest bytes that fit.
  void ResizeBacklog(size_t capacity) {
    if (backlog_) backlog_->Resize(capacity);
  }
  // Called (on the io thread) after every acknowledgement: the server resumes the WAITs.
  void set_ack_listener(std::function<void()> listener) { ack_listener_ = std::move(listener); }

  // ---- the replica side's history (server/replication/replica.h)

  // The server follows a master from now on: the engine's tap is removed (the link feeds the
  // stream). Idempotent.
  void Follow();
  // A full resynchronisation from the master whose history is `replid`, at stream offset
  // `offset`: every replica of this server is dropped (their data is about to be replaced), the
  // snapshot workers end, and the history restarts as the master's, with an empty backlog
  // at `offset`. The caller then replaces the engine. REQUIRES: following().
  void AdoptMasterHistory(std::string_view replid, uint64_t offset);
  // The link continued (+CONTINUE) with a master whose ID is `replid` at this server's offset:
  // when the ID is new, the old one becomes the second ID (valid up to this offset) and this
  // server's replicas are dropped to learn it, as Redis does.
  void ContinueMasterHistory(std::string_view replid);
  // Stream bytes the link received and applied (whole records): appended to the backlog and
  // sent on to this server's replicas. REQUIRES: following().
  void FeedFromMaster(std::string_view bytes);
  // Promotion (REPLICAOF NO ONE): the master's ID becomes the second one (valid up to this
  // offset + 1), a new ID starts, the tap is installed and this server's replicas are dropped
  // so they resume from it with +CONTINUE. Idempotent.
  void StopFollowing();
  bool following() const { return following_; }

  // INFO stats: full resynchronisations served, partial ones accepted, partial ones refused
  // (answered with a full one instead).
  struct SyncCounts {
    uint64_t full = 0;
    uint64_t partial_ok = 0;
    uint64_t partial_err = 0;
  };
  const SyncCounts& sync_counts() const { return sync_counts_; }

  const ReplicationIds& ids() const { return ids_; }
  // master_repl_offset: the stream bytes produced under this history.
  uint64_t end_offset() const { return backlog_ ? backlog_->end_offset() : 0; }
  // The offset of the last data byte (the end of the last batch or range deletion; control
  // records after it not counted): what a WAIT waits for. <= end_offset().
  uint64_t data_end_offset() const { return data_end_; }
  const ReplicationBacklog* backlog() const { return backlog_.get(); }
  // The attached replicas, in the order they attached (closed ones are dropped first).
  const std::vector<Replica>& replicas();

 private:
  // The tap: one committed record.
  void OnRecord(const storage::ReplicationRecord& record);
  // Streams a control record (storage/replication_record.h) carrying `word`.
  void StreamControl(std::string_view word);
  // Cron's repl-timeout check.
  void DropTimedOut(int64_t now_ms);
  void EnsureBacklog();
  // Appends encoded stream bytes to the backlog and to the replicas' pending bytes.
  void Stream(std::string_view bytes);
  // Stream() for one record, encoded straight into the pending bytes.
  void StreamRecord(const storage::ReplicationRecord& record);
  // Sends the pending bytes to every replica (held for those still waiting for their
  // snapshot), then forgets them.
  void FlushPending();
  void DiscardPending();
  // Closes every replica's connection and forgets them; joins the snapshot workers.
  void DropReplicas();
  Replica* Find(uint64_t client_id);
  // Forgets replicas whose client is gone.
  void DropClosed();
  // The worker of one full resynchronisation.
  void SendSnapshot(uint64_t client_id, std::string dir);
  // Runs `fn` on the io thread and waits for it; false if stopping or the io thread did not run
  // it within a second (then `fn` may still run later: it must hold what it uses).
  bool OnIoThread(std::function<void()> fn);
  void FinishSnapshot(uint64_t client_id);
  void FailSnapshot(uint64_t client_id, const std::string& why);

  ServerContext* context_;
  boost::asio::io_context& io_;
  ReplicationIds ids_;
  std::unique_ptr<ReplicationBacklog> backlog_;
  std::vector<Replica> replicas_;
  std::string record_;   // the encoding buffer while no replica is attached
  std::string pending_;  // stream bytes the replicas have not been given yet (FlushPending)
  TurnEndTask pending_flush_{io_, [this] { FlushPending(); }};  // at the end of a writing turn
  uint64_t snapshots_started_ = 0;
  std::function<void()> ack_listener_;
  std::unordered_map<uint64_t, int> listening_ports_;  // REPLCONF listening-port, by client id
  bool following_ = false;
  SyncCounts sync_counts_;
  int64_t alone_since_ms_ = 0;   // when the last replica left (0: there are replicas)
  int64_t last_ping_ms_ = 0;     // when Cron last pinged the replicas
  int64_t last_newline_ms_ = 0;  // when Cron last sent the waiting replicas a newline
  bool ack_requested_ = false;   // a GETACK is posted for the end of this turn
  uint64_t data_end_ = 0;        // data_end_offset()
  std::atomic<bool> stopping_{false};
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;  // set as its last step: join will not wait
  };
  std::vector<Worker> workers_;
};

}  // namespace ebb::server
