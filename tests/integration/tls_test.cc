// TLS on tls-port, checked with redis-cli --tls (the client Redis users run): certificates from a
// test CA made with the openssl tool, a client certificate required by default
// (tls-auth-clients yes), the plain port unaffected.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/support/test_server.h"
#include "tests/support/tls_certificates.h"

namespace ebb::test {
namespace {

class TlsTest : public ::testing::Test {
 protected:
  // A CA, and a server and a client certificate it signs, in `dir`.
  static void MakeCertificates(const std::string& dir) {
    const std::string failed = MakeTestCertificates(dir);
    ASSERT_EQ(failed, "");
  }

  std::string Cli(const std::string& tls_args, const std::string& command, int* status) {
    return Shell("timeout 10 redis-cli --tls " + tls_args + " -h 127.0.0.1 -p " +
                     std::to_string(tls_port_) + " " + command,
                 status);
  }

  TestServer server_;
  int tls_port_ = 0;
};

TEST_F(TlsTest, RedisCliOverTlsWithAClientCertificate) {
  const std::string d = server_.dir();
  MakeCertificates(d);
  tls_port_ = TestServer::FreePort();
  ASSERT_TRUE(
      server_.Start({"--tls-port", std::to_string(tls_port_), "--tls-cert-file", d + "/server.crt",
                     "--tls-key-file", d + "/server.key", "--tls-ca-cert-file", d + "/ca.crt"}))
      << server_.error();
  const std::string with_cert =
      "--cacert " + d + "/ca.crt --cert " + d + "/client.crt --key " + d + "/client.key";
  int status = 0;
  EXPECT_EQ(Cli(with_cert, "SET greeting hello", &status), "OK\n");
  EXPECT_EQ(status, 0);
  EXPECT_EQ(Cli(with_cert, "GET greeting", &status), "hello\n");
  // A large reply crosses many TLS records.
  EXPECT_EQ(Cli(with_cert, "SET big " + std::string(100000, 'x'), &status), "OK\n");
  EXPECT_EQ(Cli(with_cert, "STRLEN big", &status), "100000\n");
  // The plain port serves as before and sees the same data.
  RedisConnection plain = server_.Connect();
  EXPECT_EQ(Cmd(plain.get(), {"GET", "greeting"}).str(), "hello");
  // Without a client certificate the handshake fails (tls-auth-clients yes).
  const std::string refused = Cli("--cacert " + d + "/ca.crt", "PING", &status);
  EXPECT_EQ(refused.find("PONG"), std::string::npos) << refused;
  // A plain-text client on the TLS port gets nothing it could take for a reply.
  const std::string plain_text =
      Shell("timeout 10 redis-cli -h 127.0.0.1 -p " + std::to_string(tls_port_) + " PING", &status);
  EXPECT_EQ(plain_text.find("PONG"), std::string::npos) << plain_text;
  EXPECT_EQ(Cmd(plain.get(), {"PING"}).ToString(), "PONG");  // the server is unharmed
}

TEST_F(TlsTest, OptionalClientCertificatesAndBadFilesRefuseToStart) {
  const std::string d = server_.dir();
  MakeCertificates(d);
  tls_port_ = TestServer::FreePort();
  ASSERT_TRUE(server_.Start({"--tls-port", std::to_string(tls_port_), "--tls-cert-file",
                             d + "/server.crt", "--tls-key-file", d + "/server.key",
                             "--tls-ca-cert-file", d + "/ca.crt", "--tls-auth-clients", "no"}))
      << server_.error();
  int status = 0;
  EXPECT_EQ(Cli("--cacert " + d + "/ca.crt", "PING", &status), "PONG\n");
  server_.Stop();
  TestServer broken;
  EXPECT_FALSE(broken.Start({"--tls-port", std::to_string(TestServer::FreePort()),
                             "--tls-cert-file", d + "/missing.crt", "--tls-key-file",
                             d + "/server.key", "--tls-ca-cert-file", d + "/ca.crt"}));
  EXPECT_NE(broken.ReadLog().find("Failed to load certificate: " + d + "/missing.crt"),
            std::string::npos)
      << broken.ReadLog();
}

}  // namespace
}  // namespace ebb::test
