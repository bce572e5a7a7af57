// The one place that pins the Asio internals ebb's event loop builds on: ArmedReadWaits
// (armed_read_wait.h: a socket's read wait on its registration as it is) and BeforeWait
// (before_wait.h: tasks inside the reactor's turn) use Asio's epoll reactor through
// boost/asio/detail, whose interface is not Asio's public one. Both were written against Boost
// 1.81's; a Boost upgrade stops the build here, and both files must be checked against the new
// reactor before the version below moves.
#pragma once

#include <boost/asio/detail/reactor.hpp>
#include <boost/version.hpp>
#include <type_traits>

namespace ebb::server::asio_internals {

namespace detail = boost::asio::detail;

static_assert(BOOST_VERSION / 100 == 1081,
              "armed_read_wait.cc and before_wait.cc use Asio's epoll reactor interface of Boost "
              "1.81: check them");
static_assert(std::is_same_v<detail::reactor, detail::epoll_reactor>,
              "armed_read_wait.cc and before_wait.cc expect Asio's epoll reactor");

}  // namespace ebb::server::asio_internals
