// Certificates for TLS tests, made with the openssl tool (as Redis's own tests do): a test CA,
// a server and a client certificate it signs, and an unrelated CA nothing here is signed by.
// Thread-safety: none; use from the test's thread.
#pragma once

#include <string>
#include <vector>

namespace ebb::test {

// Writes into `dir`: ca.crt/ca.key, server.crt/server.key (CN 127.0.0.1), client.crt/client.key
// (CN client), all signed by ca, and other-ca.crt (a CA that signed none of them). Returns ""
// on success, else the failing command and its output.
std::string MakeTestCertificates(const std::string& dir);

// The server options that turn TLS on with `dir`'s certificates: --tls-port `tls_port`,
// --tls-cert-file, --tls-key-file (the server's) and --tls-ca-cert-file (ca.crt).
std::vector<std::string> TlsServerArgs(const std::string& dir, int tls_port);

}  // namespace ebb::test
