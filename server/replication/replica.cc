// ReplicaLink (replica.h): the link's life — REPLICAOF and promotion, the connection and the
// handshake up to PSYNC's reply, the acknowledgements and repl-timeout. The full
// resynchronisation is in replica_full_sync.cc, the stream and the saved position in
// replica_stream.cc.
#include "server/replication/replica.h"

#include <spdlog/spdlog.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <filesystem>
#include <sstream>

#include "common/wall_clock.h"
#include "server/acl/acl.h"
#include "server/core/client.h"
#include "server/core/errors.h"
#include "server/core/random_id.h"
#include "server/io/listen.h"
#include "server/replication/failover.h"
#include "server/replication/master.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {

namespace {

namespace fs = std::filesystem;

std::string EncodeCommand(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& arg : args) {
    out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  }
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }

}  // namespace

ReplicaLink::ReplicaLink(ServerContext* context, boost::asio::io_context& io,
                         ReplicationMaster* master, Hooks hooks)
    : context_(context),
      io_(io),
      master_(master),
      hooks_(std::move(hooks)),
      resolver_(io),
      retry_timer_(io),
      ack_timer_(io),
      swap_timer_(io) {}

ReplicaLink::~ReplicaLink() { Stop(); }

void ReplicaLink::Start() {
  const Config& config = context_->config();
  Position position;
  const bool have_position = LoadPosition(&position);
  if (config.replicaof_host.empty()) {
    // Started as a master: a later REPLICAOF may still continue from the position (see
    // ReplicateFrom), as Redis keeps its replication ID and offset from its RDB.
    if (have_position) {
      restart_position_ = position;
      restart_sequence_ = context_->keyspace().db().LastSequence();
    }
    return;
  }
  master_->Follow();
  if (have_position) ContinueFrom(position);
  ConnectTo(config.replicaof_host, config.replicaof_port);  // without a position: PSYNC ? -1
}

void ReplicaLink::ContinueFrom(const Position& position) {
  master_->AdoptMasterHistory(position.replid, position.offset);
  replid_ = position.replid;
  offset_ = read_offset_ = position.offset;
  applied_sequence_ = context_->keyspace().db().LastSequence();
  have_history_ = true;
  saved_ = position;
  spdlog::info("Replication position {}:{} loaded: a partial resynchronisation is possible",
               position.replid, position.offset);
}

void ReplicaLink::ReplicateFrom(const std::string& host, int port) {
  if (!is_replica()) {
    // A master becoming a replica asks PSYNC with its own history (Redis's
    // replicationCacheMasterUsingMyself): a master that shares it continues partially.
    master_->Follow();
    if (!have_history_ && restart_position_ &&
        context_->keyspace().db().LastSequence() == restart_sequence_) {
      // A replica restarted without `replicaof` and not written to since: it holds its old
      // master's history up to the saved position, so it reports that offset (a Sentinel picks
      // the replica to promote by it) and asks PSYNC from it. Once the engine has changed, the
      // data is no longer that history's and the position is dropped.
      ContinueFrom(*restart_position_);
    }
    restart_position_.reset();
    if (!have_history_) {
      replid_ = master_->ids().replid;
      offset_ = read_offset_ = master_->end_offset();
      applied_sequence_ = context_->keyspace().db().LastSequence();
      have_history_ = true;
      master_->AdoptMasterHistory(replid_, offset_);
    }
  }
  ConnectTo(host, port);
}

void ReplicaLink::ConnectTo(const std::string& host, int port) {
  CloseSocket();
  host_ = host;
  port_ = port;
  context_->set_is_replica(true);
  retry_delay_ = kFirstRetry;
  context_->config_registry().SetReplicaOf(host, port);
  spdlog::info("Connecting to MASTER {}:{}", host, port);
  state_ = State::kConnect;
  retry_timer_.cancel();
  Connect();
  ScheduleAck();
}

void ReplicaLink::Promote(std::string_view why) {
  if (!is_replica()) return;
  CloseSocket();
  retry_timer_.cancel();
  ack_timer_.cancel();
  swap_timer_.cancel();
  host_.clear();
  port_ = 0;
  context_->set_is_replica(false);
  state_ = State::kNone;
  sink_.reset();
  context_->config_registry().SetReplicaOf("", 0);
  master_->StopFollowing();
  // The engine holds the master's writes: versions continue from its mark.
  storage::Status s = context_->keyspace().ReloadVersionMark();
  if (!s.ok()) spdlog::warn("Reading the version mark after promotion: {}", s.ToString());
  have_history_ = false;
  std::error_code ec;
  fs::remove(PositionPath(), ec);  // a master's data is its own from now on
  spdlog::info("MASTER MODE enabled ({})", why);
}

void ReplicaLink::Stop() {
  if (is_replica() && have_history_ && context_->has_keyspace()) {
    SavePosition(context_->keyspace().dir(), Position{replid_, offset_, applied_sequence_});
  }
  if (context_->has_keyspace()) CloseSocket();
  host_.clear();
  context_->set_is_replica(false);
  state_ = State::kNone;
  retry_timer_.cancel();
  ack_timer_.cancel();
  swap_timer_.cancel();
}

std::string_view ReplicaLink::StateName() const {
  switch (state_) {
    case State::kNone:
      return "none";
    case State::kConnect:
      return "connect";
    case State::kConnecting:
      return "connecting";
    case State::kHandshake:
      return "handshake";
    case State::kTransfer:
    case State::kLoading:
      return "sync";
    case State::kConnected:
      return "connected";
  }
  return "none";
}

int64_t ReplicaLink::LastIoSecondsAgo(int64_t now_ms) const {
  if (state_ != State::kConnected && state_ != State::kTransfer && state_ != State::kLoading) {
    return -1;
  }
  return (now_ms - last_io_ms_) / 1000;
}

int64_t ReplicaLink::DownSinceSeconds(int64_t now_ms) const {
  return down_since_ms_ == 0 ? -1 : (now_ms - down_since_ms_) / 1000;
}

void ReplicaLink::Connect() {
  state_ = State::kConnecting;
  last_io_ms_ = WallMs();  // repl-timeout bounds the connection and the handshake too
  const uint64_t generation = ++generation_;
  resolver_.async_resolve(
      host_, std::to_string(port_),
      [this, generation](const boost::system::error_code& ec, tcp::resolver::results_type found) {
        if (generation != generation_) return;
        if (ec) return Fail("Unable to resolve the master: " + ec.message());
        stream_ = std::make_shared<LinkStream>(io_, tls_);
        boost::asio::async_connect(
            stream_->socket(), found,
            [this, generation, stream = stream_](const boost::system::error_code& connect_ec,
                                                 const tcp::endpoint&) {
              if (generation != generation_) return;
              if (connect_ec)
                return Fail("Error condition on socket for SYNC: " + connect_ec.message());
              Handshake();
            });
      });
}

void ReplicaLink::Handshake() {
  const uint64_t generation = generation_;
  // tls-replication: the master's certificate is verified before a byte of the handshake (or
  // masterauth) is sent; a refused certificate fails the link, never falling back to clear text.
  stream_->AsyncHandshake(
      boost::asio::ssl::stream_base::client,
      [this, generation, stream = stream_](const boost::system::error_code& ec) {
        if (generation != generation_) return;
        if (ec) return Fail("TLS handshake with the master failed: " + ec.message());
        OnConnected();
      });
}

void ReplicaLink::OnConnected() {
  boost::system::error_code ec;
  stream_->socket().set_option(tcp::no_delay(true), ec);
  spdlog::info("MASTER <-> REPLICA sync started{}", stream_->tls() ? " (TLS)" : "");
  state_ = State::kHandshake;
  last_io_ms_ = WallMs();
  in_.clear();
  const Config& config = context_->config();
  steps_.clear();
  step_ = 0;
  steps_.push_back({"PING"});
  if (!config.masterauth.empty()) {
    if (config.masteruser.empty()) {
      steps_.push_back({"AUTH", config.masterauth});
    } else {
      steps_.push_back({"AUTH", config.masteruser, config.masterauth});
    }
  }
  // As Redis: over tls-replication a replica is reached at its tls-port (Sentinel, FAILOVER).
  const int announce_port = config.replica_announce_port != 0 ? config.replica_announce_port
                            : config.tls_replication && config.tls_port != 0 ? config.tls_port
                                                                             : config.port;
  steps_.push_back({"REPLCONF", "listening-port", std::to_string(announce_port)});
  if (!config.replica_announce_ip.empty()) {
    steps_.push_back({"REPLCONF", "ip-address", config.replica_announce_ip});
  }
  steps_.push_back({"REPLCONF", "capa", "eof", "capa", "psync2"});
  if (have_history_) {
    steps_.push_back({"PSYNC", replid_, std::to_string(offset_ + 1)});
  } else {
    steps_.push_back({"PSYNC", "?", "-1"});
  }
  // A master failing over to this one tells it to promote itself (server/replication/failover.h).
  Failover* failover = context_->failover();
  if (failover != nullptr && failover->state() == Failover::State::kInProgress) {
    steps_.back().push_back("FAILOVER");
  }
  SendHandshakeStep();
  ReadMore();
}

void ReplicaLink::SendHandshakeStep() { SendCommand(steps_[step_]); }

void ReplicaLink::SendCommand(const std::vector<std::string>& args) {
  out_ += EncodeCommand(args);
  Flush();
}

void ReplicaLink::Flush() {
  if (writing_ || out_.empty() || stream_ == nullptr) return;
  writing_ = true;
  out_sending_.swap(out_);
  out_.clear();
  const uint64_t generation = generation_;
  stream_->AsyncWrite(
      boost::asio::buffer(out_sending_),
      [this, generation, stream = stream_](const boost::system::error_code& ec, size_t) {
        if (generation != generation_) return;
        writing_ = false;
        out_sending_.clear();
        if (ec) return Fail("Writing to the master: " + ec.message());
        Flush();
      });
}

void ReplicaLink::ReadMore() {
  if (stream_ == nullptr) return;
  const uint64_t generation = generation_;
  stream_->AsyncReadSome(
      boost::asio::buffer(buffer_),
      [this, generation, stream = stream_](const boost::system::error_code& ec, size_t n) {
        OnRead(ec, n, generation);
      });
}

void ReplicaLink::OnRead(const boost::system::error_code& ec, size_t n, uint64_t generation) {
  if (generation != generation_) return;
  if (ec) {
    return Fail(ec == boost::asio::error::eof ? "Connection with master lost"
                                              : "Reading from the master: " + ec.message());
  }
  last_io_ms_ = WallMs();
  in_.append(buffer_.data(), n);
  if (state_ == State::kConnected) read_offset_ += n;
  if (Process()) ReadMore();
}

bool ReplicaLink::Process() {
  for (;;) {
    switch (state_) {
      case State::kHandshake: {
        const size_t end = in_.find("\r\n");
        if (end == std::string::npos) return true;
        const std::string line = in_.substr(0, end);
        in_.erase(0, end + 2);
        if (!OnHandshakeReply(line)) return false;
        break;
      }
      case State::kTransfer:
        return ReadSnapshot();
      case State::kConnected:
        return ApplyStream();
      default:
        return false;
    }
  }
}

bool ReplicaLink::OnHandshakeReply(std::string_view line) {
  const std::vector<std::string>& step = steps_[step_];
  const std::string& command = step[0];
  if (command == "PSYNC") return OnPsyncReply(line);
  if (command == "PING") {
    // An error that only says AUTH comes next is fine, as in Redis.
    if (line[0] != '+' && !StartsWith(line, "-NOAUTH") && !StartsWith(line, "-NOPERM") &&
        !StartsWith(line, "-" + std::string(kOperationNotPermitted))) {
      Fail("Error reply to PING from master: '" + std::string(line) + "'");
      return false;
    }
  } else if (command == "AUTH") {
    if (line[0] == '-') {
      Fail("Unable to AUTH to MASTER: " + std::string(line));
      return false;
    }
  } else if (line[0] == '-') {  // REPLCONF: a master that does not know an option is fine
    spdlog::info("Master does not understand REPLCONF {}: {}", step[1], line);
  }
  step_++;
  SendHandshakeStep();
  return true;
}

bool ReplicaLink::OnPsyncReply(std::string_view line) {
  if (steps_[step_].back() == "FAILOVER" && context_->failover() != nullptr) {
    // Accepted: the target is the master now. Refused: the failover is aborted, which makes
    // this server a master again (and closes this link).
    const bool accepted = StartsWith(line, "+FULLRESYNC") || StartsWith(line, "+CONTINUE");
    context_->failover()->OnPsyncReply(accepted);
    if (!accepted) return false;
  }
  if (StartsWith(line, "+FULLRESYNC")) {
    std::istringstream in{std::string(line.substr(11))};
    std::string replid;
    uint64_t offset = 0;
    if (!(in >> replid >> offset) || !IsHexId(replid)) {
      Fail("Master replied with wrong +FULLRESYNC syntax: " + std::string(line));
      return false;
    }
    spdlog::info("Full resync from master: {}:{}", replid, offset);
    sync_replid_ = replid;
    sync_offset_ = offset;
    bulk_total_ = -1;
    bulk_read_ = 0;
    state_ = State::kTransfer;
    return true;
  }
  if (StartsWith(line, "+CONTINUE")) {
    std::string_view new_id = line.substr(9);
    while (!new_id.empty() && new_id.front() == ' ') new_id.remove_prefix(1);
    spdlog::info("Successful partial resynchronization with master.");
    if (!new_id.empty() && !IsHexId(new_id)) {
      // As Redis: a new ID that is not one is not taken; the history stays the one asked for.
      spdlog::warn("Master replied +CONTINUE with an ID that is not one: keeping {}", replid_);
    } else if (!new_id.empty() && new_id != replid_) {
      spdlog::info("Master replication ID changed to {}", new_id);
      master_->ContinueMasterHistory(new_id);
      replid_ = std::string(new_id);
    }
    state_ = State::kConnected;
    read_offset_ = offset_ + in_.size();
    retry_delay_ = kFirstRetry;
    AttachClient();
    SendAck();
    return true;
  }
  if (StartsWith(line, "-NOMASTERLINK") || StartsWith(line, "-LOADING")) {
    Fail("Master is currently unable to PSYNC but should be in the future: " + std::string(line));
    return false;
  }
  Fail("Unexpected reply to PSYNC from master: " + std::string(line));
  return false;
}

void ReplicaLink::AttachClient() {
  if (client_) context_->clients().Remove(client_->id());
  boost::system::error_code ec;
  const tcp::endpoint remote = stream_->socket().remote_endpoint(ec);
  const tcp::endpoint local = stream_->socket().local_endpoint(ec);
  auto addr = [](const tcp::endpoint& e) {
    return e.address().to_string() + ":" + std::to_string(e.port());
  };
  client_ = std::make_unique<Client>(context_->clients().NextId(), addr(remote), addr(local),
                                     stream_->socket().native_handle(), WallMs(),
                                     IsLoopbackPeer(remote.address()));
  client_->set_master_link(true);
  // The link runs no command through the dispatcher (it applies the stream to the engine); it
  // shows in CLIENT LIST as the default user, as Redis's master client does.
  client_->set_user(&context_->acl().default_user());
  client_->set_close_hook([this, generation = generation_] {
    boost::asio::post(io_, [this, generation] {
      if (generation == generation_) DropLink("killed by CLIENT KILL");
    });
  });
  context_->clients().Add(client_.get());
}

void ReplicaLink::DropLink(std::string_view why) {
  if (!is_replica() || state_ == State::kConnect) return;
  Fail(why);
}

void ReplicaLink::Fail(std::string_view why) {
  spdlog::warn("MASTER <-> REPLICA link: {}", why);
  CloseSocket();
  if (is_replica()) {
    state_ = State::kConnect;
    ScheduleRetry();
  }
}

void ReplicaLink::CloseSocket() {
  generation_++;
  resolver_.cancel();
  if (stream_ != nullptr) {
    stream_->Close();  // its pending operations keep it until their handlers have run
    stream_.reset();
  }
  swap_timer_.cancel();
  writing_ = false;
  out_.clear();
  out_sending_.clear();
  in_.clear();
  if (state_ == State::kConnected) down_since_ms_ = WallMs();
  if (state_ == State::kTransfer || state_ == State::kLoading) {
    sink_.reset();
    std::error_code fs_ec;
    fs::remove_all(DataDir() + ".sync", fs_ec);
  }
  read_offset_ = offset_;
  if (client_) {
    context_->clients().Remove(client_->id());
    client_.reset();
  }
}

void ReplicaLink::ScheduleRetry() {
  retry_timer_.expires_after(retry_delay_);
  retry_delay_ = std::min(retry_delay_ * 2, std::chrono::milliseconds(kMaxRetry));
  retry_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !is_replica() || state_ != State::kConnect) return;
    spdlog::info("Connecting to MASTER {}:{}", host_, port_);
    Connect();
  });
}

void ReplicaLink::ScheduleAck() {
  ack_timer_.expires_after(std::chrono::seconds(1));
  ack_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !is_replica()) return;
    if (!TimedOut(WallMs())) SendAck();
    ScheduleAck();
  });
}

bool ReplicaLink::TimedOut(int64_t now_ms) {
  if (now_ms - last_io_ms_ <= context_->config().repl_timeout_s * 1000) return false;
  // Redis's wording (replicationCron).
  switch (state_) {
    case State::kConnecting:
    case State::kHandshake:
      Fail("Timeout connecting to the MASTER...");
      return true;
    case State::kTransfer:
      Fail(
          "Timeout receiving bulk data from MASTER... If the problem persists try to set the "
          "'repl-timeout' parameter in redis.conf to a larger value.");
      return true;
    case State::kConnected:
      Fail("MASTER timeout: no data nor PING received...");
      return true;
    default:  // not connected, or loading the snapshot (nothing is read meanwhile)
      return false;
  }
}

void ReplicaLink::SendAck() {
  if (state_ != State::kConnected) return;
  AckApplied();
}

void ReplicaLink::AckApplied() {
  // The position first: an offset this replica acknowledged (a WAIT counted it) is one it
  // reports after a kill, so a failover never passes over it for a replica that is behind.
  const Position now{replid_, offset_, applied_sequence_};
  if (now.replid != saved_.replid || now.offset != saved_.offset) {
    SavePosition(context_->keyspace().dir(), now);
  }
  SendCommand({"REPLCONF", "ACK", std::to_string(offset_)});
}

}  // namespace ebb::server
