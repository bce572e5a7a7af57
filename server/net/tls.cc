#include "server/net/tls.h"

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

}  // namespace

std::unique_ptr<ssl::context> MakeTlsContext(const Config& config, std::string* error) {
  if (config.tls_cert_file.empty() || config.tls_key_file.empty()) {
    *error = "tls-cert-file and tls-key-file are required with tls-port";
    return nullptr;
  }
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  long protocols = 0;
  if (!ProtocolOptions(config.tls_protocols, &protocols)) {
    *error = "Invalid tls-protocols value '" + config.tls_protocols + "'";
    return nullptr;
  }
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_options(native, protocols | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  boost::system::error_code ec;
  if (!config.tls_key_file_pass.empty()) {
    context->set_password_callback(
        [pass = config.tls_key_file_pass](std::size_t, ssl::context::password_purpose) {
          return pass;
        });
  }
  context->use_certificate_chain_file(config.tls_cert_file, ec);
  if (ec) {
    *error = "Failed to load certificate: " + config.tls_cert_file + ": " + Reason(ec);
    return nullptr;
  }
  context->use_private_key_file(config.tls_key_file, ssl::context::pem, ec);
  if (ec) {
    *error = "Failed to load private key: " + config.tls_key_file + ": " + Reason(ec);
    return nullptr;
  }
  if (!config.tls_ca_cert_file.empty()) {
    context->load_verify_file(config.tls_ca_cert_file, ec);
    if (ec) {
      *error =
          "Failed to load CA certificate(s) file: " + config.tls_ca_cert_file + ": " + Reason(ec);
      return nullptr;
    }
  }
  if (!config.tls_ca_cert_dir.empty()) {
    context->add_verify_path(config.tls_ca_cert_dir, ec);
    if (ec) {
      *error =
          "Failed to load CA certificate(s) dir: " + config.tls_ca_cert_dir + ": " + Reason(ec);
      return nullptr;
    }
  }
  if (config.tls_auth_clients != "no" && config.tls_ca_cert_file.empty() &&
      config.tls_ca_cert_dir.empty()) {
    *error =
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients "
        "is yes or optional";
    return nullptr;
  }
  if (!config.tls_ciphers.empty() &&
      SSL_CTX_set_cipher_list(native, config.tls_ciphers.c_str()) != 1) {
    *error = "Failed to configure ciphers: " + config.tls_ciphers;
    return nullptr;
  }
  if (!config.tls_ciphersuites.empty() &&
      SSL_CTX_set_ciphersuites(native, config.tls_ciphersuites.c_str()) != 1) {
    *error = "Failed to configure ciphersuites: " + config.tls_ciphersuites;
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

}  // namespace ebb::server
