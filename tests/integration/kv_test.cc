// KV rows with timestamps and TTL through a real ebb-server: the SlateDB RFC's retrieval-grace
// example and its five scenarios, each checked as written, after DEBUG FLUSH-MEMTABLE, after
// DEBUG COMPACT and after a restart; PUT/GETMETA/DELETE options and errors. Time is driven with
// DEBUG CLOCK (no sleeping). Test times sit an hour ahead of the real clock, so a restarted
// server (whose clock is the real one until re-pinned) never sees them as expired.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

enum class Settle { kNone, kFlush, kCompact, kRestart };

std::string SettleName(const ::testing::TestParamInfo<Settle>& info) {
  switch (info.param) {
    case Settle::kNone:
      return "AsWritten";
    case Settle::kFlush:
      return "AfterFlush";
    case Settle::kCompact:
      return "AfterCompact";
    case Settle::kRestart:
      return "AfterRestart";
  }
  return "Unknown";
}

const std::string kFullGrace = std::to_string(std::numeric_limits<int64_t>::max());

class KvServerTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    base_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count() +
            3'600'000;
    SetClock(0);
  }

  // An absolute time `ms` after the test's base.
  std::string At(int64_t ms) const { return std::to_string(base_ + ms); }
  void SetClock(int64_t ms) {
    now_ = ms;
    ASSERT_EQ(R({"DEBUG", "CLOCK", "SET", At(ms)}), "OK");
  }
  std::string Get(const std::string& key, const std::string& grace = "0") {
    return R({"GET", key, "GRACE", grace});
  }
  void Restart() {
    conn_.reset();
    ServerTest::Restart();
    SetClock(now_);
  }
  void Settle(Settle mode) {
    switch (mode) {
      case Settle::kNone:
        break;
      case Settle::kFlush:
        ASSERT_EQ(R({"DEBUG", "FLUSH-MEMTABLE"}), "OK");
        break;
      case Settle::kCompact:
        ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
        break;
      case Settle::kRestart:
        Restart();
        break;
    }
  }

  int64_t base_ = 0;
  int64_t now_ = 0;
};

class KvScenarioTest : public KvServerTest, public ::testing::WithParamInterface<Settle> {};

// The RFC's example: [KeyA@100, KeyA@50, KeyA@150], newest write first.
TEST_P(KvScenarioTest, RetrievalGraceExample) {
  SetClock(200);
  ASSERT_EQ(R({"PUT", "a", "v150", "TS", At(150)}), "OK");
  ASSERT_EQ(R({"PUT", "a", "v50", "TS", At(50)}), "OK");
  ASSERT_EQ(R({"PUT", "a", "v100", "TS", At(100)}), "OK");
  EXPECT_EQ(Get("a", "-1"), "\"v100\"");
  EXPECT_EQ(Get("a", "0"), "\"v100\"");
  EXPECT_EQ(Get("a", "50"), "\"v100\"");
  EXPECT_EQ(Get("a", "51"), "\"v150\"");
  Settle(GetParam());
  EXPECT_EQ(Get("a", "51"), "\"v150\"");
  EXPECT_EQ(Get("a", kFullGrace), "\"v150\"");
  if (GetParam() == Settle::kCompact) {
    // Compaction keeps the version a full-grace read returns: results converge.
    EXPECT_EQ(Get("a", "0"), "\"v150\"");
  }
  if (GetParam() == Settle::kNone || GetParam() == Settle::kRestart) {
    EXPECT_EQ(Get("a", "50"), "\"v100\"");
  }
}

// Scenario 1 (happy path): inserted at ts=100 with ttl=100, readable until 200.
TEST_P(KvScenarioTest, HappyPathExpiresAtTsPlusTtl) {
  SetClock(150);
  ASSERT_EQ(R({"PUT", "a", "v", "TS", At(100), "TTL", "100"}), "OK");
  Settle(GetParam());
  EXPECT_EQ(R({"GETMETA", "a"}), "1) \"value\"\n2) \"v\"\n3) \"ts\"\n4) (integer) " + At(100) +
                                     "\n5) \"ttl\"\n6) (integer) 50\n7) \"expire_at\"\n8) "
                                     "(integer) " +
                                     At(200));
  SetClock(199);
  EXPECT_EQ(Get("a"), "\"v\"");
  SetClock(200);
  EXPECT_EQ(Get("a"), "(nil)");
  EXPECT_EQ(R({"GETMETA", "a"}), "(nil)");
  Settle(GetParam());
  EXPECT_EQ(Get("a", kFullGrace), "(nil)");
}

// Scenario 2: overwrite at ts=150 with ttl=100 lives until 250.
TEST_P(KvScenarioTest, InOrderOverwriteNewerTtl) {
  SetClock(150);
  ASSERT_EQ(R({"PUT", "a", "v1", "TS", At(100), "TTL", "100"}), "OK");
  ASSERT_EQ(R({"PUT", "a", "v2", "TS", At(150), "TTL", "100"}), "OK");
  Settle(GetParam());
  SetClock(210);
  EXPECT_EQ(Get("a"), "\"v2\"");
  EXPECT_EQ(Get("a", kFullGrace), "\"v2\"");
  SetClock(249);
  EXPECT_EQ(Get("a"), "\"v2\"");
  SetClock(250);
  EXPECT_EQ(Get("a"), "(nil)");
  EXPECT_EQ(Get("a", kFullGrace), "(nil)");
}

// Scenario 3: overwrite at ts=110 with ttl=40 expires at 150 and hides the older version, also
// once compaction has run after 150 and the clock is back before the older version's expiry.
TEST_P(KvScenarioTest, InOrderOverwriteOlderTtl) {
  SetClock(120);
  ASSERT_EQ(R({"PUT", "a", "v1", "TS", At(100), "TTL", "100"}), "OK");
  ASSERT_EQ(R({"PUT", "a", "v2", "TS", At(110), "TTL", "40"}), "OK");
  SetClock(149);
  EXPECT_EQ(Get("a"), "\"v2\"");
  SetClock(160);
  EXPECT_EQ(Get("a"), "(nil)");
  Settle(GetParam());
  EXPECT_EQ(Get("a"), "(nil)");
  EXPECT_EQ(Get("a", kFullGrace), "(nil)");
  SetClock(170);
  EXPECT_EQ(Get("a", kFullGrace), "(nil)");
}

// Scenario 4: inserted at ts=100, then at ts=50: the larger timestamp wins under grace.
TEST_P(KvScenarioTest, OutOfOrderOverwrites) {
  SetClock(200);
  ASSERT_EQ(R({"PUT", "a", "at100", "TS", At(100)}), "OK");
  ASSERT_EQ(R({"PUT", "a", "at50", "TS", At(50)}), "OK");
  EXPECT_EQ(Get("a", "0"), "\"at50\"");
  // Any grace admits a newer timestamp (100 > 50 - g for every g > 0).
  EXPECT_EQ(Get("a", "1"), "\"at100\"");
  Settle(GetParam());
  EXPECT_EQ(Get("a", kFullGrace), "\"at100\"");
  if (GetParam() == Settle::kCompact) {
    EXPECT_EQ(Get("a", "0"), "\"at100\"");
  }
}

// Scenario 5: inserted at ts=100, then deleted at ts=50: the tombstone is ignored when they meet.
TEST_P(KvScenarioTest, OutOfOrderTombstone) {
  SetClock(200);
  ASSERT_EQ(R({"PUT", "a", "v", "TS", At(100)}), "OK");
  ASSERT_EQ(R({"DELETE", "a", "TS", At(50)}), "OK");
  EXPECT_EQ(Get("a", "0"), "(nil)");
  EXPECT_EQ(Get("a", kFullGrace), "\"v\"");
  Settle(GetParam());
  EXPECT_EQ(Get("a", kFullGrace), "\"v\"");
  if (GetParam() == Settle::kCompact) {
    EXPECT_EQ(Get("a", "0"), "\"v\"");
  }
  // A tombstone with a newer timestamp wins under every grace.
  ASSERT_EQ(R({"DELETE", "a", "TS", At(150)}), "OK");
  Settle(GetParam());
  EXPECT_EQ(Get("a", kFullGrace), "(nil)");
  EXPECT_EQ(Get("a", "0"), "(nil)");
}

INSTANTIATE_TEST_SUITE_P(Settles, KvScenarioTest,
                         ::testing::Values(Settle::kNone, Settle::kFlush, Settle::kCompact,
                                           Settle::kRestart),
                         SettleName);

TEST_F(KvServerTest, DefaultRetrievalGraceAppliesWhenGetGivesNone) {
  SetClock(200);
  ASSERT_EQ(R({"PUT", "a", "new", "TS", At(100)}), "OK");
  ASSERT_EQ(R({"PUT", "a", "old", "TS", At(50)}), "OK");
  EXPECT_EQ(R({"GET", "a"}), "\"old\"");
  ASSERT_EQ(R({"CONFIG", "SET", "default-retrieval-grace", "1s"}), "OK");
  EXPECT_EQ(R({"GET", "a"}), "\"new\"");
  EXPECT_EQ(R({"GET", "a", "GRACE", "0"}), "\"old\"");
  EXPECT_NE(R({"GETMETA", "a"}).find("\"new\""), std::string::npos);
}

TEST_F(KvServerTest, PutDefaultsTsToTheServerClock) {
  SetClock(1234);
  ASSERT_EQ(R({"PUT", "k", "v"}), "OK");
  EXPECT_EQ(R({"GETMETA", "k"}), "1) \"value\"\n2) \"v\"\n3) \"ts\"\n4) (integer) " + At(1234) +
                                     "\n5) \"ttl\"\n6) (integer) -1\n7) \"expire_at\"\n8) "
                                     "(integer) -1");
  // Negative timestamps (before 1970) are valid.
  ASSERT_EQ(R({"PUT", "n", "v", "TS", "-5"}), "OK");
  EXPECT_NE(R({"GETMETA", "n"}).find("(integer) -5"), std::string::npos);
}

TEST_F(KvServerTest, PutExpiryOptions) {
  SetClock(1000);
  ASSERT_EQ(R({"PUT", "a", "v", "EXAT", std::to_string((base_ + 5000) / 1000)}), "OK");
  EXPECT_EQ(R({"PTTL", "a"}),
            "(integer) " + std::to_string((base_ + 5000) / 1000 * 1000 - (base_ + 1000)));
  ASSERT_EQ(R({"PUT", "b", "v", "PXAT", At(4321)}), "OK");
  EXPECT_EQ(R({"PTTL", "b"}), "(integer) 3321");
  ASSERT_EQ(R({"PUT", "c", "v", "TTL", "2s", "TS", At(500)}), "OK");  // from TS, not now
  EXPECT_EQ(R({"PTTL", "c"}), "(integer) 1500");
  ASSERT_EQ(R({"PUT", "d", "v", "NOTTL"}), "OK");
  EXPECT_EQ(R({"PTTL", "d"}), "(integer) -1");
  ASSERT_EQ(R({"PUT", "e", "v", "TTL", "unlimited"}), "OK");
  EXPECT_EQ(R({"PTTL", "e"}), "(integer) -1");
  // A past absolute expiry writes an already expired version: it hides older ones.
  ASSERT_EQ(R({"PUT", "d", "gone", "PXAT", At(999)}), "OK");
  EXPECT_EQ(R({"GET", "d"}), "(nil)");
  // Options are case-insensitive and may come in any order.
  ASSERT_EQ(R({"put", "f", "v", "ttl", "1s", "ts", At(1000)}), "OK");
  EXPECT_EQ(R({"PTTL", "f"}), "(integer) 1000");
}

TEST_F(KvServerTest, PutErrors) {
  EXPECT_EQ(R({"PUT", "a"}), "(error) ERR wrong number of arguments for 'put' command");
  EXPECT_EQ(R({"PUT", "a", "v", "TTL", "1s", "NOTTL"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"PUT", "a", "v", "EXAT", "1", "PXAT", "1"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"PUT", "a", "v", "TTL"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"PUT", "a", "v", "TS"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"PUT", "a", "v", "BOGUS"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"PUT", "a", "v", "TS", "x"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"PUT", "a", "v", "TS", "9223372036854775808"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"PUT", "a", "v", "TTL", "5x"}), "(error) ERR invalid duration '5x'");
  EXPECT_EQ(R({"PUT", "a", "v", "TTL", "-5s"}), "(error) ERR invalid duration '-5s'");
  EXPECT_EQ(R({"PUT", "a", "v", "EXAT", "0"}), "(error) ERR invalid expire time in 'put' command");
  EXPECT_EQ(R({"PUT", "a", "v", "PXAT", "-1"}), "(error) ERR invalid expire time in 'put' command");
  EXPECT_EQ(R({"PUT", "a", "v", "EXAT", "9223372036854776"}),
            "(error) ERR invalid expire time in 'put' command");
  EXPECT_EQ(R({"PUT", "a", "v", "TS", "9223372036854775000", "TTL", "1s"}),
            "(error) ERR invalid expire time in 'put' command");
  EXPECT_EQ(R({"EXISTS", "a"}), "(integer) 0");
}

TEST_F(KvServerTest, GetAndGetMetaErrorsAndTypes) {
  EXPECT_EQ(R({"GET", "a", "GRACE"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"GET", "a", "b"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"GET", "a", "GRACE", "x"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"GETMETA"}), "(error) ERR wrong number of arguments for 'getmeta' command");
  EXPECT_EQ(R({"GETMETA", "missing"}), "(nil)");
  EXPECT_EQ(R({"DELETE", "a", "TS", "x"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"DELETE", "a", "NOPE"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"DELETE", "never-written"}), "OK");
  EXPECT_EQ(R({"TYPE", "a"}), "none");
  ASSERT_EQ(R({"PUT", "a", "v"}), "OK");
  EXPECT_EQ(R({"TYPE", "a"}), "string");
}

TEST_F(KvServerTest, DeleteDefaultsTsToTheClockAndHidesTheKey) {
  SetClock(100);
  ASSERT_EQ(R({"PUT", "a", "v", "TS", At(50)}), "OK");
  ASSERT_EQ(R({"DELETE", "a"}), "OK");  // at 100: newer than the value
  EXPECT_EQ(R({"GET", "a", "GRACE", kFullGrace}), "(nil)");
  EXPECT_EQ(R({"EXISTS", "a"}), "(integer) 0");
}

TEST_F(KvServerTest, RestartKeepsTimestampsAndExpiriesExactly) {
  SetClock(100);
  ASSERT_EQ(R({"PUT", "p", "v", "TS", At(90), "TTL", "1h"}), "OK");
  ASSERT_EQ(R({"SET", "s", "v", "PX", "5000"}), "OK");
  ASSERT_EQ(R({"PUT", "forever", "v", "TS", "-7"}), "OK");
  const std::string p = R({"GETMETA", "p"});
  const std::string s = R({"GETMETA", "s"});
  const std::string forever = R({"GETMETA", "forever"});
  Restart();
  EXPECT_EQ(R({"GETMETA", "p"}), p);
  EXPECT_EQ(R({"GETMETA", "s"}), s);
  EXPECT_EQ(R({"GETMETA", "forever"}), forever);
  SetClock(5099);
  EXPECT_EQ(R({"GET", "s"}), "\"v\"");
  SetClock(5100);
  EXPECT_EQ(R({"GET", "s"}), "(nil)");
}

TEST_F(KvServerTest, GetMetaIsAMapInResp3AndANullArrayInResp2) {
  SetClock(100);
  ASSERT_EQ(R({"PUT", "k", "v", "TS", At(100), "PXAT", At(600)}), "OK");
  RawConnection raw(server_.port());
  ASSERT_TRUE(raw.connected());
  ASSERT_TRUE(raw.Send("GETMETA nope\r\n"));
  EXPECT_EQ(raw.ReadExactly(5), "*-1\r\n");
  ASSERT_TRUE(raw.Send("HELLO 3\r\nPING\r\n"));
  ASSERT_NE(raw.ReadUntil("+PONG\r\n").find("+PONG\r\n"), std::string::npos);
  ASSERT_TRUE(raw.Send("GETMETA k\r\nGETMETA nope\r\n"));
  const std::string expected = "%4\r\n$5\r\nvalue\r\n$1\r\nv\r\n$2\r\nts\r\n:" + At(100) +
                               "\r\n$3\r\nttl\r\n:500\r\n$9\r\nexpire_at\r\n:" + At(600) +
                               "\r\n_\r\n";
  EXPECT_EQ(raw.ReadExactly(expected.size()), expected);
}

// Under wal-fsync always a write is durable once acknowledged: SIGKILL loses nothing.
TEST_F(KvServerTest, AcknowledgedWritesSurviveSigkillUnderWalFsyncAlways) {
  conn_.reset();
  ASSERT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Start({"--wal-fsync", "always"})) << server_.error();
  Reconnect();
  SetClock(100);
  ASSERT_EQ(R({"PUT", "p", "v", "TS", At(90), "TTL", "1h"}), "OK");
  ASSERT_EQ(R({"MSET", "m1", "1", "m2", "2"}), "OK");
  ASSERT_EQ(R({"INCRBY", "n", "41"}), "(integer) 41");
  ASSERT_EQ(R({"DELETE", "m2"}), "OK");
  const std::string meta = R({"GETMETA", "p"});
  conn_.reset();
  server_.Kill();
  ASSERT_TRUE(server_.Start({"--wal-fsync", "always"})) << server_.error();
  Reconnect();
  SetClock(100);
  EXPECT_EQ(R({"GETMETA", "p"}), meta);
  EXPECT_EQ(R({"MGET", "m1", "m2", "n"}), "1) \"1\"\n2) (nil)\n3) \"41\"");
}

}  // namespace
}  // namespace ebb::test
