// TLS for client connections (tls-port), as Redis offers it: the server's certificate and key,
// the CAs that sign client certificates, whether clients must present one (tls-auth-clients),
// the protocol versions and ciphers. OpenSSL through Boost.Asio's ssl::context.
//
// Thread-safety: the context is built once at startup and then only read by the io thread.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "server/config/config.h"

namespace ebb::server {

// Builds the TLS context the tls-port listener hands to each connection. REQUIRES:
// config.tls_port > 0. Returns nullptr with *error set when a file cannot be loaded or a value is
// invalid, e.g. "Failed to load certificate: /x/server.crt: No such file or directory" or
// "tls-cert-file and tls-key-file are required with tls-port".
std::unique_ptr<boost::asio::ssl::context> MakeTlsContext(const Config& config, std::string* error);

}  // namespace ebb::server
