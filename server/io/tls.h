// TLS, as Redis offers it: for client connections (tls-port: the server's certificate and key,
// the CAs that sign client certificates, whether clients must present one — tls-auth-clients —,
// the protocol versions and ciphers) and for the links between servers (tls-replication,
// tls-cluster, tls-peers; docs/security.md, "Links between servers"). OpenSSL through
// Boost.Asio's ssl::context and ssl::stream: client connections (server/net/connection.h) and
// links (LinkStream) are its only users.
//
// Thread-safety: the contexts are built once at startup and then only read. A LinkStream is used
// by one thread (the io thread, or an active-active peer link's own).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <memory>
#include <string>
#include <utility>

#include "server/config/config.h"
#include "server/core/result.h"

namespace ebb::server {

// Why a TLS context cannot be built; TlsErrorText words each (server/core/errors.h), e.g.
// "Failed to load certificate: /x/server.crt: No such file or directory" or
// "tls-cert-file and tls-key-file are required with tls-port".
enum class TlsCode {
  kOk,
  kCertKeyRequired,        // detail: the options that need them (tls-port, or the link options on)
  kCertificateUnloadable,  // detail: "<file>: <reason>"
  kKeyUnloadable,          // detail: "<file>: <reason>"
  kInvalidProtocols,       // detail: tls-protocols
  kCaFileUnloadable,       // detail: "<file>: <reason>"
  kCaDirUnloadable,        // detail: "<dir>: <reason>"
  kInvalidCiphers,         // detail: tls-ciphers
  kInvalidCiphersuites,    // detail: tls-ciphersuites
  kCaRequiredForClients,   // tls-auth-clients yes or optional without a CA
  kCaRequiredForLinks,     // detail: the link options on
  kLinkNeedsTlsPort,       // detail: tls-peers or tls-cluster
  kClientCertKeyApart,     // tls-client-cert-file without tls-client-key-file, or the reverse
};
std::string TlsErrorText(const Result<TlsCode>& result);

// Builds the TLS context the tls-port listener hands to each connection. REQUIRES:
// config.tls_port > 0. Fails when a file cannot be loaded or a value is invalid.
Result<TlsCode, std::unique_ptr<boost::asio::ssl::context>> MakeTlsContext(const Config& config);

// The contexts of the links between servers.
struct LinkTlsContexts {
  // Outbound links (a replica to its master, a bus link to another node, a peer link): verifies
  // the other server's certificate chain against tls-ca-cert-file / tls-ca-cert-dir (no host
  // name check, as Redis) and presents tls-client-cert-file, else tls-cert-file. Null when no
  // link option is on.
  std::unique_ptr<boost::asio::ssl::context> client;
  // Inbound cluster bus connections (tls-cluster): presents tls-cert-file and requires a
  // certificate the CAs sign, whatever tls-auth-clients says. Null without tls-cluster.
  std::unique_ptr<boost::asio::ssl::context> bus_server;
};

// Builds *out for the link options that are on (tls-replication; tls-cluster with
// cluster-enabled; tls-peers). Fails when an option lacks what it needs — tls-cert-file and
// tls-key-file, a CA (tls-ca-cert-file or tls-ca-cert-dir), tls-port for tls-cluster and
// tls-peers, tls-client-cert-file and tls-client-key-file together — or a file cannot be loaded.
// With no link option on, succeeds with *out untouched.
Result<TlsCode> MakeLinkTlsContexts(const Config& config, LinkTlsContexts* out);

// One link between servers: a TCP socket, with a TLS session over it when the link's option
// asks for one. Plain and TLS links connect, read and write through the same calls.
// Lifetime: an operation's handler must keep the stream alive until it runs (hold the stream's
// owner, or a shared_ptr to the stream). REQUIRES: the context outlives the stream.
class LinkStream {
 public:
  using tcp = boost::asio::ip::tcp;
  using Role = boost::asio::ssl::stream_base::handshake_type;

  // `tls`: null for a plain link.
  LinkStream(boost::asio::io_context& io, boost::asio::ssl::context* tls);

  tcp::socket& socket() { return socket_; }
  const tcp::socket& socket() const { return socket_; }
  bool tls() const { return tls_ != nullptr; }
  // Takes an accepted connection. REQUIRES: before any operation.
  void Assign(tcp::socket socket);
  // Closes the socket: pending operations complete with an error.
  void Close();

  // The TLS handshake as client or server (checking the other side's certificate as the context
  // says); a plain link completes at once, without error (from the loop, never inside the call).
  template <typename Handler>
  void AsyncHandshake(Role role, Handler&& handler) {
    if (tls_ == nullptr) {
      return boost::asio::post(socket_.get_executor(), [handler = std::forward<Handler>(handler)] {
        handler(boost::system::error_code());
      });
    }
    tls_->async_handshake(role, std::forward<Handler>(handler));
  }
  template <typename Handler>
  void AsyncReadSome(boost::asio::mutable_buffer buffer, Handler&& handler) {
    if (tls_ == nullptr) return socket_.async_read_some(buffer, std::forward<Handler>(handler));
    tls_->async_read_some(buffer, std::forward<Handler>(handler));
  }
  // Writes the whole buffer.
  template <typename Handler>
  void AsyncWrite(boost::asio::const_buffer buffer, Handler&& handler) {
    if (tls_ == nullptr) {
      return boost::asio::async_write(socket_, buffer, std::forward<Handler>(handler));
    }
    boost::asio::async_write(*tls_, buffer, std::forward<Handler>(handler));
  }

 private:
  tcp::socket socket_;
  std::unique_ptr<boost::asio::ssl::stream<tcp::socket&>> tls_;
};

}  // namespace ebb::server
