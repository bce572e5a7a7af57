// EXPIRE and PERSIST of TLOG keys between active-active peers (docs/active-active.md, "Expiry
// changes"), against spawned ebb-servers whose links are cut with DEBUG PEER-LINK: the key's
// expiry register (T, expire_at or none) applies to every entry with ts <= T — the entries a node
// holds when it arrives and those that arrive later — and entries after T keep their own expiry.
// Every node converges to the same DEBUG DIGEST-LOGICAL and hides the covered entries at the
// same DEBUG CLOCK time; a later register brings back what an earlier one expired, except what a
// delete removed. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr int64_t kExpireAt = kPinnedNowMs + 1000;

// TLOG GET as (value, ts) pairs, newest first.
std::vector<std::pair<std::string, int64_t>> Entries(redisContext* c, const std::string& key) {
  std::vector<std::pair<std::string, int64_t>> out;
  const Reply reply = Cmd(c, {"TLOG", "GET", key});
  for (size_t i = 0; i < reply.size(); i++) {
    out.emplace_back(reply[i][0].str(), reply[i][1].integer());
  }
  return out;
}

// DUMP's payload from the log's cutoff to its entries: without the header, the metadata row's
// write time (which differs between keys) and the checksum (docs/dump-format.md).
std::string DumpedEntries(redisContext* c, const std::string& key) {
  constexpr size_t kHeader = 5 + 8;  // "EBB", format, type; the metadata row's timestamp
  const std::string dump = Cmd(c, {"DUMP", key}).str();
  return dump.size() > kHeader + 4 ? dump.substr(kHeader, dump.size() - kHeader - 4) : dump;
}

std::vector<std::pair<std::string, int64_t>> Pairs(
    std::initializer_list<std::pair<std::string, int64_t>> pairs) {
  return pairs;
}

class ActiveActiveTlogExpiryTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_, &n2_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  // Three linked nodes started with `extra` arguments, their clocks pinned at kPinnedNowMs.
  void StartMesh(const std::vector<std::string>& extra = {}) {
    auto args = [&](const std::vector<const TestServer*>& peers) {
      std::vector<std::string> a = PeerArgs(peers);
      a.insert(a.end(), extra.begin(), extra.end());
      return a;
    };
    ASSERT_TRUE(n0_.Start(args({&n1_, &n2_}))) << n0_.error();
    ASSERT_TRUE(n1_.Start(args({&n0_, &n2_}))) << n1_.error();
    ASSERT_TRUE(n2_.Start(args({&n0_, &n1_}))) << n2_.error();
    c_[0] = n0_.Connect();
    c_[1] = n1_.Connect();
    c_[2] = n2_.Connect();
    SetClock(kPinnedNowMs);
  }
  std::vector<redisContext*> All() { return {c_[0].get(), c_[1].get(), c_[2].get()}; }
  void SetClock(int64_t ms) {
    for (redisContext* c : All()) SetClockOf(c, ms);
  }
  static void SetClockOf(redisContext* c, int64_t ms) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(ms)}).str(), "OK");
  }
  void CutAll() {
    SetLink(c_[0].get(), n0_, c_[1].get(), n1_, false);
    SetLink(c_[0].get(), n0_, c_[2].get(), n2_, false);
    SetLink(c_[1].get(), n1_, c_[2].get(), n2_, false);
  }
  void HealAll() {
    SetLink(c_[0].get(), n0_, c_[1].get(), n1_, true);
    SetLink(c_[0].get(), n0_, c_[2].get(), n2_, true);
    SetLink(c_[1].get(), n1_, c_[2].get(), n2_, true);
    ASSERT_EQ(WaitConverged(All()), "");
  }
  static void Ins(redisContext* c, const std::string& key, const std::string& value, int64_t ts) {
    ASSERT_EQ(Cmd(c, {"TLOG", "INS", key, value, std::to_string(ts)}).str(), "OK");
  }
  // Polls until `c` answers `expected` to PEXPIRETIME key (bounded).
  static bool WaitExpireTime(redisContext* c, const std::string& key, int64_t expected) {
    for (int i = 0; i < 500; i++) {
      if (Cmd(c, {"PEXPIRETIME", key}).integer() == expected) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  TestServer n0_, n1_, n2_;
  RedisConnection c_[3];
};

// The brief's partition: EXPIRE of a log on n0; an older and a newer entry inserted on n1; a
// PERSIST of a second log on n2 after the EXPIRE reached it. After the heal every node holds the
// same logs; at the register's expiry the covered entries disappear on every node at the same
// clock time and the newer entry stays; a log holding only covered entries expires whole.
TEST_F(ActiveActiveTlogExpiryTest, RegisterCoversEntriesAtOrBeforeItWhereverTheyArrive) {
  ASSERT_NO_FATAL_FAILURE(StartMesh());
  for (const char* key : {"l", "p", "w"}) Ins(c_[0].get(), key, "base", kPinnedNowMs - 100);
  ASSERT_EQ(WaitConverged(All()), "");
  CutAll();
  redisContext* n0 = c_[0].get();
  redisContext* n1 = c_[1].get();
  redisContext* n2 = c_[2].get();
  // v's only entry comes from n1 to n0, not to n2: n2 gets n0's register for v before the log.
  Ins(n1, "v", "base", kPinnedNowMs - 100);
  SetLink(n0, n0_, n1, n1_, true);
  for (int i = 0; i < 500 && Cmd(n0, {"EXISTS", "v"}).integer() == 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  SetLink(n0, n0_, n1, n1_, false);
  for (const char* key : {"l", "p", "w", "v"}) {
    EXPECT_EQ(Cmd(n0, {"PEXPIREAT", key, std::to_string(kExpireAt)}).integer(), 1);
  }
  // On the origin the log expires whole, as EXPIRE does outside the mode.
  EXPECT_EQ(Cmd(n0, {"PTTL", "l"}).integer(), 1000);
  EXPECT_EQ(Cmd(n0, {"PEXPIRETIME", "l"}).integer(), kExpireAt);
  Ins(n1, "l", "older", kPinnedNowMs - 50);
  Ins(n1, "l", "newer", kPinnedNowMs + 50);
  Ins(n1, "p", "older", kPinnedNowMs - 50);
  Ins(n1, "w", "older", kPinnedNowMs - 50);
  // n2 receives n0's EXPIRE of p, then persists p.
  SetLink(n0, n0_, n2, n2_, true);
  ASSERT_TRUE(WaitExpireTime(n2, "p", kExpireAt));
  EXPECT_EQ(Cmd(n2, {"EXISTS", "v"}).integer(), 0);
  SetClockOf(n2, kPinnedNowMs + 10);
  EXPECT_EQ(Cmd(n2, {"PERSIST", "p"}).integer(), 1);
  EXPECT_EQ(Cmd(n2, {"PEXPIRETIME", "p"}).integer(), -1);
  SetClock(kPinnedNowMs + 10);
  HealAll();
  for (redisContext* c : All()) {
    EXPECT_EQ(Entries(c, "l"), Pairs({{"newer", kPinnedNowMs + 50},
                                      {"older", kPinnedNowMs - 50},
                                      {"base", kPinnedNowMs - 100}}));
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "l"}).integer(), -1);  // the newer entry never expires
    EXPECT_EQ(Entries(c, "p"), Pairs({{"older", kPinnedNowMs - 50}, {"base", kPinnedNowMs - 100}}));
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "p"}).integer(), -1);
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "w"}).integer(), kExpireAt);
    EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "w"}).integer(), 2);
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "v"}).integer(), kExpireAt);
  }
  SetClock(kExpireAt - 1);
  ASSERT_EQ(WaitConverged(All()), "");
  for (redisContext* c : All()) {
    EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "l"}).integer(), 3);
    EXPECT_EQ(Cmd(c, {"EXISTS", "w"}).integer(), 1);
  }
  SetClock(kExpireAt);
  ASSERT_EQ(WaitConverged(All()), "");
  Ins(n0, "ref", "newer", kPinnedNowMs + 50);  // what l shows now, for DUMP
  ASSERT_EQ(WaitConverged(All()), "");
  for (redisContext* c : All()) {
    EXPECT_EQ(Entries(c, "l"), Pairs({{"newer", kPinnedNowMs + 50}}));
    EXPECT_EQ(DumpedEntries(c, "l"), DumpedEntries(c, "ref"));
    EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "l"}).integer(), 1);
    EXPECT_EQ(Cmd(c, {"TLOG", "TRIM", "l", "2"}).str(), "OK");  // one entry: nothing to trim
    EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "p"}).integer(), 2);
    EXPECT_EQ(Cmd(c, {"EXISTS", "w", "v"}).integer(), 0);
    EXPECT_EQ(Cmd(c, {"PTTL", "w"}).integer(), -2);
  }
  // An older entry inserted after the expiry is covered at once, on every node.
  Ins(n2, "l", "late", kPinnedNowMs - 1);
  ASSERT_EQ(WaitConverged(All()), "");
  for (redisContext* c : All()) EXPECT_EQ(Entries(c, "l"), Pairs({{"newer", kPinnedNowMs + 50}}));
  // A new EXPIRE of what the client sees does not bring back what the first one hid there: the
  // hidden entries are cut with it, on every node.
  EXPECT_EQ(Cmd(n1, {"PEXPIRE", "l", "100000"}).integer(), 1);
  ASSERT_EQ(WaitConverged(All()), "");
  for (redisContext* c : All()) {
    EXPECT_EQ(Entries(c, "l"), Pairs({{"newer", kPinnedNowMs + 50}}));
    EXPECT_EQ(Cmd(c, {"TLOG", "CUTOFF", "l"}).integer(), kPinnedNowMs + 1);
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "l"}).integer(), kExpireAt + 100'000);
  }
}

// A log the register expired stays that log: a later PERSIST (from a node whose clock is behind)
// brings back every entry it covers, on a node that saw the log expire whole as on one still
// holding it live; a write reaching the expired log continues it with its cutoff, a write of
// another type loses to it. A DEL or a FLUSHDB after the expiry is not undone by that PERSIST.
TEST_F(ActiveActiveTlogExpiryTest, LaterRegisterRevivesWhatAnEarlierOneExpiredButNotADelete) {
  ASSERT_NO_FATAL_FAILURE(StartMesh());
  redisContext* n0 = c_[0].get();
  redisContext* n1 = c_[1].get();
  ASSERT_EQ(Cmd(n0, {"TLOG", "TRIMAT", "q", std::to_string(kPinnedNowMs - 200)}).str(), "OK");
  for (const char* key : {"q", "r", "d"}) Ins(n0, key, "a", kPinnedNowMs - 100);
  for (const char* key : {"q", "r", "d"}) {
    EXPECT_EQ(Cmd(n0, {"PEXPIREAT", key, std::to_string(kExpireAt)}).integer(), 1);
  }
  // f, in database 1, is flushed after its expiry.
  for (redisContext* c : {n0, n1}) ASSERT_EQ(Cmd(c, {"SELECT", "1"}).str(), "OK");
  Ins(n0, "f", "a", kPinnedNowMs - 100);
  EXPECT_EQ(Cmd(n0, {"PEXPIREAT", "f", std::to_string(kExpireAt)}).integer(), 1);
  for (redisContext* c : {n0, n1}) ASSERT_EQ(Cmd(c, {"SELECT", "0"}).str(), "OK");
  ASSERT_EQ(WaitConverged(All()), "");
  SetClock(kExpireAt);
  ASSERT_EQ(WaitConverged(All()), "");
  for (redisContext* c : All()) EXPECT_EQ(Cmd(c, {"EXISTS", "q", "r", "d"}).integer(), 0);
  CutAll();
  // n0: an entry covered by the register stays hidden; a newer one makes q live again, with the
  // cutoff it had. d is deleted there.
  Ins(n0, "q", "late", kPinnedNowMs - 20);
  EXPECT_EQ(Cmd(n0, {"EXISTS", "q"}).integer(), 0);
  Ins(n0, "q", "fresh", kPinnedNowMs + 2000);
  EXPECT_EQ(Entries(n0, "q"), Pairs({{"fresh", kPinnedNowMs + 2000}}));
  EXPECT_EQ(Cmd(n0, {"TLOG", "CUTOFF", "q"}).integer(), kPinnedNowMs - 200);
  // A log expired by its register still holds its key against other types, as on a node whose
  // clock is behind, where it is live.
  EXPECT_EQ(Cmd(n0, {"PUT", "r", "x"}).str().rfind("WRONGTYPE", 0), 0u);
  EXPECT_EQ(Cmd(n0, {"TREG", "SET", "r", "x", "1"}).str().rfind("WRONGTYPE", 0), 0u);
  EXPECT_EQ(Cmd(n0, {"DEL", "d"}).integer(), 0);
  ASSERT_EQ(Cmd(n0, {"SELECT", "1"}).str(), "OK");
  EXPECT_EQ(Cmd(n0, {"FLUSHDB"}).str(), "OK");
  ASSERT_EQ(Cmd(n0, {"SELECT", "0"}).str(), "OK");
  // n1, its clock behind the expiry, still sees the logs and persists them.
  SetClockOf(n1, kPinnedNowMs + 500);
  for (const char* key : {"q", "r", "d"}) EXPECT_EQ(Cmd(n1, {"PERSIST", key}).integer(), 1);
  ASSERT_EQ(Cmd(n1, {"SELECT", "1"}).str(), "OK");
  EXPECT_EQ(Cmd(n1, {"PERSIST", "f"}).integer(), 1);
  ASSERT_EQ(Cmd(n1, {"SELECT", "0"}).str(), "OK");
  SetClock(kPinnedNowMs + 3000);
  HealAll();
  for (redisContext* c : All()) {
    EXPECT_EQ(Entries(c, "q"), Pairs({{"fresh", kPinnedNowMs + 2000},
                                      {"late", kPinnedNowMs - 20},
                                      {"a", kPinnedNowMs - 100}}));
    EXPECT_EQ(Cmd(c, {"TLOG", "CUTOFF", "q"}).integer(), kPinnedNowMs - 200);
    EXPECT_EQ(Entries(c, "r"), Pairs({{"a", kPinnedNowMs - 100}}));
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "r"}).integer(), -1);
    EXPECT_EQ(Cmd(c, {"EXISTS", "d"}).integer(), 0);
  }
  for (redisContext* c : All()) {
    ASSERT_EQ(Cmd(c, {"SELECT", "1"}).str(), "OK");
    EXPECT_EQ(Cmd(c, {"EXISTS", "f"}).integer(), 0);
    ASSERT_EQ(Cmd(c, {"SELECT", "0"}).str(), "OK");
  }
}

// Redis 7's replies on the origin for a log: NX/XX/GT/LT against the log's current expiry, 1/0,
// PERSIST 1/0, TTL afterwards; the keyspace events `expire`, `persist`, and `del` for a time
// already passed.
TEST_F(ActiveActiveTlogExpiryTest, RepliesAndEventsAreRedisOnTheOrigin) {
  ASSERT_NO_FATAL_FAILURE(StartMesh());
  redisContext* n0 = c_[0].get();
  Ins(n0, "l", "v", kPinnedNowMs - 5);
  Ins(n0, "gone", "v", kPinnedNowMs - 5);
  ASSERT_EQ(Cmd(n0, {"CONFIG", "SET", "notify-keyspace-events", "KEA"}).str(), "OK");
  RawConnection listener(n0_.port());
  ASSERT_TRUE(listener.Send("PSUBSCRIBE __keyevent@0__:*\r\n"));
  listener.ReadUntil(":1\r\n");
  EXPECT_EQ(Cmd(n0, {"PERSIST", "l"}).integer(), 0);
  EXPECT_EQ(Cmd(n0, {"EXPIRE", "l", "100", "XX"}).integer(), 0);
  EXPECT_EQ(Cmd(n0, {"EXPIRE", "l", "100", "GT"}).integer(), 0);
  EXPECT_EQ(Cmd(n0, {"EXPIRE", "l", "100", "NX"}).integer(), 1);
  EXPECT_EQ(Cmd(n0, {"TTL", "l"}).integer(), 100);
  EXPECT_EQ(Cmd(n0, {"EXPIRE", "l", "200", "NX"}).integer(), 0);
  EXPECT_EQ(Cmd(n0, {"EXPIRE", "l", "200", "LT"}).integer(), 0);
  EXPECT_EQ(Cmd(n0, {"EXPIRE", "l", "50", "LT"}).integer(), 1);
  EXPECT_EQ(Cmd(n0, {"EXPIRETIME", "l"}).integer(), kPinnedNowMs / 1000 + 50);
  EXPECT_EQ(Cmd(n0, {"PERSIST", "l"}).integer(), 1);
  EXPECT_EQ(Cmd(n0, {"TTL", "l"}).integer(), -1);
  EXPECT_EQ(Cmd(n0, {"PEXPIREAT", "gone", "1"}).integer(), 1);
  EXPECT_EQ(Cmd(n0, {"EXISTS", "gone"}).integer(), 0);
  EXPECT_EQ(Cmd(n0, {"TTL", "gone"}).integer(), -2);
  EXPECT_EQ(Cmd(n0, {"EXPIRE", "absent", "10"}).integer(), 0);
  ASSERT_EQ(WaitConverged(All()), "");
  auto pmessage = [](std::string_view event, std::string_view key) {
    const std::string channel = "__keyevent@0__:" + std::string(event);
    return "*4\r\n$8\r\npmessage\r\n$16\r\n__keyevent@0__:*\r\n$" + std::to_string(channel.size()) +
           "\r\n" + channel + "\r\n$" + std::to_string(key.size()) + "\r\n" + std::string(key) +
           "\r\n";
  };
  const std::string expected = pmessage("expire", "l") + pmessage("expire", "l") +
                               pmessage("persist", "l") + pmessage("del", "gone");
  EXPECT_EQ(listener.ReadExactly(expected.size(), 10000), expected);
  EXPECT_EQ(listener.ReadExactly(1, 300), "");
  for (redisContext* c : All()) {
    EXPECT_EQ(Cmd(c, {"TTL", "l"}).integer(), -1);
    EXPECT_EQ(Cmd(c, {"EXISTS", "gone"}).integer(), 0);
  }
}

// A retention window keeps its say: a register never makes an entry outlive its window, and a
// PERSIST leaves each entry its window's expiry. TRIMAT and CLR after the register, made on
// another node during a partition, converge with it.
TEST_F(ActiveActiveTlogExpiryTest, RetentionWindowAndTrimsConvergeWithTheRegister) {
  ASSERT_NO_FATAL_FAILURE(StartMesh({"--ttl-rule", "win:*", "2s"}));
  redisContext* n0 = c_[0].get();
  redisContext* n1 = c_[1].get();
  // win:a — entries kPinnedNowMs-500 and kPinnedNowMs; EXPIRE at kPinnedNowMs+5000, after the
  // window (kPinnedNowMs+2000): the window still ends the log.
  Ins(n0, "win:a", "x", kPinnedNowMs - 500);
  Ins(n0, "win:a", "y", kPinnedNowMs);
  for (const char* key : {"t", "c"}) {
    Ins(n0, key, "a", kPinnedNowMs - 30);
    Ins(n0, key, "b", kPinnedNowMs - 20);
  }
  ASSERT_EQ(WaitConverged(All()), "");
  CutAll();
  EXPECT_EQ(Cmd(n0, {"PEXPIREAT", "win:a", std::to_string(kPinnedNowMs + 5000)}).integer(), 1);
  EXPECT_EQ(Cmd(n0, {"PEXPIRETIME", "win:a"}).integer(), kPinnedNowMs + 2000);
  for (const char* key : {"t", "c"}) {
    EXPECT_EQ(Cmd(n0, {"PEXPIREAT", key, std::to_string(kExpireAt)}).integer(), 1);
  }
  Ins(n1, "t", "n", kPinnedNowMs + 10);
  ASSERT_EQ(Cmd(n1, {"TLOG", "TRIMAT", "t", std::to_string(kPinnedNowMs - 20)}).str(), "OK");
  Ins(n1, "c", "n", kPinnedNowMs + 10);
  ASSERT_EQ(Cmd(n1, {"TLOG", "CLR", "c"}).str(), "OK");
  HealAll();
  for (redisContext* c : All()) {
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "win:a"}).integer(), kPinnedNowMs + 2000);
    EXPECT_EQ(Entries(c, "t"), Pairs({{"n", kPinnedNowMs + 10}, {"b", kPinnedNowMs - 20}}));
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "t"}).integer(), -1);
    EXPECT_EQ(Cmd(c, {"TLOG", "CUTOFF", "c"}).integer(), kPinnedNowMs + 11);
    EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "c"}).integer(), 0);
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "c"}).integer(), -1);
  }
  SetClock(kPinnedNowMs + 1600);  // x's window has passed; y's has not
  ASSERT_EQ(WaitConverged(All()), "");
  for (redisContext* c : All()) {
    EXPECT_EQ(Entries(c, "win:a"), Pairs({{"y", kPinnedNowMs}}));
    EXPECT_EQ(Entries(c, "t"), Pairs({{"n", kPinnedNowMs + 10}}));
  }
  // A PERSIST leaves each entry its window: y goes at kPinnedNowMs + 2000 whatever the register.
  EXPECT_EQ(Cmd(n1, {"PERSIST", "win:a"}).integer(), 1);
  ASSERT_EQ(WaitConverged(All()), "");
  SetClock(kPinnedNowMs + 2000);
  ASSERT_EQ(WaitConverged(All()), "");
  for (redisContext* c : All()) EXPECT_EQ(Cmd(c, {"EXISTS", "win:a"}).integer(), 0);
}

}  // namespace
}  // namespace ebb::test
