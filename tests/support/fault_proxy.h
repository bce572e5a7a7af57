// FaultProxy: a TCP relay on 127.0.0.1 that a fault-injection test puts between two servers (a
// replica and its master, an active-active node and a peer it pulls from) and then breaks on
// command — the network half of the nemeses (tests/integration/replication_nemesis_test.cc,
// active_active_nemesis_test.cc).
//
// It listens on a free loopback port and relays every connection it accepts to the target port,
// byte for byte, in both directions, until told otherwise:
//   kOpen            relay both ways;
//   kCut             close every relayed connection and close new ones at once (a partition
//                    the peers notice: connection reset, refused reconnects);
//   kDropToTarget    keep connections open but discard what the client sends (a one-way
//                    partition: the target hears nothing, the client still hears the target);
//   kDropFromTarget  the other way round;
//   kDelay           relay both ways, but hold each chunk read for delay() before writing it (a
//                    slow or congested network: bytes arrive late, intact and in order);
//   kDelayToTarget   hold only what the client sends; kDelayFromTarget: only what it hears.
// A chunk is held from when it is read, by the delay in force then; a chunk read later never
// overtakes it, so leaving a delay mode releases what is held in order, each when due. A side
// that closes closes its relayed connection at once: what is held for either side is lost.
// set_target() points new connections elsewhere (a failover); open ones keep their target.
//
// One thread runs the relay (poll over every socket, nonblocking, bounded buffers: reading a
// direction pauses while it holds kMaxPending bytes, delayed or not); the public methods may be
// called from any thread. The destructor stops the thread and closes everything.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace ebb::test {

class FaultProxy {
 public:
  enum class Mode {
    kOpen,
    kCut,
    kDropToTarget,
    kDropFromTarget,
    kDelay,
    kDelayToTarget,
    kDelayFromTarget
  };
  // The longest delay set_delay() takes; longer ones are clamped to it.
  static constexpr std::chrono::milliseconds kMaxDelay{10000};

  explicit FaultProxy(int target_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // The port clients connect to; 0 when no port could be bound.
  int port() const { return port_; }
  void set_target(int target_port) { target_port_.store(target_port); }
  void SetMode(Mode mode);
  // The hold of the delay modes (default 100 ms), clamped to [0, kMaxDelay]; it applies to
  // chunks read from now on.
  void set_delay(std::chrono::milliseconds delay);
  std::chrono::milliseconds delay() const { return std::chrono::milliseconds(delay_ms_.load()); }

 private:
  struct Relay;
  void Run();

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_fds_[2] = {-1, -1};  // a pipe: SetMode and the destructor wake the relay thread
  std::atomic<int> target_port_;
  std::atomic<Mode> mode_{Mode::kOpen};
  std::atomic<int64_t> delay_ms_{100};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ebb::test
