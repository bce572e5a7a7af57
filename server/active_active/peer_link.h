// PeerLink: this node's link to one active-active peer, pulling the deltas that originated there
// (docs/active-active.md, "Links").
//
// The link is a thread of its own speaking RESP (hiredis's reader parses the handshake's replies,
// the request parser (protocol/request_parser.h) the stream's messages, in place) over a
// LinkStream (server/io/tls.h) — TLS with tls-peers, the peer's certificate verified —
// driven by the thread's own io_context: it connects (1 s timeout),
// authenticates with masterauth (and masteruser) when set, asks `PEER ID`, then
// `PEER SYNC <this node's id> <applied offset of that peer + 1>` and reads the stream — first a
// snapshot when the peer answers +SNAPSHOT (its offset is no longer in the peer's log: the
// pieces are applied as they come, the vector set with the last; state `snapshot` meanwhile),
// then the deltas. Every
// batch of replies read is queued for the io thread, which applies the deltas in order, each run
// of them in one engine write (ActiveActive::ApplyDeltas), and notes the ticks (the peer's clock
// and end offset: lag and clock skew; and the peer's applied vector, stable_vector.h). The io
// thread takes one batch (kBatchMessages or kBatchBytes) per turn of its loop, so its clients are
// served between batches however fast the stream comes. A batch of a snapshot is delivered over
// as many turns as the receiver's sweep of its own keys takes, one bounded run per turn, the
// batches read meanwhile waiting behind it. A lost
// link, a read silent for 3 s (the peer ticks every 100 ms), a gap or an engine error close the
// session; the link reconnects after a backoff (50 ms doubling to 1 s) and resumes from the vector.
// No more than kMaxInFlight deltas, or kMaxInFlightBytes of them, wait for the io thread: the
// link stops reading meanwhile (TCP then holds the peer back, and the peer drops a subscriber
// whose output grows past its limit).
//
// What it owns: its thread, the session's connection, and the link's Status (shared with the io
// thread). Invariants: the link's thread never touches ActiveActive but through its thread-safe
// readers (applied_position, wants_snapshot, SyncSettings); deltas are applied on the io thread
// only, in the order the peer sent them, one batch per turn of its loop; at most kMaxInFlight of
// them wait there.
//
// Thread-safety: Start, Stop, SetPaused and status() from the io thread; the thread talks to the
// io thread only by posting and through the mutex-guarded status.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "protocol/request_parser.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/stable_vector.h"

namespace ebb::server {

// ---- The stream a peer sends after PEER SYNC's reply: every byte of it is hostile input.

// One frame of the stream from the front of `input` (the bytes read and not yet consumed), as the
// link parses it: only an array of bulk strings, with no size limit but the sender's memory.
// kComplete: *consumed bytes make the frame, parser.args() views its fields (valid until the next
// Parse of `parser`); kNeedMore: `input` holds no whole frame yet; kError: the bytes are not a
// stream (anything but '*' first, or a malformed array), the session must end.
protocol::ParseStatus ParsePeerStreamFrame(protocol::RequestParser& parser, std::string_view input,
                                           size_t* consumed);

// One stream message: a delta, a tick (now_ms, end_offset, end_bytes, and the peer's applied
// vector), a snapshot piece (in `delta`, offset 0), or the snapshot's end (its offset and byte
// position). docs/active-active.md, "Links". ParsePeerStreamMessage sets each field in place, so
// that a reused message keeps its strings' room: a field added here is to be set there too.
struct PeerStreamMessage {
  enum class Kind { kDelta, kTick, kPiece, kSnapshotEnd } kind = Kind::kDelta;
  PeerDelta delta;
  int64_t tick_ms = 0;
  uint64_t end = 0;  // tick: the peer's end offset; snapshot end: its offset
  // Tick and snapshot end: the byte position they carry. A delta: its wire size as parsed, then
  // (set by the session) the byte position just after it.
  uint64_t end_bytes = 0;
  // Tick: the peer's applied vector (nullopt: none, or refused), and what its parse said.
  std::optional<OriginVector> vector;
  RetiredIds retired;  // the ids the peer retired (empty without a vector)
  VectorParse vector_parse = VectorParse::kOk;
};

// A frame's fields (`args`, `wire_size` bytes on the wire: a delta's share of the byte position)
// as a message: false when it is none (an unknown kind, a field missing or not a number, a
// delta's bytes that do not decode: DecodePeerDelta, a database out of 0..INT32_MAX). A tick whose
// vector is malformed still parses (vector nullopt, vector_parse saying why). A delta's or a
// piece's arguments are taken as they are: applying it judges them (ActiveActive::ApplyDeltas,
// ApplySnapshot). Every field of *m is set, so a message can be parsed into again: its arguments'
// strings keep their room.
bool ParsePeerStreamMessage(std::span<const std::string_view> args, size_t wire_size,
                            PeerStreamMessage* m);

class ActiveActive;
class PeerConnection;  // one session's connection (peer_link.cc)

// Batches of stream messages a link's io thread delivered, handed back (up to
// PeerLink::kSpareMessages messages in all) for the link's thread to parse its next ones into:
// the deltas' argument strings keep their room, so a warm link takes no heap block per delta
// (TakeSpareBatch, GiveBackBatch, peer_link.cc).
struct SpareStreamBatches {
  std::mutex mu;
  std::vector<std::vector<PeerStreamMessage>> batches;
  size_t messages = 0;  // over `batches`
};

class PeerLink {
 public:
  static constexpr int kMaxInFlight = 20000;
  // A batch posted to the io thread ends at whichever comes first: the io thread applies one
  // batch per turn of its loop, so a batch is bounded work between the clients' turns.
  static constexpr size_t kBatchMessages = 1024;
  static constexpr size_t kBatchBytes = 256 << 10;
  static constexpr size_t kMaxInFlightBytes = 64 << 20;
  // Stream messages kept for their room, over every spare batch: a link's reads come in batches
  // of a few dozen messages, many of them in flight at once, so a bound on batches (it was 4)
  // let most of them go and be made again.
  static constexpr size_t kSpareMessages = 4096;

  struct Status {
    // connecting, handshake, snapshot, connected, paused, settings-differ
    std::string state = "connecting";
    std::string peer_id;
    uint64_t remote_end = 0;
    // Byte positions in the peer's stream (its count of the wire bytes of its deltas): at its last
    // tick, and just after the last delta of it applied here. Their difference is the lag in bytes.
    uint64_t remote_end_bytes = 0;
    uint64_t applied_bytes = 0;
    int64_t behind_since_ms = 0;  // 0: caught up at the last tick
    int64_t clock_skew_ms = 0;
    int64_t last_io_ms = 0;
    // The peer's applied vector at its last tick that carried one (stable_vector.h); nullopt
    // until then (kept across reconnections: it only ages; forgotten when PEER ID names another
    // node), with the ids the peer has retired.
    std::optional<OriginVector> vector;
    RetiredIds retired;
    // Why the last vector the peer sent was refused ("" when none was): logged when it changes.
    std::string vector_refused;
  };

  // REQUIRES: owner and io outlive the link (Stop before either goes).
  // `tls`: with tls-peers, the link speaks TLS with these settings (server/io/tls.h) to the
  // peer's tls-port, verifying its certificate; null for clear text. REQUIRES: `tls` outlives
  // the link.
  PeerLink(ActiveActive* owner, boost::asio::io_context& io, std::string host, int port,
           std::string node_id, std::string auth_user, std::string auth_pass,
           boost::asio::ssl::context* tls);
  ~PeerLink();

  void Start();
  // Ends the session and joins the thread; deltas already posted are dropped. Idempotent.
  void Stop();
  // A test's partition: a paused link closes its session and does not reconnect until resumed.
  void SetPaused(bool paused);
  bool paused() const { return paused_; }

  const std::string& host() const { return host_; }
  int port() const { return port_; }
  Status status() const;

 private:
  struct BatchDelivery;
  // What the thread and the io thread share; outlives the link while posts are pending.
  struct Shared {
    std::mutex mu;
    Status status;
    std::atomic<bool> alive{true};           // false once stopped: pending posts do nothing
    std::atomic<bool> reconnect{false};      // the io thread asks the session to end
    std::atomic<int> in_flight{0};           // messages read and not yet delivered (queue, current)
    std::atomic<size_t> in_flight_bytes{0};  // their wire bytes
    SpareStreamBatches spare;
    // The batches the link's thread read, in order: the io thread delivers them a turn of its
    // loop at a time (DeliverNext), one DeliverNext posted while any wait. Under queue_mu.
    std::mutex queue_mu;
    std::deque<std::unique_ptr<BatchDelivery>> queue;
    bool deliver_posted = false;
    // The io thread's alone: a batch taken off the queue whose rest comes next turn.
    std::unique_ptr<BatchDelivery> current;
  };

  // A batch of the stream read by the link's thread. Most are delivered whole in one turn of the
  // io loop; one holding snapshot pieces or a snapshot's end takes as many turns as its sweeps
  // take (ActiveActive::ApplySnapshot stops a run of pieces when the sweep before one has read its
  // rows; ActiveActive::SweepSnapshotTail sweeps past the last piece a run at a time, before the
  // end), and the batches read meanwhile wait behind it.
  struct BatchDelivery {
    ActiveActive* owner;
    std::string peer_id;
    std::vector<PeerStreamMessage> messages;
    size_t used;      // messages[0, used) are the batch; a snapshot's end is the last
    size_t bytes;     // their size on the wire
    size_t next = 0;  // the first not delivered yet
  };
  // On the link's thread: queues `delivery` behind the batches before it, posting a DeliverNext
  // when none is posted.
  void Post(std::unique_ptr<BatchDelivery> delivery);
  // On the io thread: one turn's work, what Continue delivers of the batch under way or else of
  // the queue's front one; posts itself again while batches wait, so the clients' turns come
  // between batches.
  static void DeliverNext(boost::asio::io_context& io, const std::shared_ptr<Shared>& shared);
  // Delivers what it can of `delivery`: true once it is done (delivered, or the link must
  // reconnect); false when the rest comes in a later turn.
  static bool Continue(Shared& shared, BatchDelivery& delivery);

  void Run();
  // One connection; returns when it ends.
  void Session();
  // The session's parts, in order. Each but the last says whether the session goes on (it logs
  // why not).
  // Connects (TLS with tls-peers) and notes the socket for CloseSocket.
  bool Connect(PeerConnection& c);
  // AUTH (masterauth) and PEER ID: the peer's node id (nullopt: no link, or this node itself).
  std::optional<std::string> Identify(PeerConnection& c);
  // PEER SYNC from the applied vector's entry of `peer_id`: the byte position of the stream
  // before what follows (nullopt: refused).
  std::optional<uint64_t> RequestSync(PeerConnection& c, const std::string& peer_id);
  // Reads the stream in batches posted to the io thread (ActiveActive::ApplyDeltas,
  // ApplySnapshot) until it ends, the link stops or pauses, or the io thread asks to reconnect.
  void ReadStream(PeerConnection& c, const std::string& peer_id, uint64_t position);
  // Forgets the session's socket; the state is `connecting` again unless stopped or paused.
  void EndSession();
  void SetState(const char* state);
  void CloseSocket();

  ActiveActive* owner_;
  boost::asio::io_context& io_;
  const std::string host_;
  const int port_;
  const std::string node_id_;
  const std::string auth_user_;
  const std::string auth_pass_;
  boost::asio::ssl::context* const tls_;
  std::string last_failure_;  // why the last connection failed (the thread's)
  // The peer refused the last PEER SYNC for a setting this node does not share: the state says
  // "settings-differ" (not "connecting") until a PEER SYNC is accepted. Written by the link's
  // thread, read by SetState on either thread (SetPaused runs on the io thread).
  std::atomic<bool> settings_differ_{false};
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::atomic<bool> stop_{false};
  std::atomic<bool> paused_{false};
  std::mutex fd_mu_;
  int fd_ = -1;  // the session's socket, to cut a blocking read short
  std::thread thread_;
};

}  // namespace ebb::server
