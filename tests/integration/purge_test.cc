// The purge deadline through a real ebb-server: once the deadline after the expiry has passed,
// the data directory is within a small constant (manifest, WAL headers, table footers) of the
// size the live data alone takes — whether the expired rows sat at the bottom of the tree, in L0,
// in the memtable and its WAL, were compressible or not, were entries of a TLOG under a
// retention window or of a TLOG whose key expired; and a time series' samples its RETENTION hid
// leave the stored rows by the deadline with no write after the one that hid them.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tests/support/eventually.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr int64_t kTtl = 600'000;      // 10 minutes
constexpr int64_t kDeadline = 30'000;  // expiry-purge-deadline 30s
// Bytes a store of only the live data may differ by: manifests of different histories, WAL
// block headers, table footers and indexes of differently cut files.
constexpr uint64_t kSlack = 96 << 10;

// The bytes of the files in `dir` now. The server runs meanwhile: a file it deletes between the
// listing and its size (a WAL it has just retired) holds none.
uint64_t DirBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::error_code gone;
    const uint64_t size = entry.is_regular_file(gone) ? entry.file_size(gone) : 0;
    if (!gone) total += size;
  }
  return total;
}

// 100 bytes that do not compress, seeded by `n`.
std::string Incompressible(uint64_t n) {
  std::mt19937_64 rng(n);
  std::string out(100, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

class PurgeTest : public ::testing::Test {
 protected:
  static void Pin(redisContext* c) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs)}).ToString(), "OK");
  }
  // Sends every command pipelined and checks every reply is OK.
  static void Pipeline(redisContext* c, const std::vector<std::vector<std::string>>& commands) {
    for (const auto& args : commands) Append(c, args);
    for (size_t i = 0; i < commands.size(); i++) {
      const Reply r = ReadReply(c);
      ASSERT_EQ(r.ToString(), "OK") << i;
    }
  }
  // The live data: rows that never expire, and a log without a rule.
  static void WriteLive(redisContext* c) {
    std::vector<std::vector<std::string>> live;
    for (int i = 0; i < 2000; i++) {
      live.push_back({"PUT", "keep:" + std::to_string(i), Incompressible(i), "NOTTL"});
    }
    for (int i = 0; i < 200; i++) {
      live.push_back({"TLOG", "INS", "keep:log", Incompressible(100000 + i),
                      std::to_string(kPinnedNowMs + i)});
    }
    Pipeline(c, live);
  }
};

TEST_F(PurgeTest, AfterTheDeadlineTheDataDirHoldsOnlyTheLiveData) {
  TestServer server;
  ASSERT_TRUE(server.Start(
      {"--memtable-size", "4mb", "--expiry-purge-deadline", "30s", "--ttl-rule", "win:*", "10m"}))
      << server.error();
  RedisConnection c = server.Connect();
  ASSERT_TRUE(c);
  // DEBUG COMPACT over a hundred thousand rows can outlast Connect()'s 5 s reply timeout in a
  // sanitizer build on a busy machine.
  const timeval kCompactTimeout{120, 0};
  redisSetTimeout(c.get(), kCompactTimeout);
  Pin(c.get());
  // At the bottom: live rows among expiring ones, compressible and not.
  WriteLive(c.get());
  std::vector<std::vector<std::string>> batch;
  for (int i = 0; i < 100000; i++) {
    batch.push_back({"PUT", "tmp:" + std::to_string(i), std::string(100, 'x'), "TTL", "10m"});
  }
  for (int i = 0; i < 3000; i++) {
    batch.push_back({"PUT", "rnd:" + std::to_string(i), Incompressible(200000 + i), "TTL", "10m"});
  }
  // A log whose key expires, and a log under a retention window (entries stamped up to 20 s
  // before the clock, so they leave the window before the rows above expire).
  for (int i = 0; i < 300; i++) {
    batch.push_back({"TLOG", "INS", "exp:log", Incompressible(300000 + i), std::to_string(i)});
    batch.push_back({"TLOG", "INS", "win:log", Incompressible(400000 + i),
                     std::to_string(kPinnedNowMs - 20'000 + i)});
  }
  Pipeline(c.get(), batch);
  ASSERT_EQ(Cmd(c.get(), {"EXPIRE", "exp:log", "600"}).ToString(), "(integer) 1");
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "COMPACT"}).ToString(), "OK");
  // In L0: more expiring rows.
  batch.clear();
  for (int i = 0; i < 2000; i++) {
    batch.push_back({"PUT", "l0:" + std::to_string(i), Incompressible(500000 + i), "TTL", "10m"});
  }
  Pipeline(c.get(), batch);
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "FLUSH-MEMTABLE"}).ToString(), "OK");
  // In the memtable and the WAL.
  batch.clear();
  for (int i = 0; i < 1000; i++) {
    batch.push_back({"PUT", "mem:" + std::to_string(i), "SUPERSECRET" + Incompressible(600000 + i),
                     "TTL", "10m"});
  }
  Pipeline(c.get(), batch);
  const uint64_t before = DirBytes(server.data_dir());
  ASSERT_TRUE(DirContains(server.data_dir(), "SUPERSECRET"));

  // What the live data alone takes, in a fresh store compacted the same way.
  TestServer reference;
  ASSERT_TRUE(reference.Start({"--memtable-size", "4mb"})) << reference.error();
  RedisConnection r = reference.Connect();
  ASSERT_TRUE(r);
  redisSetTimeout(r.get(), kCompactTimeout);
  Pin(r.get());
  WriteLive(r.get());
  ASSERT_EQ(Cmd(r.get(), {"DEBUG", "COMPACT"}).ToString(), "OK");
  const uint64_t live = DirBytes(reference.data_dir());
  ASSERT_GT(before, live + 1'000'000);  // over a megabyte of expiring data

  // Past every expiry and the deadline: wait (bounded) for the background work.
  ASSERT_EQ(
      Cmd(c.get(), {"DEBUG", "CLOCK", "ADVANCE", std::to_string(kTtl + kDeadline)}).ToString(),
      "OK");
  uint64_t now_bytes = before;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < limit) {
    now_bytes = DirBytes(server.data_dir());
    if (now_bytes <= live + kSlack && !DirContains(server.data_dir(), "SUPERSECRET")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_LE(now_bytes, live + kSlack) << "live " << live << ", before " << before;
  EXPECT_FALSE(DirContains(server.data_dir(), "SUPERSECRET"));
  // Nothing expired is visible, the live data is whole.
  EXPECT_EQ(Cmd(c.get(), {"DBSIZE"}).ToString(), "(integer) 2001");
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "SIZE", "keep:log"}).ToString(), "(integer) 200");
  EXPECT_EQ(Cmd(c.get(), {"GET", "keep:1999"}).str(), Incompressible(1999));
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "win:log", "exp:log", "tmp:1"}).ToString(), "(integer) 0");
}

// Samples stored for `key` (TS.INFO DEBUG's chunks: hidden samples included) and visible ones.
std::pair<long long, long long> StoredAndVisible(redisContext* c, const std::string& key) {
  const Reply info = Cmd(c, {"TS.INFO", key, "DEBUG"});
  long long stored = 0;
  for (const Reply& chunk : info[27].elements()) stored += chunk[5].integer();
  return {stored, info[1].integer()};
}

// RETENTION hides samples at once; with no write after, the server's own background work (the
// marker the hiding write left, the purge hint, the compaction filter) takes them out of every
// stored row once the deadline has passed, and what reads show does not change.
TEST_F(PurgeTest, SamplesRetentionHidLeaveByTheDeadlineWithNoWriteAfter) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--memtable-size", "64mb", "--expiry-purge-deadline", "4s"}))
      << server.error();
  RedisConnection c = server.Connect();
  ASSERT_TRUE(c);
  Pin(c.get());
  ASSERT_EQ(Cmd(c.get(), {"TS.CREATE", "s", "RETENTION", "1000"}).ToString(), "OK");
  for (int from = 0; from < 2500; from += 100) {
    std::vector<std::string> madd = {"TS.MADD"};
    for (int ts = from; ts < from + 100; ts++) {
      madd.insert(madd.end(), {"s", std::to_string(ts), std::to_string(ts % 13)});
    }
    ASSERT_EQ(Cmd(c.get(), madd).size(), 100u);
  }
  const std::string range = Cmd(c.get(), {"TS.RANGE", "s", "-", "+"}).ToString();
  const auto [stored, visible] = StoredAndVisible(c.get(), "s");
  ASSERT_EQ(visible, 1001);  // 1499..2499
  ASSERT_EQ(stored, 2500);   // in the memtable: nothing purged yet
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "ADVANCE", "4000"}).ToString(), "OK");
  EXPECT_TRUE(Eventually([&] { return StoredAndVisible(c.get(), "s").first == 1001; }, 60));
  EXPECT_EQ(StoredAndVisible(c.get(), "s").second, 1001);
  EXPECT_EQ(Cmd(c.get(), {"TS.RANGE", "s", "-", "+"}).ToString(), range);
}

}  // namespace
}  // namespace ebb::test
