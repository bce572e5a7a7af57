// File descriptors: a server started under `ulimit -n 1024` that may not raise it lowers
// maxclients (Redis's adjustOpenFilesLimit, with its log lines) so that clients can never take
// the descriptors its engine needs. 1,100 connections: those over the lowered maxclients get
// Redis's error, every accepted one is served, and the engine goes on opening tables, flushing
// and compacting: no "Too many open files", no MISCONF.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr int kConnections = 1100;

// The "Max open files" soft limit of process `pid`, from /proc (-1 if unreadable).
long long ProcessFileLimit(int pid) {
  std::ifstream limits("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(limits, line)) {
    if (line.rfind("Max open files", 0) == 0) return std::stoll(line.substr(26));
  }
  return -1;
}

TEST(OpenFilesTest, LowUlimitLowersMaxclientsAndTheEngineKeepsItsFiles) {
  ASSERT_TRUE(EnsureFileLimit(kConnections + 200))
      << "the test needs " << kConnections + 200 << " descriptors (raise the hard limit)";
  TestServer server;
  server.set_open_files_limit(1024);
  ASSERT_TRUE(server.Start({"--memtable-size", "64kb"})) << server.error();
  ASSERT_EQ(ProcessFileLimit(server.pid()), 1024) << "the server raised its limit";
  RedisConnection control = server.Connect();
  const long long maxclients = InfoField(control.get(), "clients", "maxclients");
  // 1024 - 32 reserved - a table cache of a quarter of the rest (248).
  EXPECT_EQ(maxclients, 744);
  const std::string log = server.ReadLog();
  EXPECT_NE(log.find("You requested maxclients of 10000 requiring at least"), std::string::npos)
      << log;
  EXPECT_NE(log.find("maxclients has been reduced to 744 to compensate for low ulimit"),
            std::string::npos)
      << log;

  // More clients than the descriptors allow is refused, as Redis refuses it; fewer is fine.
  EXPECT_EQ(Cmd(control.get(), {"CONFIG", "SET", "maxclients", "2000"}).str(),
            "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating "
            "system is not able to handle the specified number of clients, try with 744");
  EXPECT_EQ(Cmd(control.get(), {"CONFIG", "SET", "maxclients", "700"}).ToString(), "OK");
  EXPECT_EQ(Cmd(control.get(), {"CONFIG", "SET", "maxclients", "744"}).ToString(), "OK");

  std::vector<std::unique_ptr<RawConnection>> conns;
  for (int i = 0; i < kConnections; i++) {
    conns.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(conns.back()->connected()) << i;
  }
  int served = 0, refused = 0;
  for (auto& c : conns) {
    c->Send("PING\r\n");
    const std::string reply = c->ReadUntil("\r\n", 10000);
    if (reply == "+PONG\r\n") {
      served++;
    } else {
      EXPECT_EQ(reply, "-ERR max number of clients reached\r\n");
      refused++;
    }
  }
  EXPECT_EQ(served, maxclients - 1);  // the control connection is one of them
  EXPECT_EQ(refused, kConnections - served);

  // With every client slot taken, the engine still opens, writes and reads its files.
  for (int round = 0; round < 6; round++) {
    for (int i = 0; i < 200; i++) {
      const std::string key = "k" + std::to_string(round) + ":" + std::to_string(i);
      ASSERT_EQ(Cmd(control.get(), {"SET", key, std::string(300, 'v')}).ToString(), "OK");
    }
    ASSERT_EQ(Cmd(control.get(), {"DEBUG", "FLUSH-MEMTABLE"}).ToString(), "OK");
  }
  ASSERT_EQ(Cmd(control.get(), {"DEBUG", "COMPACT"}).ToString(), "OK");
  int checked = 0;
  for (auto& c : conns) {
    if (!c->connected() || checked >= 50) continue;
    if (!c->Send("GET k3:17\r\n")) continue;
    const std::string reply = c->ReadUntil(std::string(300, 'v') + "\r\n", 10000);
    if (reply.empty()) continue;  // a refused connection, closed by the server
    EXPECT_EQ(reply, "$300\r\n" + std::string(300, 'v') + "\r\n");
    checked++;
  }
  EXPECT_EQ(checked, 50);
  EXPECT_NE(Cmd(control.get(), {"INFO", "persistence"}).str().find("wal_last_write_status:ok"),
            std::string::npos);
  EXPECT_EQ(server.ReadLog().find("Too many open files"), std::string::npos) << server.ReadLog();
}

}  // namespace
}  // namespace ebb::test
