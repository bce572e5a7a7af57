#include "server/io/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <sstream>
#include <string_view>

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
bool LoadCertificate(ssl::context* context, const std::string& cert, const std::string& key,
                     const std::string& pass, std::string* error) {
  boost::system::error_code ec;
  if (!pass.empty()) {
    context->set_password_callback(
        [pass](std::size_t, ssl::context::password_purpose) { return pass; });
  }
  context->use_certificate_chain_file(cert, ec);
  if (ec) {
    *error = "Failed to load certificate: " + cert + ": " + Reason(ec);
    return false;
  }
  context->use_private_key_file(key, ssl::context::pem, ec);
  if (ec) {
    *error = "Failed to load private key: " + key + ": " + Reason(ec);
    return false;
  }
  return true;
}

// The settings every context shares: protocols, ciphers, the CAs (when given).
bool Configure(const Config& config, ssl::context* context, std::string* error) {
  long protocols = 0;
  if (!ProtocolOptions(config.tls_protocols, &protocols)) {
    *error = "Invalid tls-protocols value '" + config.tls_protocols + "'";
    return false;
  }
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_options(native, protocols | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  boost::system::error_code ec;
  if (!config.tls_ca_cert_file.empty()) {
    context->load_verify_file(config.tls_ca_cert_file, ec);
    if (ec) {
      *error =
          "Failed to load CA certificate(s) file: " + config.tls_ca_cert_file + ": " + Reason(ec);
      return false;
    }
  }
  if (!config.tls_ca_cert_dir.empty()) {
    context->add_verify_path(config.tls_ca_cert_dir, ec);
    if (ec) {
      *error =
          "Failed to load CA certificate(s) dir: " + config.tls_ca_cert_dir + ": " + Reason(ec);
      return false;
    }
  }
  if (!config.tls_ciphers.empty() &&
      SSL_CTX_set_cipher_list(native, config.tls_ciphers.c_str()) != 1) {
    *error = "Failed to configure ciphers: " + config.tls_ciphers;
    return false;
  }
  if (!config.tls_ciphersuites.empty() &&
      SSL_CTX_set_ciphersuites(native, config.tls_ciphersuites.c_str()) != 1) {
    *error = "Failed to configure ciphersuites: " + config.tls_ciphersuites;
    return false;
  }
  return true;
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

std::unique_ptr<ssl::context> MakeTlsContext(const Config& config, std::string* error) {
  if (config.tls_cert_file.empty() || config.tls_key_file.empty()) {
    *error = "tls-cert-file and tls-key-file are required with tls-port";
    return nullptr;
  }
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  if (!Configure(config, context.get(), error)) return nullptr;
  if (!LoadCertificate(context.get(), config.tls_cert_file, config.tls_key_file,
                       config.tls_key_file_pass, error)) {
    return nullptr;
  }
  if (config.tls_auth_clients != "no" && !HasCa(config)) {
    *error =
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients "
        "is yes or optional";
    return nullptr;
  }
  if (config.tls_auth_clients == "yes") {
    context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  } else if (config.tls_auth_clients == "optional") {
    context->set_verify_mode(ssl::verify_peer);
  } else {
    context->set_verify_mode(ssl::verify_none);
  }
  return context;
}

bool MakeLinkTlsContexts(const Config& config, LinkTlsContexts* out, std::string* error) {
  const std::string on = LinkOptionsOn(config);
  if (on.empty()) return true;
  if (config.tls_cert_file.empty() || config.tls_key_file.empty()) {
    *error = "tls-cert-file and tls-key-file are required with " + on;
    return false;
  }
  if (!HasCa(config)) {
    *error = "Either tls-ca-cert-file or tls-ca-cert-dir must be specified with " + on +
             " (the other servers' certificates are verified against them)";
    return false;
  }
  if ((config.tls_cluster && config.cluster_enabled) || config.tls_peers) {
    if (config.tls_port == 0) {
      *error = std::string(config.tls_peers ? "tls-peers" : "tls-cluster") +
               " requires tls-port (the other servers connect to it)";
      return false;
    }
  }
  if (config.tls_client_cert_file.empty() != config.tls_client_key_file.empty()) {
    *error = "tls-client-cert-file and tls-client-key-file must be given together";
    return false;
  }
  auto client = std::make_unique<ssl::context>(ssl::context::tls_client);
  if (!Configure(config, client.get(), error)) return false;
  // As Redis: the client certificate is tls-client-cert-file's, else the server's own.
  const bool own = !config.tls_client_cert_file.empty();
  if (!LoadCertificate(client.get(), own ? config.tls_client_cert_file : config.tls_cert_file,
                       own ? config.tls_client_key_file : config.tls_key_file,
                       own ? config.tls_client_key_file_pass : config.tls_key_file_pass, error)) {
    return false;
  }
  client->set_verify_mode(ssl::verify_peer);
  out->client = std::move(client);
  if (config.tls_cluster && config.cluster_enabled) {
    // The bus always verifies the connecting node's certificate, whatever tls-auth-clients says
    // of clients (as Redis).
    auto bus = std::make_unique<ssl::context>(ssl::context::tls_server);
    if (!Configure(config, bus.get(), error) ||
        !LoadCertificate(bus.get(), config.tls_cert_file, config.tls_key_file,
                         config.tls_key_file_pass, error)) {
      return false;
    }
    bus->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    out->bus_server = std::move(bus);
  }
  return true;
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
