#include "server/cluster/bus_link.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>

#include "server/cluster/bus_message.h"
#include "server/io/listen.h"

namespace ebb::server::cluster {

using boost::asio::ip::tcp;

BusLink::BusLink(boost::asio::io_context& io, Listener* listener, bool inbound, int64_t now_ms,
                 boost::asio::ssl::context* tls)
    : stream_(io, tls), listener_(listener), inbound_(inbound), ctime_ms_(now_ms) {
  read_buffer_.resize(16 * 1024);
}

BusLink::~BusLink() { Close(); }

void BusLink::Connect(const std::string& ip, int port) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(ip, ec);
  if (ec) {
    // Reported from the loop, never inside the caller's own call.
    auto self = shared_from_this();
    boost::asio::post(stream_.socket().get_executor(), [self, ip] {
      if (!self->closed_) self->Fail("bad address " + ip);
    });
    return;
  }
  auto self = shared_from_this();
  stream_.socket().async_connect(tcp::endpoint(address, static_cast<uint16_t>(port)),
                                 [self](const boost::system::error_code& connect_ec) {
                                   if (self->closed_) return;
                                   if (connect_ec) return self->Fail(connect_ec.message());
                                   self->Handshake(LinkStream::Role::client);
                                 });
}

void BusLink::Start(tcp::socket socket) {
  stream_.Assign(std::move(socket));
  Handshake(LinkStream::Role::server);
}

void BusLink::Handshake(LinkStream::Role role) {
  boost::system::error_code ignored;
  stream_.socket().set_option(tcp::no_delay(true), ignored);
  auto self = shared_from_this();
  stream_.AsyncHandshake(role, [self](const boost::system::error_code& ec) {
    if (self->closed_) return;
    if (ec) return self->Fail("TLS handshake failed: " + ec.message());
    self->connected_ = true;
    if (!self->inbound_) self->listener_->OnLinkConnected(self.get());
    if (self->closed_) return;
    self->ReadMore();
    self->WriteMore();
  });
}

void BusLink::Send(std::string bytes) {
  if (closed_) return;
  queued_bytes_ += bytes.size();
  out_.push_back(std::move(bytes));
  if (connected_) WriteMore();
}

void BusLink::Close() {
  if (closed_) return;
  closed_ = true;
  stream_.Close();
}

std::string BusLink::LocalIp() const {
  boost::system::error_code ec;
  const auto endpoint = stream_.socket().local_endpoint(ec);
  return ec ? "" : AddressText(endpoint.address());
}

std::string BusLink::PeerIp() const {
  boost::system::error_code ec;
  const auto endpoint = stream_.socket().remote_endpoint(ec);
  return ec ? "" : AddressText(endpoint.address());
}

void BusLink::ReadMore() {
  auto self = shared_from_this();
  stream_.AsyncReadSome(
      boost::asio::buffer(read_buffer_),
      [self](const boost::system::error_code& ec, size_t n) { self->OnRead(ec, n); });
}

void BusLink::OnRead(const boost::system::error_code& ec, size_t n) {
  if (closed_) return;
  if (ec) return Fail(ec == boost::asio::error::eof ? "connection closed" : ec.message());
  in_.append(read_buffer_.data(), n);
  size_t at = 0;
  while (in_.size() - at >= 8) {
    const std::string_view rest(in_.data() + at, in_.size() - at);
    const uint32_t length = MessageLength(rest);
    if (length < kHeaderLength || length > kMaxMessageLength) {
      return Fail("not a cluster bus message");
    }
    if (rest.size() < length) break;
    listener_->OnMessage(this, rest.substr(0, length));
    if (closed_) return;
    at += length;
  }
  in_.erase(0, at);
  ReadMore();
}

void BusLink::WriteMore() {
  if (writing_ || out_.empty() || closed_) return;
  writing_ = true;
  auto self = shared_from_this();
  stream_.AsyncWrite(boost::asio::buffer(out_.front()),
                     [self](const boost::system::error_code& ec, size_t) {
                       self->writing_ = false;
                       if (self->closed_) return;
                       if (ec) return self->Fail(ec.message());
                       self->queued_bytes_ -= self->out_.front().size();
                       self->out_.pop_front();
                       self->WriteMore();
                     });
}

void BusLink::Fail(std::string_view why) {
  if (closed_) return;
  Close();
  listener_->OnLinkError(this, why);
}

}  // namespace ebb::server::cluster
