#include "server/io/listen.h"

#include <spdlog/spdlog.h>

#include <boost/asio/ip/v6_only.hpp>

#include "server/core/errors.h"

namespace ebb::server {

using boost::asio::ip::tcp;

std::string ListenErrorText(const Result<ListenCode>& result) {
  switch (result.code()) {
    case ListenCode::kOk:
      return "";
    case ListenCode::kNoAddress:
      return std::string(kNoAddressToListenOn);
    case ListenCode::kActiveActiveUnreadable:
      return ActiveActiveUnreadableError(result.detail());
    case ListenCode::kInvalidBindAddress:
      return InvalidBindAddressError(result.detail());
    case ListenCode::kTls:
    case ListenCode::kBind:
    case ListenCode::kMetrics:
    case ListenCode::kCluster:
    case ListenCode::kActiveActive:
      return result.detail();
  }
  return result.detail();
}

Result<ListenCode> ListenOnAddresses(boost::asio::io_context& io,
                                     const std::vector<std::string>& bind, int port,
                                     std::vector<std::unique_ptr<tcp::acceptor>>* out) {
  for (std::string address : bind) {
    const bool optional = !address.empty() && address[0] == '-';
    if (optional) address.erase(0, 1);
    boost::system::error_code ec;
    auto ip = boost::asio::ip::make_address(address == "*" ? "0.0.0.0" : address, ec);
    if (ec) return {ListenCode::kInvalidBindAddress, address};
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
      return {ListenCode::kBind, TcpListenError(address, port, ec.message())};
    }
    out->push_back(std::move(acceptor));
  }
  return {};
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
