#include "tests/support/http_client.h"

#include <cstdlib>

#include "tests/support/test_server.h"

namespace ebb::test {

HttpResponse HttpGet(int port, const std::string& target, const std::string& method,
                     int timeout_ms) {
  HttpResponse response;
  RawConnection c(port);
  if (!c.connected()) return response;
  if (!c.Send(method + " " + target +
              " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) {
    return response;
  }
  // Everything up to the peer's close (a needle that cannot occur ends only there).
  const std::string all = c.ReadUntil(std::string(1, '\0') + "end", timeout_ms);
  const size_t end = all.find("\r\n\r\n");
  if (all.rfind("HTTP/1.", 0) != 0 || end == std::string::npos || all.size() < 12) return response;
  response.status = std::atoi(all.substr(9, 3).c_str());
  response.headers = all.substr(0, end);
  response.body = all.substr(end + 4);
  return response;
}

std::optional<double> ScrapedValue(const std::string& scrape, const std::string& series) {
  const std::string prefix = series + " ";
  size_t start = 0;
  while (start < scrape.size()) {
    size_t end = scrape.find('\n', start);
    if (end == std::string::npos) end = scrape.size();
    if (scrape.compare(start, prefix.size(), prefix) == 0) {
      return std::strtod(scrape.substr(start + prefix.size(), end - start - prefix.size()).c_str(),
                         nullptr);
    }
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace ebb::test
