#include "server/active_active/peer_link.h"

#include <fmt/format.h>
#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "common/wall_clock.h"
#include "protocol/request_parser.h"
#include "server/active_active/active_active.h"
#include "server/core/errors.h"
#include "server/io/tls.h"

namespace ebb::server {
namespace {

using ReplyPtr = std::unique_ptr<redisReply, void (*)(void*)>;
using tcp = boost::asio::ip::tcp;

constexpr auto kConnectTimeout = std::chrono::seconds(1);
constexpr auto kReadTimeout = std::chrono::seconds(3);  // the peer ticks every 100 ms

// An unsigned 64-bit decimal no larger than INT64_MAX (the stream's offsets and byte positions).
bool ParseUint(std::string_view text, uint64_t* out) {
  int64_t v = 0;
  if (!ParseInt64(text, &v) || v < 0) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

}  // namespace

// One session's connection, driven by the link's thread: a LinkStream (TLS with tls-peers) on
// the session's own io_context, each operation run for at most its timeout; the handshake's
// replies parsed by hiredis's reader, the stream that follows them by the request parser
// (protocol/request_parser.h: views into the bytes read, no object per element).
class PeerConnection {
 public:
  explicit PeerConnection(boost::asio::ssl::context* tls)
      : stream_(io_, tls), reader_(redisReaderCreate()) {}
  ~PeerConnection() { redisReaderFree(reader_); }
  PeerConnection(const PeerConnection&) = delete;
  PeerConnection& operator=(const PeerConnection&) = delete;

  // Resolves, connects and completes the TLS handshake (the peer's certificate verified). False
  // with *why.
  bool Connect(const std::string& host, int port, std::string* why) {
    boost::system::error_code ec;
    tcp::resolver resolver(io_);
    const auto found = resolver.resolve(host, std::to_string(port), ec);
    if (ec) {
      *why = ec.message();
      return false;
    }
    ec = Run(kConnectTimeout, [&](auto done) {
      boost::asio::async_connect(
          stream_.socket(), found,
          [done](const boost::system::error_code& e, const tcp::endpoint&) { done(e, 0); });
    });
    if (!ec) {
      stream_.socket().set_option(tcp::no_delay(true), ec);
      ec = Run(kReadTimeout, [&](auto done) {
        stream_.AsyncHandshake(LinkStream::Role::client,
                               [done](const boost::system::error_code& e) { done(e, 0); });
      });
      if (ec) *why = "TLS handshake failed: " + ec.message();
    } else {
      *why = ec.message();
    }
    return !ec;
  }
  int fd() { return stream_.socket().native_handle(); }

  // Sends a command and reads its reply (null when the link failed or timed out).
  ReplyPtr Command(const std::vector<std::string>& args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (const std::string& arg : args) {
      out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
    }
    const auto ec = Run(kReadTimeout, [&](auto done) {
      stream_.AsyncWrite(boost::asio::buffer(out),
                         [done](const boost::system::error_code& e, size_t n) { done(e, n); });
    });
    if (ec) return ReplyPtr(nullptr, freeReplyObject);
    return Read();
  }
  // The next reply, read from the peer when none is buffered (null on an error, the peer
  // closing or kReadTimeout of silence).
  ReplyPtr Read() {
    void* reply = nullptr;
    failure_.clear();
    while (Buffered(&reply) && reply == nullptr) {
      if (!ReadSome()) break;
      if (redisReaderFeed(reader_, buffer_.data(), last_bytes_) != REDIS_OK) {
        failure_ = "unreadable bytes";
        break;
      }
    }
    if (reply == nullptr && failure_.empty()) failure_ = "unreadable bytes";
    return ReplyPtr(static_cast<redisReply*>(reply), freeReplyObject);
  }
  // Why the last Read returned null.
  const std::string& failure() const { return failure_; }
  // A reply already read and parsed, in *reply (null when none is whole yet); false when the
  // bytes are not RESP.
  bool Buffered(void** reply) { return redisReaderGetReply(reader_, reply) == REDIS_OK; }

  // ---- the stream, once PEER SYNC has its reply (Command and Read are not used after it).
  // The next stream message, read from the peer when none is whole yet: its arguments (views
  // valid until the next call) and its size on the wire. False when the link failed or timed
  // out, or the bytes are not an array of bulk strings (failure() says which).
  bool NextMessage(std::span<const std::string_view>* args, size_t* wire_size) {
    failure_.clear();
    while (!BufferedMessage(args, wire_size)) {
      if (stream_error_) {
        failure_ = "unreadable bytes";
        return false;
      }
      if (!ReadSome()) return false;
      stream_input_.append(buffer_.data(), last_bytes_);
    }
    return true;
  }
  // A message already read whole, as NextMessage gives it; false when none is (or the bytes are
  // unreadable: the next NextMessage fails).
  bool BufferedMessage(std::span<const std::string_view>* args, size_t* wire_size) {
    if (!streaming_) {
      // What hiredis's reader holds beyond the PEER SYNC reply is the stream's beginning.
      streaming_ = true;
      stream_input_.assign(reader_->buf + reader_->pos, reader_->len - reader_->pos);
    }
    if (stream_error_) return false;
    size_t consumed = 0;
    const protocol::ParseStatus status = ParsePeerStreamFrame(
        parser_, std::string_view(stream_input_).substr(stream_pos_), &consumed);
    if (status == protocol::ParseStatus::kComplete) {
      *args = parser_.args();
      *wire_size = consumed;
      stream_pos_ += consumed;
      return true;
    }
    if (status == protocol::ParseStatus::kError) {
      stream_error_ = true;
    } else {  // the parser resumes from the same bytes at the front (its offsets are relative)
      stream_input_.erase(0, stream_pos_);
      stream_pos_ = 0;
    }
    return false;
  }

 private:
  // Reads what the peer sent into buffer_ (last_bytes_ of it); false on an error or
  // kReadTimeout of silence (failure_ says which).
  bool ReadSome() {
    const auto ec = Run(kReadTimeout, [&](auto done) {
      stream_.AsyncReadSome(boost::asio::buffer(buffer_),
                            [done](const boost::system::error_code& e, size_t k) { done(e, k); });
    });
    if (!ec) return true;
    failure_ = ec == boost::asio::error::timed_out
                   ? fmt::format("no message for {} s", kReadTimeout.count())
                   : ec.message();
    return false;
  }

  // Starts an operation with `start(done)` and runs the session's loop until it completes or
  // `timeout` passes (then the socket is closed and the operation's error is timed_out).
  template <typename Start>
  boost::system::error_code Run(std::chrono::milliseconds timeout, Start start) {
    bool completed = false;
    boost::system::error_code result;
    start([&](const boost::system::error_code& e, size_t n) {
      completed = true;
      result = e;
      last_bytes_ = n;
    });
    io_.restart();
    io_.run_for(timeout);
    if (!completed) {
      stream_.Close();
      io_.restart();
      io_.run();  // the operation ends, aborted
      result = boost::asio::error::timed_out;
    }
    return result;
  }

  boost::asio::io_context io_;
  LinkStream stream_;
  redisReader* reader_;
  std::array<char, 16 * 1024> buffer_;
  size_t last_bytes_ = 0;
  std::string failure_;
  // The stream: the bytes read and not yet dropped, the first not parsed, and their parser.
  bool streaming_ = false;
  bool stream_error_ = false;
  std::string stream_input_;
  size_t stream_pos_ = 0;
  protocol::RequestParser parser_;
};

// The stream's messages are parsed as requests are (arrays of bulk strings); a peer's deltas and
// snapshot pieces have no size limit but the memory of the node that sent them, as with hiredis.
protocol::ParseStatus ParsePeerStreamFrame(protocol::RequestParser& parser, std::string_view input,
                                           size_t* consumed) {
  static const protocol::ParserLimits limits = [] {
    protocol::ParserLimits l;
    l.max_bulk_len = std::numeric_limits<int64_t>::max();
    l.max_multibulk_len = std::numeric_limits<int32_t>::max();
    return l;
  }();
  *consumed = 0;
  if (input.empty()) return protocol::ParseStatus::kNeedMore;
  // Only arrays: the parser would also take an inline line, which no peer sends.
  if (input[0] != '*') return protocol::ParseStatus::kError;
  return parser.Parse(input, limits, consumed);
}

bool ParsePeerStreamMessage(std::span<const std::string_view> args, size_t wire_size,
                            PeerStreamMessage* m) {
  if (args.size() < 2) return false;
  const std::string_view kind = args[0];
  // Every field set again, in place: the argument strings keep their room, and a delta's parse
  // builds and destroys no whole message (a tick's vector and ids are let go only when held).
  m->kind = PeerStreamMessage::Kind::kDelta;
  m->delta.offset = 0;
  m->delta.origin_ms = 0;
  m->delta.db = 0;
  m->tick_ms = 0;
  m->end = 0;
  m->end_bytes = 0;
  if (m->vector) m->vector.reset();
  if (!m->retired.empty()) m->retired.clear();
  m->vector_parse = VectorParse::kOk;
  const bool tick = SameBytes(kind, "tick");
  if (tick || SameBytes(kind, "snapend")) {
    if (args.size() < 3) return false;
    m->kind = tick ? PeerStreamMessage::Kind::kTick : PeerStreamMessage::Kind::kSnapshotEnd;
    m->delta.args.clear();
    size_t at = 1;
    if (m->kind == PeerStreamMessage::Kind::kTick && !ParseInt64(args[at++], &m->tick_ms))
      return false;
    if (!ParseUint(args[at++], &m->end)) return false;
    // A tick without a byte position (an older peer): lag in bytes stays unknown (0).
    if (at < args.size() && !ParseUint(args[at], &m->end_bytes)) return false;
    // A malformed vector is refused on its own: the tick still counts (Deliver logs why).
    if (m->kind == PeerStreamMessage::Kind::kTick)
      m->vector_parse = ParseTickVector(args, &m->vector, &m->retired);
    return true;
  }
  if (SameBytes(kind, "delta")) {
    // The delta as its origin's log row holds it (AppendDeltaFrame), decoded into the message's
    // strings, which keep their room.
    m->kind = PeerStreamMessage::Kind::kDelta;
    if (args.size() != 2 || !DecodePeerDelta(args[1], &m->delta) || m->delta.db < 0) return false;
    m->end_bytes = wire_size;
    return true;
  }
  if (!SameBytes(kind, "snap") || args.size() < 3) return false;
  m->kind = PeerStreamMessage::Kind::kPiece;
  int64_t db = 0;
  if (!ParseInt64(args[1], &db) || db < 0 || db > INT32_MAX) return false;
  m->delta.db = static_cast<int>(db);
  // Element by element into a reused message: each string keeps its room.
  m->delta.args.assign(args.begin() + 2, args.end());
  return true;
}

namespace {

using Message = PeerStreamMessage;

// A tick's vector into the peer's status (under its mutex): kept when well formed; a refused one
// leaves the last kept and is logged, once until the reason changes.
void NoteVector(const std::string& peer_id, const Message& tick, PeerLink::Status& status) {
  if (tick.vector) {
    status.vector = tick.vector;
    status.retired = tick.retired;
    status.vector_refused.clear();
    return;
  }
  if (tick.vector_parse == VectorParse::kOk) return;  // a tick without a vector
  const std::string_view why = VectorParseText(tick.vector_parse);
  if (status.vector_refused != why) {
    spdlog::warn("Peer {}: applied vector refused ({}): its last one stays", peer_id, why);
    status.vector_refused = why;
  }
}

// On the io thread: applies one batch of stream messages in order and notes what they say in
// `status` (under `mu`). Runs of deltas, and runs of snapshot pieces, are applied as one engine
// write each; a tick or the snapshot's end ends a run. False when the link must reconnect (a gap,
// a malformed delta, an engine error). *delivered: how many of `messages` were; fewer than all
// when a run of pieces stopped for a turn of the loop (ActiveActive::ApplySnapshot), and the
// rest are to be delivered in a later call. The deltas and pieces delivered are consumed
// (ActiveActive::ApplyDeltas): their messages are kept only for their room.
bool Deliver(ActiveActive& owner, const std::string& peer_id, std::span<Message> messages,
             std::mutex& mu, PeerLink::Status& status, size_t* delivered) {
  std::vector<PeerDelta*> run;
  run.reserve(messages.size());
  Message::Kind run_kind = Message::Kind::kDelta;
  size_t run_start = 0;  // the index of the run's first message
  bool stopped = false;  // a run of pieces stopped short
  const Message* last_delta = nullptr;
  auto flush = [&](std::optional<uint64_t> snapshot_end) {
    if (run.empty() && !snapshot_end) return true;
    bool ok = true;
    if (run_kind == Message::Kind::kPiece || snapshot_end) {
      size_t applied = 0;
      ok = owner.ApplySnapshot(peer_id, run, snapshot_end, &applied);
      if (ok && applied < run.size()) {
        *delivered = run_start + applied;
        stopped = true;
      }
    } else {
      ok = owner.ApplyDeltas(peer_id, run);
      // The byte position after the last delta applied (all of the run unless it failed).
      const uint64_t applied = owner.applied_offset(peer_id);
      if (last_delta != nullptr && last_delta->delta.offset <= applied) {
        std::lock_guard lock(mu);
        status.applied_bytes = last_delta->end_bytes;
      }
    }
    run.clear();
    return ok;
  };
  for (size_t i = 0; i < messages.size(); i++) {
    Message& m = messages[i];
    switch (m.kind) {
      case Message::Kind::kDelta:
      case Message::Kind::kPiece:
        if (m.kind != run_kind && !flush(std::nullopt)) return false;
        if (stopped) return true;
        if (run.empty()) run_start = i;
        run_kind = m.kind;
        run.push_back(&m.delta);
        if (m.kind == Message::Kind::kDelta) last_delta = &m;
        break;
      case Message::Kind::kSnapshotEnd: {
        if (run_kind != Message::Kind::kPiece && !flush(std::nullopt)) return false;
        if (stopped) return true;
        run_kind = Message::Kind::kPiece;
        if (run.empty()) run_start = i;
        if (!flush(m.end)) return false;
        if (stopped) return true;
        std::lock_guard lock(mu);
        status.applied_bytes = m.end_bytes;
        if (status.state == "snapshot") status.state = "connected";
        break;
      }
      case Message::Kind::kTick: {
        if (!flush(std::nullopt)) return false;
        if (stopped) return true;
        const uint64_t applied = owner.applied_offset(peer_id);
        const int64_t now = WallMs();
        std::lock_guard lock(mu);
        status.remote_end = m.end;
        status.remote_end_bytes = m.end_bytes;
        status.clock_skew_ms = m.tick_ms - now;
        NoteVector(peer_id, m, status);
        if (applied >= m.end) {
          status.behind_since_ms = 0;
        } else if (status.behind_since_ms == 0) {
          status.behind_since_ms = now;
        }
        break;
      }
    }
  }
  if (!flush(std::nullopt)) return false;
  if (!stopped) *delivered = messages.size();
  return true;
}

// What of a delivered message's room a batch handed back keeps: each argument string up to
// kSpareArgRoom bytes, up to kSpareArgs of them (a larger delta's memory is returned): at most
// about 2 MB for one batch's 1,024 messages.
constexpr size_t kSpareArgRoom = 256;
constexpr size_t kSpareArgs = 8;

// A batch to parse the next messages into: one the io thread handed back, or a new one.
std::vector<Message> TakeSpareBatch(SpareStreamBatches& spare) {
  std::lock_guard lock(spare.mu);
  if (spare.batches.empty()) return {};
  std::vector<Message> batch = std::move(spare.batches.back());
  spare.batches.pop_back();
  spare.messages -= batch.size();
  return batch;
}

// On the io thread, after delivering the first `used` messages of `batch`: keeps it among the
// spare batches (while they hold at most PeerLink::kSpareMessages messages), without the room of
// long arguments or of a tick's vector.
void GiveBackBatch(std::vector<Message> batch, size_t used, SpareStreamBatches& spare) {
  for (size_t i = 0; i < used; i++) {
    Message& m = batch[i];
    m.vector.reset();
    if (m.delta.args.capacity() > kSpareArgs) {
      m.delta.args = {};
      continue;
    }
    for (std::string& arg : m.delta.args) {
      if (arg.capacity() > kSpareArgRoom) arg = std::string();
    }
  }
  std::lock_guard lock(spare.mu);
  if (spare.messages + batch.size() > PeerLink::kSpareMessages) return;
  spare.messages += batch.size();
  spare.batches.push_back(std::move(batch));
}

}  // namespace

PeerLink::PeerLink(ActiveActive* owner, boost::asio::io_context& io, std::string host, int port,
                   std::string node_id, std::string auth_user, std::string auth_pass,
                   boost::asio::ssl::context* tls)
    : owner_(owner),
      io_(io),
      host_(std::move(host)),
      port_(port),
      node_id_(std::move(node_id)),
      auth_user_(std::move(auth_user)),
      auth_pass_(std::move(auth_pass)),
      tls_(tls) {}

PeerLink::~PeerLink() { Stop(); }

void PeerLink::Start() {
  thread_ = std::thread([this] { Run(); });
}

void PeerLink::Stop() {
  shared_->alive = false;
  stop_ = true;
  CloseSocket();
  if (thread_.joinable()) thread_.join();
  shared_->current.reset();  // nothing more of them is delivered
  std::lock_guard lock(shared_->queue_mu);
  shared_->queue.clear();
}

void PeerLink::SetPaused(bool paused) {
  paused_ = paused;
  if (paused) {
    SetState("paused");
    CloseSocket();
  }
}

PeerLink::Status PeerLink::status() const {
  std::lock_guard lock(shared_->mu);
  return shared_->status;
}

void PeerLink::SetState(const char* state) {
  const std::string_view s(state);
  // While the peer refuses this node's settings, reconnecting is not progress worth showing.
  if (settings_differ_ && (s == "connecting" || s == "handshake")) state = "settings-differ";
  std::lock_guard lock(shared_->mu);
  shared_->status.state = state;
}

void PeerLink::CloseSocket() {
  std::lock_guard lock(fd_mu_);
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void PeerLink::Run() {
  auto backoff = std::chrono::milliseconds(50);
  while (!stop_) {
    if (paused_) {
      SetState("paused");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const auto began = std::chrono::steady_clock::now();
    Session();
    if (stop_) break;
    // A session that streamed for a while starts the backoff afresh.
    if (std::chrono::steady_clock::now() - began > std::chrono::seconds(2)) {
      backoff = std::chrono::milliseconds(50);
    }
    for (auto waited = std::chrono::milliseconds(0); waited < backoff && !stop_;
         waited += std::chrono::milliseconds(10)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

void PeerLink::Session() {
  if (!paused_) SetState("connecting");
  PeerConnection c(tls_);
  if (!Connect(c)) return;
  if (stop_ || paused_) return EndSession();
  SetState("handshake");
  const std::optional<std::string> peer_id = Identify(c);
  if (!peer_id) return EndSession();
  const std::optional<uint64_t> position = RequestSync(c, *peer_id);
  if (!position) return EndSession();
  shared_->reconnect = false;
  ReadStream(c, *peer_id, *position);
  EndSession();
}

bool PeerLink::Connect(PeerConnection& c) {
  std::string why;
  if (!c.Connect(host_, port_, &why)) {
    // Said once per kind of failure, not at every retry.
    if (why != last_failure_) spdlog::warn("Peer {}:{}: cannot link: {}", host_, port_, why);
    last_failure_ = why;
    settings_differ_ = false;
    return false;
  }
  last_failure_.clear();
  std::lock_guard lock(fd_mu_);
  fd_ = c.fd();
  return true;
}

void PeerLink::EndSession() {
  {
    std::lock_guard lock(fd_mu_);
    fd_ = -1;
  }
  if (!paused_ && !stop_) SetState("connecting");
}

std::optional<std::string> PeerLink::Identify(PeerConnection& c) {
  if (!auth_pass_.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!auth_user_.empty()) auth.push_back(auth_user_);
    auth.push_back(auth_pass_);
    ReplyPtr r = c.Command(auth);
    if (!r || r->type == REDIS_REPLY_ERROR) {
      spdlog::warn("Peer {}:{}: AUTH refused: {}", host_, port_, r ? r->str : "no reply");
      return std::nullopt;
    }
  }
  ReplyPtr id = c.Command({"PEER", "ID"});
  if (!id || id->type != REDIS_REPLY_STRING) {
    spdlog::warn("Peer {}:{}: PEER ID failed: {}", host_, port_,
                 id && id->type == REDIS_REPLY_ERROR ? id->str : "no reply");
    return std::nullopt;
  }
  std::string peer_id(id->str, id->len);
  if (peer_id == node_id_) {
    spdlog::warn("Peer {}:{} is this node itself: not linked", host_, port_);
    SetState("self");
    stop_ = true;
    return std::nullopt;
  }
  std::lock_guard lock(shared_->mu);
  if (shared_->status.peer_id != peer_id) {
    // Another node (or a new incarnation of it): the last vector said nothing of this one.
    shared_->status.vector.reset();
    shared_->status.retired.clear();
  }
  shared_->status.peer_id = peer_id;
  return peer_id;
}

std::optional<uint64_t> PeerLink::RequestSync(PeerConnection& c, const std::string& peer_id) {
  const ActiveActive::AppliedPosition applied = owner_->applied_position(peer_id);
  // 0 asks for a snapshot: this node took a new incarnation and lacks what it lost.
  const uint64_t from = owner_->wants_snapshot(peer_id) ? 0 : applied.offset + 1;
  std::vector<std::string> sync_args = {"PEER",   "SYNC", node_id_, std::to_string(from),
                                        "ORIGIN", peer_id};
  if (!applied.digest.empty()) {
    sync_args.push_back("DIGEST");
    sync_args.push_back(applied.digest);
  }
  sync_args.push_back("SETTINGS");
  for (std::string& setting : owner_->SyncSettings()) sync_args.push_back(std::move(setting));
  ReplyPtr sync = c.Command(sync_args);
  // +CONTINUE <end offset> <byte position before `from`> or +SNAPSHOT <offset> <byte position>
  // (an older peer sends no byte position).
  const std::string_view answer =
      sync && sync->type == REDIS_REPLY_STATUS ? std::string_view(sync->str, sync->len) : "";
  const bool snapshot = answer.starts_with("SNAPSHOT ");
  if (!snapshot && !answer.starts_with("CONTINUE")) {
    const std::string_view error = sync && sync->type == REDIS_REPLY_ERROR
                                       ? std::string_view(sync->str, sync->len)
                                       : std::string_view("no reply");
    spdlog::warn("Peer {}:{}: PEER SYNC from {} refused: {}", host_, port_, from, error);
    settings_differ_ = error.starts_with(kPeerSettingsDifferPrefix);
    return std::nullopt;
  }
  settings_differ_ = false;
  uint64_t position = 0;  // the byte position of the stream so far
  if (const size_t space = answer.rfind(' '); space != answer.find(' ')) {
    uint64_t parsed = 0;
    if (ParseUint(answer.substr(space + 1), &parsed)) position = parsed;
  }
  if (snapshot) {
    spdlog::info("Peer {}:{} ({}): origin offset {} is no longer in its log: receiving a snapshot",
                 host_, port_, peer_id, from);
    SetState("snapshot");
  } else {
    spdlog::info("Peer {}:{} ({}): streaming from origin offset {}", host_, port_, peer_id, from);
    SetState("connected");
    std::lock_guard lock(shared_->mu);
    shared_->status.applied_bytes = position;
  }
  return position;
}

void PeerLink::ReadStream(PeerConnection& c, const std::string& peer_id, uint64_t position) {
  std::span<const std::string_view> args;
  size_t wire_size = 0;
  while (!stop_ && !paused_ && !shared_->reconnect) {
    if (!c.NextMessage(&args, &wire_size)) {
      if (!stop_ && !paused_) {
        spdlog::info("Peer {}:{}: stream lost ({}): reconnecting", host_, port_, c.failure());
      }
      break;
    }
    // Parsed into the messages of the last batch delivered, past `used` kept for their room.
    std::vector<Message> batch = TakeSpareBatch(shared_->spare);
    size_t used = 0;
    size_t batch_bytes = 0;
    bool bad = false;
    do {
      if (used == batch.size()) batch.emplace_back();
      Message& m = batch[used];
      if (!ParsePeerStreamMessage(args, wire_size, &m)) {
        bad = true;
        break;
      }
      if (m.kind == Message::Kind::kDelta) {
        position += m.end_bytes;
        m.end_bytes = position;  // now the position just after this delta
      }
      used++;
      batch_bytes += wire_size;
      if (m.kind == Message::Kind::kSnapshotEnd) break;  // the end closes its batch
    } while (used < kBatchMessages && batch_bytes < kBatchBytes &&
             c.BufferedMessage(&args, &wire_size));
    if (bad) {
      spdlog::warn("Peer {}:{}: malformed stream message: reconnecting", host_, port_);
      break;
    }
    {
      std::lock_guard lock(shared_->mu);
      shared_->status.last_io_ms = WallMs();
    }
    Post(std::make_unique<BatchDelivery>(BatchDelivery{.owner = owner_,
                                                       .peer_id = peer_id,
                                                       .messages = std::move(batch),
                                                       .used = used,
                                                       .bytes = batch_bytes}));
    while ((shared_->in_flight > kMaxInFlight || shared_->in_flight_bytes > kMaxInFlightBytes) &&
           !stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

void PeerLink::Post(std::unique_ptr<BatchDelivery> delivery) {
  shared_->in_flight += static_cast<int>(delivery->used);
  shared_->in_flight_bytes += delivery->bytes;
  bool post = false;
  {
    std::lock_guard lock(shared_->queue_mu);
    shared_->queue.push_back(std::move(delivery));
    post = !std::exchange(shared_->deliver_posted, true);
  }
  if (post) {
    boost::asio::post(io_, [&io = io_, shared = shared_] { DeliverNext(io, shared); });
  }
}

void PeerLink::DeliverNext(boost::asio::io_context& io, const std::shared_ptr<Shared>& shared) {
  // Owned here while it is delivered: a Stop meanwhile leaves nothing dangling.
  std::unique_ptr<BatchDelivery> batch = std::move(shared->current);
  if (batch == nullptr) {
    std::lock_guard lock(shared->queue_mu);
    if (shared->queue.empty()) {  // emptied by Stop
      shared->deliver_posted = false;
      return;
    }
    batch = std::move(shared->queue.front());
    shared->queue.pop_front();
  }
  if (Continue(*shared, *batch)) {
    shared->in_flight -= static_cast<int>(batch->used);
    shared->in_flight_bytes -= batch->bytes;
    GiveBackBatch(std::move(batch->messages), batch->used, shared->spare);
  } else {
    shared->current = std::move(batch);  // the rest of it first, next turn
  }
  {
    std::lock_guard lock(shared->queue_mu);
    if (shared->current == nullptr && shared->queue.empty()) {
      shared->deliver_posted = false;
      return;
    }
  }
  boost::asio::post(io, [&io, shared] { DeliverNext(io, shared); });
}

bool PeerLink::Continue(Shared& shared, BatchDelivery& delivery) {
  const std::span<Message> messages(delivery.messages.data(), delivery.used);
  // A snapshot's end closes its batch: the sweep past the last piece runs before it.
  const size_t end_index =
      messages.back().kind == Message::Kind::kSnapshotEnd ? messages.size() - 1 : messages.size();
  size_t& next = delivery.next;
  bool ok = shared.alive && !shared.reconnect;
  while (ok && next < messages.size()) {
    size_t delivered = 0;
    if (next < end_index) {
      ok = Deliver(*delivery.owner, delivery.peer_id, messages.subspan(next, end_index - next),
                   shared.mu, shared.status, &delivered);
      next += delivered;
      if (ok && next < end_index) return false;  // a run of pieces stopped for a turn of the loop
      continue;
    }
    bool swept = true;
    ok = delivery.owner->SweepSnapshotTail(delivery.peer_id, &swept);
    if (ok && !swept) return false;
    if (ok) {
      ok = Deliver(*delivery.owner, delivery.peer_id, messages.subspan(next, 1), shared.mu,
                   shared.status, &delivered);
    }
    next++;
  }
  if (!ok && shared.alive) shared.reconnect = true;
  return true;
}

}  // namespace ebb::server
