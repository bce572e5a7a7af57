// The purge deadline in the active-active origin log (docs/active-active.md, "The origin log"),
// against spawned ebb-servers with pinned clocks: once a logged put's value has expired by the
// retention of dead versions (half of expiry-purge-deadline), its log row and the log's copy in
// memory hold the reduced delta `put-expired` instead, so after the deadline the value's bytes
// are in no file of the origin's data directory (the background work alone removes them; a
// DEBUG COMPACT after it too); a peer cut off meanwhile receives the reduced delta from the
// stream (no snapshot) and ends with the same DEBUG DIGEST-LOGICAL as the peer that applied the
// whole put; and the peers that applied the whole put still find it in the log by its digest,
// across a restart of the origin (no new incarnation). A put a later PERSIST covers stays whole.
// The same for the other values the log carries: a TREG pair an EXPIRE expired (`treg
// set-expired`), a TLOG entry its retention window passed (`tlog ins-expired`), a NOTTL put a
// later EXPIRE expired, a put a PERSIST kept that a later EXPIRE expired (`put-expired`), an
// entry of a log an EXPIRE expired whole; a peer's EXPIRE reaches the rows it covers, also
// across a restart of the origin.
// Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using std::chrono::milliseconds;

constexpr int64_t kTtl = 1000;
constexpr int64_t kDeadline = 2000;  // expiry-purge-deadline 2s: the log reduces at 1 s after
// Values with no four bytes in common, so that neither compresses against the other.
const std::string kSecret = "Qz8vK2mX7pLw4nR9tB1yH6cJ0dF5gS3a";
const std::string kKept = "uE7iO2oP9lA4sD8fG1hJ6kL3zX5cV0bN";

void Pin(redisContext* c, int64_t ms) {
  ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(ms)}).ToString(), "OK");
}

// The name of the delta node `origin` logged for `key` (the last one), as its stream sends it:
// the command, and for TLOG and TREG its subcommand too ("treg set-expired").
std::string LoggedForm(const TestServer& origin, const std::string& key) {
  std::string name;
  for (const LoggedDelta& delta : ReadOriginLog(origin)) {
    const bool sub = delta.args.size() > 2 && (delta.args[0] == "tlog" || delta.args[0] == "treg");
    const size_t key_at = sub ? 2 : 1;
    if (delta.args.size() > key_at && delta.args[key_at] == key) {
      name = sub ? delta.args[0] + " " + delta.args[1] : delta.args[0];
    }
  }
  return name;
}

// Polls (50 ms, at most 5 s) until `origin` logged `form` last for `key`; the form seen last.
std::string WaitLoggedForm(const TestServer& origin, const std::string& key,
                           const std::string& form) {
  std::string seen;
  for (int i = 0; i < 100 && (seen = LoggedForm(origin, key)) != form; i++) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  return seen;
}

// Compacts `node` until `server`'s data directory holds `bytes` in no file (at most 50 tries,
// 100 ms apart: the background purge may still be under way); whether they went.
bool CompactUntilGone(redisContext* node, const TestServer& server, const std::string& bytes) {
  for (int i = 0; i < 50; i++) {
    if (Cmd(node, {"DEBUG", "COMPACT"}).ToString() != "OK") return false;
    if (!DirContains(server.data_dir(), bytes)) return true;
    std::this_thread::sleep_for(milliseconds(100));
  }
  return false;
}

class ActiveActiveLogExpiryTest : public ::testing::Test {
 protected:
  std::vector<std::string> Args(int i, const std::vector<std::string>& extra = {}) {
    std::vector<const TestServer*> others;
    for (int j = 0; j < 3; j++) {
      if (j != i) others.push_back(&nodes_[j]);
    }
    std::vector<std::string> args = PeerArgs(others);
    args.insert(args.end(), {"--expiry-purge-deadline", std::to_string(kDeadline / 1000) + "s"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // One delta form reduced once its value expired, the test's way: three nodes at clock
  // kPinnedNowMs; c cut off from a while `write` runs on a (b applies every delta whole before the
  // expiry); `key`'s delta is logged as `whole`. Past the expiry and the deadline, a's log holds
  // `reduced` for it, the value `secret` leaves every file of a's data directory (and b's) by DEBUG
  // COMPACT, `kept`'s form stays whole and its value on disk; c, healed, gets the reduced delta
  // from the stream (no snapshot) and reaches the same DEBUG DIGEST-LOGICAL, and a string SET of
  // `key` on c answers as on b (the key's type floor came with the reduced form).
  void ExpectReducedInTheLog(const std::vector<std::string>& extra,
                             const std::vector<std::vector<std::string>>& writes,
                             const std::string& key, const std::string& whole,
                             const std::string& reduced, const std::string& kept,
                             const std::string& kept_form) {
    TestServer& a = nodes_[0];
    TestServer& b = nodes_[1];
    TestServer& c = nodes_[2];
    for (int i = 0; i < 3; i++) ASSERT_TRUE(nodes_[i].Start(Args(i, extra))) << nodes_[i].error();
    auto ca = a.Connect();
    auto cb = b.Connect();
    auto cc = c.Connect();
    for (redisContext* node : {ca.get(), cb.get(), cc.get()}) Pin(node, kPinnedNowMs);
    ASSERT_EQ(Cmd(ca.get(), {"SET", "warm", "1"}).str(), "OK");
    ASSERT_EQ(WaitConverged({ca.get(), cb.get(), cc.get()}), "");

    SetLink(ca.get(), a, cc.get(), c, false);
    for (const std::vector<std::string>& write : writes) {
      const Reply r = Cmd(ca.get(), write);
      ASSERT_FALSE(r.is_error()) << write[0] << ": " << r.ToString();
    }
    ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
    EXPECT_EQ(LoggedForm(a, key), whole);
    // Compacted while the values live: an EXPIRE rewrites the version it covers at the same
    // timestamp, and the rewritten version no longer lies over the one it replaced.
    for (redisContext* node : {ca.get(), cb.get()}) {
      ASSERT_EQ(Cmd(node, {"DEBUG", "COMPACT"}).ToString(), "OK");
    }

    for (redisContext* node : {ca.get(), cb.get(), cc.get()})
      Pin(node, kPinnedNowMs + kTtl + kDeadline + 1);
    ASSERT_EQ(WaitLoggedForm(a, key, reduced), reduced);
    EXPECT_EQ(LoggedForm(a, kept), kept_form);
    EXPECT_TRUE(CompactUntilGone(ca.get(), a, kSecret));
    EXPECT_TRUE(CompactUntilGone(cb.get(), b, kSecret));
    EXPECT_TRUE(DirContains(a.data_dir(), kKept));

    SetLink(ca.get(), a, cc.get(), c, true);
    ASSERT_EQ(WaitConverged({ca.get(), cb.get(), cc.get()}), "");
    EXPECT_EQ(InfoField(ca.get(), "peers", "snapshots_sent"), 0);
    const std::string on_b = Cmd(cb.get(), {"SET", key, "s"}).ToString();
    EXPECT_EQ(Cmd(cc.get(), {"SET", key, "s"}).ToString(), on_b);
    ASSERT_EQ(WaitConverged({ca.get(), cb.get(), cc.get()}), "");
  }

  TestServer nodes_[3];
};

TEST_F(ActiveActiveLogExpiryTest, AnExpiredValueLeavesTheLogAndALatePeerEndsEqual) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  TestServer& c = nodes_[2];
  for (int i = 0; i < 3; i++) ASSERT_TRUE(nodes_[i].Start(Args(i))) << nodes_[i].error();
  auto ca = a.Connect();
  auto cb = b.Connect();
  auto cc = c.Connect();
  for (redisContext* node : {ca.get(), cb.get(), cc.get()}) Pin(node, kPinnedNowMs);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "warm", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get(), cc.get()}), "");

  // c is cut off from a; b applies a's puts whole before they expire. The expiring put is a's
  // last delta, so b's vector names it by its digest.
  SetLink(ca.get(), a, cc.get(), c, false);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "kept", kKept, "PX", "100000000"}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"SET", "secret", kSecret, "PX", std::to_string(kTtl)}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  EXPECT_EQ(Cmd(cb.get(), {"GET", "secret"}).str(), kSecret);
  EXPECT_EQ(LoggedForm(a, "secret"), "put");
  const std::string id = Cmd(ca.get(), {"PEER", "ID"}).str();

  // Past the expiry and the deadline: the log's row is reduced (bounded poll), then compaction
  // leaves the value's bytes in no file, while the live value stays.
  for (redisContext* node : {ca.get(), cb.get(), cc.get()})
    Pin(node, kPinnedNowMs + kTtl + kDeadline + 1);
  std::string form;
  for (int i = 0; i < 100 && (form = LoggedForm(a, "secret")) != "put-expired"; i++) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  ASSERT_EQ(form, "put-expired");
  EXPECT_EQ(LoggedForm(a, "kept"), "put");
  // The background work alone takes the bytes away (a bounded wait, as tests/integration/
  // purge_test.cc's); DEBUG COMPACT after it changes nothing of that.
  bool gone = false;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!(gone = !DirContains(a.data_dir(), kSecret)) &&
         std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_TRUE(gone);
  for (redisContext* node : {ca.get(), cb.get()}) {
    ASSERT_EQ(Cmd(node, {"DEBUG", "COMPACT"}).ToString(), "OK");
  }
  EXPECT_FALSE(DirContains(a.data_dir(), kSecret));
  EXPECT_FALSE(DirContains(b.data_dir(), kSecret));
  EXPECT_TRUE(DirContains(a.data_dir(), kKept));

  // c gets the reduced delta from the stream and ends as b, which applied the whole put.
  SetLink(ca.get(), a, cc.get(), c, true);
  ASSERT_EQ(WaitConverged({ca.get(), cb.get(), cc.get()}), "");
  EXPECT_EQ(Cmd(cc.get(), {"GET", "kept"}).str(), kKept);
  EXPECT_TRUE(Cmd(cc.get(), {"GET", "secret"}).is_nil());
  EXPECT_EQ(InfoField(ca.get(), "peers", "snapshots_sent"), 0);

  // a restarts: its log row holds the reduced delta and the digest of the whole one, so b, whose
  // vector names the whole put, resumes the stream; a keeps its id.
  ASSERT_TRUE(a.Restart()) << a.error();
  ca = a.Connect();
  Pin(ca.get(), kPinnedNowMs + kTtl + kDeadline + 1);
  EXPECT_EQ(LoggedForm(a, "secret"), "put-expired");
  ASSERT_EQ(Cmd(ca.get(), {"SET", "after", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get(), cc.get()}), "");
  EXPECT_EQ(Cmd(ca.get(), {"PEER", "ID"}).str(), id);
  EXPECT_EQ(Cmd(cb.get(), {"GET", "after"}).str(), "1");
  EXPECT_EQ(InfoField(ca.get(), "peers", "snapshots_sent"), 0);
  EXPECT_FALSE(DirContains(a.data_dir(), kSecret));
}

// A PERSIST after the put covers it: its value never expires, so the log keeps the put whole
// while a put beside it is reduced, and a peer cut off meanwhile ends with the value.
TEST_F(ActiveActiveLogExpiryTest, APersistedValueStaysWholeInTheLog) {
  TestServer& a = nodes_[0];
  TestServer& c = nodes_[2];
  for (int i : {0, 2}) ASSERT_TRUE(nodes_[i].Start(Args(i))) << nodes_[i].error();
  auto ca = a.Connect();
  auto cc = c.Connect();
  for (redisContext* node : {ca.get(), cc.get()}) Pin(node, kPinnedNowMs);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "warm", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cc.get()}), "");

  SetLink(ca.get(), a, cc.get(), c, false);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "kept", kKept, "PX", std::to_string(kTtl)}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"PERSIST", "kept"}).integer(), 1);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "secret", kSecret, "PX", std::to_string(kTtl)}).str(), "OK");
  for (redisContext* node : {ca.get(), cc.get()}) Pin(node, kPinnedNowMs + kTtl + kDeadline + 1);
  // Both puts are due in the same pass: once one is reduced, the other was judged.
  std::string form;
  for (int i = 0; i < 100 && (form = LoggedForm(a, "secret")) != "put-expired"; i++) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  ASSERT_EQ(form, "put-expired");
  EXPECT_EQ(LoggedForm(a, "kept"), "put");

  SetLink(ca.get(), a, cc.get(), c, true);
  ASSERT_EQ(WaitConverged({ca.get(), cc.get()}), "");
  EXPECT_EQ(Cmd(cc.get(), {"GET", "kept"}).str(), kKept);
  EXPECT_EQ(Cmd(cc.get(), {"TTL", "kept"}).integer(), -1);
  EXPECT_TRUE(Cmd(cc.get(), {"GET", "secret"}).is_nil());
}

// A TREG pair an EXPIRE expired: its `treg set` row becomes `treg set-expired`.
TEST_F(ActiveActiveLogExpiryTest, ATregPairAnExpireExpiredLeavesTheLog) {
  const std::string ts = std::to_string(kPinnedNowMs);
  ExpectReducedInTheLog({},
                        {{"TREG", "SET", "kept", kKept, ts},
                         {"TREG", "SET", "reg", kSecret, ts},
                         {"PEXPIRE", "reg", std::to_string(kTtl)}},
                        "reg", "treg set", "treg set-expired", "kept", "treg set");
}

// A TLOG entry its log's retention window passed: its `tlog ins` row becomes `tlog ins-expired`,
// while a newer entry of the same log stays whole.
TEST_F(ActiveActiveLogExpiryTest, ATlogEntryOutsideItsWindowLeavesTheLog) {
  ExpectReducedInTheLog(
      {"--ttl-rule", "w*", std::to_string(kTtl) + "ms"},
      {{"TLOG", "INS", "wlog", kSecret, std::to_string(kPinnedNowMs)},
       {"TLOG", "INS", "wkept", kKept, std::to_string(kPinnedNowMs + 100'000'000)}},
      "wlog", "tlog ins", "tlog ins-expired", "wkept", "tlog ins");
}

// A `PUT ... NOTTL` a later EXPIRE expired: its row becomes `put-expired`.
TEST_F(ActiveActiveLogExpiryTest, ANoTtlPutALaterExpireExpiredLeavesTheLog) {
  ExpectReducedInTheLog({},
                        {{"PUT", "kept", kKept, "NOTTL"},
                         {"PUT", "str", kSecret, "NOTTL"},
                         {"PEXPIRE", "str", std::to_string(kTtl)}},
                        "str", "put", "put-expired", "kept", "put");
}

// A put made at or before the key's expiry register takes the register's expiry on its origin
// (its NOTTL rewritten to the register's PXAT), and the log notes that expiry: its row becomes
// `put-expired` too.
TEST_F(ActiveActiveLogExpiryTest, APutTheRegisterCoversLeavesTheLogByTheRegistersExpiry) {
  ExpectReducedInTheLog({},
                        {{"PUT", "kept", kKept, "NOTTL"},
                         {"PUT", "str", "old", "TS", std::to_string(kPinnedNowMs - 10), "NOTTL"},
                         {"PEXPIRE", "str", std::to_string(kTtl)},
                         {"PUT", "str", kSecret, "TS", std::to_string(kPinnedNowMs - 5), "NOTTL"}},
                        "str", "put", "put-expired", "kept", "put");
}

// A put a PERSIST kept past its own expiry (a pass judged it then: never) and a later EXPIRE
// expired: its row is judged again once the register changes, and becomes `put-expired`.
TEST_F(ActiveActiveLogExpiryTest, APersistedPutALaterExpireExpiredLeavesTheLog) {
  TestServer& a = nodes_[0];
  TestServer& c = nodes_[2];
  for (int i : {0, 2}) ASSERT_TRUE(nodes_[i].Start(Args(i))) << nodes_[i].error();
  auto ca = a.Connect();
  auto cc = c.Connect();
  for (redisContext* node : {ca.get(), cc.get()}) Pin(node, kPinnedNowMs);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "warm", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cc.get()}), "");

  SetLink(ca.get(), a, cc.get(), c, false);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "str", kSecret, "PX", std::to_string(kTtl)}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"PERSIST", "str"}).integer(), 1);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "other", "o", "PX", std::to_string(kTtl)}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"SET", "kept", kKept}).str(), "OK");
  int64_t now = kPinnedNowMs + kTtl + kDeadline + 1;
  for (redisContext* node : {ca.get(), cc.get()}) Pin(node, now);
  // Both puts are due in the same pass: once `other` is reduced, `str` was judged and kept.
  ASSERT_EQ(WaitLoggedForm(a, "other", "put-expired"), "put-expired");
  EXPECT_EQ(LoggedForm(a, "str"), "put");

  ASSERT_EQ(Cmd(ca.get(), {"PEXPIRE", "str", std::to_string(kTtl)}).integer(), 1);
  // Compacted while the value lives (see ExpectReducedInTheLog).
  ASSERT_EQ(Cmd(ca.get(), {"DEBUG", "COMPACT"}).ToString(), "OK");
  now += kTtl + kDeadline + 1;
  for (redisContext* node : {ca.get(), cc.get()}) Pin(node, now);
  ASSERT_EQ(WaitLoggedForm(a, "str", "put-expired"), "put-expired");
  EXPECT_EQ(LoggedForm(a, "kept"), "put");
  EXPECT_TRUE(CompactUntilGone(ca.get(), a, kSecret));
  EXPECT_TRUE(DirContains(a.data_dir(), kKept));

  SetLink(ca.get(), a, cc.get(), c, true);
  ASSERT_EQ(WaitConverged({ca.get(), cc.get()}), "");
  EXPECT_EQ(InfoField(ca.get(), "peers", "snapshots_sent"), 0);
  EXPECT_TRUE(Cmd(cc.get(), {"GET", "str"}).is_nil());
  EXPECT_EQ(Cmd(cc.get(), {"GET", "kept"}).str(), kKept);
}

// A TLOG an EXPIRE expired whole (it holds nothing after the register's T): its entry's row
// becomes `tlog ins-expired`, while a log with no expiry keeps its row whole.
TEST_F(ActiveActiveLogExpiryTest, AnEntryOfALogAnExpireExpiredWholeLeavesTheLog) {
  ExpectReducedInTheLog({},
                        {{"TLOG", "INS", "kept", kKept, std::to_string(kPinnedNowMs)},
                         {"TLOG", "INS", "log", kSecret, std::to_string(kPinnedNowMs)},
                         {"PEXPIRE", "log", std::to_string(kTtl)}},
                        "log", "tlog ins", "tlog ins-expired", "kept", "tlog ins");
}

// A peer's EXPIRE covers this node's NOTTL put: applying the register has the next pass judge
// the put's row, which then becomes `put-expired`.
TEST_F(ActiveActiveLogExpiryTest, APeersRegisterReachesTheRowsItCovers) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  for (int i : {0, 1}) ASSERT_TRUE(nodes_[i].Start(Args(i))) << nodes_[i].error();
  auto ca = a.Connect();
  auto cb = b.Connect();
  for (redisContext* node : {ca.get(), cb.get()}) Pin(node, kPinnedNowMs);
  ASSERT_EQ(Cmd(ca.get(), {"PUT", "str", kSecret, "NOTTL"}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"PUT", "kept", kKept, "NOTTL"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  ASSERT_EQ(Cmd(cb.get(), {"PEXPIRE", "str", std::to_string(kTtl)}).integer(), 1);
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  for (redisContext* node : {ca.get(), cb.get()}) Pin(node, kPinnedNowMs + kTtl + kDeadline + 1);
  ASSERT_EQ(WaitLoggedForm(a, "str", "put-expired"), "put-expired");
  EXPECT_EQ(LoggedForm(a, "kept"), "put");
}

// A peer's EXPIRE reaches every row of its key, however many writes of other keys lie between
// them: the three versions of `str` all become `put-expired`, the rows of `kept` stay whole.
TEST_F(ActiveActiveLogExpiryTest, APeersRegisterReachesEveryRowOfItsKey) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  for (int i : {0, 1}) ASSERT_TRUE(nodes_[i].Start(Args(i))) << nodes_[i].error();
  auto ca = a.Connect();
  auto cb = b.Connect();
  for (redisContext* node : {ca.get(), cb.get()}) Pin(node, kPinnedNowMs);
  for (int i = 0; i < 3; i++) {
    const std::string ts = std::to_string(kPinnedNowMs - 30 + 10 * i);
    ASSERT_EQ(Cmd(ca.get(), {"PUT", "str", kSecret + std::to_string(i), "TS", ts, "NOTTL"}).str(),
              "OK");
    ASSERT_EQ(Cmd(ca.get(), {"PUT", "kept", kKept + std::to_string(i), "TS", ts, "NOTTL"}).str(),
              "OK");
  }
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  ASSERT_EQ(Cmd(cb.get(), {"PEXPIRE", "str", std::to_string(kTtl)}).integer(), 1);
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  for (redisContext* node : {ca.get(), cb.get()}) Pin(node, kPinnedNowMs + kTtl + kDeadline + 1);
  ASSERT_EQ(WaitLoggedForm(a, "str", "put-expired"), "put-expired");
  // The pass rewrites the rows it judges in one engine write: once the newest is reduced, every
  // row of the key is.
  std::map<std::string, std::vector<std::string>> forms;
  for (const LoggedDelta& delta : ReadOriginLog(a)) {
    if (delta.args.size() > 1) forms[delta.args[1]].push_back(delta.args[0]);
  }
  EXPECT_EQ(forms["str"], std::vector<std::string>(3, "put-expired"));
  EXPECT_EQ(forms["kept"], std::vector<std::string>(3, "put"));
}

// The origin restarted after a peer's EXPIRE covered its NOTTL put and before the pass that
// reduces it: the row, which has no expiry of its own and whose register is in no row of its
// log, is judged again after the restart.
TEST_F(ActiveActiveLogExpiryTest, ARowAPeersRegisterCoveredBeforeARestartLeavesTheLog) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  for (int i : {0, 1}) ASSERT_TRUE(nodes_[i].Start(Args(i))) << nodes_[i].error();
  auto ca = a.Connect();
  auto cb = b.Connect();
  for (redisContext* node : {ca.get(), cb.get()}) Pin(node, kPinnedNowMs);
  ASSERT_EQ(Cmd(ca.get(), {"PUT", "str", kSecret, "NOTTL"}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"PUT", "kept", kKept, "NOTTL"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  ASSERT_EQ(Cmd(cb.get(), {"PEXPIRE", "str", std::to_string(kTtl)}).integer(), 1);
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  ASSERT_TRUE(a.Restart()) << a.error();
  ca = a.Connect();
  Pin(ca.get(), kPinnedNowMs + kTtl + kDeadline + 1);
  ASSERT_EQ(WaitLoggedForm(a, "str", "put-expired"), "put-expired");
  EXPECT_EQ(LoggedForm(a, "kept"), "put");
}

// A counter's base, set by SET with a TTL and incremented after, leaves the counter's state row
// (and every other file) of both nodes by the deadline, by the background work alone; a base a
// PERSIST covers stays whole and the counter keeps its value.
TEST_F(ActiveActiveLogExpiryTest, AnExpiredCounterBaseLeavesTheStateRow) {
  const std::string secret = "7305912846153027", kept = "4192837465019283";
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  for (int i : {0, 1}) ASSERT_TRUE(nodes_[i].Start(Args(i))) << nodes_[i].error();
  auto ca = a.Connect();
  auto cb = b.Connect();
  for (redisContext* node : {ca.get(), cb.get()}) Pin(node, kPinnedNowMs);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "ctr", secret, "PX", std::to_string(kTtl)}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"INCRBY", "ctr", "5"}).integer(), std::stoll(secret) + 5);
  ASSERT_EQ(Cmd(ca.get(), {"SET", "persisted", kept, "PX", std::to_string(kTtl)}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"INCR", "persisted"}).integer(), std::stoll(kept) + 1);
  ASSERT_EQ(Cmd(ca.get(), {"PERSIST", "persisted"}).integer(), 1);
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  ASSERT_TRUE(DirContains(a.data_dir(), secret));

  for (redisContext* node : {ca.get(), cb.get()}) Pin(node, kPinnedNowMs + kTtl + kDeadline + 1);
  bool gone = false;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!(gone = !DirContains(a.data_dir(), secret) && !DirContains(b.data_dir(), secret)) &&
         std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_TRUE(gone);
  for (redisContext* node : {ca.get(), cb.get()}) {
    ASSERT_EQ(Cmd(node, {"DEBUG", "COMPACT"}).ToString(), "OK");
    EXPECT_TRUE(Cmd(node, {"GET", "ctr"}).is_nil());
    EXPECT_EQ(Cmd(node, {"GET", "persisted"}).str(), std::to_string(std::stoll(kept) + 1));
  }
  EXPECT_FALSE(DirContains(a.data_dir(), secret));
  EXPECT_FALSE(DirContains(b.data_dir(), secret));
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  // The persisted counter's state still holds its base (an increment counts from it); a counter
  // begun after the expiry starts from 0. The peer agrees on both.
  EXPECT_EQ(Cmd(ca.get(), {"INCR", "persisted"}).integer(), std::stoll(kept) + 2);
  EXPECT_EQ(Cmd(cb.get(), {"INCR", "ctr"}).integer(), 1);
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
}

}  // namespace
}  // namespace ebb::test
