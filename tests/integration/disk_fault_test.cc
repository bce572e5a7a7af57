// Disk faults through the server (docs/durability.md, "Disk faults"): while the data directory
// cannot be written, write commands and PING get Redis's MISCONF error, reads keep working,
// nothing refused or unsaved is acknowledged, and writes are accepted again once the fault
// clears. Two ways to fail the disk: DEBUG DISK-FAULT (always runs) and a real full filesystem
// (a small tmpfs; skipped where mounting is not permitted).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kMisconfNoSpace =
    "MISCONF Errors writing to the data directory: No space left on device";

// Polls (bounded) until SET is accepted; returns its last reply.
Reply WaitForWritesAccepted(redisContext* c, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  Reply r;
  for (int i = 0; i < 1000; i++) {
    r = Cmd(c, {"SET", "probe", "p"});
    if (r.is_status() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(50ms);
  }
  return r;
}

class DebugDiskFaultTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DebugDiskFaultTest, WritesAndPingGetMisconfReadsServedThenRecover) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--wal-fsync", GetParam()})) << server.error();
  RedisConnection c = server.Connect();
  std::map<std::string, std::string> acked;
  for (int i = 0; i < 40; i++) {
    const std::string key = "k" + std::to_string(i);
    if (i == 20) {
      ASSERT_EQ(Cmd(c.get(), {"DEBUG", "FLUSH-MEMTABLE"}).ToString(), "OK");
    }
    ASSERT_EQ(Cmd(c.get(), {"SET", key, "v" + std::to_string(i)}).ToString(), "OK");
    acked[key] = "v" + std::to_string(i);
  }
  EXPECT_NE(Cmd(c.get(), {"INFO", "persistence"}).str().find("wal_last_write_status:ok"),
            std::string::npos);

  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "DISK-FAULT", "ON"}).ToString(), "OK");
  // The write that meets the fault is answered with an error, never +OK.
  EXPECT_EQ(Cmd(c.get(), {"SET", "first", "x"}).str(), kMisconfNoSpace);
  EXPECT_EQ(Cmd(c.get(), {"SET", "second", "x"}).str(), kMisconfNoSpace);
  EXPECT_EQ(Cmd(c.get(), {"DEL", "k1"}).str(), kMisconfNoSpace);
  EXPECT_EQ(Cmd(c.get(), {"PING"}).str(), kMisconfNoSpace);
  // A pipelined batch: the write is refused, the read in between is served.
  RawConnection raw(server.port());
  ASSERT_TRUE(raw.Send("SET p 1\r\nGET k2\r\nSET q 2\r\n"));
  const std::string misconf_line = std::string("-") + kMisconfNoSpace + "\r\n";
  EXPECT_EQ(raw.ReadExactly(2 * misconf_line.size() + 8),
            misconf_line + "$2\r\nv2\r\n" + misconf_line);
  // Reads keep working.
  for (const auto& [key, value] : acked) EXPECT_EQ(Cmd(c.get(), {"GET", key}).str(), value);
  EXPECT_TRUE(Cmd(c.get(), {"GET", "second"}).is_nil());
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "k1"}).integer(), 1);
  EXPECT_EQ(Cmd(c.get(), {"TTL", "k1"}).integer(), -1);
  EXPECT_GE(Cmd(c.get(), {"SCAN", "0", "COUNT", "1000"})[1].size(), acked.size());
  const std::string info = Cmd(c.get(), {"INFO", "persistence"}).str();
  EXPECT_NE(info.find("wal_last_write_status:err"), std::string::npos) << info;
  EXPECT_NE(info.find("No space left on device"), std::string::npos) << info;

  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "DISK-FAULT", "OFF"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");
  ASSERT_EQ(Cmd(c.get(), {"SET", "after", "y"}).ToString(), "OK");
  acked["after"] = "y";

  ASSERT_TRUE(server.Restart()) << server.error();
  c = server.Connect();
  for (const auto& [key, value] : acked) EXPECT_EQ(Cmd(c.get(), {"GET", key}).str(), value);
  for (const char* refused : {"second", "p", "q"}) {
    EXPECT_TRUE(Cmd(c.get(), {"GET", refused}).is_nil()) << refused;
  }
}

TEST_P(DebugDiskFaultTest, EioIsNamedInTheError) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--wal-fsync", GetParam()})) << server.error();
  RedisConnection c = server.Connect();
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "DISK-FAULT", "ON", "EIO"}).ToString(), "OK");
  Cmd(c.get(), {"SET", "a", "1"});
  EXPECT_EQ(Cmd(c.get(), {"SET", "a", "1"}).str(),
            "MISCONF Errors writing to the data directory: Input/output error");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "DISK-FAULT", "ON", "EFOO"}).str(), "ERR syntax error");
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "DISK-FAULT", "OFF"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"SET", "a", "1"}).ToString(), "OK");
}

INSTANTIATE_TEST_SUITE_P(WalFsync, DebugDiskFaultTest, ::testing::Values("always", "everysec"));

// A real full filesystem: a small tmpfs mounted for the test (needs root / CAP_SYS_ADMIN).
class FullDiskTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ebb_full_disk_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    mount_point_ = tmpl;
    if (::mount("tmpfs", mount_point_.c_str(), "tmpfs", 0, "size=4m") != 0) {
      const int err = errno;
      std::filesystem::remove(mount_point_);
      mount_point_.clear();
      // Not a skip: a run that cannot test a full disk must say so as a failure.
      FAIL() << "cannot mount a tmpfs (the test needs root or CAP_SYS_ADMIN): "
             << std::strerror(err);
    }
    mounted_ = true;
  }
  void TearDown() override {
    server_.reset();  // the server stops before its directory goes away
    if (mounted_) ::umount2(mount_point_.c_str(), MNT_DETACH);
    if (!mount_point_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(mount_point_, ec);
    }
  }

  std::string mount_point_;
  bool mounted_ = false;
  std::unique_ptr<TestServer> server_;
};

TEST_P(FullDiskTest, FillTheDiskThenFreeSpace) {
  const std::string data_dir = mount_point_ + "/data";
  const std::string filler = mount_point_ + "/filler";
  {
    std::ofstream out(filler, std::ios::binary);
    const std::string chunk(64 << 10, 'f');
    for (int i = 0; i < 16; i++) out << chunk;  // 1 MiB that the test frees later
    ASSERT_TRUE(out.good());
  }
  server_ = std::make_unique<TestServer>();
  ASSERT_TRUE(server_->Start({"--dir", data_dir, "--wal-fsync", GetParam()})) << server_->error();
  RedisConnection c = server_->Connect();

  // Write (compressible values: the WAL fills the disk, the table files stay small) until the
  // disk is full. Bounded: 8 MiB of values cannot fit in 4 MiB.
  std::map<std::string, std::string> acked;
  Reply refused;
  for (int i = 0; i < 2000; i++) {
    const std::string key = "key" + std::to_string(i);
    const std::string value = std::to_string(i) + std::string(4096, 'v');
    Reply r = Cmd(c.get(), {"SET", key, value});
    if (r.is_status()) {
      acked[key] = value;
      continue;
    }
    refused = r;
    break;
  }
  ASSERT_TRUE(refused.is_error()) << "the disk never filled up";
  ASSERT_GT(acked.size(), 10u);
  EXPECT_EQ(Cmd(c.get(), {"SET", "x", "y"}).str(), kMisconfNoSpace);
  EXPECT_EQ(Cmd(c.get(), {"PING"}).str(), kMisconfNoSpace);
  for (const auto& [key, value] : acked) ASSERT_EQ(Cmd(c.get(), {"GET", key}).str(), value);
  EXPECT_NE(Cmd(c.get(), {"INFO", "persistence"}).str().find("wal_last_write_status:err"),
            std::string::npos);

  // Free space: the engine resumes by itself (it retries about once a second).
  ASSERT_TRUE(std::filesystem::remove(filler));
  Reply r = WaitForWritesAccepted(c.get(), 10s);
  ASSERT_TRUE(r.is_status()) << r.ToString();
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");
  ASSERT_EQ(Cmd(c.get(), {"SET", "after", "y"}).ToString(), "OK");
  acked["after"] = "y";

  ASSERT_TRUE(server_->Restart()) << server_->error();
  c = server_->Connect();
  for (const auto& [key, value] : acked) ASSERT_EQ(Cmd(c.get(), {"GET", key}).str(), value);
  EXPECT_TRUE(Cmd(c.get(), {"GET", "x"}).is_nil());
}

INSTANTIATE_TEST_SUITE_P(WalFsync, FullDiskTest, ::testing::Values("always", "everysec"));

}  // namespace
}  // namespace ebb::test
