// MetricsHttp: the metrics endpoint's HTTP listener (metrics-port, metrics-bind): answers
// `GET /metrics` (and HEAD) with the body its render function makes, as
// kPrometheusContentType; any other path 404, any other method 405.
//
// It runs on the server's io_context, so the render function runs on the command (io) thread
// between commands, where it may read ServerContext as INFO does. While a busy script runs
// (docs/scripting.md, "Busy scripts") scrapes wait, as TLS clients do.
//
// Hostile clients cost it bounded work and never block the io thread: every read and write is
// asynchronous; a request's header may be at most kMaxHeaderBytes and may not carry a body
// (400 / 431, then the connection closes); every connection has kIoTimeout to send each request
// (and to take each reply), and is closed when it runs out; at most kMaxConnections are open,
// a connection beyond that is closed at once. Keep-alive is honoured, as Prometheus reuses its
// connection between scrapes.
// Thread-safety: every method on the io thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/io/listen.h"

namespace ebb::server {

class MetricsHttp {
 public:
  static constexpr size_t kMaxConnections = 16;
  static constexpr size_t kMaxHeaderBytes = 8 * 1024;
  static constexpr std::chrono::seconds kIoTimeout{10};

  // `render` makes a scrape's body. REQUIRES: io outlives this object.
  MetricsHttp(boost::asio::io_context& io, std::function<std::string()> render);
  // Stop()s.
  ~MetricsHttp();
  MetricsHttp(const MetricsHttp&) = delete;
  MetricsHttp& operator=(const MetricsHttp&) = delete;

  // Listens on `port` at each address of `bind`: ListenOnAddresses's outcome (server/io/listen.h).
  Result<ListenCode> Listen(const std::vector<std::string>& bind, int port);
  // Starts accepting on the addresses Listen opened.
  void Start();
  // Closes the listeners and every connection; the render function is not called again.
  void Stop();

  // Connections open now.
  size_t connections() const;

 private:
  struct Shared;
  class Session;
  void Accept(boost::asio::ip::tcp::acceptor& acceptor);

  boost::asio::io_context& io_;
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  // Held by every session too: a session outlives this object while a handler of it is queued
  // in io_ (destroyed with io_).
  std::shared_ptr<Shared> shared_;
};

}  // namespace ebb::server
