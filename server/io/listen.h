// Opening the listening sockets of a port on every `bind` address (the clients' port, tls-port,
// the cluster bus port), the way Redis reads `bind`: "*" is every IPv4 address, a leading "-"
// marks an address that may be unavailable (skipped with a warning), an IPv6 address listens on
// IPv6 only. And what a peer's address is: as text, and whether it is local.
// Thread-safety: ListenOnAddresses: none, call it before the io_context runs; the others are pure
// functions.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <string>
#include <vector>

#include "server/core/result.h"

namespace ebb::server {

// Why the server cannot start serving (Server::Listen, server/net/server.h, and the listeners
// below it). The parts that word their own errors give their text as the detail;
// ListenErrorText gives the text the server logs before exiting.
enum class ListenCode {
  kOk,
  kTls,                     // detail: TlsErrorText's (server/io/tls.h)
  kInvalidBindAddress,      // detail: the address
  kBind,                    // an address cannot be listened on; detail: Redis's two lines
  kNoAddress,               // neither port nor tls-port has an address
  kMetrics,                 // detail: the metrics listener's
  kCluster,                 // detail: the cluster config's or bus listener's
  kActiveActiveUnreadable,  // detail: the engine's status
  kActiveActive,            // detail: why the node cannot enter the mode
};
std::string ListenErrorText(const Result<ListenCode>& result);

// Binds and listens on `port` at each address of `bind`, appending the acceptors to *out.
// Refusals: kInvalidBindAddress, kBind (a required address cannot be listened on).
Result<ListenCode> ListenOnAddresses(
    boost::asio::io_context& io, const std::vector<std::string>& bind, int port,
    std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>>* out);

// `address` as text, an IPv4 address seen through a dual-stack socket (::ffff:a.b.c.d) as IPv4.
std::string AddressText(const boost::asio::ip::address& address);

// True when `peer` is a loopback address: 127.0.0.0/8, ::1, or an IPv4 loopback address seen
// through a dual-stack socket (::ffff:127.x.y.z). What "local" means for protected mode and
// enable-debug-command local. A proxy on this host makes every client it relays local: behind
// one, use `enable-debug-command no`.
bool IsLoopbackPeer(const boost::asio::ip::address& peer);

}  // namespace ebb::server
