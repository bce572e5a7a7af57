// ActiveActive: this node as one writable peer among several (docs/active-active.md).
//
// The mode. A node is in active-active mode once it has had a peer (`peer host port` at start,
// or PEER ADD): the mode is a system row and stays after the last peer is removed, so no write
// made meanwhile escapes the log. In this mode every client write goes through PlanLocalWrite:
// the commands with a convergent meaning are rewritten into their canonical delta
// (server/active_active/peer_delta.h) and run in that form; the others are refused with
// kRefusedError. A node with data enters the mode with origin offset 1 standing for that data
// (kEntryContentRow; entry_content.h): every peer asks for offset 1 and receives the data as a
// snapshot; the node's own first delta is offset 2 (docs/active-active.md, "The mode").
//
// The origin log. Each delta that originated here gets the next origin offset and is written as
// the system row `aa-log:<offset>` in the SAME engine write as the data it changes (the
// dispatcher opens a keyspace batch around the command), so a crash keeps both or neither, and
// offsets continue across restarts. The newest peer-backlog-size deltas are kept and mirrored in
// memory, pre-encoded for the wire; the rows of older ones leave the disk in bulk (TrimLogRows).
//
// The stream. A peer pulls: its link (server/active_active/peer_link.h) connects, authenticates
// (masterauth / masteruser), asks PEER ID, then PEER SYNC <its node id> <first offset it lacks>.
// This node answers +CONTINUE <end offset> and pushes every delta of its own log from there,
// then each new one as it commits, and a tick (clock, end offset) every 100 ms. Only deltas that
// ORIGINATED here are streamed: nothing received from a peer is forwarded. A peer whose offset
// is older than the log holds (new, long gone, or too slow) gets a snapshot first
// (server/active_active/peer_snapshot.h: +SNAPSHOT, this node's content as canonical deltas,
// then the stream from the snapshot's offset).
//
// Applying. ApplyDeltas runs each of a peer's deltas through the merge gate (merge_gate.h) and the
// command's own handler, and writes `aa-applied:<origin id>` = its offset in the same batch:
// the per-origin vector, so a restarted node resumes each link exactly where it stopped.
// ApplySnapshot runs a peer's snapshot pieces the same way and sets the vector entry to the
// snapshot's offset with its last piece.
//
// What it owns: the mode's rows and this node's id, the origin log (the aa-log rows, mirrored in
// memory), the applied vector (the aa-applied rows), the whole-key markers (whole_key.h), the
// subscribed peers' streams (peer_streams.h), the snapshots being sent, and a link per peer
// (PeerLink, each with its thread). Invariants: a delta logged here is in the engine write of the
// data it changes; the log is one gap-free run of offsets ending at end_offset(), at most
// peer-backlog-size long in memory, and on disk the same run with the rows TrimLogRows has yet to
// delete before it (at most about as many again); an entry of the applied vector changes only in
// the engine write of the deltas or snapshot it counts, and only forward (a new incarnation forgets
// the vector). Where: active_active.cc (the mode, the peers, INFO), local_write.cc (the origin
// side), apply_deltas.cc (the applying side; its working types: apply_state.h), origin_log.cc (the
// log and the stream of it; its working types: origin_log_state.h), whole_key_ops.cc (the whole-key
// writes, both sides).
//
// Thread-safety: every method on the io thread, except applied_offset (any thread: the links
// read it when they connect).
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/active_active/active_active_code.h"
#include "server/active_active/apply_state.h"
#include "server/active_active/counters.h"
#include "server/active_active/local_write.h"
#include "server/active_active/marker_piece.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/mode_rows.h"
#include "server/active_active/origin_log_state.h"
#include "server/active_active/peer_commands.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/peer_streams.h"
#include "server/active_active/series_range.h"
#include "server/active_active/series_rules_state.h"
#include "server/active_active/series_state.h"
#include "server/active_active/stable_vector.h"
#include "server/active_active/whole_key.h"
#include "server/active_active/wire_log.h"
#include "server/core/result.h"
#include "server/dispatch/dispatcher.h"
#include "server/dispatch/write_planner.h"
#include "storage/status.h"
#include "types/or_context.h"
#include "types/or_string_rows.h"

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Client;
class PeerLink;
class ServerContext;
class SnapshotSender;
struct CommandSpec;

class ActiveActive {
 public:
  // The least time between two `collect` deltas of this node (MaybeLogCollect).
  static constexpr int64_t kCollectIntervalMs = 1000;

  // REQUIRES: context (with a keyspace) and io outlive this object.
  ActiveActive(ServerContext* context, boost::asio::io_context& io);
  ~ActiveActive();

  // Reads the mode and, in the mode, the node id, the log and the applied vector from the
  // engine. Called once, before any command runs. A node never in the mode reads one row.
  storage::Status Open();
  // tls-peers: links to peers (at start and PEER ADD) speak TLS with these settings
  // (server/io/tls.h). REQUIRES: set before Start; `tls` outlives this object.
  void set_tls(boost::asio::ssl::context* tls) { peer_tls_ = tls; }
  // Starts a link to every `peer` option. Not OK (kPeerOption..., kStartFailed) if the node
  // cannot enter the mode; kCountersUnderOrRule for the observed-remove rule on a node holding
  // counter state (checked with or without peers).
  Result<ActiveActiveCode> Start();
  // Stops every link (joins their threads). Idempotent.
  void Stop();

  // The text of an outcome other than kOk: the reply's error (server/core/errors.h), or for
  // Start's outcomes the server's start-up error.
  std::string ErrorText(const Result<ActiveActiveCode>& result) const;

  bool enabled() const { return enabled_; }
  // This node's id: 40 hex characters made when it first entered the mode ("" before).
  const std::string& node_id() const { return node_id_; }

  // ---- the origin side: the dispatcher's hook (server/dispatch/dispatcher.cc)

  // What to do with one client write (local_write.h).
  using LocalWrite = ActiveActiveLocalWrite;
  // Plans the client's request `args` (already checked by the dispatcher) on `spec`.
  LocalWrite PlanLocalWrite(const CommandSpec& spec, size_t first_arg,
                            std::span<const std::string_view> args, const Client& client);
  // After the run of a kRun plan inside the open keyspace batch: when `succeeded` (the reply is
  // not an error) logs the delta into the batch; commits the batch either way. Not OK: nothing
  // was written (the caller replaces the reply with the error). *dropped set: what the run
  // changed was discarded, nothing logged (a TRIM whose cut every peer would drop: JudgeOwnCut).
  storage::Status FinishLocalWrite(LocalWrite&& plan, bool succeeded, bool* dropped);
  // Runs a kRunHere plan inside the open keyspace batch, answering `client` into `reply`, and
  // completes its delta (the timestamp it takes). False: nothing to log (EXPIRE answered 0).
  bool RunHere(LocalWrite* plan, Client& client, protocol::ReplyWriter& reply);

  // ---- PEER ADD / REMOVE / LIST / SYNC (server/commands/cmd_peer.cc)

  // Adds a link to host:port (entering the mode). Not OK when refused (kPeerLinked,
  // kPeersOfReplica, kPeersOfNodeWithReplicas, kPeersInCluster, kEngineError).
  Result<ActiveActiveCode> AddPeer(const std::string& host, int port);
  // Refusal: kNoSuchPeer.
  Result<ActiveActiveCode> RemovePeer(const std::string& host, int port);
  using PeerInfo = ActiveActivePeerInfo;
  std::vector<PeerInfo> Peers() const;
  // PEER SYNC from a peer's link: replies +CONTINUE and attaches `client` to the stream from
  // offset `from`; when `from` is no longer in the log, replies +SNAPSHOT and starts sending a
  // snapshot, after which the stream follows.
  using SyncRequest = ActiveActiveSyncRequest;
  void Subscribe(Client& client, protocol::ReplyWriter& reply, const SyncRequest& request);
  // The options that decide what a delta does wherever it is applied, as name/value pairs in
  // CONFIG GET's words: nodes that differ in any would diverge (docs/active-active.md,
  // "Settings"); then the stream's version (kStreamVersionSetting). Any thread (a link sends them
  // with its PEER SYNC): a copy the io thread takes when a link starts and at every Cron.
  std::vector<std::string> SyncSettings() const;
  static constexpr std::array<std::string_view, 6> kSyncSettingNames = {
      "databases",  "default-ttl",           "ttl-rule",
      "expiration", "expiry-purge-deadline", "active-active-string-rule"};
  // After them, the form of the stream this node sends and reads (peer_delta.h: a delta is
  // framed as its log row's bytes since version 2): a node of another version cannot read it.
  static constexpr std::string_view kStreamVersionSetting = "peer-stream-version";
  static constexpr std::string_view kStreamVersion = "2";
  // Deltas skipped as malformed (INFO peers malformed_deltas): the link goes on after one.
  uint64_t malformed_deltas() const { return malformed_deltas_; }
  // DEBUG PEER-LINK host port up|down (a test's partition). Refusal: kNoSuchPeer.
  Result<ActiveActiveCode> SetLinkPaused(const std::string& host, int port, bool paused);

  // ---- the applying side

  // Applies consecutive deltas of origin `origin_id` in ONE engine write with the vector row
  // (those already applied are skipped; a malformed one is skipped too, counted in
  // malformed_deltas). False on a gap (what came before it is applied) or an engine error (none
  // of them is): the link must reconnect. False too at a collect of `origin_id` whose C this
  // node's observed vector does not cover (collect.h, ObservedCovers): the deltas before it are
  // applied, the collect and what follows are not, and the link asks for a snapshot
  // (wants_snapshot) — this node went back behind what it reported, and the stream past the
  // collect would be judged against content and deletes it does not hold yet. The deltas are
  // consumed: each one's args are lower-cased, rewritten and moved from as it is applied (ApplyOne
  // works on them where they stand, so that no delta is copied), and only its offset and db stay as
  // they came.
  bool ApplyDeltas(const std::string& origin_id, std::span<PeerDelta* const> deltas);
  // How a delta reached this node (apply_state.h).
  using Arrival = ActiveActiveArrival;
  using DeltaView = ActiveActiveDeltaView;
  // Applies snapshot pieces of origin `origin_id` (their offset is unused) through the merge gate
  // in ONE engine write; with `end` (the snapshot's offset: this is its last run) the vector
  // entry of `origin_id` becomes max(entry, *end) in that same write. False on an engine error or
  // a malformed piece (none of the run is applied): the link must reconnect. Otherwise
  // *applied_pieces says how many of `pieces` were applied: fewer when the sweep before the next
  // one (below) read its kSweepRows rows first — the rest, and `end`, come in a later call,
  // after a turn of the io loop.
  // Under the observed-remove rule, a snapshot whose first piece is the sender's observed vector
  // (kSnapshotVectorPiece) is joined with it as well (docs/active-active.md, "Collection of
  // observed-remove deletes"): every string slot this node holds that the sender had observed
  // and does not hold goes, as a DEL naming it — in the keys the snapshot carries
  // (ApplyOrStringPiece) and, swept in key order as the pieces pass them, in every key it does
  // not carry (SweepOrRun); the sweep past the last piece runs before `end` (SweepSnapshotTail),
  // what is left of it with `end`. The pieces applied are consumed, as ApplyDeltas's deltas.
  // `arrival`: kStream for DEBUG PEER-APPLY, whose one piece stands for a delta of the origin's
  // stream.
  bool ApplySnapshot(const std::string& origin_id, std::span<PeerDelta* const> pieces,
                     std::optional<uint64_t> end, size_t* applied_pieces,
                     Arrival arrival = Arrival::kSnapshot);
  // Before a snapshot's end (ApplySnapshot with `end`): one bounded run of the sweep past its last
  // piece, in an engine write of its own, so that the link can sweep a large keyspace over several
  // turns of the io loop, other clients served between them; *done once nothing is left to sweep
  // (at once when the snapshot has no vector). False on an engine error: the link must reconnect.
  // While a sweep is under way, a stream's write to a key it has passed is judged by the sender's
  // vector too (StreamObserved).
  bool SweepSnapshotTail(const std::string& origin_id, bool* done);
  // An entry of the applied vector: the last origin offset of a peer applied here (0: none) and
  // the DeltaDigest of that delta ("" after a snapshot, which names no delta).
  struct AppliedPosition {
    uint64_t offset = 0;
    std::string digest;
  };
  // The applied vector's entry of `origin_id`. Any thread.
  AppliedPosition applied_position(const std::string& origin_id) const;
  uint64_t applied_offset(const std::string& origin_id) const {
    return applied_position(origin_id).offset;
  }
  // True when the link to `origin_id` must ask for a snapshot rather than resume: this node took
  // a new incarnation and has applied nothing of that peer since, or that peer's stream brought a
  // collect this node's observed vector does not cover (a barrier: ApplyDeltas) and no snapshot
  // of that peer has been applied since. Any thread.
  bool wants_snapshot(const std::string& origin_id) const;

  // This node's applied vector (stable_vector.h): each origin's last offset applied here, and
  // its own log's last offset under its own id.
  OriginVector AppliedVector() const;
  // What this node has observed of each origin (docs/active-active.md, "Collection of
  // observed-remove deletes"): its applied vector joined with the kKnownRowPrefix rows — a
  // version at or below it that the node does not hold was removed where it was observed.
  OriginVector ObservedVector() const;
  // The vector this node reports in its ticks and counts in S (stable_vector.h): its applied
  // vector as of the engine's last sync that Cron saw, less the retired ids it knows (its own,
  // and those its peers' ticks listed) that are not the id of this node or of a peer it links
  // to now.
  OriginVector ReportedVector() const;
  // The ids this node retired, oldest first (kRetiredRow).
  const RetiredIds& retired_ids() const { return retired_ids_; }
  // Causal stability over the mesh (stable_vector.h): the stable vector of this node's reported
  // vector and every configured peer's (a link to this node itself is no peer), and the largest
  // lag in deltas of a peer behind this node's log, from the vectors the peers' ticks last
  // carried.
  struct Stability {
    OriginVector stable;
    uint64_t largest_lag = 0;
  };
  Stability StabilityNow() const;

  // The server's cron: notes the applied vector against the engine's sequence and promotes what
  // the engine has synced (SyncedVector), ticks (with the reported vector and the retired ids)
  // to every subscribed peer, drops those whose client went.
  void Cron(int64_t now_ms);
  // INFO peers.
  void AppendInfo(std::string* out) const;

  uint64_t end_offset() const { return end_offset_; }
  // The wire bytes of every delta logged since this process opened the log (the stream's byte
  // position: lag in bytes is the difference of two of them).
  uint64_t end_bytes() const { return end_bytes_; }
  // Snapshots this node has started sending since it started (INFO peers).
  uint64_t snapshots_sent() const { return snapshots_sent_; }
  // Streams stopped at a collect this node had not observed (ApplyDeltas), since it started.
  uint64_t collect_barriers() const { return collect_barriers_; }
  // The whole-key marker and horizon rows held (INFO peers markers_pending; whole_key.h).
  uint64_t markers_pending() const { return whole_key_->rows_held(); }
  // This node's last `collect` C (collect.h; INFO peers last_collect): per origin id, the offset
  // it covers.
  OriginVector last_collect() const { return OriginVectorOf(own_collect_); }
  uint64_t skewed_writes() const { return skewed_writes_; }
  // Logs `collect <C>`, C this node's last joined with `stable`, and commits it to the WAL: when
  // one is due (MaybeLogCollect), and at once for DEBUG PEER-COLLECT, a test's stand-in for the
  // mesh's stable vector, which promises that every node has applied every delta `stable` names.
  storage::Status LogCollect(const types::OrContext& stable);
  // Gives the peers' streams the deltas queued for them (PeerStreams::Flush), which the end of
  // each turn of the io loop does. A host that runs no io loop (the tests' CommandRunner) calls
  // it after each request, its turn.
  void FlushToSubscribers() { streams_.Flush(); }

 private:
  // Hands the synced observed vector to the compaction filter when it changed, so that
  // compaction collects the observed-remove tombstones below it (docs/active-active.md,
  // "Collection of observed-remove deletes").
  void ShareCollectionVector();
  // Logs a `collect` (collect.h) when one is due: at most one a kCollectIntervalMs, and only when
  // the stable vector covers a delete entry this node holds beyond its last one. Its C is the
  // stable vector joined with the last C. It commits the collect to the WAL before returning
  // (CommitWalNow, server/services/wal_commit.h): no client's write commits it.
  void MaybeLogCollect();
  // Reads this node's own collect row into own_collect_.
  storage::Status LoadOwnCollect();
  // Appends `delta` (offset end_offset_ + 1) to the origin log in the open batch, commits it
  // and streams it: the one way this node logs a delta of its own. `string_delta`: the string
  // version it writes, if any (NoteExpiringDelta).
  storage::Status LogOwnDelta(PeerDelta delta, const StringDelta* string_delta);
  // Reads the node id, or makes and persists one.
  storage::Status LoadNodeId();
  // Reads kRetiredRow into retired_ids_.
  storage::Status LoadRetiredIds();
  // kRetiredRow's value once `id` is retired too (the newest kMaxVectorOrigins).
  RetiredIds RetiredWith(const std::string& id) const;
  // The applied vector's rows: aa-applied:<origin id> = "<offset>[ <digest>]".
  static std::string AppliedRowName(std::string_view origin);
  static std::string EncodeAppliedRow(const AppliedPosition& position);
  // False if `row` is malformed.
  static bool DecodeAppliedRow(std::string_view row, AppliedPosition* position);
  // Stops every link and starts it again under the current node id, as paused as it was.
  void RestartLinks();
  // The system row of the log's delta at `offset`: aa-log:<offset as 20 decimal digits>, so
  // rows sort by offset.
  static std::string LogRowName(uint64_t offset);
  // The engine key of the log row at `offset` (Keyspace::SystemRowKey(LogRowName(offset))) in
  // place, no heap block: the origin's write path makes one or more per logged delta.
  class LogRowKey {
   public:
    explicit LogRowKey(uint64_t offset);
    std::string_view view() const { return {bytes_.data(), bytes_.size()}; }

   private:
    // The system rows' key prefix, the name's prefix, the offset's digits.
    std::array<char, types::Keyspace::kSystemRowKeyPrefix.size() + kLogRowPrefix.size() + 20>
        bytes_;
  };
  // Loads the origin log's rows: the newest gap-free run, at most peer-backlog-size long; older
  // rows (a gap left by an earlier run, or a backlog since made smaller) are deleted.
  storage::Status LoadLog();
  uint64_t LogCapacity() const;  // peer-backlog-size, at least 1
  // Drops the `count` oldest deltas from log_ (not from the engine); returns `count`.
  size_t DropLogFront(size_t count);
  // Notes a delta just added to log_ for ReduceExpiredLogRows: a value row (LoggedValueOf) in
  // value_row_heads_, and in expiring_ when its value has an expiry of its own (a put's PXAT, a
  // TLOG entry's retention window); an expiry change (`expiry-at`) as NoteRegisterChange. `loading`
  // (LoadLog): a row without such an expiry is judged by the next pass, since a register may
  // have covered it before the restart. `string_delta`: the delta's, already parsed (a client's
  // string write), or null.
  void NoteExpiringDelta(const PeerDelta& delta, bool loading = false,
                         const StringDelta* string_delta = nullptr);
  // The expiry register of `key` changed (a logged or applied `expiry-at`, a snapshot's
  // `marker-at`): its value rows (value_row_heads_, value_rows_put_back_) leave for the next
  // pass, which judges them again.
  void NoteRegisterChange(int db, std::string_view key);
  // Drops from expiring_, value_row_heads_ and value_rows_put_back_ the rows that left the log
  // (and duplicates), once one holds more than twice the log's length.
  void SweepExpiryIndexes();
  // The purge deadline in the origin log (docs/active-active.md, "The origin log"): each logged
  // value (a put, a TREG SET, a TLOG INS) that has expired by the retention of the rows' dead
  // versions (storage::KeptExpiredRetentionMs; LoggedValueExpiry says when it expires) is
  // rewritten into its reduced form (ReducedValueDelta) in log_ and on disk, in one
  // engine write that also range-deletes the run of rows it rewrites (rows between them are
  // written again as they are), so compaction purges their value bytes. A pass every
  // min(deadline/8, 60 s), at least 100 ms apart; each rewrites at most 4,096 rows (16 MB), and
  // one that left due rows behind is followed by the next 100 ms later.
  void ReduceExpiredLogRows(int64_t now_ms);
  // The entries of expiring_ due (expire_at <= due_at_or_before) whose delta the log still
  // holds, taken out of it: offset -> expire_at.
  std::map<uint64_t, int64_t> TakeDueExpiring(int64_t due_at_or_before);
  using ReducedRun = ActiveActiveReducedRun;
  // Reads the run of rows from `due`'s first offset into *run (at most 4,096 rows, 16 MB), the
  // due value rows among them reduced when their value expired by `due_at_or_before` (the others go
  // back into expiring_ with their expiry); returns the first of `due` it did not reach.
  std::map<uint64_t, int64_t>::const_iterator ReadReducedRun(const std::map<uint64_t, int64_t>& due,
                                                             int64_t due_at_or_before,
                                                             ReducedRun* run);
  // When the logged value `logged` of database `db` expires here (nullopt: never, unless a
  // register changes): a put's own PXAT; a TLOG entry's retention window (the log's, else its
  // policy's); the key's expiry register's when it covers the value (ts <= its T) — replacing a
  // put's, a TREG pair's, and, for a TLOG entry, only when the register expires the log whole
  // (the entries it hides in a live log stay stored), the earlier of it and the window.
  // INT64_MAX when the engine cannot be read (not now).
  std::optional<int64_t> LoggedValueExpiry(int db, const LoggedValue& logged);
  // A logged `ts-merge` delta (first_digest: the row's digests of its earlier forms, empty unless
  // rewritten already) without its samples below their series' purge floor (series_purge.h)
  // into *reduced: true when it drops any. A row rewritten 8 times is not rewritten again; one
  // that keeps samples a floor may pass goes back into expiring_, to be judged again a quarter
  // of the half deadline later.
  bool ReduceSeriesRow(const PeerDelta& delta, std::string_view first_digest,
                       int64_t due_at_or_before, std::optional<PeerDelta>* reduced);
  // Deletes from the engine every log row older than log_'s first (one range deletion).
  // REQUIRES: log_ not empty.
  storage::Status DeleteLogRowsBeforeFront();
  // The rows that left log_ leave the disk in bulk (docs/active-active.md, "The origin log"):
  // DeleteLogRowsBeforeFront once as many rows left log_ as it holds (at least
  // kMinLogRowsTrimmed), or LogPassIntervalMs after a Cron first found rows waiting. Called by
  // Cron.
  void TrimLogRows(int64_t now_ms);
  // How often the log's upkeep passes run (ReduceExpiredLogRows, TrimLogRows' wait):
  // expiry-purge-deadline / 8 within [100 ms, 60 s]; 60 s without a deadline.
  int64_t LogPassIntervalMs() const;
  static constexpr uint64_t kMinLogRowsTrimmed = 65536;
  enum class ApplyOutcome { kApplied, kMalformed, kEngineError };
  // A peer's delta this node could not apply for the engine's failure `s`, logged: kEngineError.
  static ApplyOutcome NotApplied(const std::string& origin_id, const PeerDelta& delta,
                                 const storage::Status& s);
  // A peer's delta in no form this node applies, logged and skipped: kMalformed.
  static ApplyOutcome Malformed(const std::string& origin_id, const PeerDelta& delta);
  // The form of a DEL, UNLINK, FLUSHDB or FLUSHALL (peer_delta.h: `del-at`, ...) with its T taken
  // from what the keys hold here (whole_key.h).
  void PlanWholeKeyDelete(std::vector<std::string> form, LocalWrite* plan);
  // The merge gate's verdict on a client's string, TREG or TLOG delta: false when the plan is
  // decided (refused: another type has precedence). *loses: a string version not greater than the
  // one held (the timestamp rule), answered +OK once the key's markers (AdmitLocal) have not
  // refused it.
  // A string delta is judged as plan->string_delta, already parsed.
  bool JudgeLocal(const std::vector<std::string>& delta, LocalWrite* plan, bool* loses);
  // A client's `tlog clr key` or `tlog trim key 0` form becomes `tlog trimat key 2^64-1` when the
  // log shows an entry at 2^64-1: the clear travels as that TRIMAT (the cutoff it leaves), which
  // keeps such an entry on every peer, so it keeps it here too. False when the plan is decided
  // (refused: the log could not be read).
  bool ClearAsItTravels(std::vector<std::string>* form, LocalWrite* plan);
  // active-active-string-rule is observed-remove: a client's string write and DEL go by
  // PlanOrWrite and OrDeleteContext, a snapshot carries string keys as `or-string` pieces and the
  // INCR family is refused. Otherwise (timestamp) string writes merge by last-writer-wins.
  bool ObservedRemoveRule() const;
  // A client's string write (`put`, `delete`) planned by the observed-remove rule
  // (or_string_origin.cc): the key's rows loaded into or_rows_ (the one read of the key), another
  // type refused, the markers asked (AdmitLocal), then a version not above the winner held here
  // answered +OK and anything else run by RunOrString with the context it carries.
  void PlanOrWrite(std::vector<std::string> form, LocalWrite* plan);
  // RunHere's string write: its slot (this node, its delta's offset) stored into or_rows_'s rows
  // and its delta given `CTX <context>`; answered and signalled as the PUT or DELETE handler does.
  bool RunOrString(LocalWrite* plan, protocol::ReplyWriter& reply);
  // RunHere's string write by the timestamp rule: plan->string_delta written (WriteVersion),
  // answered and signalled as the PUT or DELETE handler does.
  bool RunStringVersion(LocalWrite* plan, protocol::ReplyWriter& reply);
  // What RunStringVersion and RunOrString do once `version` is written into the batch, as the
  // PUT or DELETE handler does: a put already expired at `now_ms` counted, the key's change
  // signalled ("put" or "delete"), +OK replied.
  void AnswerStringVersion(int db, const StringDelta& version, int64_t now_ms,
                           protocol::ReplyWriter& reply);
  // A put's or a delete's version written into the open batch by the string type (types::Kv)
  // as the delta says: what the PUT or DELETE handler writes, on the origin and on a peer; a
  // put-expired's, the dead version compaction reduces an expired put to (Kv::PutReduced).
  types::OpResult<void> WriteVersion(int db, const StringDelta& version);
  // RunHere's counter writes (counters.h): an INCR family form settled into the origin's new
  // record (and a base "0" for a key absent or expired here), or a SET, PUT or DELETE of a counter
  // key into a base observing every record held here; merged, written and answered as Redis
  // would. False: nothing to log (a version that loses, or an error replied).
  bool RunCounter(LocalWrite* plan, protocol::ReplyWriter& reply);
  // RunCounter's INCR family and string write halves.
  bool RunCounterIncr(LocalWrite* plan, types::CounterState state, const KeyMarker& marker,
                      protocol::ReplyWriter& reply);
  bool RunCounterBase(LocalWrite* plan, types::CounterState state, const KeyMarker& marker,
                      protocol::ReplyWriter& reply);
  // Whether a delete this node's last collect does not cover covers the base and record an
  // increment at `record_ts` makes under `marker` (the key's every delete), as every peer judges
  // them (ApplyCounter): only a delete at INT64_MAX can. Covered, they are answered, not written.
  storage::Status NewPartsCovered(int db, int64_t record_ts, const KeyMarker& marker,
                                  bool* covered);
  // True when a client's string write (`put`, `delete`) names a key that holds a counter here.
  bool IsCounterWrite(int db, const std::vector<std::string>& form);
  // A peer's `counter` delta, or a string delta reaching a key that holds a counter, merged into
  // the key's state (counters.h) in the open batch, its base and records judged by its view
  // (JudgingView).
  ApplyOutcome ApplyCounter(const std::string& origin_id, const PeerDelta& delta,
                            std::vector<std::string> args, Arrival arrival);
  // RunHere's TS writes (series_state.h): judged as RedisTimeSeries would on this node, merged
  // as a record of this node's and answered; the delta is the `ts-merge` of what it wrote.
  // False: nothing to log (an error replied, or every sample covered by a delete).
  bool RunSeries(LocalWrite* plan, protocol::ReplyWriter& reply);
  // RunSeries' parts: TS.CREATE / TS.ALTER, and one sample (TS.ADD, a TS.MADD triple,
  // TS.INCRBY / TS.DECRBY). Each returns "" or the error to reply; *group gets what to log.
  std::string RunSeriesSettings(int db, const std::vector<std::string>& form, SeriesGroup* group);
  struct SeriesSampleWrite {
    std::string_view key;
    int64_t ts = 0;
    double value = 0;
    bool incr = false;  // value is an increment of the newest value (policy LAST)
    types::DuplicatePolicy on_duplicate = types::DuplicatePolicy::kUnset;
    const types::SeriesSettings* create = nullptr;  // nullptr: the series must exist
  };
  std::string RunSeriesSample(int db, const SeriesSampleWrite& write, SeriesGroup* group);
  // A peer's `ts-merge` delta (or snapshot piece) into the open batch, judged by its view
  // (JudgingView).
  ApplyOutcome ApplySeries(const std::string& origin_id, const PeerDelta& delta,
                           const std::vector<std::string>& args, Arrival arrival);
  // Wipes a key of a type below a series' (as the gate does for a higher type's write) and
  // merges `group` under the key's deletes that `view` does not cover (WholeKeyMarkers::Marker;
  // the origin's last collect, nullptr: every delete); a sample or register they cover is
  // dropped, and the key's floor rises to the series'.
  storage::Status MergeSeries(int db, const SeriesGroup& group, const types::OrContext* view);
  // RunSeries' TS.DEL (`ts-del key from to`, series_range.h): RedisTimeSeries' reply and errors
  // judged here, the samples in the range removed by a marker stamped after them; true when
  // plan->args is the `ts-delrange` delta to log.
  bool RunSeriesRangeDelete(LocalWrite* plan, protocol::ReplyWriter& reply);
  // A peer's `ts-delrange` delta (or snapshot piece) into the open batch, judged by its view
  // (JudgingView).
  ApplyOutcome ApplySeriesRange(const std::string& origin_id, const PeerDelta& delta,
                                const std::vector<std::string>& args, Arrival arrival);
  // Joins `markers` into `key`'s set, but those a whole-key delete of the key that `view` does
  // not cover already covers (MergeSeries' view).
  storage::Status MergeSeriesRange(int db, const std::string& key,
                                   std::span<const types::SeriesRangeMarker> markers,
                                   const types::OrContext* view, uint64_t* removed_visible);
  // RunSeries' TS.CREATERULE / TS.DELETERULE (series_rules_state.h): judged as RedisTimeSeries
  // would on this node, the rule register written and settled; the delta is its `ts-rule`.
  bool RunSeriesRule(LocalWrite* plan, protocol::ReplyWriter& reply);
  // A peer's `ts-rule` delta into the open batch.
  ApplyOutcome ApplySeriesRule(const std::string& origin_id, const PeerDelta& delta,
                               const std::vector<std::string>& args);

  // RunHere's EXPIRE / PERSIST: Redis's reply judged on this node's state.
  bool RunExpiry(LocalWrite* plan, protocol::ReplyWriter& reply);
  // A cut of this node's log `key` to cutoff **cut (a TRIM or CLR, or the entries an expiry
  // register hid) judged as every peer judges the TRIMAT it travels as, by this node's last
  // collect: *cut reset when a delete covers it, for every peer drops it. Only entries another
  // origin wrote below a delete after its collect covered it, which this node's does not yet, lie
  // there (docs/active-active.md, "Merge rules", TLOG). REQUIRES: *cut holds a value.
  storage::Status JudgeOwnCut(int db, const std::string& key, std::optional<uint64_t>* cut);
  // A data write's canonical `plan` (kRun) against the delete markers: covered (+OK, nothing
  // written), below the key's type floor (WRONGTYPE), or run here after raising a log's cutoff.
  void AdmitLocal(LocalWrite* plan);
  // A `collect` delta or a snapshot's `collect-of` piece (collect.h) into the open batch: joins
  // its C into its origin's row.
  ApplyOutcome ApplyCollect(const std::string& origin_id, const PeerDelta& delta,
                            const std::vector<std::string>& args);
  // Joins `collect` into `origin`'s collect row (and into own_collect_ for this node's own).
  storage::Status JoinCollectRow(const types::OriginId& origin, const types::OrContext& collect);
  // `origin`'s collect row (`aa-collect:`), read through the open batch; empty when there is
  // none, Corruption when it does not decode.
  storage::Status ReadCollectRow(const types::OriginId& origin, types::OrContext* collect);
  // The join of every collect row held (a snapshot's `collects-known` piece).
  storage::Status KnownCollects(types::OrContext* known);
  // The view a data delta of `origin_id` is judged by (WholeKeyMarkers::Judge, ::Marker), into
  // view->collects: over the stream its origin's collect row, read through the open batch
  // (view->held keeps it; within ApplyDeltas's batch, stream_collect_ does, read once); in a
  // snapshot the collects its sender knew (SnapshotReceipt::sender_collects), or nullptr — every
  // delete — when the snapshot carried none; nullptr too, reading nothing, when this node holds no
  // delete marker.
  storage::Status JudgingView(const std::string& origin_id, Arrival arrival, DeltaView* view);
  // False when `delta`, from `origin_id`'s stream, is a collect of that origin whose C this
  // node's observed vector does not cover (ApplyDeltas's barrier); true for any other delta.
  bool StreamMayPass(const std::string& origin_id, const PeerDelta& delta) const;
  // A peer's whole-key delta (del-at, flushdb-at, flushall-at) into the open batch.
  ApplyOutcome ApplyWholeKey(const std::string& origin_id, const PeerDelta& delta,
                             const std::vector<std::string>& args, Arrival arrival);
  // One delta into the open batch. Consumes delta.args (ApplyDeltas): the appliers it calls take
  // them as `args`, lower-cased and perhaps rewritten, and may move from them.
  ApplyOutcome ApplyOne(const std::string& origin_id, PeerDelta& delta, Arrival arrival);
  // Hints the engine at the keys `deltas` write (WrittenKeyOf; types::Keyspace::PrefetchMeta)
  // before they are applied, so that their reads of the held versions overlap their cache
  // misses; ApplyDeltas hands it kHintedDeltas at a time. Changes nothing.
  void HintDeltaKeys(std::span<PeerDelta* const> deltas);
  static constexpr size_t kHintedDeltas = 16;
  // A peer's string delta that carries `CTX <context>` (or_string_ops.cc), parsed from *args
  // (`parsed`, which views its elements) and `context` that CTX decoded (DecodeDeltaContext):
  // through the key's markers its view does not cover (JudgingView), then by the observed-remove
  // rule into the key's rows, its write the slot (origin, delta.offset); no handler runs.
  // Malformed without an offset. REQUIRES: args[0] lower-case.
  ApplyOutcome ApplyOrString(const std::string& origin_id, const PeerDelta& delta,
                             types::OrContext context, StringDelta parsed,
                             std::vector<std::string>* args, Arrival arrival);
  // A peer's `del-or` (marker_piece.h): the keys of other types as del-at's, each string key's
  // slots its origin had observed removed (no deleted_up_to raised for them).
  ApplyOutcome ApplyDelOr(const std::string& origin_id, const PeerDelta& delta,
                          const std::vector<std::string>& args);
  // A snapshot's `or-string` piece (peer_snapshot.h): each slot judged by the key's markers as
  // the delta that wrote it (by the snapshot's view: JudgingView), the admitted ones joined with
  // the sender's R into the key's state.
  ApplyOutcome ApplyOrStringPiece(const std::string& origin_id, const PeerDelta& delta,
                                  const std::vector<std::string>& args, Arrival arrival);
  // The row of the slot a string delta writes: a put's value, a delete's tombstone, a
  // put-expired's rank (types/or_string_rows.h).
  static types::OrSlotRow SlotRowOf(const StringDelta& delta);
  // The context a DEL made here gives string key `key` (every slot held: OrLocalDeleteContext;
  // empty for a key under the rule whose slots are all removed); nullopt when the key holds no
  // string, another type or a counter (deleted under T).
  storage::Status OrDeleteContext(int db, const std::string& key,
                                  std::optional<types::OrContext>* context);
  // A `del-or` on this node or from a peer, the delta at `dot`: its keys of other types deleted
  // under T, each string key's slots its context names removed (ApplyOrToKey), every key's change
  // noted.
  storage::Status DeleteByDelOr(int db, const DelOr& del, const types::Dot& dot);
  // The dot the delta this node logs next will have: what its whole-key operations record in the
  // markers they write before FinishLocalWrite logs them (marker_entries.h).
  types::Dot NextOwnDot() const { return {own_origin_, end_offset_ + 1}; }
  // The dot of a peer's `delta` from `origin_id` (the pre-mode origin for an id that is not a
  // node id, which only DEBUG PEER-APPLY can give).
  static types::Dot DotOfDelta(std::string_view origin_id, const PeerDelta& delta);
  // A snapshot being received from a peer (apply_state.h).
  using SnapshotReceipt = ActiveActiveSnapshotReceipt;
  // The kKnownRowPrefix row of `origin`, and whether `offset` raises what known_ holds for it.
  static std::string KnownRowName(std::string_view origin);
  bool RaisesKnown(const std::string& origin, uint64_t offset) const;
  // Writes into the open keyspace batch the kKnownRowPrefix rows `observed` raises; NoteKnown
  // raises known_ (and known_or_) once they are committed.
  storage::Status RaiseKnown(const OriginVector& observed);
  void NoteKnown(const OriginVector& observed);
  // Starts a receipt for `origin_id` from a vector piece; false when the piece is malformed (the
  // snapshot is then joined without it). `sweeps`: string slots are judged by the vector (the
  // observed-remove rule: SnapshotReceipt::sender_vector); under both rules the vector joins the
  // observed one at the end.
  bool StartReceipt(const std::string& origin_id, const std::vector<std::string>& args,
                    bool sweeps);
  // Before applying `piece` of the receipt's snapshot: sweeps the keys of its database after the
  // last one passed, up to its key (that key too unless the piece is an `or-string` piece, which
  // ApplyOrStringPiece joins with the vector), reading at most *rows_left rows (counted off).
  // *reached: the sweep got there, and the piece is to be applied now; otherwise it goes on from
  // where it stopped in a later call. Pieces whose key is unknown, and key markers (which come
  // before every key), sweep nothing.
  storage::Status SweepBeforePiece(SnapshotReceipt* receipt, const PeerDelta& piece,
                                   size_t* rows_left, bool* reached);
  // A run of a sweep reads at most kSweepRows rows and keeps at most kSweepKeys keys that hold
  // slots (SweepOrRun).
  static constexpr size_t kSweepKeys = 1024;
  static constexpr size_t kSweepRows = 4096;
  // One run of the sweep past the last piece (SweepOrRun), on through the databases while its
  // rows last; *done once every database is swept to its end.
  storage::Status SweepTailRun(SnapshotReceipt* receipt, bool* done);
  // At the snapshot's end: sweeps every database past the last key passed.
  storage::Status SweepRemaining(SnapshotReceipt* receipt);
  // Removes from every observed-remove string key of `db` at keyspace positions [lower, upper)
  // (types::Keyspace::KeyPosition) the slots the sender had observed (at or below `sender_vector`):
  // the snapshot carried none of those keys, so it held none of those slots (types/or_string.h,
  // OrRemovedBySender). One run: up to *rows_left rows read (counted off) and kSweepKeys keys that
  // hold slots; *next is where the next run starts (upper when the range is done), and may alias
  // lower.
  storage::Status SweepOrRun(int db, const std::string& lower, const std::string& upper,
                             const types::OrContext& sender_vector, std::string* next,
                             size_t* rows_left);
  // The observed vector a stream's write at `key` is judged by: known_or_, joined with the vector
  // of each snapshot under way whose sweep has passed the key (the sender held none of its slots
  // there that this node does not hold now). `room` holds the join when there is one.
  const types::OrContext& StreamObserved(int db, std::string_view key,
                                         types::OrContext* room) const;
  // ObservedVector() as dots' origins, read once per ApplySnapshot (own_vector_).
  const types::OrContext& OwnVectorForSnapshot();
  // The first keyspace position a sweep of `db` has not passed (SnapshotReceipt::sweep_from).
  std::string FirstUnswept(const SnapshotReceipt& receipt, int db) const;
  // A change of one string key's observed-remove state (ApplyOrWrite, ApplyOrDelete).
  using OrKeyChange = std::function<types::OrApplied(types::OrStringRows*)>;
  // Loads `key`'s state, applies `change`, stores it when it changed and notes the key's change
  // (WATCH, tracking, the `expired` index) — nothing when OrStringHolds says no.
  storage::Status ApplyOrToKey(int db, const std::string& key, const OrKeyChange& change);
  // *holds: `key`, whose rows are `rows`, may hold a string by the rule here (no other type held,
  // no type floor above strings).
  storage::Status OrStringHolds(int db, const std::string& key, const types::OrStringRows& rows,
                                bool* holds);
  // A peer's data delta and what runs it (apply_state.h).
  using PeerWrite = ActiveActivePeerWrite;
  // The data delta *args (lower-cased) resolved, its words moved into the write; nullopt, *args
  // left as it was, when it is no known operation.
  std::optional<PeerWrite> ResolvePeerWrite(std::vector<std::string>* args) const;
  // A data delta through the key's markers (whole_key.h) and the merge gate into the open batch.
  ApplyOutcome ApplyPeerWrite(const std::string& origin_id, const PeerDelta& delta,
                              PeerWrite* write, Arrival arrival);
  // Writes a data delta the markers and the gate admitted (a string version or a reduced put is
  // written as it is, a reduced entry or pair raises the key's type floor, and the command's
  // handler runs a TLOG or TREG write), then settles the key's expiry when `admission` says so.
  ApplyOutcome WritePeerDelta(const std::string& origin_id, const PeerDelta& delta,
                              const PeerWrite& write, const std::string& key,
                              const WholeKeyMarkers::Admission& admission);
  // A peer's put or delete written (WriteVersion) with no command run: the key's change noted as
  // a peer's (NoteKeyChange) and a put that arrives expired counted.
  ApplyOutcome WriteStringVersion(const std::string& origin_id, const PeerDelta& delta,
                                  const StringDelta& version);
  // Commits the open batch of applied deltas or pieces, with the vector row of `origin_id` =
  // *applied when given (synced under wal-fsync always); the batch is discarded on failure.
  storage::Status CommitApplied(const std::string& origin_id,
                                std::optional<AppliedPosition> applied);
  // This node's log ends before what it once streamed (a power cut lost its tail, or its data
  // directory was restored from a copy): its offsets from there would name other deltas than
  // its peers applied. It takes a new node id, forgets its applied vector (so every peer sends
  // it a snapshot, bringing back what it lost) and closes every stream and link, which
  // reconnect under the new id (docs/active-active.md, "A node behind what it streamed").
  void TakeNewIncarnation(std::string_view why);
  // Tells compaction to keep keys' newest dead versions, for good (the mode never ends).
  void KeepNewestDeadVersions();
  storage::Status EnterMode();
  // A write whose timestamp `ts` is ahead of the clock by more than max-clock-skew: refused
  // (kClockSkew) under max-clock-skew-action refuse, else counted in skewed_writes.
  Result<ActiveActiveCode> CheckClockSkew(int64_t ts, int64_t now_ms);
  // Plans a client's write from its row's write form (server/core/write_form.h): refused,
  // validated, answered +OK (a string version that loses) or run and logged.
  void PlanForm(WriteForm form, int64_t now_ms, LocalWrite* plan);
  // The first origin offset the log holds (end_offset_ + 1 when it is empty).
  uint64_t LogFirst() const;
  // True when a peer's view of this node's log (it applied up to `from` - 1, that delta's digest
  // `digest`) contradicts the log: more than it holds, or another delta at that offset.
  bool PeerAppliedOtherDeltas(uint64_t from, std::string_view digest) const;
  // The index in log_ of the delta at origin offset `from` (log_.size() for end_offset_ + 1), or
  // nullopt when the log cannot stream from there (the peer needs a snapshot).
  std::optional<size_t> LogIndex(uint64_t from) const;
  // Replies +CONTINUE (when `reply` is given) and streams log_ from `index` (from LogIndex) to
  // `client`, attaching it as a subscriber.
  void StreamFrom(Client& client, protocol::ReplyWriter* reply, std::string_view peer_id,
                  size_t index);
  // A snapshot's transfer ended: when complete, the stream from its offset follows.
  void SnapshotDone(SnapshotSender* sender, bool complete);
  void StartLink(const std::string& host, int port);
  // Takes this node's SyncSettings() from the option table (io thread).
  void RefreshSyncSettings();
  // The `peer` lines CONFIG REWRITE writes: the running links.
  void RecordPeers();

  ServerContext* context_;
  boost::asio::io_context& io_;
  std::string node_id_;
  bool enabled_ = false;
  uint64_t end_offset_ = 0;  // the last origin offset given
  uint64_t end_bytes_ = 0;   // see end_bytes()
  WireLog log_;              // oldest first
  // FinishLocalWrite's buffers, kept between writes: the log row's encoding and the wire form
  // (copied into log_; the log's load and its reduction of expired values encode there too).
  std::string row_scratch_;
  std::string wire_scratch_;
  // The last logged write's arguments and the views of its plan: the next write's room, so a
  // write of the same shape allocates neither.
  std::vector<std::string> spare_args_;
  std::vector<std::string_view> spare_views_;
  std::vector<std::string_view> hinted_keys_;  // HintDeltaKeys's, kept between batches
  // This node's id as the raw origin of its dots (node_id_ decoded), and the observed-remove rows
  // of the key a string write was planned on (PlanOrWrite to RunOrString).
  types::OriginId own_origin_;
  types::OrStringRows or_rows_;
  std::map<std::string, AppliedPosition> applied_;   // origin id -> what was applied
  std::map<std::string, SnapshotReceipt> receipts_;  // by sender id (ApplySnapshot)
  OriginVector known_;                               // the kKnownRowPrefix rows (io thread)
  types::OrContext known_or_;     // known_ as dots' origins: the stream's filter (ApplyOrString)
  SyncedVector synced_observed_;  // ObservedVector() as of the last sync: what compaction uses
  std::optional<types::OrContext> own_vector_;  // OwnVectorForSnapshot's, for one call
  std::atomic<bool> resync_ = false;            // kResyncRow is set
  // Peers whose stream stopped at a collect this node's observed vector did not cover, until a
  // snapshot of theirs is applied (ApplyDeltas; guarded by applied_mu_).
  std::set<std::string, std::less<>> snapshot_wanted_;
  SyncedVector synced_vector_;      // the applied vector as of the last sync
  OriginVector collection_vector_;  // synced_observed_'s, last handed over
  using StreamCollect = ActiveActiveStreamCollect;
  std::optional<StreamCollect> stream_collect_;  // while ApplyDeltas has a batch open
  // This node's last `collect` (its own collect row) and when Cron last logged one.
  types::OrContext own_collect_;
  std::chrono::steady_clock::time_point last_collect_;
  RetiredIds retired_ids_;                  // see retired_ids()
  mutable std::mutex applied_mu_;           // guards applied_ and sync_settings_ for the links
  std::vector<std::string> sync_settings_;  // see SyncSettings()
  PeerStreams streams_;                     // the subscribed peers' streams of this node's deltas
  std::vector<std::unique_ptr<SnapshotSender>> snapshots_;  // transfers in progress
  uint64_t snapshots_sent_ = 0;
  uint64_t collect_barriers_ = 0;  // streams stopped at a collect not observed (ApplyDeltas)
  std::vector<std::unique_ptr<PeerLink>> links_;
  boost::asio::ssl::context* peer_tls_ = nullptr;  // tls-peers' client settings, or null
  std::unique_ptr<WholeKeyMarkers> whole_key_;
  std::unique_ptr<Counters> counters_;
  std::unique_ptr<Client> applier_;  // the client deltas run as
  Dispatcher dispatcher_;
  uint64_t skewed_writes_ = 0;
  std::atomic<uint64_t> malformed_deltas_ = 0;  // counted where deltas are applied
  int64_t last_tick_ms_ = 0;
  // The value rows to judge, by when their value expires: expire_at -> offset (INT64_MIN: at
  // the next pass). Entries of deltas that left log_ are dropped as met, or swept.
  std::multimap<int64_t, uint64_t> expiring_;
  // The value rows of log_ (LoggedValueOf) for NoteRegisterChange, by a hash of their database
  // and key (ValueRowsKey in origin_log.cc): the newest one's offset, from which each row links
  // to the one before it (LogEntry::prev_value_row) — a write notes its row with one lookup in a
  // flat table and a link in its own entry, not a per-key list somewhere else in memory. Heads
  // of rows that left the log are swept.
  boost::unordered_flat_map<uint64_t, uint64_t> value_row_heads_;
  // The rows a pass judged and put back (ReadReducedRun): older than the heads, so kept apart,
  // by the same hash; value_rows_put_back_count_ offsets in all.
  std::unordered_map<uint64_t, std::vector<uint64_t>> value_rows_put_back_;
  size_t value_rows_put_back_count_ = 0;
  // The deltas of log_ rewritten into their reduced form: offset -> the DeltaDigest of the delta
  // as first logged, which a peer that applied it sends with PEER SYNC.
  std::map<uint64_t, std::string> first_digests_;
  int64_t next_reduce_ms_ = 0;  // ReduceExpiredLogRows' next pass
  // The oldest log row on disk: the rows there are the gap-free run [disk_log_first_,
  // end_offset_], log_'s and the ones before it that TrimLogRows has yet to delete.
  uint64_t disk_log_first_ = 1;
  // The first Cron that found rows left log_ still on disk (0: none waits).
  int64_t log_rows_left_since_ms_ = 0;
};

}  // namespace ebb::server
