// A minimal HTTP/1.1 client for tests that scrape a spawned server's metrics endpoint or query
// another HTTP service on this machine (Prometheus's API): one request per connection
// (`Connection: close`), the reply read until the peer closes, bounded by a timeout.
// Thread-safety: none; use from the test's thread.
#pragma once

#include <optional>
#include <string>

namespace ebb::test {

struct HttpResponse {
  int status = 0;       // 0: no parsable reply (refused, closed, timed out)
  std::string headers;  // the status line and header lines, as received
  std::string body;
};

// GET `target` ("/metrics", "/api/v1/query?query=up") from 127.0.0.1:`port`.
HttpResponse HttpGet(int port, const std::string& target, const std::string& method = "GET",
                     int timeout_ms = 5000);

// The value of the sample `series` in a scrape in Prometheus's text format: `series` is the
// metric name with its labels exactly as written (`redis_commands_total{cmd="set"}`); nullopt
// when no line holds it.
std::optional<double> ScrapedValue(const std::string& scrape, const std::string& series);

}  // namespace ebb::test
