#include "server/net/connection.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/core/errors.h"
#include "server/core/transaction.h"
#include "server/io/listen.h"
#include "server/net/armed_read_wait.h"
#include "server/net/server.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

std::string EndpointText(const boost::asio::ip::tcp::endpoint& ep) {
  if (ep.address().is_v6()) {
    return "[" + ep.address().to_string() + "]:" + std::to_string(ep.port());
  }
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

std::string RemoteText(const boost::asio::ip::tcp::socket& s) {
  boost::system::error_code ec;
  auto ep = s.remote_endpoint(ec);
  return ec ? "?:0" : EndpointText(ep);
}

bool PeerIsLoopback(const boost::asio::ip::tcp::socket& s) {
  boost::system::error_code ec;
  const auto ep = s.remote_endpoint(ec);
  return !ec && IsLoopbackPeer(ep.address());
}

std::string LocalText(const boost::asio::ip::tcp::socket& s) {
  boost::system::error_code ec;
  auto ep = s.local_endpoint(ec);
  return ec ? "?:0" : EndpointText(ep);
}

// The WAL bytes of the batch's writes did not reach the OS (or the disk): their replies, unless
// already errors, become MISCONF errors so nothing unsaved is acknowledged. Other replies stay.
// Returns how many replies were replaced.
size_t RefuseWriteReplies(std::string* batch, const std::vector<std::pair<size_t, size_t>>& writes,
                          const storage::Status& status) {
  const std::string error = "-" + MisconfError(status.message()) + "\r\n";
  std::string out;
  size_t copied = 0, replaced = 0;
  for (const auto& [begin, end] : writes) {
    if (begin >= end || (*batch)[begin] == '-') continue;
    out.append(*batch, copied, begin - copied);
    out += error;
    copied = end;
    replaced++;
  }
  out.append(*batch, copied, std::string::npos);
  batch->swap(out);
  return replaced;
}

}  // namespace

Connection::Connection(Server* server, boost::asio::ip::tcp::socket socket, uint64_t id,
                       boost::asio::ssl::context* tls)
    : server_(server),
      socket_(std::move(socket)),
      armed_reads_(server->io()),
      tls_(tls != nullptr
               ? std::make_unique<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>>(socket_,
                                                                                           *tls)
               : nullptr),
      client_(id, RemoteText(socket_), LocalText(socket_),
              static_cast<int>(socket_.native_handle()), WallMs(), PeerIsLoopback(socket_)) {
  client_.set_tls(tls != nullptr);
}

Connection::~Connection() = default;

void Connection::Start() {
  server_->context().clients().Add(&client_);
  // As Redis: a client that connects while `default` needs no password is authenticated as it,
  // and stays so if a password is set later.
  client_.set_user(server_->context().acl().anonymous());
  std::weak_ptr<Connection> weak = weak_from_this();
  boost::asio::io_context& io = server_->io();
  client_.set_close_hook([weak, &io] {
    boost::asio::post(io, [weak] {
      if (auto self = weak.lock()) {
        if (self->client_.discard_output_on_close()) return self->Close();
        self->CloseAfterWrite();
      }
    });
  });
  client_.set_push_hook([this](std::string_view message) { OnPush(message); });
  client_.set_pending_output_hook([this] { return PendingOutput(); });
  if (tls_ == nullptr) return MaybeRead();
  reading_ = true;  // nothing is read or written before the handshake completes
  tls_->async_handshake(boost::asio::ssl::stream_base::server,
                        [self = shared_from_this()](const boost::system::error_code& ec) {
                          self->reading_ = false;
                          if (ec) {
                            spdlog::debug("TLS handshake with {} failed: {}", self->client_.addr(),
                                          ec.message());
                            return self->Close();
                          }
                          self->MaybeRead();
                        });
}

void Connection::MaybeRead() {
  // Just read dry in this handler (OnReadable): the socket's edge-triggered registration reports
  // whatever arrives next, so a wait queued now needs no re-arming system call
  // (armed_read_wait.h). Otherwise bytes may be waiting whose edge was reported while no wait was
  // queued, and async_wait re-arms.
  const bool dry = std::exchange(read_dry_, false);
  if (closed_ || reading_ || close_after_write_) return;
  if (Waiting() || PendingOutput() >= kPauseReadingBytes) {
    // Nothing is read now. A plain connection just read dry still queues its wait, for free:
    // when the wait is over (a WAL write-out, most often) the wait is already there, and if
    // input came meanwhile OnReadable leaves it unread for the next MaybeRead, which re-arms.
    if (dry && tls_ == nullptr) {
      reading_ = true;
      armed_reads_.Wait(socket_, AsReadableWaiter());
    }
    return;
  }
  reading_ = true;
  if (tls_ != nullptr) {
    // TLS records are read and decrypted by the stream (a busy script does not serve a TLS
    // connection: ServableWhileBusy).
    tls_->async_read_some(boost::asio::buffer(read_buf_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      size_t n) { self->OnTlsRead(ec, n); });
    return;
  }
  // The loop waits for the socket to be readable and ReadInput reads it, so no byte ever sits in
  // a completed read whose handler has not run: a busy script's ServeWhileBusy reads the socket
  // meanwhile, and must find everything before what it reads already in input_.
  if (dry) return armed_reads_.Wait(socket_, AsReadableWaiter());
  socket_.async_wait(
      boost::asio::ip::tcp::socket::wait_read,
      [self = shared_from_this()](const boost::system::error_code& ec) { self->OnReadable(ec); });
}

void Connection::OnReadable(const boost::system::error_code& ec) {
  reading_ = false;
  if (closed_) return;
  if (ec) {
    Close();
    return;
  }
  // A wait queued while the connection could not read (MaybeRead): the input stays in the
  // socket until the connection reads again.
  if (close_after_write_ || Waiting() || PendingOutput() >= kPauseReadingBytes) return;
  if (!ReadInput()) return;
  read_dry_ = last_read_dry_;
  ProcessInput();
  MaybeRead();
  read_dry_ = false;  // the loop runs next: a wait queued later re-arms
}

void Connection::OnTlsRead(const boost::system::error_code& ec, size_t n) {
  reading_ = false;
  if (closed_) return;
  if (ec) {
    Close();
    return;
  }
  if (!TakeInput(n)) return;
  ProcessInput();
  MaybeRead();
}

bool Connection::ReadInput() {
  ssize_t n;
  do {
    n = ::recv(socket_.native_handle(), read_buf_.data(), read_buf_.size(), MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  last_read_dry_ = n < static_cast<ssize_t>(read_buf_.size());
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;  // read meanwhile
  if (n <= 0) {  // the peer closed, or the connection failed
    Close();
    return false;
  }
  return TakeInput(static_cast<size_t>(n));
}

bool Connection::TakeInput(size_t n) {
  ServerContext& ctx = server_->context();
  ctx.stats().total_net_input_bytes += n;
  input_.append(read_buf_.data(), n);
  input_peak_ = std::max(input_peak_, input_.size());
  client_.Touch(WallMs());
  if (input_.size() > ctx.config().client_query_buffer_limit) {
    spdlog::warn("Closing client id={} addr={}: query buffer {} bytes over the limit", client_.id(),
                 client_.addr(), input_.size());
    ctx.stats().client_query_buffer_limit_disconnections++;
    Close();
    return false;
  }
  return true;
}

bool Connection::ServableWhileBusy() const {
  // reading_: its wait for input is pending (the loop is not about to run it); and nothing of
  // its own is on the way: output, a WAL sync, blocks from disk, a stalled write.
  // A TLS connection's bytes are records only its stream may read.
  return tls_ == nullptr && reading_ && !closed_ && !writing_ && !Waiting() &&
         !close_after_write_ && out_.empty();
}

void Connection::ServeWhileBusy() {
  if (!ReadInput()) return;
  ProcessInput();  // its replies leave at once (StartWrite)
}

size_t Connection::SendNow() {
  if (tls_ != nullptr) return 0;  // TLS output is encrypted and written by the stream
  size_t sent = 0;
  while (sent < out_.size()) {
    const ssize_t n = ::send(socket_.native_handle(), out_.data() + sent, out_.size() - sent,
                             MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {
      Close();
      return 0;
    }
    sent += static_cast<size_t>(n);
  }
  server_->context().stats().total_net_output_bytes += sent;
  return sent;
}

void Connection::ProcessInput() {
  if (closed_ || Waiting()) return;
  // Closing: nothing more runs, except a request that waited for the disk.
  const bool closing = close_after_write_;
  if (closing && !parked_request_) return;
  Batch batch{batch_replies_, batch_writes_};  // buffers an earlier run left: no allocation
  batch_ = &batch.replies;  // messages pushed to this client meanwhile follow the replies before
  if (!RunRequests(closing, batch)) {
    batch_ = nullptr;
    batch.replies.clear();
    batch.write_replies.clear();
    return;
  }
  output_paused_ = PendingOutput() + batch.replies.size() >= kPauseReadingBytes;
  batch_ = nullptr;
  input_.erase(0, batch.consumed);
  // The connection stops running (more input, output to drain, a WAL sync): the blocks pinned
  // for requests looked ahead at go, the cache may still hold them.
  if (!parked_) {
    client_.block_fetch().Release();
    lookahead_left_ = 0;
  }
  if (client_.close_requested()) close_after_write_ = true;
  SendBatch(batch);
  if (!CheckOutputLimits(std::nullopt)) return;
  UpdateClientSizes();
  StartWrite();
}

bool Connection::RunRequests(bool closing, Batch& batch) {
  ServerContext& ctx = server_->context();
  const Config& config = ctx.config();
  protocol::ReplyWriter writer(&batch.replies, client_.resp());
  size_t& offset = batch.consumed;
  size_t hinted_to = 0;   // the requests ending at or before it had their keys hinted
  parsed_ahead_.Clear();  // parsed from input_ as an earlier run found it
  // The run's point reads share one hold of the engine's read state (types::Keyspace::ReadPass).
  std::optional<types::Keyspace::ReadPass> read_pass;
  if (ctx.has_keyspace()) read_pass.emplace(ctx.keyspace());
  while (offset < input_.size() && !client_.close_requested() &&
         PendingOutput() + batch.replies.size() < kPauseReadingBytes) {
    protocol::ParserLimits limits;
    if (ctx.acl().UserOf(client_) == nullptr) limits = protocol::ParserLimits::Unauthenticated();
    limits.max_bulk_len = std::min<uint64_t>(limits.max_bulk_len, config.proto_max_bulk_len);
    size_t consumed = 0;
    std::span<const std::string_view> args;
    // A request the hint parsed is not parsed again, nor its row looked up again.
    const ResolvedCommand* resolved = nullptr;
    protocol::ParsedAhead::Taken taken;
    const bool parsed_ahead = parsed_ahead_.Take(input_, offset, limits, &taken);
    if (parsed_ahead) {
      args = taken.args;
      consumed = taken.consumed;
      resolved = &ahead_rows_[taken.index];
    } else {
      std::string_view rest(input_.data() + offset, input_.size() - offset);
      protocol::ParseStatus status = parser_.Parse(rest, limits, &consumed);
      if (status == protocol::ParseStatus::kNeedMore) break;
      if (status == protocol::ParseStatus::kError) {
        ReplyProtocolError(writer);
        offset = input_.size();
        break;
      }
      args = parser_.args();
    }
    offset += consumed;
    if (args.empty()) continue;
    if (!parsed_ahead && offset > hinted_to && offset < input_.size() && !limits.unauthenticated &&
        ctx.has_keyspace()) {
      hinted_to = HintQueuedKeys(args, offset, limits);
      resolved = &hinted_row_;
    }
    writer.set_protocol(client_.resp());
    size_t before = batch.replies.size();
    // CLIENT REPLY OFF|SKIP: the reply goes nowhere; pushes still reach the batch.
    std::string silenced;
    protocol::ReplyWriter silent(&silenced, client_.resp());
    Dispatcher::Result result = server_->dispatcher().Dispatch(
        args, client_, client_.replies_silenced() ? silent : writer, resolved);
    if (result.deferred) {
      // The engine would make this write wait: keep it unparsed and run it when the stall may
      // be over. What came before it is answered as usual.
      offset -= consumed;
      write_stalled_ = true;
      server_->AwaitWriteRoom(shared_from_this());
      break;
    }
    if (result.incomplete) {
      // It needs blocks from disk: keep it unconsumed and run it again when they are here,
      // with those of the point reads queued behind it read in the same round.
      lookahead_left_ = std::max(lookahead_left_, LookAhead(offset, limits) + 1);
      offset -= consumed;
      Park();
      break;
    }
    client_.OnCommandDone();
    parked_request_ = false;
    // The requests a lookahead pinned blocks for have all run: drop the pins.
    if (lookahead_left_ > 0 && --lookahead_left_ == 0) client_.block_fetch().Release();
    // The output limit holds for the replies being built too: a command whose reply takes the
    // connection over it closes the connection now, before more is built or sent. A normal
    // client under `client-output-buffer-limit normal 0 0 0` (the default) skips the call:
    // OverOutputLimit would find no limit and only reset the soft limit's timer.
    const ClientOutputBufferLimit& normal = config.client_output_buffer_limit_normal;
    if (normal.hard_bytes == 0 && normal.soft_bytes == 0 && !client_.is_replica() &&
        !client_.in_subscriber_mode()) {
      soft_limit_since_ms_ = 0;
    } else if (!CheckOutputLimits(std::nullopt)) {
      return false;
    }
    batch.wrote |= result.is_write;
    if (result.is_write) batch.write_replies.emplace_back(before, batch.replies.size());
    if (ctx.shutdown_requested() || closing) break;
  }
  return true;
}

void Connection::ReplyProtocolError(protocol::ReplyWriter& writer) {
  ServerContext& ctx = server_->context();
  writer.Error(parser_.ErrorText());
  ctx.stats().total_error_replies++;
  ctx.command_stats().CountError(parser_.ErrorText());
  spdlog::debug("Protocol error from client id={}: {}", client_.id(), parser_.ErrorText());
  close_after_write_ = true;
}

void Connection::SendBatch(Batch& batch) {
  ServerContext& ctx = server_->context();
  std::string& replies = batch.replies;
  WalTurnCommit* commit = ctx.defer_sync() ? server_->wal_sync() : server_->wal_write_out();
  if (batch.wrote && commit != nullptr) {
    // The batch's replies wait until its WAL bytes reach the disk (always) or at least the OS
    // (everysec, no), so nothing acknowledged is lost to a crash of the process. The commit
    // runs once the loop has read every connection ready in this turn: one fdatasync or
    // write(2) covers them all.
    sync_pending_ = true;
    held_.swap(replies);  // held_ was empty: `replies` takes its buffer
    held_writes_.swap(batch.write_replies);
    if (ctx.defer_sync()) ctx.stats().wal_group_commits++;
    commit->Request(std::shared_ptr<WalTurnCommit::Waiter>(shared_from_this(), this));
  } else if (out_.empty()) {
    out_.swap(replies);  // no copy; `replies` takes out_'s buffer
  } else {
    out_ += replies;
  }
  replies.clear();
  if (replies.capacity() > kShrinkThresholdBytes) std::string().swap(replies);
  batch.write_replies.clear();
}

void Connection::OnCommitted(const storage::Status& status) {
  sync_pending_ = false;
  if (!status.ok()) {
    // The writes are not known durable: never acknowledge them. Their replies, unless already
    // errors, become MISCONF errors; the other replies are sent as they are.
    ServerContext& context = server_->context();
    const size_t refused = RefuseWriteReplies(&held_, held_writes_, status);
    context.stats().total_error_replies += refused;
    for (size_t i = 0; i < refused; ++i) context.command_stats().CountError("MISCONF");
  }
  held_writes_.clear();
  if (closed_) {
    held_.clear();
    return;
  }
  if (!status.ok()) spdlog::warn("WAL write-out or sync failed: {}", status.ToString());
  if (out_.empty()) {
    out_.swap(held_);  // no copy; held_ keeps out_'s empty buffer
  } else {
    out_ += held_;
  }
  held_.clear();
  StartWrite();
  if (!writing_) {
    ProcessInput();
    MaybeRead();
  }
}

void Connection::ResumeAfterWriteStall() {
  if (!write_stalled_) return;
  write_stalled_ = false;
  ProcessInput();
  MaybeRead();
}

size_t Connection::LookAhead(size_t from, const protocol::ParserLimits& limits) {
  storage::BlockFetch& fetch = client_.block_fetch();
  size_t at = from;
  size_t requests = 0;  // looked at: dry-run or refused
  for (size_t n = 0; n < kLookaheadRequests && fetch.wanted_bytes() < kLookaheadBytes;) {
    size_t consumed = 0;
    std::string_view rest(input_.data() + at, input_.size() - at);
    if (parser_.Parse(rest, limits, &consumed) != protocol::ParseStatus::kComplete) break;
    at += consumed;
    if (parser_.args().empty()) continue;
    ++requests;
    if (!server_->dispatcher().Lookahead(parser_.args(), client_)) break;
    ++n;
  }
  // A request cut short remembered how far it got, from `at`: ProcessInput parses again from the
  // parked request.
  parser_.Reset();
  return requests;
}

size_t Connection::HintQueuedKeys(std::span<const std::string_view> args, size_t from,
                                  const protocol::ParserLimits& limits) {
  Dispatcher& dispatcher = server_->dispatcher();
  types::Keyspace& keyspace = server_->context().keyspace();
  hinted_keys_.clear();
  // Keys are gathered only when their lookups would miss the CPU's cache; the rows resolved and
  // the requests parsed ahead serve RunRequests either way.
  std::vector<std::string_view>* keys = keyspace.PrefetchPays() ? &hinted_keys_ : nullptr;
  hinted_row_ = dispatcher.AppendKeysOf(args, keys);
  const std::string_view window(input_.data(), std::min(input_.size(), from + kHintedBytes));
  size_t n = 0;
  const size_t end = parsed_ahead_.Fill(window, from, ahead_rows_.size(), limits,
                                        [&](std::span<const std::string_view> ahead) {
                                          ahead_rows_[n++] = dispatcher.AppendKeysOf(ahead, keys);
                                        });
  if (!hinted_keys_.empty()) keyspace.PrefetchMeta(client_.db_index(), hinted_keys_);
  return end;
}

void Connection::Park() {
  parked_ = true;
  parked_request_ = true;
  server_->block_reader()->Read(&client_.block_fetch(),
                                [self = shared_from_this()] { self->OnBlocksRead(); });
}

void Connection::OnBlocksRead() {
  parked_ = false;
  if (closed_) {
    client_.block_fetch().Release();  // nobody will run the request again
    return;
  }
  ProcessInput();
  StartWrite();
  MaybeRead();
}

void Connection::StartWrite() {
  if (closed_ || writing_) return;
  // Replies leave here, with one non-blocking send; only what the socket does not take now waits
  // for the loop (async_write). So no reply of a connection that is not writing_ sits in a
  // completed write whose handler has not run, and a busy script's ServeWhileBusy, which runs
  // no handler, can answer it and send at once.
  size_t sent = 0;
  if (!out_.empty()) {
    sent = SendNow();
    if (closed_) return;
    if (sent == out_.size()) {
      out_.clear();
      soft_limit_since_ms_ = 0;
      if (output_paused_) {
        // Requests left in input_ when parsing paused on output run now, after this handler.
        output_paused_ = false;
        boost::asio::post(server_->io(), [self = shared_from_this()] {
          self->ProcessInput();
          self->MaybeRead();
        });
      } else {
        MaybeRead();  // reading may have paused on the output just sent
      }
    }
  }
  if (out_.empty()) {
    if (close_after_write_ && !sync_pending_ && !parked_request_) Close();
    return;
  }
  // The whole buffer stays in flight (and counts as pending output) until the rest is written.
  writing_ = true;
  in_flight_.swap(out_);
  out_.clear();
  auto done = [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
    self->OnWrite(ec, n);
  };
  const auto rest = boost::asio::buffer(in_flight_.data() + sent, in_flight_.size() - sent);
  if (tls_ != nullptr) return boost::asio::async_write(*tls_, rest, done);
  boost::asio::async_write(socket_, rest, done);
}

void Connection::OnWrite(const boost::system::error_code& ec, size_t n) {
  writing_ = false;
  if (closed_) return;
  if (ec) {
    Close();
    return;
  }
  server_->context().stats().total_net_output_bytes += n;
  in_flight_.clear();
  if (in_flight_.capacity() > (1 << 20)) in_flight_.shrink_to_fit();
  soft_limit_since_ms_ = 0;
  // Requests left in input_ (parsing paused on output) run now.
  ProcessInput();
  StartWrite();
  MaybeRead();
}

void Connection::OnPush(std::string_view message) {
  if (closed_ || push_refused_) return;
  if (batch_ != nullptr) {
    batch_->append(message);
  } else {
    out_.append(message);
  }
  if (OverOutputLimit(std::nullopt)) {
    // Not closed here: the publisher is walking the subscriber lists. The close runs next.
    push_refused_ = true;
    LogOutputLimitClose();
    boost::asio::post(server_->io(), [self = shared_from_this()] { self->Close(); });
    return;
  }
  // One write per loop turn for all the messages pushed in it (a publisher's pipeline fans out
  // into one write per subscriber, not one per message).
  if (batch_ == nullptr && !push_write_posted_) {
    push_write_posted_ = true;
    boost::asio::post(server_->io(), [self = shared_from_this()] {
      self->push_write_posted_ = false;
      self->StartWrite();
    });
  }
}

void Connection::CloseAfterWrite() {
  if (closed_) return;
  close_after_write_ = true;
  if (!writing_ && !sync_pending_ && !parked_request_ && out_.empty()) Close();
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  ServerContext& ctx = server_->context();
  ctx.clients().Remove(client_.id());
  DiscardTransaction(ctx.watches(), client_);
  ctx.pubsub().Forget(&client_);
  client_.set_close_hook(nullptr);
  client_.set_push_hook(nullptr);
  client_.set_pending_output_hook(nullptr);
  server_->Remove(this);  // may drop the last owning reference held by the server
}

}  // namespace ebb::server
