#include "server/net/armed_read_wait.h"

#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/recycling_allocator.hpp>
#include <memory>
#include <new>
#include <utility>

#include "server/net/asio_epoll_reactor.h"

namespace ebb::server {
namespace {

namespace detail = boost::asio::detail;

// The socket's reactor registration (a protected member of basic_socket).
struct SocketAccess : boost::asio::ip::tcp::socket {
  static auto& Implementation(boost::asio::ip::tcp::socket& socket) {
    return (socket.*(&SocketAccess::impl_)).get_implementation();
  }
};

// True while ArmedReadWaits::Wait queues its operation: the reactor's first, speculative call of
// the operation must not complete it (nothing new has arrived); a later call comes from an event.
thread_local bool queueing = false;

class ReadableOp final : public detail::reactor_op {
 public:
  using Allocator = boost::asio::recycling_allocator<ReadableOp>;

  explicit ReadableOp(std::shared_ptr<ReadableWaiter> waiter)
      : reactor_op(boost::system::error_code(), &ReadableOp::Perform, &ReadableOp::Complete),
        waiter_(std::move(waiter)) {}

  static ReadableOp* New(std::shared_ptr<ReadableWaiter> waiter) {
    Allocator allocator;
    ReadableOp* memory = allocator.allocate(1);
    return new (memory) ReadableOp(std::move(waiter));
  }

 private:
  static status Perform(reactor_op*) { return queueing ? not_done : done; }

  // The memory goes back before the handler runs, so the wait it queues reuses it.
  static void Complete(void* owner, detail::operation* base, const boost::system::error_code&,
                       std::size_t) {
    auto* op = static_cast<ReadableOp*>(base);
    std::shared_ptr<ReadableWaiter> waiter = std::move(op->waiter_);
    const boost::system::error_code ec = op->ec_;
    op->~ReadableOp();
    Allocator().deallocate(op, 1);
    if (owner != nullptr) waiter->OnReadable(ec);  // else the io_context is being destroyed
  }

  std::shared_ptr<ReadableWaiter> waiter_;
};

}  // namespace

ArmedReadWaits::ArmedReadWaits(boost::asio::io_context& io)
    : reactor_(&boost::asio::use_service<detail::reactor>(
          static_cast<boost::asio::execution_context&>(io))) {}

void ArmedReadWaits::Wait(boost::asio::ip::tcp::socket& socket,
                          std::shared_ptr<ReadableWaiter> waiter) const {
  auto& impl = SocketAccess::Implementation(socket);
  auto& reactor = *static_cast<detail::reactor*>(reactor_);
  ReadableOp* op = ReadableOp::New(std::move(waiter));
  queueing = true;
  // Speculative: the reactor queues a read operation on the registered descriptor as it is
  // (only a non-speculative one, async_wait's, re-arms it).
  reactor.start_op(detail::reactor::read_op, impl.socket_, impl.reactor_data_, op,
                   /*is_continuation=*/true, /*allow_speculative=*/true);
  queueing = false;
}

}  // namespace ebb::server
