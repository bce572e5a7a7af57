// The metrics endpoint (metrics-port) against a spawned ebb-server: scrapes over HTTP whose
// values follow the server's work (a cluster node's slot states too), 404 and 405 for what is
// not a scrape, the option off by default, and hostile clients (garbage, an oversized header, a
// slow sender, more connections than the bound) that leave both the endpoint and the Redis port
// serving.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class MetricsTest : public ServerTest {
 protected:
  void SetUp() override {
    metrics_port_ = TestServer::FreePort();
    Start({"--metrics-port", std::to_string(metrics_port_)});
  }
  std::string Scrape() {
    const HttpResponse r = HttpGet(metrics_port_, "/metrics");
    EXPECT_EQ(r.status, 200) << r.headers;
    return r.body;
  }
  double Value(const std::string& scrape, const std::string& series) {
    const std::optional<double> v = ScrapedValue(scrape, series);
    EXPECT_TRUE(v.has_value()) << series << " missing from the scrape";
    return v.value_or(-1);
  }

  int metrics_port_ = 0;
};

TEST_F(MetricsTest, ScrapeFollowsTheServersWork) {
  const HttpResponse first = HttpGet(metrics_port_, "/metrics");
  ASSERT_EQ(first.status, 200) << first.headers;
  EXPECT_NE(first.headers.find("Content-Type: text/plain; version=0.0.4; charset=utf-8"),
            std::string::npos)
      << first.headers;
  EXPECT_EQ(Value(first.body, "redis_up"), 1);
  EXPECT_NE(first.body.find("# TYPE redis_commands_processed_total counter\n"), std::string::npos);
  EXPECT_EQ(Value(first.body, "redis_db_keys{db=\"db0\"}"), 0);
  const double processed = Value(first.body, "redis_commands_processed_total");
  const double hits = Value(first.body, "redis_keyspace_hits_total");
  const double misses = Value(first.body, "redis_keyspace_misses_total");
  const double wal_bytes = Value(first.body, "ebb_wal_written_bytes_total");

  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Do({"SET", "k" + std::to_string(i), "value"}), "+OK");
  }
  ASSERT_EQ(Do({"GET", "k0"}), "$value");
  ASSERT_EQ(Do({"GET", "absent"}), "nil");
  ASSERT_EQ(Do({"SELECT", "3"}), "+OK");
  ASSERT_EQ(Do({"SET", "other", "value"}), "+OK");
  EXPECT_NE(Do({"NOSUCHCOMMAND"}).find("ERR"), std::string::npos);

  const std::string after = Scrape();
  EXPECT_EQ(Value(after, "redis_commands_total{cmd=\"set\"}"), 6);
  EXPECT_EQ(Value(after, "redis_commands_total{cmd=\"get\"}"), 2);
  EXPECT_GT(Value(after, "redis_commands_duration_seconds_total{cmd=\"set\"}"), 0);
  EXPECT_GE(Value(after, "redis_commands_processed_total"), processed + 9);
  EXPECT_EQ(Value(after, "redis_keyspace_hits_total"), hits + 1);
  EXPECT_EQ(Value(after, "redis_keyspace_misses_total"), misses + 1);
  EXPECT_EQ(Value(after, "redis_db_keys{db=\"db0\"}"), 5);
  EXPECT_EQ(Value(after, "redis_db_keys{db=\"db3\"}"), 1);
  EXPECT_GE(Value(after, "redis_errors_total{err=\"ERR\"}"), 1);
  EXPECT_GT(Value(after, "ebb_wal_written_bytes_total"), wal_bytes);
  EXPECT_GE(Value(after, "redis_connected_clients"), 1);
  EXPECT_EQ(Value(after, "redis_connected_slaves"), 0);
  // The allocator's figure is 0 under AddressSanitizer, whose allocator keeps no such count.
  EXPECT_GE(Value(after, "redis_memory_used_bytes"), 0);
  EXPECT_GT(Value(after, "redis_memory_used_rss_bytes"), 0);
  EXPECT_EQ(Value(after, "ebb_active_active_enabled"), 0);
  EXPECT_EQ(Value(after, "redis_cluster_enabled"), 0);
  // latency-tracking is on by default: SET's percentiles, and its call count in _count.
  EXPECT_EQ(Value(after, "redis_latency_percentiles_usec_count{cmd=\"set\"}"), 6);
  EXPECT_GT(Value(after, "redis_latency_percentiles_usec{cmd=\"set\",quantile=\"0.5\"}"), 0);
  // A flushed memtable shows in the engine's figures.
  const double flushes = Value(after, "ebb_flushes_total");
  const double flushed = Value(after, "ebb_flush_written_bytes_total");
  ASSERT_EQ(Do({"DEBUG", "FLUSH-MEMTABLE"}), "+OK");
  const std::string flushed_scrape = Scrape();
  EXPECT_GT(Value(flushed_scrape, "ebb_flushes_total"), flushes);
  EXPECT_GT(Value(flushed_scrape, "ebb_flush_written_bytes_total"), flushed);
  double files = 0;
  for (int level = 0; level < 10; ++level) {
    const std::string series = "ebb_level_files{level=\"" + std::to_string(level) + "\"}";
    files += ScrapedValue(flushed_scrape, series).value_or(0);
  }
  EXPECT_GE(files, 1);
}

// docs/operations.md's table holds every family a scrape serves, with its type and every label
// its samples carry (dashboards/ebb.json is checked against the same table: dashboard_check).
TEST_F(MetricsTest, EveryFamilyServedIsDocumented) {
  struct Row {
    std::string type;
    std::set<std::string> labels;
  };
  std::map<std::string, Row> table;
  std::ifstream docs(std::string(EBB_SOURCE_DIR) + "/docs/operations.md");
  const std::regex row(R"(^\| `((?:redis|ebb)_[a-z0-9_]+)` \| ([a-z]+) \|([^|]*)\|)");
  for (std::string line; std::getline(docs, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    Row& r = table[m[1]];
    r.type = m[2];
    std::stringstream labels(m[3]);
    for (std::string label; std::getline(labels, label, ',');) {
      label.erase(0, label.find_first_not_of(' '));
      label.erase(label.find_last_not_of(' ') + 1);
      if (!label.empty()) r.labels.insert(label);
    }
  }
  ASSERT_GT(table.size(), 50u) << "docs/operations.md's metric table not found";
  ASSERT_EQ(Do({"CONFIG", "SET", "latency-monitor-threshold", "1"}), "+OK");
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.01"}), "+OK");
  ASSERT_EQ(Do({"DEBUG", "FLUSH-MEMTABLE"}), "+OK");
  const std::string scrape = Scrape();
  std::string family;
  size_t families = 0;
  std::istringstream lines(scrape);
  const std::regex label_name(R"(([a-zA-Z_][a-zA-Z0-9_]*)=")");
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# TYPE ")) {
      std::istringstream fields(line.substr(7));
      std::string type;
      fields >> family >> type;
      families++;
      ASSERT_EQ(table.count(family), 1u) << family << " is served but not documented";
      EXPECT_EQ(table[family].type, type) << family;
      continue;
    }
    if (line.empty() || line.starts_with("#")) continue;
    const size_t brace = line.find('{');
    if (brace == std::string::npos || table.count(family) == 0) continue;
    const std::string labels = line.substr(brace, line.rfind('}') - brace);
    for (std::sregex_iterator it(labels.begin(), labels.end(), label_name), end; it != end; ++it) {
      const std::string name = (*it)[1];
      if (name == "quantile" || name == "le") continue;
      EXPECT_EQ(table[family].labels.count(name), 1u)
          << family << "'s label " << name << " is not documented";
    }
  }
  EXPECT_GT(families, 50u);
}

// The engine's expiry, compaction and disk-read measures: in INFO storage and in the scrape,
// the disk reads' histogram counting reads that went to the disk (a block cache that keeps
// nothing, the rows in a table file).
class MetricsDiskReadTest : public MetricsTest {
 protected:
  void SetUp() override {
    metrics_port_ = TestServer::FreePort();
    Start({"--metrics-port", std::to_string(metrics_port_), "--block-cache-size", "0",
           "--expiry-purge-deadline", "2h"});
  }
};

TEST_F(MetricsDiskReadTest, EngineMeasuresShowInInfoAndTheScrape) {
  const std::string info = Do({"INFO", "storage"});
  for (const char* field :
       {"expired_rewritten_bytes:", "expired_pending_bytes:", "oldest_expired_age_ms:",
        "expiry_purge_deadline_ms:7200000\r\n", "compaction_pending_bytes:", "disk_reads_timed:",
        "disk_read_time_us:", "disk_read_latency_us:50="}) {
    EXPECT_NE(info.find(field), std::string::npos) << field << " missing from " << info;
  }
  const std::string first = Scrape();
  EXPECT_NE(first.find("# TYPE ebb_disk_read_duration_seconds histogram\n"), std::string::npos);
  EXPECT_EQ(Value(first, "ebb_expiry_purge_deadline_seconds"), 7200);
  EXPECT_EQ(Value(first, "ebb_expired_pending_bytes"), 0);
  EXPECT_EQ(Value(first, "ebb_oldest_expired_age_seconds"), 0);
  EXPECT_EQ(Value(first, "ebb_expired_rewritten_bytes_total"), 0);
  EXPECT_EQ(Value(first, "ebb_compaction_pending_bytes"), 0);
  const double reads = Value(first, "ebb_disk_read_duration_seconds_count");
  EXPECT_EQ(Value(first, "ebb_disk_read_duration_seconds_bucket{le=\"+Inf\"}"), reads);

  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(Do({"SET", "key:" + std::to_string(1000 + i), std::string(100, 'v')}), "+OK");
  }
  ASSERT_EQ(Do({"DEBUG", "FLUSH-MEMTABLE"}), "+OK");
  const long long block_reader_reads = InfoField(conn_.get(), "stats", "disk_reads");
  for (int i = 0; i < 200; i += 10) {
    ASSERT_EQ(Do({"GET", "key:" + std::to_string(1000 + i)}), "$" + std::string(100, 'v'));
  }
  const std::string after = Scrape();
  const double count = Value(after, "ebb_disk_read_duration_seconds_count");
  EXPECT_GT(count, reads);
  // The block reader's reads (off the command thread) are among them.
  const long long by_block_reader =
      InfoField(conn_.get(), "stats", "disk_reads") - block_reader_reads;
  EXPECT_GT(by_block_reader, 0);
  EXPECT_GE(count - reads, static_cast<double>(by_block_reader));
  EXPECT_EQ(Value(after, "ebb_disk_read_duration_seconds_bucket{le=\"+Inf\"}"), count);
  EXPECT_LE(Value(after, "ebb_disk_read_duration_seconds_bucket{le=\"0.1\"}"), count);
  EXPECT_GT(Value(after, "ebb_disk_read_duration_seconds_sum"), 0);
  EXPECT_EQ(InfoField(conn_.get(), "storage", "disk_reads_timed"), static_cast<long long>(count));
}

TEST_F(MetricsTest, OnlyGetOfMetricsIsAScrape) {
  const HttpResponse other = HttpGet(metrics_port_, "/");
  EXPECT_EQ(other.status, 404) << other.headers;
  EXPECT_EQ(HttpGet(metrics_port_, "/metricsx").status, 404);
  const HttpResponse post = HttpGet(metrics_port_, "/metrics", "POST");
  EXPECT_EQ(post.status, 405) << post.headers;
  EXPECT_NE(post.headers.find("Allow: GET"), std::string::npos) << post.headers;
  // A query string is ignored, as Prometheus may send one.
  EXPECT_EQ(HttpGet(metrics_port_, "/metrics?x=1").status, 200);
}

TEST_F(MetricsTest, KeepAliveServesSeveralScrapesOnOneConnection) {
  RawConnection c(metrics_port_);
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
    const std::string reply = c.ReadUntil("\r\n\r\n");
    ASSERT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
    const size_t at = reply.find("Content-Length: ");
    ASSERT_NE(at, std::string::npos) << reply;
    const size_t length = std::stoul(reply.substr(at + 16));
    const std::string body = c.ReadExactly(length);
    ASSERT_EQ(body.size(), length);
    EXPECT_EQ(ScrapedValue(body, "redis_up"), 1.0);
  }
}

TEST_F(MetricsTest, HostileClientsLeaveBothPortsServing) {
  // Garbage instead of a request line: 400, then closed.
  {
    RawConnection c(metrics_port_);
    ASSERT_TRUE(c.connected());
    constexpr char kTlsHello[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 garbage\r\n\r\n";
    c.Send(std::string(kTlsHello, sizeof(kTlsHello) - 1));  // its NUL bytes included
    const std::string reply = c.ReadUntil("\r\n\r\n");
    EXPECT_TRUE(reply.rfind("HTTP/1.1 400", 0) == 0 || reply.empty()) << reply;
    EXPECT_TRUE(c.WaitClosed());
  }
  // A header over the limit: 431 (or a reset while it is still sending), then closed.
  {
    RawConnection c(metrics_port_);
    ASSERT_TRUE(c.connected());
    c.Send("GET /metrics HTTP/1.1\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n");
    const std::string reply = c.ReadUntil("\r\n\r\n");
    EXPECT_TRUE(reply.rfind("HTTP/1.1 431", 0) == 0 || reply.empty()) << reply.substr(0, 80);
    EXPECT_TRUE(c.WaitClosed());
  }
  // A GET with a body is refused.
  {
    RawConnection c(metrics_port_);
    ASSERT_TRUE(c.connected());
    c.Send("GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
    EXPECT_EQ(c.ReadUntil("\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  }
  // A slow sender holds half a request: scrapes and commands go on meanwhile.
  RawConnection slow(metrics_port_);
  ASSERT_TRUE(slow.connected());
  ASSERT_TRUE(slow.Send("GET /metr"));
  EXPECT_EQ(ScrapedValue(Scrape(), "redis_up"), 1.0);
  EXPECT_EQ(Do({"PING"}), "+PONG");

  // Connections up to the bound stay open; one more is closed at once.
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 15; ++i) {  // with `slow`, 16
    idle.push_back(std::make_unique<RawConnection>(metrics_port_));
    ASSERT_TRUE(idle.back()->connected());
  }
  ASSERT_TRUE(Eventually(
      [&] {
        RawConnection extra(metrics_port_);
        return extra.connected() && extra.WaitClosed(1000);
      },
      10));
  EXPECT_EQ(Do({"PING"}), "+PONG");
  // Once they go, scrapes are served again.
  idle.clear();
  EXPECT_TRUE(Eventually([&] { return HttpGet(metrics_port_, "/metrics").status == 200; }, 10));
  EXPECT_EQ(Do({"PING"}), "+PONG");
}

// A cluster node's slot states: none assigned, then every slot assigned to this node and ok.
TEST(MetricsClusterTest, SlotStatesFollowAssignment) {
  TestServer node;
  const int metrics_port = TestServer::FreePort();
  ASSERT_TRUE(node.Start({"--cluster-enabled", "yes", "--cluster-port",
                          std::to_string(TestServer::FreePort()), "--metrics-port",
                          std::to_string(metrics_port)}))
      << node.error();
  const std::string before = HttpGet(metrics_port, "/metrics").body;
  EXPECT_EQ(ScrapedValue(before, "redis_cluster_enabled"), 1.0);
  EXPECT_EQ(ScrapedValue(before, "ebb_cluster_slots{state=\"assigned\"}"), 0.0);
  EXPECT_EQ(ScrapedValue(before, "redis_cluster_state"), 0.0);
  auto c = node.Connect();
  ASSERT_EQ(Cmd(c.get(), {"CLUSTER", "ADDSLOTSRANGE", "0", "16383"}).str(), "OK");
  std::string last;
  EXPECT_TRUE(Eventually(
      [&] {
        last = HttpGet(metrics_port, "/metrics").body;
        return ScrapedValue(last, "redis_cluster_state") == 1.0;
      },
      10))
      << last;
  EXPECT_EQ(ScrapedValue(last, "ebb_cluster_slots{state=\"assigned\"}"), 16384.0);
  EXPECT_EQ(ScrapedValue(last, "ebb_cluster_slots{state=\"ok\"}"), 16384.0);
  EXPECT_EQ(ScrapedValue(last, "ebb_cluster_slots{state=\"fail\"}"), 0.0);
  EXPECT_EQ(ScrapedValue(last, "redis_cluster_known_nodes"), 1.0);
}

// Two active-active nodes: the stable vector per origin, the largest lag, the markers held and
// each peer's acknowledgement of this node's log follow a write and a delete on one of them.
TEST(MetricsActiveActiveTest, StabilityFiguresFollowTheMesh) {
  TestServer nodes[2];
  const int metrics_ports[2] = {TestServer::FreePort(), TestServer::FreePort()};
  for (int i = 0; i < 2; i++) {
    std::vector<std::string> args = PeerArgs({&nodes[1 - i]});
    args.insert(args.end(), {"--metrics-port", std::to_string(metrics_ports[i])});
    ASSERT_TRUE(nodes[i].Start(args)) << nodes[i].error();
  }
  auto a = nodes[0].Connect();
  const std::string id_a = Cmd(a.get(), {"PEER", "ID"}).str();
  const std::string id_b = Cmd(nodes[1].Connect().get(), {"PEER", "ID"}).str();
  ASSERT_EQ(id_a.size(), 40u);
  const std::string before = HttpGet(metrics_ports[0], "/metrics").body;
  EXPECT_EQ(ScrapedValue(before, "ebb_markers_pending"), 0.0);
  ASSERT_EQ(Cmd(a.get(), {"SET", "k", "v"}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"DEL", "k"}).integer(), 1);
  const std::string stable_a = "ebb_stable_vector{origin=\"" + id_a + "\"}";
  const std::string acked_by_b =
      "ebb_peer_acked_offset{peer=\"127.0.0.1:" + std::to_string(nodes[1].port()) +
      "\",peer_id=\"" + id_b + "\"}";
  const std::string stable_b = "ebb_stable_vector{origin=\"" + id_b + "\"}";
  std::string scrape[2];
  // Both nodes have applied every delta of both logs and heard each other's ticks saying so:
  // a's write and delete, and the collect each node logs once S covers the delete it holds
  // (docs/active-active.md, "Collects": one or two each, as S reaches it).
  double end_a = 0;
  EXPECT_TRUE(Eventually([&] {
    for (int i = 0; i < 2; i++) scrape[i] = HttpGet(metrics_ports[i], "/metrics").body;
    end_a = ScrapedValue(scrape[0], "ebb_origin_offset").value_or(-1);
    const double end_b = ScrapedValue(scrape[1], "ebb_origin_offset").value_or(-1);
    for (const std::string& figures : scrape) {
      if (ScrapedValue(figures, stable_a) != end_a || ScrapedValue(figures, stable_b) != end_b ||
          ScrapedValue(figures, "ebb_markers_pending") != 1.0 ||
          ScrapedValue(figures, "ebb_max_peer_lag_deltas") != 0.0) {
        return false;
      }
    }
    return end_a >= 3.0 && end_b >= 1.0 && ScrapedValue(scrape[0], acked_by_b) == end_a &&
           ScrapedValue(scrape[0], "ebb_last_collect{origin=\"" + id_a + "\"}") >= 2.0;
  })) << scrape[0]
      << scrape[1];
  // The same figures as INFO peers, and a's last collect covers its delete.
  const std::string info = Cmd(a.get(), {"INFO", "peers"}).str();
  EXPECT_NE(info.find("markers_pending:1\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find(",acked=" + std::to_string(static_cast<int>(end_a)) + "\r\n"),
            std::string::npos)
      << info;
  const size_t line = info.find("last_collect:");
  ASSERT_NE(line, std::string::npos) << info;
  const std::string collect = info.substr(line, info.find("\r\n", line) - line);
  const size_t entry = collect.find(id_a + "=");
  ASSERT_NE(entry, std::string::npos) << collect;
  EXPECT_GE(std::stoull(collect.substr(entry + id_a.size() + 1)), 2u) << collect;
}

class MetricsOffTest : public ServerTest {};

TEST_F(MetricsOffTest, OffByDefaultAndListedByConfigGet) {
  EXPECT_EQ(R({"CONFIG", "GET", "metrics-port"}), "1) \"metrics-port\"\n2) \"0\"");
  EXPECT_EQ(R({"CONFIG", "GET", "metrics-bind"}), "1) \"metrics-bind\"\n2) \"127.0.0.1\"");
  EXPECT_EQ(server_.ReadLog().find("metrics"), std::string::npos);
}

}  // namespace
}  // namespace ebb::test
