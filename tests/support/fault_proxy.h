// FaultProxy: a TCP relay on 127.0.0.1 that a fault-injection test puts between two servers (a
// replica and its master) and then breaks on command — the network half of the nemesis
// (tests/integration/replication_nemesis_test.cc).
//
// It listens on a free loopback port and relays every connection it accepts to the target port,
// byte for byte, in both directions, until told otherwise:
//   kOpen            relay both ways;
//   kCut             close every relayed connection and close new ones at once (a partition
//                    the peers notice: connection reset, refused reconnects);
//   kDropToTarget    keep connections open but discard what the client sends (a one-way
//                    partition: the target hears nothing, the client still hears the target);
//   kDropFromTarget  the other way round.
// set_target() points new connections elsewhere (a failover); open ones keep their target.
//
// One thread runs the relay (poll over every socket, nonblocking, bounded buffers); the public
// methods may be called from any thread. The destructor stops the thread and closes everything.
#pragma once

#include <atomic>
#include <mutex>
#include <thread>

namespace ebb::test {

class FaultProxy {
 public:
  enum class Mode { kOpen, kCut, kDropToTarget, kDropFromTarget };

  explicit FaultProxy(int target_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // The port clients connect to; 0 when no port could be bound.
  int port() const { return port_; }
  void set_target(int target_port) { target_port_.store(target_port); }
  void SetMode(Mode mode);

 private:
  struct Relay;
  void Run();

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_fds_[2] = {-1, -1};  // a pipe: SetMode and the destructor wake the relay thread
  std::atomic<int> target_port_;
  std::atomic<Mode> mode_{Mode::kOpen};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ebb::test
