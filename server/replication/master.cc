#include "server/replication/master.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <chrono>
#include <filesystem>
#include <future>

#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/core/client.h"
#include "server/services/server_context.h"
#include "storage/replication_snapshot.h"
#include "types/keyspace.h"

namespace ebb::server {

namespace {

std::string IpOf(const std::string& addr) { return addr.substr(0, addr.rfind(':')); }

}  // namespace

ReplicationMaster::ReplicationMaster(ServerContext* context, boost::asio::io_context& io)
    : context_(context), io_(io) {}

ReplicationMaster::~ReplicationMaster() { Stop(); }

void ReplicationMaster::Stop() {
  stopping_ = true;
  for (Worker& worker : workers_) worker.thread.join();
  workers_.clear();
  // main closes the keyspace before the server goes (server/main.cc): then there is no tap left.
  if (backlog_ && !following_ && context_->has_keyspace()) {
    context_->keyspace().db().SetReplicationTap(nullptr);
  }
  replicas_.clear();
  DiscardPending();
}

void ReplicationMaster::EnsureBacklog() {
  if (backlog_) return;
  backlog_ = std::make_unique<ReplicationBacklog>(context_->config().repl_backlog_size, 0);
  data_end_ = 0;
  if (!following_) {
    context_->keyspace().db().SetReplicationTap(
        [this](const storage::ReplicationRecord& record) { OnRecord(record); });
  }
}

void ReplicationMaster::OnRecord(const storage::ReplicationRecord& record) {
  StreamRecord(record);
  data_end_ = backlog_->end_offset();
}

void ReplicationMaster::StreamControl(std::string_view word) {
  StreamRecord(storage::ControlRecord(word));
}

void ReplicationMaster::StreamRecord(const storage::ReplicationRecord& record) {
  // Encoded once, where the replicas' copy waits (no replica: a scratch buffer for the backlog).
  std::string& out = replicas_.empty() ? record_ : pending_;
  if (replicas_.empty()) record_.clear();
  const size_t at = out.size();
  storage::AppendReplicationRecord(&out, record);
  backlog_->Append(std::string_view(out).substr(at));
  if (!replicas_.empty()) pending_flush_.Schedule();
}

void ReplicationMaster::RequestAck() {
  if (ack_requested_ || following_ || replicas_.empty()) return;
  ack_requested_ = true;
  boost::asio::post(io_, [this] {
    ack_requested_ = false;
    if (!following_ && backlog_ && !replicas_.empty()) StreamControl(storage::kControlGetAck);
  });
}

void ReplicationMaster::Follow() {
  if (following_) return;
  following_ = true;
  if (backlog_ && context_->has_keyspace()) context_->keyspace().db().SetReplicationTap(nullptr);
}

void ReplicationMaster::DropReplicas() {
  for (const Replica& replica : replicas_) {
    if (Client* client = context_->clients().Find(replica.client_id)) client->RequestClose();
  }
  replicas_.clear();
  DiscardPending();  // stream bytes none of them will get now
  // Each worker stops at its next chunk (its replica is gone); wait for them, as they read the
  // engine.
  stopping_ = true;
  for (Worker& worker : workers_) worker.thread.join();
  workers_.clear();
  stopping_ = false;
}

void ReplicationMaster::AdoptMasterHistory(std::string_view replid, uint64_t offset) {
  DropReplicas();
  ids_.replid = std::string(replid);
  ids_.ClearSecond();
  backlog_ = std::make_unique<ReplicationBacklog>(context_->config().repl_backlog_size, offset);
  data_end_ = offset;
}

void ReplicationMaster::ContinueMasterHistory(std::string_view replid) {
  if (replid.empty() || replid == ids_.replid) return;
  DropReplicas();
  ids_.replid2 = ids_.replid;
  ids_.second_offset = static_cast<int64_t>(end_offset()) + 1;
  ids_.replid = std::string(replid);
}

void ReplicationMaster::FeedFromMaster(std::string_view bytes) {
  EnsureBacklog();
  Stream(bytes);
}

void ReplicationMaster::StopFollowing() {
  if (!following_) return;
  following_ = false;
  DropReplicas();
  ids_.Shift(end_offset());
  data_end_ = end_offset();
  if (backlog_) {
    context_->keyspace().db().SetReplicationTap(
        [this](const storage::ReplicationRecord& record) { OnRecord(record); });
  }
}

void ReplicationMaster::Stream(std::string_view bytes) {
  backlog_->Append(bytes);
  if (replicas_.empty()) return;
  pending_.append(bytes);
  pending_flush_.Schedule();
}

void ReplicationMaster::FlushPending() {
  if (pending_.empty()) return;
  const std::string_view bytes = pending_;
  const uint64_t hard_limit = context_->config().client_output_buffer_limit_replica.hard_bytes;
  bool overflowed = false;
  for (Replica& replica : replicas_) {
    if (replica.state != ReplicaState::kOnline) {
      replica.held.append(bytes);
      // The stream held during a full resynchronisation counts as the replica's output: past
      // the replica class's hard limit the link goes, as Redis drops a replica whose output
      // buffer overflows during its bgsave.
      if (hard_limit > 0 && replica.held.size() > hard_limit) {
        spdlog::warn(
            "Replica id={}: {} bytes of stream held during its full resynchronisation, over "
            "client-output-buffer-limit replica: closing",
            replica.client_id, replica.held.size());
        overflowed = true;
        if (Client* client = context_->clients().Find(replica.client_id)) client->RequestClose();
      }
    } else if (Client* client = context_->clients().Find(replica.client_id)) {
      client->Push(bytes);
    }
  }
  // A replica dropped here is gone for its snapshot worker too (it finds no replica).
  if (overflowed) {
    std::erase_if(replicas_, [hard_limit](const Replica& r) {
      return r.state != ReplicaState::kOnline && r.held.size() > hard_limit;
    });
  }
  DiscardPending();
}

void ReplicationMaster::DiscardPending() {
  pending_.clear();
  if (pending_.capacity() > kSnapshotOutputRoom) std::string().swap(pending_);  // after a burst
}

ReplicationMaster::Replica* ReplicationMaster::Find(uint64_t client_id) {
  for (Replica& replica : replicas_) {
    if (replica.client_id == client_id) return &replica;
  }
  return nullptr;
}

void ReplicationMaster::DropClosed() {
  std::erase_if(replicas_, [this](const Replica& replica) {
    return context_->clients().Find(replica.client_id) == nullptr;
  });
  std::erase_if(listening_ports_, [this](const auto& entry) {
    return context_->clients().Find(entry.first) == nullptr;
  });
}

const std::vector<ReplicationMaster::Replica>& ReplicationMaster::replicas() {
  DropClosed();
  return replicas_;
}

void ReplicationMaster::Psync(Client& client, protocol::ReplyWriter& reply, std::string_view replid,
                              int64_t offset) {
  // The attached replicas get what is pending first: the new one starts from the backlog's end
  // (or a byte before it), which already counts those bytes.
  FlushPending();
  DropClosed();
  std::erase_if(replicas_, [&](const Replica& r) { return r.client_id == client.id(); });
  if (replicas_.empty()) last_ping_ms_ = WallMs();  // the first ping comes a period from now
  Replica replica;
  replica.client_id = client.id();
  replica.ip = IpOf(client.addr());
  replica.ack_time_ms = replica.snapshot_push_ms = WallMs();
  if (auto it = listening_ports_.find(client.id()); it != listening_ports_.end()) {
    replica.listening_port = it->second;
  }
  client.set_replica(true);

  if (backlog_ && offset > 0 && ids_.SameHistory(replid, static_cast<uint64_t>(offset)) &&
      backlog_->Holds(static_cast<uint64_t>(offset))) {
    sync_counts_.partial_ok++;
    reply.SimpleString("CONTINUE " + ids_.replid);
    std::string bytes;
    backlog_->CopyFrom(static_cast<uint64_t>(offset), &bytes);
    if (!bytes.empty()) client.Push(bytes);
    replica.state = ReplicaState::kOnline;
    replica.ack_offset = static_cast<uint64_t>(offset) - 1;
    replicas_.push_back(std::move(replica));
    spdlog::info("Replica {} asked for partial resynchronisation from offset {}: accepted",
                 client.addr(), offset);
    return;
  }

  sync_counts_.full++;
  if (replid != "?") sync_counts_.partial_err++;
  EnsureBacklog();
  reply.SimpleString("FULLRESYNC " + ids_.replid + " " + std::to_string(backlog_->end_offset()));
  replica.state = ReplicaState::kWaitSnapshot;
  replicas_.push_back(std::move(replica));
  // Join the workers that are done before starting another.
  std::erase_if(workers_, [](Worker& w) {
    if (!w.done->load()) return false;
    w.thread.join();
    return true;
  });
  const std::string dir = context_->config().dir + ".repl-" + std::to_string(getpid()) + "-" +
                          std::to_string(++snapshots_started_);
  spdlog::info("Replica {}: full resynchronisation, snapshot in {}", client.addr(), dir);
  auto done = std::make_shared<std::atomic<bool>>(false);
  workers_.push_back(Worker{std::thread([this, id = client.id(), dir, done] {
                              SendSnapshot(id, dir);
                              done->store(true);
                            }),
                            done});
}

const ReplicationMaster::Replica* ReplicationMaster::FindByAddress(std::string_view host,
                                                                   int port) {
  for (const Replica& replica : replicas()) {
    if (replica.ip == host && replica.listening_port == port) return &replica;
  }
  return nullptr;
}

void ReplicationMaster::SetListeningPort(Client& client, int port) {
  // Told before PSYNC: kept on the client until it attaches.
  listening_ports_[client.id()] = port;
  if (Replica* replica = Find(client.id())) replica->listening_port = port;
}

void ReplicationMaster::Ack(Client& client, uint64_t offset, int64_t now_ms) {
  Replica* replica = Find(client.id());
  if (replica == nullptr) return;
  replica->ack_offset = std::max(replica->ack_offset, offset);
  replica->ack_time_ms = now_ms;
  if (ack_listener_) ack_listener_();
}

int64_t ReplicationMaster::CountAcked(uint64_t offset) const {
  int64_t n = 0;
  for (const Replica& replica : replicas_) {
    if (replica.state == ReplicaState::kOnline && replica.ack_offset >= offset &&
        context_->clients().Find(replica.client_id) != nullptr) {
      n++;
    }
  }
  return n;
}

int64_t ReplicationMaster::CountGood(int64_t now_ms, int64_t max_lag_s) const {
  int64_t n = 0;
  for (const Replica& replica : replicas_) {
    if (replica.state == ReplicaState::kOnline &&
        (now_ms - replica.ack_time_ms) / 1000 <= max_lag_s &&
        context_->clients().Find(replica.client_id) != nullptr) {
      n++;
    }
  }
  return n;
}

void ReplicationMaster::DropTimedOut(int64_t now_ms) {
  const int64_t timeout_ms = context_->config().repl_timeout_s * 1000;
  std::erase_if(replicas_, [&](const Replica& replica) {
    const char* what = nullptr;
    if (replica.state == ReplicaState::kOnline && now_ms - replica.ack_time_ms > timeout_ms) {
      what = "streaming sync";
    } else if (replica.state == ReplicaState::kSendingSnapshot &&
               now_ms - replica.snapshot_push_ms > timeout_ms) {
      what = "full sync";
    }
    if (what == nullptr) return false;
    const std::string name = replica.listening_port != 0
                                 ? replica.ip + ":" + std::to_string(replica.listening_port)
                                 : "client id #" + std::to_string(replica.client_id);
    spdlog::warn("Disconnecting timedout replica ({}): {}", what, name);
    if (Client* client = context_->clients().Find(replica.client_id)) client->RequestClose();
    return true;
  });
}

void ReplicationMaster::Cron(int64_t now_ms) {
  DropClosed();
  DropTimedOut(now_ms);
  if (!following_ && backlog_ && !replicas_.empty() &&
      now_ms - last_ping_ms_ >= context_->config().repl_ping_replica_period_s * 1000) {
    last_ping_ms_ = now_ms;
    StreamControl(storage::kControlPing);
  }
  if (now_ms - last_newline_ms_ >= 1000) {
    last_newline_ms_ = now_ms;
    for (const Replica& replica : replicas_) {
      if (replica.state != ReplicaState::kWaitSnapshot) continue;
      if (Client* client = context_->clients().Find(replica.client_id)) client->Push("\n");
    }
  }
  if (!replicas_.empty() || following_ || !backlog_) {
    alone_since_ms_ = 0;
    return;
  }
  if (alone_since_ms_ == 0) alone_since_ms_ = now_ms;
  const int64_t ttl_s = context_->config().repl_backlog_ttl_s;
  if (ttl_s == 0 || now_ms - alone_since_ms_ < ttl_s * 1000) return;
  spdlog::info("Replication backlog freed after {} seconds without connected replicas.", ttl_s);
  context_->keyspace().db().SetReplicationTap(nullptr);
  backlog_.reset();
  DiscardPending();
  data_end_ = 0;
  ids_.replid = ReplicationIds::NewId();
  ids_.ClearSecond();
  alone_since_ms_ = 0;
}

bool ReplicationMaster::OnIoThread(std::function<void()> fn) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> ran = done->get_future();
  boost::asio::post(io_, [fn = std::move(fn), done] {
    fn();
    done->set_value();
  });
  while (!stopping_) {
    if (ran.wait_for(std::chrono::milliseconds(100)) == std::future_status::ready) return true;
  }
  return false;
}

void ReplicationMaster::SendSnapshot(uint64_t client_id, std::string dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  uint64_t sequence = 0;
  std::vector<std::string> files;
  // The engine itself (never a MULTI's batch: PSYNC is refused inside MULTI, and the batch
  // only forwards Checkpoint anyway).
  // What the io thread hands back is held by both sides: OnIoThread may give up (stopping)
  // before the io thread runs the function.
  auto db_slot = std::make_shared<storage::DB*>(nullptr);
  if (!OnIoThread([this, db_slot] { *db_slot = &context_->keyspace().db(); })) return;
  storage::DB* db = *db_slot;
  storage::Status s = db->Checkpoint(dir, &sequence, &files);
  std::unique_ptr<storage::SnapshotSource> source;
  if (s.ok())
    s = storage::SnapshotSource::Open(storage::DefaultFileSystem(), dir, sequence, files, &source);
  if (!s.ok()) {
    OnIoThread([this, client_id, why = s.ToString()] { FailSnapshot(client_id, why); });
    std::filesystem::remove_all(dir, ec);
    return;
  }
  OnIoThread([this, client_id] {
    if (Replica* replica = Find(client_id)) {
      replica->state = ReplicaState::kSendingSnapshot;
      replica->snapshot_push_ms = WallMs();
    }
  });
  auto chunk = std::make_shared<std::string>("$" + std::to_string(source->size()) + "\r\n");
  struct PushState {
    std::atomic<bool> pushed{false};
    std::atomic<bool> gone{false};
  };
  auto state = std::make_shared<PushState>();
  std::atomic<bool>& gone = state->gone;
  while (!gone && !stopping_) {
    if (!source->done()) s = source->Read(kSnapshotChunkBytes, chunk.get());
    if (!s.ok()) {
      OnIoThread([this, client_id, why = s.ToString()] { FailSnapshot(client_id, why); });
      break;
    }
    // Push the chunk once the replica's output has room for it.
    for (;;) {
      state->pushed = false;
      if (!OnIoThread([this, client_id, chunk, state] {
            Client* client = context_->clients().Find(client_id);
            if (client == nullptr || Find(client_id) == nullptr) {
              state->gone = true;
            } else if (client->PendingOutput() < kSnapshotOutputRoom) {
              client->Push(*chunk);
              Find(client_id)->snapshot_push_ms = WallMs();
              state->pushed = true;
            }
          })) {
        gone = true;
      }
      if (state->pushed || gone) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    chunk->clear();
    if (source->done()) {
      if (!gone) OnIoThread([this, client_id] { FinishSnapshot(client_id); });
      break;
    }
  }
  std::filesystem::remove_all(dir, ec);
}

void ReplicationMaster::FinishSnapshot(uint64_t client_id) {
  Replica* replica = Find(client_id);
  Client* client = context_->clients().Find(client_id);
  if (replica == nullptr || client == nullptr) return;
  if (!replica->held.empty()) client->Push(replica->held);
  std::string().swap(replica->held);
  replica->state = ReplicaState::kOnline;
  replica->ack_time_ms = WallMs();
  spdlog::info("Replica {}: snapshot sent, streaming", client->addr());
}

void ReplicationMaster::FailSnapshot(uint64_t client_id, const std::string& why) {
  spdlog::warn("Full resynchronisation of replica id={} failed: {}", client_id, why);
  std::erase_if(replicas_, [&](const Replica& r) { return r.client_id == client_id; });
  if (Client* client = context_->clients().Find(client_id)) client->RequestClose();
}

std::string_view ReplicationMaster::ReplicaStateName(ReplicaState state) {
  switch (state) {
    case ReplicaState::kWaitSnapshot:
      return "wait_bgsave";
    case ReplicaState::kSendingSnapshot:
      return "send_bulk";
    case ReplicaState::kOnline:
      return "online";
  }
  return "online";
}

}  // namespace ebb::server
