#include "server/metrics/metrics_http.h"

#include <spdlog/spdlog.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "server/io/listen.h"
#include "server/metrics/prometheus_text.h"

namespace ebb::server {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::asio::ip::tcp;

namespace {

// True for the parser's errors (a malformed request, limits), false for the socket's.
bool IsHttpError(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::end_of_stream).category();
}

}  // namespace

struct MetricsHttp::Shared {
  std::function<std::string()> render;
  std::unordered_set<Session*> sessions;
  bool stopped = false;
};

// One client connection: reads a request, answers it, and again while the client keeps the
// connection alive. Kept alive by its pending handler.
class MetricsHttp::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {
    shared_->sessions.insert(this);
  }
  ~Session() { shared_->sessions.erase(this); }

  void Read() {
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    stream_.expires_after(kIoTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

 private:
  void OnRead(beast::error_code ec) {
    if (shared_->stopped) return;
    if (ec == http::error::end_of_stream || (ec && !IsHttpError(ec))) {
      return Close();  // the client went, timed out, or the socket failed
    }
    if (ec) {
      // A malformed request, a header over the limit, or a body: answered, then closed.
      const bool too_large = ec == http::error::header_limit || ec == http::error::buffer_overflow;
      return Reply(
          11, too_large ? http::status::request_header_fields_too_large : http::status::bad_request,
          std::string(too_large ? "request header too large\n" : "bad request\n"),
          "text/plain; charset=utf-8", /*keep_alive=*/false);
    }
    const http::request<http::empty_body>& request = parser_->get();
    std::string_view target(request.target().data(), request.target().size());
    target = target.substr(0, target.find('?'));
    const bool keep_alive = request.keep_alive();
    if (target != "/metrics") {
      return Reply(request.version(), http::status::not_found, "not found; try /metrics\n",
                   "text/plain; charset=utf-8", keep_alive);
    }
    if (request.method() != http::verb::get) {
      return Reply(request.version(), http::status::method_not_allowed, "only GET\n",
                   "text/plain; charset=utf-8", keep_alive);
    }
    Reply(request.version(), http::status::ok, shared_->render(), kPrometheusContentType,
          keep_alive);
  }

  void Reply(unsigned version, http::status status, std::string body, std::string_view content_type,
             bool keep_alive) {
    response_ = {};
    response_.version(version);
    response_.result(status);
    response_.set(http::field::server, "ebb");
    response_.set(http::field::content_type, content_type);
    if (status == http::status::method_not_allowed) response_.set(http::field::allow, "GET");
    response_.keep_alive(keep_alive);
    response_.body() = std::move(body);
    response_.prepare_payload();
    stream_.expires_after(kIoTimeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
                        if (self->shared_->stopped) return;
                        if (ec || !keep_alive) return self->Close();
                        self->Read();
                      });
  }

  beast::tcp_stream stream_;
  std::shared_ptr<Shared> shared_;
  beast::flat_buffer buffer_{kMaxHeaderBytes * 2};  // bounded: a larger header fails
  std::optional<http::request_parser<http::empty_body>> parser_;
  http::response<http::string_body> response_;
};

MetricsHttp::MetricsHttp(boost::asio::io_context& io, std::function<std::string()> render)
    : io_(io), shared_(std::make_shared<Shared>()) {
  shared_->render = std::move(render);
}

MetricsHttp::~MetricsHttp() { Stop(); }

Result<ListenCode> MetricsHttp::Listen(const std::vector<std::string>& bind, int port) {
  return ListenOnAddresses(io_, bind, port, &acceptors_);
}

void MetricsHttp::Start() {
  for (auto& acceptor : acceptors_) Accept(*acceptor);
}

void MetricsHttp::Stop() {
  if (shared_->stopped) return;
  shared_->stopped = true;
  shared_->render = nullptr;
  boost::system::error_code ec;
  for (auto& acceptor : acceptors_) acceptor->close(ec);
  const std::vector<Session*> open(shared_->sessions.begin(), shared_->sessions.end());
  for (Session* session : open) session->Close();
}

size_t MetricsHttp::connections() const { return shared_->sessions.size(); }

void MetricsHttp::Accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([this, shared = shared_, &acceptor](const boost::system::error_code& ec,
                                                            tcp::socket socket) {
    if (shared->stopped) return;  // `this` may be gone: touch nothing else
    if (!ec) {
      if (shared->sessions.size() >= kMaxConnections) {
        boost::system::error_code ignored;
        socket.close(ignored);  // over the bound: refused by closing
      } else {
        std::make_shared<Session>(std::move(socket), shared)->Read();
      }
      return Accept(acceptor);
    }
    // E.g. out of file descriptors: retry shortly instead of spinning.
    spdlog::warn("Accepting metrics connection: {}", ec.message());
    auto timer = std::make_shared<boost::asio::steady_timer>(io_, std::chrono::milliseconds(100));
    timer->async_wait([this, shared, timer, &acceptor](const boost::system::error_code& wait_ec) {
      if (!wait_ec && !shared->stopped) Accept(acceptor);
    });
  });
}

}  // namespace ebb::server
