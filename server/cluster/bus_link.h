// BusLink: one TCP connection of the cluster bus (Redis's clusterLink) — outbound, opened by
// this node to a node it knows, or inbound, accepted on cluster-port — that frames whole
// messages (server/cluster/bus_message.h) both ways without ever blocking the io thread; over TLS
// with tls-cluster.
//
// The owner (Cluster) creates a link, gives it to Connect (outbound) or Start (inbound), and
// hears of it through the Listener: OnLinkConnected once an outbound connect succeeded, OnMessage
// for each whole message read (its bytes stay valid for the call only), OnLinkError when the
// connection failed or broke or the peer sent something that is not a bus message. After
// OnLinkError, or after the owner's Close, the link calls nothing more; the owner drops it.
// Thread-safety: the io thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "server/io/tls.h"

namespace ebb::server::cluster {

struct Node;

class BusLink : public std::enable_shared_from_this<BusLink> {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void OnLinkConnected(BusLink* link) = 0;
    virtual void OnMessage(BusLink* link, std::string_view bytes) = 0;
    virtual void OnLinkError(BusLink* link, std::string_view why) = 0;
  };

  // The largest message accepted (a PUBLISH carries its payload).
  static constexpr uint32_t kMaxMessageLength = 512u * 1024 * 1024;

  // `tls`: the link speaks TLS with these settings (tls-cluster: the client context outbound, the
  // bus's server context inbound; server/io/tls.h), or null for clear text. REQUIRES: `tls`
  // outlives the link.
  BusLink(boost::asio::io_context& io, Listener* listener, bool inbound, int64_t now_ms,
          boost::asio::ssl::context* tls);
  ~BusLink();

  // Outbound: connects to ip:port (and completes the TLS handshake, the other node's certificate
  // verified). REQUIRES: not inbound.
  void Connect(const std::string& ip, int port);
  // Inbound: takes the accepted socket, completes the TLS handshake (the connecting node's
  // certificate required and verified) and starts reading. Messages queued meanwhile wait.
  void Start(boost::asio::ip::tcp::socket socket);
  // Queues `bytes` to send (dropped silently once the link is closed).
  void Send(std::string bytes);
  // Closes the socket; no listener call follows.
  void Close();

  bool inbound() const { return inbound_; }
  bool connected() const { return connected_; }
  int64_t ctime_ms() const { return ctime_ms_; }
  // The node at the other end: set by the owner (an inbound link once its sender is known).
  Node* node = nullptr;
  // The local address of the socket ("" if unknown): how this node is seen by its peer.
  std::string LocalIp() const;
  std::string PeerIp() const;
  // Bytes queued and not yet written (CLUSTER LINKS's send-buffer-used).
  size_t send_buffer_used() const { return queued_bytes_; }

 private:
  // No delay on the socket, then the TLS handshake (at once for a plain link); then reading and
  // writing start (an outbound link tells the listener first).
  void Handshake(LinkStream::Role role);
  void ReadMore();
  void OnRead(const boost::system::error_code& ec, size_t n);
  void WriteMore();
  void Fail(std::string_view why);

  LinkStream stream_;
  Listener* listener_;
  bool inbound_;
  int64_t ctime_ms_;
  bool connected_ = false;
  bool closed_ = false;
  bool writing_ = false;
  std::string in_;
  std::string read_buffer_;
  std::deque<std::string> out_;
  size_t queued_bytes_ = 0;
};

}  // namespace ebb::server::cluster
