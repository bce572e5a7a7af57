// ArmedReadWaits: waits for a plain TCP socket to become readable without re-arming it.
//
// Asio registers every socket with its epoll reactor once, edge-triggered (EPOLLIN | EPOLLET).
// Its async_wait cannot know whether bytes arrived while no wait was queued (their edge was
// reported then, and dropped), so every async_wait re-arms the descriptor with an
// epoll_ctl(EPOLL_CTL_MOD), which reports a socket already readable at once: one system call per
// request at pipeline depth 1. A caller that has just read the socket dry — a recv that returned
// less than it asked for, or EAGAIN — in the same handler, with no turn of the loop since, knows
// better: any byte arriving from then on raises a new edge, and that edge is only reported by an
// epoll_wait, which runs after the wait is queued. ArmedReadWaits::Wait queues the wait on the
// reactor's existing registration, with no system call; the handler runs with the same error
// codes as async_wait's (operation_aborted when the socket is closed).
//
// The waiter is held by shared_ptr until its handler has run, and the queued operation comes
// from Asio's per-thread recycling allocator, as Asio's own operations do: a wait allocates
// nothing once the loop runs (at pipeline depth 1 that was two heap blocks per request).
//
// It uses the reactor's own interface (boost/asio/detail): checked against the Boost version
// and reactor it was written for. Thread-safety: the io thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <memory>

namespace ebb::server {

// What waits for a socket to become readable (a connection).
class ReadableWaiter {
 public:
  // Runs once, on the io thread, as async_wait's handler would (operation_aborted when the
  // socket was closed).
  virtual void OnReadable(const boost::system::error_code& ec) = 0;

 protected:
  ~ReadableWaiter() = default;
};

// The armed waits of the sockets of one io_context. Its reactor is looked up once, here: Asio's
// use_service takes a mutex and compares type names, a fifth of a wait's cost.
class ArmedReadWaits {
 public:
  // REQUIRES: io outlives this object.
  explicit ArmedReadWaits(boost::asio::io_context& io);

  // REQUIRES: `socket` belongs to the io_context, had an async_wait (or other operation) before
  // that made it non-blocking and registered, and was read until empty since the loop last ran
  // its reactor; waiter != nullptr.
  void Wait(boost::asio::ip::tcp::socket& socket, std::shared_ptr<ReadableWaiter> waiter) const;

 private:
  boost::asio::execution_context::service* reactor_;  // the io_context's epoll reactor
};

}  // namespace ebb::server
