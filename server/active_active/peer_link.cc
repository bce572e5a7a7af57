#include "server/active_active/peer_link.h"

#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <boost/asio/post.hpp>
#include <chrono>
#include <vector>

#include "common/strings.h"
#include "common/wall_clock.h"
#include "server/active_active/active_active.h"

namespace ebb::server {
namespace {

using ReplyPtr = std::unique_ptr<redisReply, void (*)(void*)>;

ReplyPtr Command(redisContext* c, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  return ReplyPtr(static_cast<redisReply*>(
                      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data())),
                  freeReplyObject);
}

// One stream message: a delta, or a tick (args: now_ms, end_offset).
struct Message {
  bool tick = false;
  PeerDelta delta;
  int64_t tick_ms = 0;
  uint64_t tick_end = 0;
};

bool ParseMessage(const redisReply* r, Message* m) {
  if (r == nullptr || r->type != REDIS_REPLY_ARRAY || r->elements < 3) return false;
  auto str = [r](size_t i) { return std::string_view(r->element[i]->str, r->element[i]->len); };
  for (size_t i = 0; i < r->elements; i++) {
    if (r->element[i]->type != REDIS_REPLY_STRING) return false;
  }
  int64_t a = 0;
  int64_t b = 0;
  if (str(0) == "tick") {
    if (!ParseInt64(str(1), &a) || !ParseInt64(str(2), &b)) return false;
    m->tick = true;
    m->tick_ms = a;
    m->tick_end = static_cast<uint64_t>(b);
    return true;
  }
  int64_t db = 0;
  if (str(0) != "delta" || r->elements < 5 || !ParseInt64(str(1), &a) || !ParseInt64(str(2), &b) ||
      !ParseInt64(str(3), &db)) {
    return false;
  }
  m->delta.offset = static_cast<uint64_t>(a);
  m->delta.origin_ms = b;
  m->delta.db = static_cast<int>(db);
  m->delta.args.clear();
  for (size_t i = 4; i < r->elements; i++) m->delta.args.emplace_back(str(i));
  return true;
}

}  // namespace

PeerLink::PeerLink(ActiveActive* owner, boost::asio::io_context& io, std::string host, int port,
                   std::string node_id, std::string auth_user, std::string auth_pass)
    : owner_(owner),
      io_(io),
      host_(std::move(host)),
      port_(port),
      node_id_(std::move(node_id)),
      auth_user_(std::move(auth_user)),
      auth_pass_(std::move(auth_pass)) {}

PeerLink::~PeerLink() { Stop(); }

void PeerLink::Start() {
  thread_ = std::thread([this] { Run(); });
}

void PeerLink::Stop() {
  shared_->alive = false;
  stop_ = true;
  CloseSocket();
  if (thread_.joinable()) thread_.join();
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
  redisContext* c = redisConnectWithTimeout(host_.c_str(), port_, timeval{1, 0});
  if (c == nullptr || c->err) {
    if (c != nullptr) redisFree(c);
    return;
  }
  {
    std::lock_guard lock(fd_mu_);
    fd_ = c->fd;
  }
  auto end_session = [&] {
    {
      std::lock_guard lock(fd_mu_);
      fd_ = -1;
    }
    redisFree(c);
    if (!paused_ && !stop_) SetState("connecting");
  };
  if (stop_ || paused_) return end_session();
  SetState("handshake");
  redisSetTimeout(c, timeval{3, 0});
  if (!auth_pass_.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!auth_user_.empty()) auth.push_back(auth_user_);
    auth.push_back(auth_pass_);
    ReplyPtr r = Command(c, auth);
    if (!r || r->type == REDIS_REPLY_ERROR) {
      spdlog::warn("Peer {}:{}: AUTH refused: {}", host_, port_, r ? r->str : "no reply");
      return end_session();
    }
  }
  ReplyPtr id = Command(c, {"PEER", "ID"});
  if (!id || id->type != REDIS_REPLY_STRING) {
    spdlog::warn("Peer {}:{}: PEER ID failed: {}", host_, port_,
                 id && id->type == REDIS_REPLY_ERROR ? id->str : "no reply");
    return end_session();
  }
  const std::string peer_id(id->str, id->len);
  if (peer_id == node_id_) {
    spdlog::warn("Peer {}:{} is this node itself: not linked", host_, port_);
    SetState("self");
    stop_ = true;
    return end_session();
  }
  {
    std::lock_guard lock(shared_->mu);
    shared_->status.peer_id = peer_id;
  }
  const uint64_t from = owner_->applied_offset(peer_id) + 1;
  ReplyPtr sync = Command(c, {"PEER", "SYNC", node_id_, std::to_string(from)});
  if (!sync || sync->type != REDIS_REPLY_STATUS) {
    const bool behind = sync && sync->type == REDIS_REPLY_ERROR &&
                        std::string_view(sync->str).starts_with("PEERBEHIND");
    spdlog::warn("Peer {}:{}: PEER SYNC from {} refused: {}", host_, port_, from,
                 sync && sync->type == REDIS_REPLY_ERROR ? sync->str : "no reply");
    end_session();
    if (behind) SetState("behind");
    return;
  }
  spdlog::info("Peer {}:{} ({}): streaming from origin offset {}", host_, port_, peer_id, from);
  SetState("connected");
  shared_->reconnect = false;
  std::vector<Message> batch;
  while (!stop_ && !paused_ && !shared_->reconnect) {
    void* raw = nullptr;
    if (redisGetReply(c, &raw) != REDIS_OK || raw == nullptr) break;
    batch.clear();
    bool bad = false;
    do {
      ReplyPtr r(static_cast<redisReply*>(raw), freeReplyObject);
      Message m;
      if (!ParseMessage(r.get(), &m)) {
        bad = true;
        break;
      }
      batch.push_back(std::move(m));
      raw = nullptr;
    } while (batch.size() < 1024 && redisGetReplyFromReader(c, &raw) == REDIS_OK && raw != nullptr);
    if (bad) {
      spdlog::warn("Peer {}:{}: malformed stream message: reconnecting", host_, port_);
      break;
    }
    {
      std::lock_guard lock(shared_->mu);
      shared_->status.last_io_ms = WallMs();
    }
    shared_->in_flight += static_cast<int>(batch.size());
    boost::asio::post(io_,
                      [shared = shared_, owner = owner_, peer_id, messages = std::move(batch)] {
                        shared->in_flight -= static_cast<int>(messages.size());
                        if (!shared->alive || shared->reconnect) return;
                        // Runs of deltas are applied as one engine write each; a tick ends a run.
                        std::vector<const PeerDelta*> run;
                        auto flush = [&] {
                          const bool ok = run.empty() || owner->ApplyDeltas(peer_id, run);
                          run.clear();
                          if (!ok) shared->reconnect = true;
                          return ok;
                        };
                        for (const Message& m : messages) {
                          if (!m.tick) {
                            run.push_back(&m.delta);
                            continue;
                          }
                          if (!flush()) return;
                          const uint64_t applied = owner->applied_offset(peer_id);
                          const int64_t now = WallMs();
                          std::lock_guard lock(shared->mu);
                          Status& st = shared->status;
                          st.remote_end = m.tick_end;
                          st.clock_skew_ms = m.tick_ms - now;
                          if (applied >= m.tick_end) {
                            st.behind_since_ms = 0;
                          } else if (st.behind_since_ms == 0) {
                            st.behind_since_ms = now;
                          }
                        }
                        flush();
                      });
    batch = {};
    while (shared_->in_flight > kMaxInFlight && !stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  end_session();
}

}  // namespace ebb::server
