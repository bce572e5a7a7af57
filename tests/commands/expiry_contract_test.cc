// The expiry and deletion contract through the command layer (docs/expiry.md), one test per
// defect it once had: a key exists exactly when a read at default-retrieval-grace returns it,
// whole-key deletes outrank every version, TLOG and TREG stay whole when out-of-order versions
// merge, FLUSHDB leaves nothing, SCAN takes any cursor, TTL rules reach every type. Time is
// pinned with DEBUG CLOCK; a restart is CommandRunner::Reopen.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"
#include "types/keyspace.h"

namespace ebb::test {
namespace {

const std::string kMaxGrace = "9223372036854775807";

// Each test starts its runner with its own options (ebb-server's command line).
class ExpiryContractTest : public CommandTest {
 protected:
  void SetUp() override {}
  void StartWith(std::vector<std::string> options = {}) {
    ebb_ = std::make_unique<CommandRunner>(std::move(options));
    PinClock(kPinnedNowMs);
  }
  // Closes the keyspace, opens it from its files, and pins the clock at kPinnedNowMs again.
  void Restart() {
    ebb_->Reopen();
    PinClock(kPinnedNowMs);
  }
  long long Info(const std::string& section, const std::string& field) {
    return InfoField(Cmd({"INFO", section}).str(), field);
  }
  // TLOG SIZE and the number of entries TLOG GET returns, "size/entries".
  std::string SizeAndEntries(const std::string& key) {
    const Reply entries = Cmd({"TLOG", "GET", key});
    return std::to_string(Cmd({"TLOG", "SIZE", key}).integer()) + "/" +
           std::to_string(entries.size());
  }
};

// Defect 1: a DELETE or PUT with a past TS is a version at that time. It hides a TLOG or TREG
// (whose versions carry the time of their last write) only from reads that do not reach them,
// and loses once versions merge: the key is back, whole — never a log whose size and entries
// disagree.
TEST_F(ExpiryContractTest, APastDeleteOrPutNeverLeavesACollectionInPieces) {
  StartWith();
  ASSERT_EQ(R({"TLOG", "INS", "j", "a", "1"}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "j", "b", "2"}), "OK");
  ASSERT_EQ(R({"DELETE", "j", "TS", "5"}), "OK");
  EXPECT_EQ(R({"EXISTS", "j"}), "(integer) 0");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"TYPE", "j"}), "tlog");
  EXPECT_EQ(SizeAndEntries("j"), "2/2");
  EXPECT_EQ(R({"TLOG", "CLR", "j"}), "OK");
  EXPECT_EQ(SizeAndEntries("j"), "0/0");

  ASSERT_EQ(R({"TLOG", "INS", "p", "a", "1"}), "OK");
  ASSERT_EQ(R({"PUT", "p", "x", "TS", "1"}), "OK");
  EXPECT_EQ(R({"TYPE", "p"}), "string");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"TYPE", "p"}), "tlog");
  EXPECT_EQ(SizeAndEntries("p"), "1/1");

  ASSERT_EQ(R({"TREG", "SET", "r", "v", "7"}), "OK");
  ASSERT_EQ(R({"DELETE", "r", "TS", "5"}), "OK");
  EXPECT_EQ(R({"TREG", "GET", "r"}), "(nil)");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"TREG", "GET", "r"}), "1) \"v\"\n2) (integer) 7");

  // DEL, and DELETE at the current time, remove them for good.
  ASSERT_EQ(R({"DEL", "j", "p"}), "(integer) 2");
  ASSERT_EQ(R({"DELETE", "r"}), "OK");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"EXISTS", "j", "p", "r"}), "(integer) 0");
  EXPECT_EQ(R({"TLOG", "SIZE", "j"}), "(integer) 0");
  EXPECT_EQ(R({"TREG", "GET", "r"}), "(nil)");
}

// Defect 2: every key command agrees with GET at default-retrieval-grace.
TEST_F(ExpiryContractTest, KeyCommandsSeeWhatGetSeesAtTheDefaultGrace) {
  StartWith();
  ASSERT_EQ(R({"CONFIG", "SET", "default-retrieval-grace", "1000"}), "OK");
  ASSERT_EQ(R({"PUT", "g1", "v", "TS", "200"}), "OK");
  ASSERT_EQ(R({"DELETE", "g1", "TS", "100"}), "OK");
  EXPECT_EQ(R({"GET", "g1"}), "\"v\"");
  EXPECT_EQ(R({"EXISTS", "g1"}), "(integer) 1");
  EXPECT_EQ(R({"TYPE", "g1"}), "string");
  EXPECT_EQ(R({"KEYS", "g*"}), "1) \"g1\"");
  EXPECT_EQ(R({"SCAN", "0"}), "1) \"0\"\n2) 1) \"g1\"");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 1");
  EXPECT_EQ(R({"RANDOMKEY"}), "\"g1\"");
  EXPECT_NE(R({"INFO", "keyspace"}).find("db0:keys=1,expires=0"), std::string::npos);
  EXPECT_EQ(R({"TTL", "g1"}), "(integer) -1");
  EXPECT_EQ(R({"EXPIRE", "g1", "100"}), "(integer) 1");
  EXPECT_EQ(R({"PTTL", "g1"}), "(integer) 100000");
  EXPECT_EQ(R({"PERSIST", "g1"}), "(integer) 1");
  EXPECT_EQ(R({"PTTL", "g1"}), "(integer) -1");
  EXPECT_EQ(R({"DEL", "g1"}), "(integer) 1");
  EXPECT_EQ(R({"GET", "g1"}), "(nil)");
  EXPECT_EQ(R({"EXISTS", "g1"}), "(integer) 0");

  ASSERT_EQ(R({"PUT", "g2", "v", "TS", "200"}), "OK");
  ASSERT_EQ(R({"DELETE", "g2", "TS", "100"}), "OK");
  EXPECT_EQ(R({"GETDEL", "g2"}), "\"v\"");
  EXPECT_EQ(R({"GETDEL", "g2"}), "(nil)");
  ASSERT_EQ(R({"PUT", "g3", "v", "TS", "200"}), "OK");
  ASSERT_EQ(R({"DELETE", "g3", "TS", "100"}), "OK");
  EXPECT_EQ(R({"UNLINK", "g3"}), "(integer) 1");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"GET", "g2", "GRACE", kMaxGrace}), "(nil)");
  EXPECT_EQ(R({"GET", "g3", "GRACE", kMaxGrace}), "(nil)");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
}

// Defect 3: DEL removes what a grace read could see, even when the default grace sees nothing.
TEST_F(ExpiryContractTest, DelOutranksEveryVersionWhateverItsTimestamp) {
  StartWith();
  ASSERT_EQ(R({"PUT", "d", "a", "TS", "200"}), "OK");
  ASSERT_EQ(R({"DELETE", "d", "TS", "100"}), "OK");
  EXPECT_EQ(R({"GET", "d", "GRACE", "1000"}), "\"a\"");
  EXPECT_EQ(R({"DEL", "d"}), "(integer) 0");  // absent at grace 0
  EXPECT_EQ(R({"GET", "d", "GRACE", "1000"}), "(nil)");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"GET", "d"}), "(nil)");
  EXPECT_EQ(R({"GET", "d", "GRACE", kMaxGrace}), "(nil)");
  // A write after DEL makes a new key, whatever its TS.
  ASSERT_EQ(R({"PUT", "d", "again", "TS", "1"}), "OK");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"GET", "d", "GRACE", kMaxGrace}), "\"again\"");
}

// Defect 4: FLUSHDB and FLUSHALL leave nothing any read could find, through compaction and
// restart; they are one durable record.
TEST_F(ExpiryContractTest, FlushDbLeavesNothingToComeBack) {
  StartWith();
  ASSERT_EQ(R({"PUT", "f1", "future", "TS", "32503680000000"}), "OK");
  ASSERT_EQ(R({"PUT", "f1", "now"}), "OK");
  ASSERT_EQ(R({"PUT", "f2", "a", "TS", "200"}), "OK");
  ASSERT_EQ(R({"DELETE", "f2", "TS", "100"}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "log", "e", "1"}), "OK");
  ASSERT_EQ(R({"DEBUG", "FLUSH-MEMTABLE"}), "OK");
  ASSERT_EQ(R({"SELECT", "1"}), "OK");
  ASSERT_EQ(R({"SET", "other", "v"}), "OK");
  ASSERT_EQ(R({"SELECT", "0"}), "OK");
  ASSERT_EQ(R({"FLUSHDB"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(R({"GET", "f1", "GRACE", kMaxGrace}), "(nil)");
  EXPECT_EQ(R({"GET", "f2", "GRACE", "1000"}), "(nil)");
  EXPECT_EQ(R({"TLOG", "GET", "log"}), "(empty array)");
  ASSERT_EQ(R({"DEBUG", "COMPACT"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  Restart();
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(R({"GET", "f1", "GRACE", kMaxGrace}), "(nil)");
  ASSERT_EQ(R({"SELECT", "1"}), "OK");
  EXPECT_EQ(R({"GET", "other"}), "\"v\"");
  ASSERT_EQ(R({"FLUSHALL"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(Info("storage", "range_deletions"), 1);
}

// Defect 6: an unlimited purge deadline purges nothing (expired rows stay hidden).
TEST_F(ExpiryContractTest, AnUnlimitedPurgeDeadlinePurgesNothing) {
  StartWith({"--expiry-purge-deadline", "unlimited", "--expiry-whole-file", "no"});
  EXPECT_EQ(R({"CONFIG", "GET", "expiry-purge-deadline"}),
            "1) \"expiry-purge-deadline\"\n2) \"unlimited\"");
  ASSERT_EQ(R({"PUT", "e", "v", "TTL", "1s"}), "OK");
  ASSERT_EQ(R({"PUT", "k", "v"}), "OK");
  ASSERT_EQ(R({"DEBUG", "FLUSH-MEMTABLE"}), "OK");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "1000000000"}), "OK");
  EXPECT_EQ(R({"GET", "e"}), "(nil)");
  // The background thread re-checks deadlines every second: give it two.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_EQ(Info("storage", "expired_rows_dropped"), 0);
  EXPECT_EQ(Info("storage", "compactions"), 0);
}

// Defect 7: SET KEEPTTL on a new key gets the TTL policy, as INCR and APPEND do.
TEST_F(ExpiryContractTest, SetKeepTtlOnANewKeyTakesThePolicy) {
  StartWith({"--default-ttl", "10s", "--ttl-rule", "s:*", "1m"});
  EXPECT_EQ(R({"SET", "nk", "v", "KEEPTTL"}), "OK");
  EXPECT_EQ(R({"PTTL", "nk"}), "(integer) 10000");
  EXPECT_EQ(R({"SET", "s:1", "v", "KEEPTTL"}), "OK");
  EXPECT_EQ(R({"PTTL", "s:1"}), "(integer) 60000");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "1000"}), "OK");
  EXPECT_EQ(R({"SET", "nk", "w", "KEEPTTL"}), "OK");  // an existing key keeps its own
  EXPECT_EQ(R({"PTTL", "nk"}), "(integer) 9000");
}

// Defect 8: SCAN cursors are integers every client holds (types/scan_cursor.h). Any number of
// iterations run side by side; after a restart a cursor that holds its key goes on and one the
// server kept is refused (ERR invalid cursor), never silently restarted.
TEST_F(ExpiryContractTest, ScanCursorsRunSideBySideAndAreRefusedWhenLost) {
  StartWith();
  std::set<std::string> all;
  for (int i = 0; i < 300; i++) {
    const std::string key = "key:" + std::to_string(i) + std::string(20, '.');
    ASSERT_EQ(R({"SET", key, "v"}), "OK");
    all.insert(key);
  }
  ASSERT_EQ(R({"SET", "a", "v"}), "OK");
  ASSERT_EQ(R({"SET", "b", "v"}), "OK");
  all.insert("a");
  all.insert("b");
  EXPECT_EQ(R({"SCAN", "12345"}), "(error) ERR invalid cursor");
  // 5000 scans started side by side, each then resumable.
  std::vector<std::string> cursors;
  std::set<std::string> seen;
  for (int i = 0; i < 5000; i++) {
    const Reply r = Cmd({"SCAN", "0", "COUNT", "7"});
    cursors.push_back(r[0].str());
    if (i == 0) {
      for (const Reply& k : r[1].elements()) seen.insert(k.str());
    }
  }
  EXPECT_EQ(Cmd({"SCAN", cursors[4999], "COUNT", "1000"})[1].size(), all.size() - 7);
  std::string cursor = cursors[0];
  for (int step = 0; step < 1000 && cursor != "0"; step++) {
    const Reply r = Cmd({"SCAN", cursor, "COUNT", "7"});
    ASSERT_TRUE(r.is_array()) << r.ToString();
    cursor = r[0].str();
    for (const Reply& k : r[1].elements()) seen.insert(k.str());
  }
  EXPECT_EQ(cursor, "0");
  EXPECT_EQ(seen, all);
  // "b" is next after "a": its cursor holds the key and survives a restart; the others do not.
  const std::string at_b = Cmd({"SCAN", "0", "COUNT", "1"})[0].str();
  Restart();
  EXPECT_EQ(R({"SCAN", cursors[0]}), "(error) ERR invalid cursor");
  EXPECT_EQ(R({"SCAN", cursors[4999]}), "(error) ERR invalid cursor");
  EXPECT_EQ(Cmd({"SCAN", at_b, "COUNT", "1"})[1][0].str(), "b");
}

// CONFIG SET reaches the engine a replica's full resynchronisation opens (Keyspace::ReopenEngine):
// with expiration switched off at run time, a key past its expiry stays readable afterwards; the
// purge deadline set at run time is the reopened engine's (INFO storage reads the engine's).
TEST_F(ExpiryContractTest, RuntimeExpirySettingsOutliveAnEngineReopen) {
  StartWith();
  ASSERT_EQ(R({"CONFIG", "SET", "expiration", "off"}), "OK");
  ASSERT_EQ(R({"CONFIG", "SET", "expiry-purge-deadline", "7s"}), "OK");
  ASSERT_EQ(R({"CONFIG", "SET", "expiry-whole-file", "no"}), "OK");
  ASSERT_EQ(R({"SET", "k", "v", "PX", "1000"}), "OK");
  Advance(2000);
  ASSERT_EQ(R({"GET", "k"}), "\"v\"");
  ASSERT_TRUE(ebb_->context().keyspace().ReopenEngine([] {}).ok());
  EXPECT_EQ(R({"GET", "k"}), "\"v\"");
  EXPECT_EQ(R({"CONFIG", "GET", "expiration"}), "1) \"expiration\"\n2) \"off\"");
  EXPECT_EQ(Info("storage", "expiry_purge_deadline_ms"), 7000);
  EXPECT_EQ(R({"CONFIG", "GET", "expiry-whole-file"}), "1) \"expiry-whole-file\"\n2) \"no\"");
  // Switched on again, the reopened engine expires the key as any other.
  ASSERT_EQ(R({"CONFIG", "SET", "expiration", "on"}), "OK");
  ASSERT_TRUE(ebb_->context().keyspace().ReopenEngine([] {}).ok());
  EXPECT_EQ(R({"GET", "k"}), "(nil)");
}

// Defect 9 and the policy options: the errors name what is accepted.
TEST_F(ExpiryContractTest, ExpiryOptionsAreCheckedAndWordedClearly) {
  StartWith();
  EXPECT_EQ(R({"CONFIG", "SET", "expiration", "maybe"}),
            "(error) ERR CONFIG SET failed (possibly related to argument 'expiration') - argument "
            "must be 'on' or 'off'");
  EXPECT_EQ(R({"CONFIG", "SET", "default-ttl", "0"}),
            "(error) ERR CONFIG SET failed (possibly related to argument 'default-ttl') - a TTL "
            "must be above 0 (use 'unlimited' for no expiry)");
  EXPECT_EQ(R({"CONFIG", "SET", "ttl-rule", "a:* 0"}),
            "(error) ERR CONFIG SET failed (possibly related to argument 'ttl-rule') - a TTL must "
            "be above 0 (use 'unlimited' for no expiry)");
  EXPECT_EQ(R({"CONFIG", "SET", "ttl-rule", "a:* 1h mode sometimes"}),
            "(error) ERR CONFIG SET failed (possibly related to argument 'ttl-rule') - ttl-rule "
            "mode must be 'per-item' or 'whole-file'");
  ASSERT_EQ(R({"CONFIG", "SET", "ttl-rule", "a:* 1h expiration off b:* 2m mode whole-file"}), "OK");
  EXPECT_EQ(R({"CONFIG", "GET", "ttl-rule"}),
            "1) \"ttl-rule\"\n2) \"a:* 1h expiration off b:* 2m mode whole-file\"");
}

// TTL policy on every type: a TREG expires ttl after each accepted SET; a TLOG created under a
// rule keeps each entry for the ttl after its own timestamp; a rule with expiration off gives
// none.
TEST_F(ExpiryContractTest, TtlRulesReachTregAndTlog) {
  StartWith({"--ttl-rule", "r:*", "10s", "--ttl-rule", "l:*", "1m", "--ttl-rule", "off:*", "1s",
             "expiration", "off", "--default-ttl", "1h"});
  ASSERT_EQ(R({"TREG", "SET", "r:1", "v", "1"}), "OK");
  EXPECT_EQ(R({"PTTL", "r:1"}), "(integer) 10000");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "5000"}), "OK");
  ASSERT_EQ(R({"TREG", "SET", "r:1", "w", "2"}), "OK");
  EXPECT_EQ(R({"PTTL", "r:1"}), "(integer) 10000");
  ASSERT_EQ(R({"SET", "off:1", "v"}), "OK");
  EXPECT_EQ(R({"PTTL", "off:1"}), "(integer) -1");  // the rule matched: no default-ttl either

  const int64_t now = kPinnedNowMs + 5000;
  auto at = [&](int64_t offset) { return std::to_string(now + offset); };
  ASSERT_EQ(R({"TLOG", "INS", "l:log", "old", at(-50'000)}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "l:log", "new", at(0)}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "l:log", "gone", at(-60'000)}), "OK");  // already out of the window
  EXPECT_EQ(R({"TLOG", "SIZE", "l:log"}), "(integer) 2");
  EXPECT_EQ(R({"TLOG", "CUTOFF", "l:log"}), "(integer) " + at(-60'000 + 1));
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "10001"}), "OK");  // "old" leaves the window
  EXPECT_EQ(R({"TLOG", "SIZE", "l:log"}), "(integer) 1");
  EXPECT_EQ(R({"TLOG", "GET", "l:log"}), "1) 1) \"new\"\n   2) (integer) " + at(0));
  EXPECT_EQ(R({"PTTL", "l:log"}), "(integer) 49999");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "50000"}), "OK");
  EXPECT_EQ(R({"EXISTS", "l:log"}), "(integer) 0");
}

}  // namespace
}  // namespace ebb::test
