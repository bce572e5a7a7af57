#include "server/io/listen.h"

#include <spdlog/spdlog.h>

#include <boost/asio/ip/v6_only.hpp>

namespace ebb::server {

using boost::asio::ip::tcp;

bool ListenOnAddresses(boost::asio::io_context& io, const std::vector<std::string>& bind, int port,
                       std::vector<std::unique_ptr<tcp::acceptor>>* out, std::string* error) {
  for (std::string address : bind) {
    const bool optional = !address.empty() && address[0] == '-';
    if (optional) address.erase(0, 1);
    boost::system::error_code ec;
    auto ip = boost::asio::ip::make_address(address == "*" ? "0.0.0.0" : address, ec);
    if (ec) {
      *error = "Invalid bind address '" + address + "'";
      return false;
    }
    auto acceptor = std::make_unique<tcp::acceptor>(io);
    tcp::endpoint endpoint(ip, static_cast<uint16_t>(port));
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec && ip.is_v6()) acceptor->set_option(boost::asio::ip::v6_only(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(511, ec);
    if (ec) {
      if (optional) {
        spdlog::warn("Could not bind optional address {}:{}: {}", address, port, ec.message());
        continue;
      }
      // Redis's two lines: tools that start a server (Redis's test harness) look for the second
      // to try another port.
      *error = "Could not create server TCP listening socket " + address + ":" +
               std::to_string(port) + ": " + ec.message() + ". Failed listening on port " +
               std::to_string(port) + " (tcp), aborting.";
      return false;
    }
    out->push_back(std::move(acceptor));
  }
  return true;
}

std::string AddressText(const boost::asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6())
        .to_string();
  }
  return address.to_string();
}

bool IsLoopbackPeer(const boost::asio::ip::address& peer) {
  if (peer.is_loopback()) return true;
  return peer.is_v6() && peer.to_v6().is_v4_mapped() &&
         boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, peer.to_v6()).is_loopback();
}

}  // namespace ebb::server
