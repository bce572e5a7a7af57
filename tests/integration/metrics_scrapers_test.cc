// The metrics endpoint read by real scrapers: python3-prometheus-client's parser takes the whole
// scrape (every sample line, every family typed, escaped label values read back), and Debian's
// Prometheus, run for a bounded time on its own port and storage directory, scrapes the
// endpoint every second until its query API answers redis_up = 1.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "tests/support/child_process.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// Prints "samples=<parsed samples> lines=<sample lines> untyped=<families without a TYPE>" and
// each error-code label the parser read.
constexpr char kParse[] = R"(
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
families = list(text_string_to_metric_families(text))
samples = sum(len(f.samples) for f in families)
lines = sum(1 for l in text.splitlines() if l and not l.startswith('#'))
untyped = [f.name for f in families if f.type == 'unknown']
print('samples=%d lines=%d untyped=%s' % (samples, lines, ','.join(untyped)))
for f in families:
    for s in f.samples:
        if s.name == 'redis_errors_total':
            print('err=[%s]' % s.labels['err'])
        if s.name == 'redis_up':
            print('redis_up=%g' % s.value)
)";

class MetricsScrapersTest : public ServerTest {
 protected:
  void SetUp() override {
    metrics_port_ = TestServer::FreePort();
    Start({"--metrics-port", std::to_string(metrics_port_)});
  }
  int metrics_port_ = 0;
};

TEST_F(MetricsScrapersTest, PythonClientParsesTheWholeScrape) {
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "l", "entry", "1"}), "+OK");
  // Error codes a script chooses become label values: a quote and a backslash to escape.
  EXPECT_EQ(Do({"EVAL", "return redis.error_reply('MY\"ERR one')", "0"}), "-MY\"ERR one");
  EXPECT_EQ(Do({"EVAL", "return redis.error_reply('BACK\\\\SLASH two')", "0"}), "-BACK\\SLASH two");
  const HttpResponse r = HttpGet(metrics_port_, "/metrics");
  ASSERT_EQ(r.status, 200);
  const std::string scrape = server_.dir() + "/scrape.txt";
  const std::string script = server_.dir() + "/parse.py";
  std::ofstream(scrape) << r.body;
  std::ofstream(script) << kParse;
  int status = 0;
  const std::string out = Shell("/usr/bin/python3 " + script + " " + scrape, &status);
  ASSERT_EQ(status, 0) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("samples=([0-9]+) lines=([0-9]+) untyped=\n")))
      << out;
  EXPECT_EQ(m[1], m[2]) << out;
  EXPECT_GT(std::stoi(m[1]), 100) << out;
  EXPECT_NE(out.find("redis_up=1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("err=[MY\"ERR]\n"), std::string::npos) << out;
  EXPECT_NE(out.find("err=[BACK\\SLASH]\n"), std::string::npos) << out;
}

// Debian's prometheus on a free port with a temporary configuration and storage directory.
class PrometheusProcess {
 public:
  explicit PrometheusProcess(std::string dir) : dir_(std::move(dir)) {}
  ~PrometheusProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {  // up to 5 s, then SIGKILL
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  // Starts it scraping 127.0.0.1:`target_port` every second.
  void Start(int target_port) {
    port_ = TestServer::FreePort();
    const std::string config = dir_ + "/prometheus.yml";
    std::ofstream(config) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                          << "scrape_configs:\n  - job_name: ebb\n    static_configs:\n"
                          << "      - targets: ['127.0.0.1:" << target_port << "']\n";
    const std::string config_flag = "--config.file=" + config;
    const std::string storage_flag = "--storage.tsdb.path=" + dir_ + "/tsdb";
    const std::string listen_flag = "--web.listen-address=127.0.0.1:" + std::to_string(port_);
    const std::string log = log_path();
    pid_ = SpawnProcess({"/usr/bin/prometheus", config_flag, storage_flag, listen_flag},
                        {.log_path = log, .append_log = false});
  }
  int port() const { return port_; }
  std::string log_path() const { return dir_ + "/prometheus.log"; }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

TEST_F(MetricsScrapersTest, PrometheusScrapesTheEndpoint) {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/prometheus"))
      << "Debian's prometheus package is missing (scripts/install-deps.sh installs it)";
  const std::string dir = server_.dir() + "/prometheus";
  std::filesystem::create_directories(dir);
  PrometheusProcess prometheus(dir);
  prometheus.Start(metrics_port_);
  // [<time>,"1"]: the instant query found the scraped sample with value 1.
  const std::regex one(R"re("value":\[[0-9.]+,"1"\])re");
  std::string last;
  const bool up = Eventually(
      [&] {
        last = HttpGet(prometheus.port(), "/api/v1/query?query=redis_up", "GET", 2000).body;
        return std::regex_search(last, one);
      },
      30);
  std::ifstream log(prometheus.log_path());
  const std::string log_text((std::istreambuf_iterator<char>(log)), {});
  ASSERT_TRUE(up) << "last answer: " << last << "\nprometheus log tail: "
                  << log_text.substr(log_text.size() > 3000 ? log_text.size() - 3000 : 0);
  // The scrape itself was healthy: Prometheus's own `up` for the target.
  const std::string health = HttpGet(prometheus.port(), "/api/v1/query?query=up").body;
  EXPECT_TRUE(std::regex_search(health, one)) << health;
}

}  // namespace
}  // namespace ebb::test
