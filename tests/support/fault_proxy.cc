#include "tests/support/fault_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxPending = 1 << 20;  // bytes held for one direction before reading pauses
constexpr std::chrono::milliseconds kIdlePoll{100};

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  SetNonBlocking(fd);
  return fd;
}

}  // namespace

// One relayed connection: the client's socket, the target's, and what each direction holds.
struct FaultProxy::Relay {
  // What one direction has read but not yet written: chunks in the order read, each with the
  // time it may be written (its read time plus the delay then in force).
  struct Held {
    std::deque<std::pair<Clock::time_point, std::string>> chunks;
    size_t bytes = 0;

    bool Full() const { return bytes >= kMaxPending; }
    bool Due(Clock::time_point now) const { return !chunks.empty() && chunks.front().first <= now; }
  };

  int client = -1;
  int target = -1;
  Held to_target;
  Held to_client;
  bool closed = false;

  ~Relay() {
    if (client >= 0) close(client);
    if (target >= 0) close(target);
  }
  // Reads what `from` has, to be written `delay` from now; false when it closed or failed.
  // Discards it when `drop`.
  static bool Pump(int from, Held* held, bool drop, std::chrono::milliseconds delay) {
    char buf[16384];
    for (int i = 0; i < 64 && !held->Full(); i++) {
      const ssize_t n = read(from, buf, sizeof(buf));
      if (n > 0) {
        if (!drop) {
          held->chunks.emplace_back(Clock::now() + delay, std::string(buf, static_cast<size_t>(n)));
          held->bytes += static_cast<size_t>(n);
        }
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
      return false;  // closed or failed
    }
    return true;
  }
  // Writes the chunks due by `now`, in order; false when `to` failed.
  static bool Flush(int to, Held* held, Clock::time_point now) {
    while (held->Due(now)) {
      std::string& chunk = held->chunks.front().second;
      // send, not write: a peer that closed answers EPIPE instead of killing the test with
      // SIGPIPE.
      const ssize_t n = send(to, chunk.data(), chunk.size(), MSG_NOSIGNAL);
      if (n > 0) {
        held->bytes -= static_cast<size_t>(n);
        chunk.erase(0, static_cast<size_t>(n));
        if (chunk.empty()) held->chunks.pop_front();
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
      return false;
    }
    return true;
  }
};

FaultProxy::FaultProxy(int target_port) : target_port_(target_port) {
  int port = 0;
  listen_fd_ = BindFreeLoopbackPort(&port);
  if (port == 0 || listen(listen_fd_, 64) != 0 || pipe(wake_fds_) != 0) return;
  SetNonBlocking(listen_fd_);
  SetNonBlocking(wake_fds_[0]);
  port_ = port;
  thread_ = std::thread([this] { Run(); });
}

FaultProxy::~FaultProxy() {
  stop_.store(true);
  if (wake_fds_[1] >= 0) (void)!write(wake_fds_[1], "x", 1);
  if (thread_.joinable()) thread_.join();
  for (int fd : {listen_fd_, wake_fds_[0], wake_fds_[1]}) {
    if (fd >= 0) close(fd);
  }
}

void FaultProxy::set_delay(std::chrono::milliseconds delay) {
  delay_ms_.store(std::clamp(delay, std::chrono::milliseconds(0), kMaxDelay).count());
}

void FaultProxy::SetMode(Mode mode) {
  mode_.store(mode);
  if (wake_fds_[1] >= 0) (void)!write(wake_fds_[1], "x", 1);
}

void FaultProxy::Run() {
  std::vector<std::unique_ptr<Relay>> relays;
  while (!stop_.load()) {
    if (mode_.load() == Mode::kCut) relays.clear();
    Clock::time_point now = Clock::now();
    // Sleep no longer than until the first held chunk is due.
    Clock::time_point wake = now + kIdlePoll;
    std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}, {wake_fds_[0], POLLIN, 0}};
    for (const auto& r : relays) {
      for (const Relay::Held* held : {&r->to_target, &r->to_client}) {
        if (!held->chunks.empty()) wake = std::min(wake, held->chunks.front().first);
      }
      fds.push_back({r->client,
                     static_cast<short>((r->to_target.Full() ? 0 : POLLIN) |
                                        (r->to_client.Due(now) ? POLLOUT : 0)),
                     0});
      fds.push_back({r->target,
                     static_cast<short>((r->to_client.Full() ? 0 : POLLIN) |
                                        (r->to_target.Due(now) ? POLLOUT : 0)),
                     0});
    }
    const auto timeout =
        std::max<int64_t>(0, std::chrono::ceil<std::chrono::milliseconds>(wake - now).count());
    if (poll(fds.data(), fds.size(), static_cast<int>(timeout)) < 0 && errno != EINTR) return;
    if (fds[1].revents & POLLIN) {
      char buf[64];
      while (read(wake_fds_[0], buf, sizeof(buf)) > 0) {
      }
    }
    // The mode is read after the poll: bytes a client sends after SetMode returns are read under
    // the new mode even when they woke the same poll as SetMode.
    const Mode mode = mode_.load();
    const std::chrono::milliseconds delay(delay_ms_.load());
    const auto delay_of = [&](Mode both, Mode one) {
      return mode == both || mode == one ? delay : std::chrono::milliseconds(0);
    };
    const std::chrono::milliseconds to_target_delay = delay_of(Mode::kDelay, Mode::kDelayToTarget);
    const std::chrono::milliseconds to_client_delay =
        delay_of(Mode::kDelay, Mode::kDelayFromTarget);
    if (fds[0].revents & POLLIN) {
      for (int i = 0; i < 16; i++) {
        const int client = accept(listen_fd_, nullptr, nullptr);
        if (client < 0) break;
        const int target = mode == Mode::kCut ? -1 : ConnectLoopback(target_port_.load());
        if (target < 0) {
          close(client);
          continue;
        }
        SetNonBlocking(client);
        auto relay = std::make_unique<Relay>();
        relay->client = client;
        relay->target = target;
        relays.push_back(std::move(relay));
      }
    }
    if (mode == Mode::kCut) continue;  // the next round closes every relay
    now = Clock::now();
    for (size_t i = 0; i < relays.size() && 2 + 2 * i + 1 < fds.size(); i++) {
      Relay& r = *relays[i];
      const short client_events = fds[2 + 2 * i].revents;
      const short target_events = fds[2 + 2 * i + 1].revents;
      bool ok = true;
      if (client_events & (POLLIN | POLLHUP | POLLERR)) {
        ok &= Relay::Pump(r.client, &r.to_target, mode == Mode::kDropToTarget, to_target_delay);
      }
      if (target_events & (POLLIN | POLLHUP | POLLERR)) {
        ok &= Relay::Pump(r.target, &r.to_client, mode == Mode::kDropFromTarget, to_client_delay);
      }
      ok &= Relay::Flush(r.target, &r.to_target, now);
      ok &= Relay::Flush(r.client, &r.to_client, now);
      r.closed = !ok;
    }
    std::erase_if(relays, [](const std::unique_ptr<Relay>& r) { return r->closed; });
  }
}

}  // namespace ebb::test
