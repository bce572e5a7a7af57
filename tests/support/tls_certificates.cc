#include "tests/support/tls_certificates.h"

#include "tests/support/test_server.h"

namespace ebb::test {

std::string MakeTestCertificates(const std::string& dir) {
  const std::string subj = " -subj /O=ebb-test/CN=";
  auto sign = [&](const std::string& name, const std::string& cn) {
    return std::vector<std::string>{
        "openssl genrsa -out " + dir + "/" + name + ".key 2048",
        "openssl req -new -sha256 -key " + dir + "/" + name + ".key -out " + dir + "/" + name +
            ".csr" + subj + cn,
        "openssl x509 -req -sha256 -days 2 -CA " + dir + "/ca.crt -CAkey " + dir +
            "/ca.key -CAcreateserial -in " + dir + "/" + name + ".csr -out " + dir + "/" + name +
            ".crt",
    };
  };
  auto ca = [&](const std::string& name) {
    return std::vector<std::string>{
        "openssl genrsa -out " + dir + "/" + name + ".key 2048",
        "openssl req -x509 -new -nodes -sha256 -days 2 -key " + dir + "/" + name + ".key -out " +
            dir + "/" + name + ".crt" + subj + name,
    };
  };
  std::vector<std::string> steps = ca("ca");
  for (const auto& part : {sign("server", "127.0.0.1"), sign("client", "client"), ca("other-ca")}) {
    steps.insert(steps.end(), part.begin(), part.end());
  }
  for (const std::string& step : steps) {
    int status = 0;
    const std::string out = Shell(step, &status);
    if (status != 0) return step + "\n" + out;
  }
  return "";
}

std::vector<std::string> TlsServerArgs(const std::string& dir, int tls_port) {
  return {"--tls-port",     std::to_string(tls_port), "--tls-cert-file",    dir + "/server.crt",
          "--tls-key-file", dir + "/server.key",      "--tls-ca-cert-file", dir + "/ca.crt"};
}

}  // namespace ebb::test
