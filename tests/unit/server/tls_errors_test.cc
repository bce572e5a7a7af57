// The TLS contexts' outcomes (server/io/tls.h) and their texts (TlsErrorText), as the server logs
// them when it cannot start serving.
#include <gtest/gtest.h>

#include "server/config/config.h"
#include "server/io/tls.h"

namespace ebb::server {
namespace {

TEST(TlsErrorsTest, TlsPortNeedsCertificateAndKey) {
  Config config;
  config.tls_port = 6380;
  auto made = MakeTlsContext(config);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.code(), TlsCode::kCertKeyRequired);
  EXPECT_EQ(TlsErrorText(made.failure()),
            "tls-cert-file and tls-key-file are required with tls-port");
}

TEST(TlsErrorsTest, UnloadableCertificateNamesTheFile) {
  Config config;
  config.tls_port = 6380;
  config.tls_cert_file = "/nonexistent/server.crt";
  config.tls_key_file = "/nonexistent/server.key";
  auto made = MakeTlsContext(config);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.code(), TlsCode::kCertificateUnloadable);
  EXPECT_TRUE(TlsErrorText(made.failure())
                  .starts_with("Failed to load certificate: /nonexistent/server.crt: "));
}

TEST(TlsErrorsTest, InvalidProtocols) {
  Config config;
  config.tls_port = 6380;
  config.tls_cert_file = "a.crt";
  config.tls_key_file = "a.key";
  config.tls_protocols = "SSLv2";
  auto made = MakeTlsContext(config);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(TlsErrorText(made.failure()), "Invalid tls-protocols value 'SSLv2'");
}

TEST(TlsErrorsTest, LinkOptionsNeedWhatTheyUse) {
  Config config;
  LinkTlsContexts out;
  EXPECT_TRUE(MakeLinkTlsContexts(config, &out).ok());  // no link option on
  EXPECT_EQ(out.client, nullptr);

  config.tls_replication = true;
  EXPECT_EQ(TlsErrorText(MakeLinkTlsContexts(config, &out)),
            "tls-cert-file and tls-key-file are required with tls-replication");
  config.tls_cert_file = "a.crt";
  config.tls_key_file = "a.key";
  EXPECT_EQ(TlsErrorText(MakeLinkTlsContexts(config, &out)),
            "Either tls-ca-cert-file or tls-ca-cert-dir must be specified with tls-replication "
            "(the other servers' certificates are verified against them)");
  config.tls_ca_cert_file = "ca.crt";
  config.tls_peers = true;
  EXPECT_EQ(TlsErrorText(MakeLinkTlsContexts(config, &out)),
            "tls-peers requires tls-port (the other servers connect to it)");
  config.tls_port = 6380;
  config.tls_client_cert_file = "client.crt";
  Result<TlsCode> apart = MakeLinkTlsContexts(config, &out);
  EXPECT_EQ(apart.code(), TlsCode::kClientCertKeyApart);
  EXPECT_EQ(TlsErrorText(apart),
            "tls-client-cert-file and tls-client-key-file must be given together");
}

}  // namespace
}  // namespace ebb::server
