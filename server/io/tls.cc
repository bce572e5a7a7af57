#include "server/io/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <sstream>
#include <string_view>

#include "server/core/errors.h"

namespace ebb::server {
namespace {

namespace ssl = boost::asio::ssl;

// OpenSSL's reason for the last failure, or the Asio error's message.
std::string Reason(const boost::system::error_code& ec) {
  const unsigned long code = ERR_peek_last_error();
  if (code != 0) {
    char text[256];
    ERR_error_string_n(code, text, sizeof(text));
    ERR_clear_error();
    return text;
  }
  return ec.message();
}

// "TLSv1.2 TLSv1.3" -> the SSL_OP_NO_* options that leave only those. False for an unknown word.
bool ProtocolOptions(const std::string& protocols, long* options) {
  if (protocols.empty()) {  // Redis's default: TLSv1.2 and TLSv1.3
    *options = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1;
    return true;
  }
  long disabled = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 |
                  SSL_OP_NO_TLSv1_2 | SSL_OP_NO_TLSv1_3;
  std::istringstream words(protocols);
  for (std::string word; words >> word;) {
    if (word == "TLSv1") {
      disabled &= ~SSL_OP_NO_TLSv1;
    } else if (word == "TLSv1.1") {
      disabled &= ~SSL_OP_NO_TLSv1_1;
    } else if (word == "TLSv1.2") {
      disabled &= ~SSL_OP_NO_TLSv1_2;
    } else if (word == "TLSv1.3") {
      disabled &= ~SSL_OP_NO_TLSv1_3;
    } else {
      return false;
    }
  }
  *options = disabled;
  return true;
}

// Loads a certificate chain and its key into `context`.
Result<TlsCode> LoadCertificate(ssl::context* context, const std::string& cert,
                                const std::string& key, const std::string& pass) {
  boost::system::error_code ec;
  if (!pass.empty()) {
    context->set_password_callback(
        [pass](std::size_t, ssl::context::password_purpose) { return pass; });
  }
  context->use_certificate_chain_file(cert, ec);
  if (ec) return {TlsCode::kCertificateUnloadable, cert + ": " + Reason(ec)};
  context->use_private_key_file(key, ssl::context::pem, ec);
  if (ec) return {TlsCode::kKeyUnloadable, key + ": " + Reason(ec)};
  return {};
}

// The settings every context shares: protocols, ciphers, the CAs (when given).
Result<TlsCode> Configure(const Config& config, ssl::context* context) {
  long protocols = 0;
  if (!ProtocolOptions(config.tls_protocols, &protocols)) {
    return {TlsCode::kInvalidProtocols, config.tls_protocols};
  }
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_options(native, protocols | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  boost::system::error_code ec;
  if (!config.tls_ca_cert_file.empty()) {
    context->load_verify_file(config.tls_ca_cert_file, ec);
    if (ec) return {TlsCode::kCaFileUnloadable, config.tls_ca_cert_file + ": " + Reason(ec)};
  }
  if (!config.tls_ca_cert_dir.empty()) {
    context->add_verify_path(config.tls_ca_cert_dir, ec);
    if (ec) return {TlsCode::kCaDirUnloadable, config.tls_ca_cert_dir + ": " + Reason(ec)};
  }
  if (!config.tls_ciphers.empty() &&
      SSL_CTX_set_cipher_list(native, config.tls_ciphers.c_str()) != 1) {
    return {TlsCode::kInvalidCiphers, config.tls_ciphers};
  }
  if (!config.tls_ciphersuites.empty() &&
      SSL_CTX_set_ciphersuites(native, config.tls_ciphersuites.c_str()) != 1) {
    return {TlsCode::kInvalidCiphersuites, config.tls_ciphersuites};
  }
  return {};
}

bool HasCa(const Config& config) {
  return !config.tls_ca_cert_file.empty() || !config.tls_ca_cert_dir.empty();
}

// The link options that are on, as "tls-replication, tls-cluster" ("" when none).
std::string LinkOptionsOn(const Config& config) {
  std::string on;
  auto add = [&on](bool set, const char* name) {
    if (!set) return;
    if (!on.empty()) on += ", ";
    on += name;
  };
  add(config.tls_replication, "tls-replication");
  add(config.tls_cluster && config.cluster_enabled, "tls-cluster");
  add(config.tls_peers, "tls-peers");
  return on;
}

}  // namespace

std::string TlsErrorText(const Result<TlsCode>& result) {
  const std::string& detail = result.detail();
  switch (result.code()) {
    case TlsCode::kOk:
      return "";
    case TlsCode::kCertKeyRequired:
      return TlsCertKeyRequiredError(detail);
    case TlsCode::kCertificateUnloadable:
      return TlsCertificateLoadError(detail);
    case TlsCode::kKeyUnloadable:
      return TlsKeyLoadError(detail);
    case TlsCode::kInvalidProtocols:
      return TlsProtocolsError(detail);
    case TlsCode::kCaFileUnloadable:
      return TlsCaFileLoadError(detail);
    case TlsCode::kCaDirUnloadable:
      return TlsCaDirLoadError(detail);
    case TlsCode::kInvalidCiphers:
      return TlsCiphersError(detail);
    case TlsCode::kInvalidCiphersuites:
      return TlsCiphersuitesError(detail);
    case TlsCode::kCaRequiredForClients:
      return std::string(kTlsCaRequiredForClients);
    case TlsCode::kCaRequiredForLinks:
      return TlsCaRequiredForLinksError(detail);
    case TlsCode::kLinkNeedsTlsPort:
      return TlsLinkNeedsPortError(detail);
    case TlsCode::kClientCertKeyApart:
      return std::string(kTlsClientCertKeyApart);
  }
  return "";
}

Result<TlsCode, std::unique_ptr<ssl::context>> MakeTlsContext(const Config& config) {
  if (config.tls_cert_file.empty() || config.tls_key_file.empty()) {
    return {TlsCode::kCertKeyRequired, "tls-port"};
  }
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  if (Result<TlsCode> r = Configure(config, context.get()); !r.ok()) return r;
  if (Result<TlsCode> r = LoadCertificate(context.get(), config.tls_cert_file, config.tls_key_file,
                                          config.tls_key_file_pass);
      !r.ok()) {
    return r;
  }
  if (config.tls_auth_clients != "no" && !HasCa(config)) return TlsCode::kCaRequiredForClients;
  if (config.tls_auth_clients == "yes") {
    context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  } else if (config.tls_auth_clients == "optional") {
    context->set_verify_mode(ssl::verify_peer);
  } else {
    context->set_verify_mode(ssl::verify_none);
  }
  return context;
}

Result<TlsCode> MakeLinkTlsContexts(const Config& config, LinkTlsContexts* out) {
  const std::string on = LinkOptionsOn(config);
  if (on.empty()) return {};
  if (config.tls_cert_file.empty() || config.tls_key_file.empty()) {
    return {TlsCode::kCertKeyRequired, on};
  }
  if (!HasCa(config)) return {TlsCode::kCaRequiredForLinks, on};
  if ((config.tls_cluster && config.cluster_enabled) || config.tls_peers) {
    if (config.tls_port == 0) {
      return {TlsCode::kLinkNeedsTlsPort, config.tls_peers ? "tls-peers" : "tls-cluster"};
    }
  }
  if (config.tls_client_cert_file.empty() != config.tls_client_key_file.empty()) {
    return TlsCode::kClientCertKeyApart;
  }
  auto client = std::make_unique<ssl::context>(ssl::context::tls_client);
  if (Result<TlsCode> r = Configure(config, client.get()); !r.ok()) return r;
  // As Redis: the client certificate is tls-client-cert-file's, else the server's own.
  const bool own = !config.tls_client_cert_file.empty();
  if (Result<TlsCode> r =
          LoadCertificate(client.get(), own ? config.tls_client_cert_file : config.tls_cert_file,
                          own ? config.tls_client_key_file : config.tls_key_file,
                          own ? config.tls_client_key_file_pass : config.tls_key_file_pass);
      !r.ok()) {
    return r;
  }
  client->set_verify_mode(ssl::verify_peer);
  out->client = std::move(client);
  if (config.tls_cluster && config.cluster_enabled) {
    // The bus always verifies the connecting node's certificate, whatever tls-auth-clients says
    // of clients (as Redis).
    auto bus = std::make_unique<ssl::context>(ssl::context::tls_server);
    if (Result<TlsCode> r = Configure(config, bus.get()); !r.ok()) return r;
    if (Result<TlsCode> r = LoadCertificate(bus.get(), config.tls_cert_file, config.tls_key_file,
                                            config.tls_key_file_pass);
        !r.ok()) {
      return r;
    }
    bus->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    out->bus_server = std::move(bus);
  }
  return {};
}

LinkStream::LinkStream(boost::asio::io_context& io, ssl::context* tls) : socket_(io) {
  if (tls != nullptr) tls_ = std::make_unique<ssl::stream<tcp::socket&>>(socket_, *tls);
}

void LinkStream::Assign(tcp::socket socket) { socket_ = std::move(socket); }

void LinkStream::Close() {
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace ebb::server
