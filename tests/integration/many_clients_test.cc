// Many clients at once: 1000 concurrent connections all served correctly; clients that pipeline
// requests and never read their replies neither starve the others nor grow the server's memory
// without bound, and are disconnected per client-output-buffer-limit; over maxclients new
// clients get Redis's error.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr int kClients = 1000;
// How long the INFO polls below wait: a thousand connections take a while to come and go.
constexpr auto kWait = std::chrono::seconds(15);

std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

std::string Request(std::initializer_list<std::string> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += Bulk(a);
  return out;
}

std::string Key(int client, int round) {
  return "client:" + std::to_string(client) + ":" + std::to_string(round);
}
std::string Value(int client, int round) {
  return "value-" + std::to_string(client * 7919 + round) + std::string(client % 50, 'v');
}

// Sends PING, SET, GET on every connection of `conns` (index = client number - first), then
// reads and checks every reply. Returns the first mismatch ("" if none).
std::string PingSetGetRound(std::vector<std::unique_ptr<RawConnection>>& conns, int first,
                            int round) {
  for (size_t i = 0; i < conns.size(); ++i) {
    const int id = first + static_cast<int>(i);
    const std::string req = Request({"PING"}) + Request({"SET", Key(id, round), Value(id, round)}) +
                            Request({"GET", Key(id, round)});
    if (!conns[i]->Send(req)) return "send failed on client " + std::to_string(id);
  }
  for (size_t i = 0; i < conns.size(); ++i) {
    const int id = first + static_cast<int>(i);
    const std::string want = "+PONG\r\n+OK\r\n" + Bulk(Value(id, round));
    const std::string got = conns[i]->ReadExactly(want.size(), 20000);
    if (got != want) {
      return "client " + std::to_string(id) + " round " + std::to_string(round) + " got '" + got +
             "'";
    }
  }
  return "";
}

TEST(ManyClientsTest, ThousandConcurrentConnectionsAllServed) {
  if (!EnsureFileLimit(2 * kClients + 256)) {
    FAIL() << "RLIMIT_NOFILE hard limit below " << 2 * kClients + 256;
  }
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection observer = server.Connect();
  ASSERT_TRUE(observer);

  std::vector<std::unique_ptr<RawConnection>> conns;
  for (int i = 0; i < kClients; ++i) {
    conns.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(conns.back()->connected()) << "connection " << i;
  }
  // Four threads, each driving a quarter of the connections: every connection has requests in
  // flight at the same time as the others.
  constexpr int kThreads = 4;
  constexpr int kRounds = 3;
  std::vector<std::vector<std::unique_ptr<RawConnection>>> shards(kThreads);
  for (int i = 0; i < kClients; ++i)
    shards[i / (kClients / kThreads)].push_back(std::move(conns[i]));
  std::mutex mu;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        std::string err = PingSetGetRound(shards[t], t * (kClients / kThreads), round);
        if (!err.empty()) {
          std::lock_guard lock(mu);
          failures.push_back(err);
          return;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.empty()) << failures.front();

  // All of them are still connected at once, and each one's writes are visible to others.
  EXPECT_EQ(WaitInfoField(observer.get(), "clients", "connected_clients", kClients + 1, kWait),
            kClients + 1);
  for (int id = 0; id < kClients; id += 37) {
    EXPECT_EQ(Cmd(observer.get(), {"GET", Key(id, kRounds - 1)}).str(), Value(id, kRounds - 1));
  }
  shards.clear();
  EXPECT_EQ(WaitInfoField(observer.get(), "clients", "connected_clients", 1, kWait), 1);
}

TEST(ManyClientsTest, ClientsThatNeverReadAreDroppedOthersServedMemoryBounded) {
  TestServer server;
  // Normal class: hard 8 MB, soft 512 KB for 1 s (Redis's syntax).
  ASSERT_TRUE(server.Start({"--client-output-buffer-limit", "normal", "8mb", "512kb", "1"}))
      << server.error();
  RedisConnection observer = server.Connect();
  ASSERT_TRUE(observer);
  const long long rss_before = InfoField(observer.get(), "memory", "used_memory_rss");
  ASSERT_GT(rss_before, 0);

  // Each hog pipelines requests whose replies total far more than memory should hold (COMMAND
  // DOCS is tens of KB): 8 x 3000 replies would be gigabytes if buffered.
  constexpr int kHogs = 8;
  std::string flood;
  for (int i = 0; i < 3000; ++i) flood += "COMMAND DOCS\r\n";
  std::vector<std::unique_ptr<RawConnection>> hogs;
  for (int i = 0; i < kHogs; ++i) {
    hogs.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(hogs.back()->connected());
    ASSERT_TRUE(hogs.back()->Send(flood));
  }

  // Meanwhile 100 well-behaved clients keep being served correctly.
  std::vector<std::unique_ptr<RawConnection>> good;
  for (int i = 0; i < 100; ++i) {
    good.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(good.back()->connected());
  }
  long long peak_rss = rss_before;
  for (int round = 0; round < 10; ++round) {
    const std::string err = PingSetGetRound(good, 0, round);
    ASSERT_EQ(err, "");
    peak_rss = std::max(peak_rss, InfoField(observer.get(), "memory", "used_memory_rss"));
  }

  // The hogs stayed above the soft limit for over a second: every one is disconnected.
  EXPECT_EQ(WaitInfoField(observer.get(), "stats", "client_output_buffer_limit_disconnections",
                          kHogs, kWait),
            kHogs);
  for (auto& hog : hogs) EXPECT_TRUE(hog->WaitClosed(15000));
  EXPECT_EQ(PingSetGetRound(good, 0, 99), "");
  peak_rss = std::max(peak_rss, InfoField(observer.get(), "memory", "used_memory_rss"));
  // Reading pauses once ~1 MB of output is pending, so each hog costs a few MB at most, where
  // buffering every reply would take gigabytes (the bound is loose for sanitizer builds, whose
  // allocator keeps up to 256 MB of freed memory in quarantine).
  EXPECT_LT(peak_rss - rss_before, 600ll << 20)
      << "rss grew from " << rss_before << " to " << peak_rss;
}

TEST(ManyClientsTest, OverMaxClientsNewClientsGetRedisErrorUntilOthersLeave) {
  constexpr int kMax = 100;
  TestServer server;
  ASSERT_TRUE(server.Start({"--maxclients", std::to_string(kMax)})) << server.error();
  RedisConnection observer = server.Connect();
  ASSERT_TRUE(observer);
  // The startup probe's connection may still be closing: wait until only the observer is left.
  ASSERT_EQ(WaitInfoField(observer.get(), "clients", "connected_clients", 1, kWait), 1);

  std::vector<std::unique_ptr<RawConnection>> clients;
  for (int i = 1; i < kMax; ++i) {
    clients.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(clients.back()->Send("PING\r\n"));
    ASSERT_EQ(clients.back()->ReadUntil("\r\n"), "+PONG\r\n") << "client " << i;
  }
  for (int i = 0; i < 5; ++i) {
    RawConnection extra(server.port());
    EXPECT_EQ(extra.ReadUntil("\r\n"), "-ERR max number of clients reached\r\n");
    EXPECT_TRUE(extra.WaitClosed());
  }
  EXPECT_EQ(InfoField(observer.get(), "stats", "rejected_connections"), 5);
  EXPECT_EQ(InfoField(observer.get(), "clients", "connected_clients"), kMax);

  // Ten leave; ten newcomers are served again.
  clients.resize(clients.size() - 10);
  ASSERT_EQ(WaitInfoField(observer.get(), "clients", "connected_clients", kMax - 10, kWait),
            kMax - 10);
  for (int i = 0; i < 10; ++i) {
    clients.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(clients.back()->Send("PING\r\n"));
    EXPECT_EQ(clients.back()->ReadUntil("\r\n"), "+PONG\r\n");
  }
  EXPECT_EQ(InfoField(observer.get(), "stats", "rejected_connections"), 5);
}

}  // namespace
}  // namespace ebb::test
