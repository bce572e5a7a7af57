#include "tests/support/fault_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr size_t kMaxPending = 1 << 20;  // bytes held for one direction before reading pauses

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

// One relayed connection: the client's socket, the target's, and what each direction has read
// but not yet written.
struct FaultProxy::Relay {
  int client = -1;
  int target = -1;
  std::string to_target;
  std::string to_client;
  bool closed = false;

  ~Relay() {
    if (client >= 0) close(client);
    if (target >= 0) close(target);
  }
  // Reads what `from` has; false when it closed or failed. Discards it when `drop`.
  static bool Pump(int from, std::string* pending, bool drop) {
    char buf[16384];
    for (int i = 0; i < 64 && pending->size() < kMaxPending; i++) {
      const ssize_t n = read(from, buf, sizeof(buf));
      if (n > 0) {
        if (!drop) pending->append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
      return false;  // closed or failed
    }
    return true;
  }
  static bool Flush(int to, std::string* pending) {
    while (!pending->empty()) {
      // send, not write: a peer that closed answers EPIPE instead of killing the test with
      // SIGPIPE.
      const ssize_t n = send(to, pending->data(), pending->size(), MSG_NOSIGNAL);
      if (n > 0) {
        pending->erase(0, static_cast<size_t>(n));
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

void FaultProxy::SetMode(Mode mode) {
  mode_.store(mode);
  if (wake_fds_[1] >= 0) (void)!write(wake_fds_[1], "x", 1);
}

void FaultProxy::Run() {
  std::vector<std::unique_ptr<Relay>> relays;
  while (!stop_.load()) {
    const Mode mode = mode_.load();
    if (mode == Mode::kCut) relays.clear();
    std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}, {wake_fds_[0], POLLIN, 0}};
    for (const auto& r : relays) {
      fds.push_back({r->client,
                     static_cast<short>((r->to_target.size() < kMaxPending ? POLLIN : 0) |
                                        (r->to_client.empty() ? 0 : POLLOUT)),
                     0});
      fds.push_back({r->target,
                     static_cast<short>((r->to_client.size() < kMaxPending ? POLLIN : 0) |
                                        (r->to_target.empty() ? 0 : POLLOUT)),
                     0});
    }
    if (poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) return;
    if (fds[1].revents & POLLIN) {
      char buf[64];
      while (read(wake_fds_[0], buf, sizeof(buf)) > 0) {
      }
    }
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
    for (size_t i = 0; i < relays.size() && 2 + 2 * i + 1 < fds.size(); i++) {
      Relay& r = *relays[i];
      const short client_events = fds[2 + 2 * i].revents;
      const short target_events = fds[2 + 2 * i + 1].revents;
      bool ok = true;
      if (client_events & (POLLIN | POLLHUP | POLLERR)) {
        ok &= Relay::Pump(r.client, &r.to_target, mode == Mode::kDropToTarget);
      }
      if (target_events & (POLLIN | POLLHUP | POLLERR)) {
        ok &= Relay::Pump(r.target, &r.to_client, mode == Mode::kDropFromTarget);
      }
      ok &= Relay::Flush(r.target, &r.to_target);
      ok &= Relay::Flush(r.client, &r.to_client);
      r.closed = !ok;
    }
    std::erase_if(relays, [](const std::unique_ptr<Relay>& r) { return r->closed; });
  }
}

}  // namespace ebb::test
