// Connection: one client's TCP connection — read, parse, dispatch, reply.
//
// The loop of a connection: wait until the socket is readable, read what arrived into `input_`
// (recv), parse every complete request (arguments are views into `input_`), dispatch each,
// append every reply to one output buffer, and send that buffer with ONE non-blocking send
// (what the socket does not take: one async_write). Replies therefore leave in request order.
// The connection does its reads and sends itself, so no byte of it is ever held by a completed
// Asio operation whose handler has not run: a busy script serves clients without the loop
// (ServeWhileBusy; docs/scripting.md, "Busy scripts").
//
// Group commit: when a batch ran a write command, its replies are held until this loop turn's
// WalTurnCommit has synced the batch's writes to disk (wal-fsync always) or handed them to the OS
// (everysec, no); the connection reads nothing more meanwhile.
//
// Write stalls: a write command the dispatcher defers (the engine would have to wait) stays in
// `input_`, unparsed; the connection stops reading and asks the server to resume it when the
// engine's stall may be over (Server::AwaitWriteRoom). Other connections go on meanwhile, reads
// and writes alike (their writes are deferred too while the stall lasts).
//
// Waiting for the disk: a request whose run comes back incomplete (it needs table blocks that
// are not in memory: server/dispatch/dispatcher.h, "Restartable commands") stays at the front of
// `input_`, unconsumed; the connection parks — it reads and runs nothing more — and hands the
// wanted blocks to the server's BlockReader. The replies before it are sent meanwhile. When
// the blocks have arrived the request runs again (and the ones after it), so replies still
// leave in request order, while other connections are served all along. Before it parks, the
// point reads queued behind the request add their blocks to the same round (lookahead), so a
// pipeline of GETs waits for the disk once, not once per GET. A parked request
// still runs when the connection is asked to close (SHUTDOWN, CLIENT KILL): its reply is
// pending. A connection closed while its reads are in flight lives until they end (the
// reader's callback holds it), then releases its fetched blocks.
//
// Hints: before a request runs with more requests queued behind it, the connection reads up to
// kHintedRequests of them ahead (within kHintedBytes) and hands the keys they name to the engine
// in one hint (types::Keyspace::PrefetchMeta, storage::DB::Prefetch), which brings each key's
// memtable slot, node and newest version into the CPU cache a stage at a time for all of them.
// The pipeline's lookups then find those lines there rather than waiting for each cache miss in
// turn; a lone request is not read twice. The requests read ahead stay parsed (ParsedAhead) and
// run from there, so each request is parsed once. docs/performance.md, "The request path, round
// nine" and "round ten".
//
// Limits: client-query-buffer-limit (input bytes held), proto-max-bulk-len and the
// unauthenticated parser limits, client-output-buffer-limit normal (hard: disconnect at once;
// soft: disconnect when above it for soft-seconds; a client in subscriber mode has the pubsub
// class's limits), checked after every command as its reply is added to the batch and at every
// message pushed to the client. Reading pauses while more than
// kPauseReadingBytes of output are pending, so a client that never reads cannot grow memory.
// A protocol error is answered and the connection closed after the reply is written.
//
// Memory: the server's cron (Cron, every 100 ms) shrinks buffers a past request grew and no
// longer needs, as Redis's clientsCron does, so one 512 MB SET or a million-argument request
// does not pin that memory on an idle connection; CLIENT LIST reports qbuf, qbuf-free,
// argv-mem, omem and tot-mem.
//
// Lifetime: owned by shared_ptr; asynchronous handlers hold a reference. Close() unregisters the
// Client and drops the server's reference. Thread-safety: the io thread only.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/parsed_ahead.h"
#include "protocol/request_parser.h"
#include "server/core/client.h"
#include "server/dispatch/dispatcher.h"
#include "server/net/armed_read_wait.h"
#include "server/net/wal_turn_commit.h"
#include "storage/status.h"

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Server;

// A ReadableWaiter (its armed read waits) and a WalTurnCommit::Waiter (its batches' WAL
// commits): the loop holds it by shared_ptr with no callback object to allocate.
class Connection : public std::enable_shared_from_this<Connection>,
                   private ReadableWaiter,
                   private WalTurnCommit::Waiter {
 public:
  // Output bytes pending above which the connection stops reading and parsing.
  static constexpr size_t kPauseReadingBytes = 1 << 20;
  // How far a parked connection looks ahead in its pipeline (server/dispatch/dispatcher.h,
  // Lookahead).
  static constexpr size_t kLookaheadRequests = 64;
  static constexpr size_t kLookaheadBytes = 1 << 20;
  // How far ahead a connection hints the engine at the keys its queued requests name
  // (HintQueuedKeys): up to this many requests, within this many bytes of input.
  static constexpr size_t kHintedRequests = 16;
  static constexpr size_t kHintedBytes = 4096;

  // `tls`: non-null for a connection accepted on tls-port; the connection then completes the
  // TLS handshake before it reads its first request, and reads and writes through TLS.
  Connection(Server* server, boost::asio::ip::tcp::socket socket, uint64_t id,
             boost::asio::ssl::context* tls = nullptr);
  ~Connection();

  // Registers the client and starts reading. REQUIRES: called once, on the io thread.
  void Start();
  // Closes once everything produced so far is written (QUIT, CLIENT KILL, SHUTDOWN).
  void CloseAfterWrite();
  // Closes now, dropping unsent output.
  void Close();

  // Called by the server's periodic check: idle timeout and the soft output limit.
  void Cron(int64_t now_ms);
  // Runs the requests a write stall held back (the server calls it when the stall may be over).
  void ResumeAfterWriteStall();

  Client& client() { return client_; }
  bool closed() const { return closed_; }
  int native_handle() { return socket_.native_handle(); }

  // While a script is busy (docs/scripting.md, "Busy scripts"; the loop runs no handler): true
  // when the connection may be served now — it waits for input and has nothing on the way.
  bool ServableWhileBusy() const;
  // Reads what the socket holds and serves it (most commands get -BUSY from the dispatcher);
  // the replies are sent at once. REQUIRES: ServableWhileBusy().
  void ServeWhileBusy();

 private:
  // This connection as the waiter of an armed read wait, sharing its ownership.
  std::shared_ptr<ReadableWaiter> AsReadableWaiter() {
    return std::shared_ptr<ReadableWaiter>(shared_from_this(), this);
  }
  void MaybeRead();
  void OnReadable(const boost::system::error_code& ec) override;
  // Reads what the socket holds now (no wait) into input_. False when the connection closed:
  // the peer closed, an error, or input_ over client-query-buffer-limit.
  bool ReadInput();
  // A TLS connection's read: the stream decrypted n bytes into read_buf_.
  void OnTlsRead(const boost::system::error_code& ec, size_t n);
  // Appends read_buf_'s first n bytes to input_; false (and closed) over
  // client-query-buffer-limit.
  bool TakeInput(size_t n);
  // Sends as much of out_ as the socket takes now (no wait) and returns how many bytes; closes on
  // an error (returning 0). A TLS connection sends nothing here: its stream writes.
  size_t SendNow();
  // Parses and runs complete requests from input_; returns when input needs more bytes, the
  // output is large, the client must close, or a sync must complete first.
  void ProcessInput();
  // [begin, end) of each write command's reply in a batch of replies.
  using ReplySpans = std::vector<std::pair<size_t, size_t>>;
  // One ProcessInput's work: the replies built (in batch_replies_), the spans of the write
  // commands' replies among them (in batch_writes_; refused if the WAL commit fails), and how
  // much of input_ the requests run consumed. ProcessInput does not run inside itself.
  struct Batch {
    std::string& replies;
    ReplySpans& write_replies;
    bool wrote = false;
    size_t consumed = 0;
  };
  // Runs the complete requests of input_ into `batch` until one needs more bytes, waits (a write
  // stall, a disk read), or the output is large; after one request when `closing`. False when the
  // connection closed (a reply took it over the output limit).
  bool RunRequests(bool closing, Batch& batch);
  // Answers the parser's error and closes the connection once it is written.
  void ReplyProtocolError(protocol::ReplyWriter& writer);
  // Hands the batch's replies on: held for the WAL commit when it wrote, else to out_ at once.
  void SendBatch(Batch& batch);
  void StartWrite();
  void OnWrite(const boost::system::error_code& ec, size_t n);
  // The WAL commit of the held batch ended: its replies (the writes' refused on a failure) go.
  void OnCommitted(const storage::Status& status) override;
  // The request at the front of input_ came back incomplete: read its blocks, then run it again.
  void Park();
  // Hands the complete requests in input_ from `from` on to Dispatcher::Lookahead, up to
  // kLookaheadRequests or kLookaheadBytes of wanted blocks, stopping at the first it refuses.
  // Returns how many requests it parsed; the parser is left fresh.
  size_t LookAhead(size_t from, const protocol::ParserLimits& limits);
  void OnBlocksRead();
  // Before parser_'s request `args` (which ends at `from`) runs, with requests queued behind it:
  // hands the keys it and the complete requests after it name, up to kHintedRequests requests
  // within kHintedBytes, to the engine in one hint (types::Keyspace::PrefetchMeta), so that the
  // pipeline's lookups overlap their cache misses. The requests after it stay parsed in
  // parsed_ahead_, which RunRequests takes them from. Returns the input offset up to which
  // requests were looked at. Runs nothing; parser_ is untouched.
  size_t HintQueuedKeys(std::span<const std::string_view> args, size_t from,
                        const protocol::ParserLimits& limits);
  // The connection runs nothing while it waits: for its batch's WAL sync, for the engine's write
  // stall to end, or for the blocks of a parked request.
  bool Waiting() const { return sync_pending_ || write_stalled_ || parked_; }
  size_t PendingOutput() const { return out_.size() + in_flight_.size() + held_.size(); }
  // Applies client-output-buffer-limit (the replica class to a replica, the pubsub class in
  // subscriber mode, else normal) to the
  // pending output and the batch being built; returns false (and closes) if exceeded. `now_ms`:
  // as OverOutputLimit's `now`.
  bool CheckOutputLimits(std::optional<int64_t> now_ms);
  // `now`: the wall clock in ms, read here (only when needed) if not given.
  bool OverOutputLimit(std::optional<int64_t> now);
  void LogOutputLimitClose();
  // A message pushed to this client (Client::Push): appended after the replies produced so far;
  // past the output limit the connection closes (deferred: the publisher is still delivering).
  void OnPush(std::string_view message);
  // What CLIENT LIST shows (Client::Memory).
  void UpdateClientSizes();
  // Releases buffer memory the connection no longer needs (Cron): the query buffer when idle
  // for kIdleShrinkMs or at more than twice what the last period needed; idle output buffers
  // and the parser's argument arrays. Only buffers above kShrinkThresholdBytes.
  void ShrinkIdleBuffers(int64_t now_ms);

  static constexpr size_t kShrinkThresholdBytes = 32 * 1024;  // Redis's PROTO_RESIZE_THRESHOLD
  static constexpr int64_t kIdleShrinkMs = 2000;

  Server* server_;
  boost::asio::ip::tcp::socket socket_;
  ArmedReadWaits armed_reads_;
  // The TLS session over socket_ (tls-port), or null for a plain connection.
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls_;
  Client client_;
  protocol::RequestParser parser_;
  // The requests HintQueuedKeys read ahead, each parsed once: RunRequests takes them from here,
  // within the run that parsed them. Its window of kHintedBytes bounds the arrays it keeps (a few
  // hundred arguments at most).
  protocol::ParsedAhead parsed_ahead_;
  // The rows of the requests HintQueuedKeys named (Dispatcher::AppendKeysOf): parser_'s request's,
  // and each of parsed_ahead_'s by its entry's number. Dispatch takes them instead of looking the
  // rows up again.
  ResolvedCommand hinted_row_;
  std::array<ResolvedCommand, kHintedRequests - 1> ahead_rows_;
  std::vector<std::string_view> hinted_keys_;  // HintQueuedKeys's, reused
  std::array<char, 16 * 1024> read_buf_;
  std::string input_;      // received, not yet consumed by the parser
  size_t input_peak_ = 0;  // the most input_ held since the last Cron
  std::string out_;        // replies ready to send
  // The buffer ProcessInput builds its batch of replies in: empty between runs (its capacity at
  // most kShrinkThresholdBytes; SendBatch hands the replies on by swapping buffers).
  std::string batch_replies_;
  std::string in_flight_;   // the buffer of the outstanding async_write
  std::string held_;        // replies waiting for a WAL commit (empty, kept for its buffer, else)
  ReplySpans held_writes_;  // the write commands' replies among them
  // The span list a batch collects its write replies in: empty between runs.
  ReplySpans batch_writes_;
  bool reading_ = false;
  // ReadInput's last recv left the socket empty: it returned less than it asked for, or EAGAIN.
  bool last_read_dry_ = false;
  // Set by OnReadable while its handler runs after a dry read: MaybeRead may then queue the wait
  // without re-arming the socket (ArmedReadWaits).
  bool read_dry_ = false;
  bool writing_ = false;
  bool sync_pending_ = false;
  bool write_stalled_ = false;   // a deferred write waits at the front of input_
  bool parked_ = false;          // the request at the front of input_ waits for its blocks
  bool parked_request_ = false;  // ... and runs even if the connection is closing
  // Requests still to run, the parked one included, that a lookahead may have pinned blocks for;
  // at 0 the pins go.
  size_t lookahead_left_ = 0;
  bool close_after_write_ = false;
  bool closed_ = false;
  int64_t soft_limit_since_ms_ = 0;  // 0: output not above the soft limit
  std::string* batch_ = nullptr;     // ProcessInput's reply batch while it runs
  bool push_refused_ = false;        // over the limit by a push: closing, pushes dropped
  bool push_write_posted_ = false;   // a StartWrite for pushed messages is posted
  bool output_paused_ = false;       // ProcessInput stopped at kPauseReadingBytes of output
};

}  // namespace ebb::server
