// RENAME, RENAMENX, COPY and MOVE through the command layer, as Redis 7 answers them
// (tests/unit/keyspace.tcl): replies and errors, the expiry carried along, every type moved whole
// (a TLOG with its entries and cutoff, a TREG with its timestamp, a PUT key with every version a
// grace can read), keyspace events, WATCH, transactions and restarts.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class RenameTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
  }
};

TEST_F(RenameTest, RenameMovesTheValueAndItsTtl) {
  ASSERT_EQ(Do({"SET", "mykey", "hello", "PX", "5000"}), "+OK");
  EXPECT_EQ(Do({"RENAME", "mykey", "newkey"}), "+OK");
  EXPECT_EQ(Do({"GET", "mykey"}), "nil");
  EXPECT_EQ(Do({"EXISTS", "mykey"}), ":0");
  EXPECT_EQ(Do({"GET", "newkey"}), "$hello");
  EXPECT_EQ(Do({"PTTL", "newkey"}), ":5000");
  // A persistent key stays persistent; an existing target of any type is replaced, TTL too.
  ASSERT_EQ(Do({"SET", "a", "1"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "b", "x", "7"}), "+OK");
  ASSERT_EQ(Do({"EXPIRE", "b", "100"}), ":1");
  EXPECT_EQ(Do({"RENAME", "a", "b"}), "+OK");
  EXPECT_EQ(Do({"TYPE", "b"}), "+string");
  EXPECT_EQ(Do({"GET", "b"}), "$1");
  EXPECT_EQ(Do({"TTL", "b"}), ":-1");
  EXPECT_EQ(Do({"OBJECT", "ENCODING", "b"}), "$int");
}

TEST_F(RenameTest, RenameErrors) {
  EXPECT_EQ(R({"RENAME", "nokey", "foobar"}), "(error) ERR no such key");
  EXPECT_EQ(R({"RENAMENX", "nokey", "foobar"}), "(error) ERR no such key");
  EXPECT_EQ(R({"RENAME", "nokey", "nokey"}), "(error) ERR no such key");
  EXPECT_EQ(R({"RENAME", "a"}), "(error) ERR wrong number of arguments for 'rename' command");
  ASSERT_EQ(Do({"SET", "mykey", "a"}), "+OK");
  // The same name: nothing changes (Redis's "RENAME with same key")
  EXPECT_EQ(Do({"RENAME", "mykey", "mykey"}), "+OK");
  EXPECT_EQ(Do({"RENAMENX", "mykey", "mykey"}), ":0");
  EXPECT_EQ(Do({"GET", "mykey"}), "$a");
  // An expired source is no such key.
  ASSERT_EQ(Do({"SET", "gone", "v", "PX", "10"}), "+OK");
  Advance(10);
  EXPECT_EQ(R({"RENAME", "gone", "other"}), "(error) ERR no such key");
  EXPECT_EQ(Do({"EXISTS", "other"}), ":0");
}

TEST_F(RenameTest, RenameNxRefusesAnExistingTarget) {
  ASSERT_EQ(Do({"SET", "mykey", "foo"}), "+OK");
  ASSERT_EQ(Do({"SET", "mykey2", "xxx"}), "+OK");
  EXPECT_EQ(Do({"RENAMENX", "mykey", "mykey2"}), ":0");
  EXPECT_EQ(Do({"GET", "mykey"}), "$foo");
  EXPECT_EQ(Do({"GET", "mykey2"}), "$xxx");
  EXPECT_EQ(Do({"DEL", "mykey2"}), ":1");
  EXPECT_EQ(Do({"RENAMENX", "mykey", "mykey2"}), ":1");
  EXPECT_EQ(Do({"GET", "mykey2"}), "$foo");
  EXPECT_EQ(Do({"EXISTS", "mykey"}), ":0");
  // An expired target does not exist.
  ASSERT_EQ(Do({"SET", "x", "new"}), "+OK");
  ASSERT_EQ(Do({"SET", "y", "old", "PX", "5"}), "+OK");
  Advance(5);
  EXPECT_EQ(Do({"RENAMENX", "x", "y"}), ":1");
  EXPECT_EQ(Do({"GET", "y"}), "$new");
}

TEST_F(RenameTest, TlogMovesWithItsEntriesCutoffAndTtl) {
  for (int ts = 1; ts <= 50; ts++) {
    ASSERT_EQ(Do({"TLOG", "INS", "log", "e" + std::to_string(ts), std::to_string(ts)}), "+OK");
  }
  ASSERT_EQ(Do({"TLOG", "TRIMAT", "log", "11"}), "+OK");
  ASSERT_EQ(Do({"PEXPIRE", "log", "9000"}), ":1");
  EXPECT_EQ(Do({"RENAME", "log", "log2"}), "+OK");
  EXPECT_EQ(Do({"TYPE", "log"}), "+none");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log2"}), ":40");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "log2"}), ":11");
  EXPECT_EQ(Do({"TLOG", "GET", "log2", "2"}), "[[$e50,:50],[$e49,:49]]");
  EXPECT_EQ(Do({"TLOG", "GET", "log2", "100"}).find("[$e10,"), std::string::npos);
  EXPECT_NE(Do({"TLOG", "GET", "log2", "100"}).find("[$e11,:11]]"), std::string::npos);
  EXPECT_EQ(Do({"PTTL", "log2"}), ":9000");
  // The cutoff came along: an entry below it is still refused.
  EXPECT_EQ(Do({"TLOG", "INS", "log2", "old", "5"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log2"}), ":40");
  // The old name starts afresh.
  ASSERT_EQ(Do({"TLOG", "INS", "log", "new", "1"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log"}), ":1");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "log"}), ":0");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log2"}), ":40");
}

TEST_F(RenameTest, TregKeepsItsTimestamp) {
  ASSERT_EQ(Do({"TREG", "SET", "reg", "v", "7"}), "+OK");
  EXPECT_EQ(Do({"RENAME", "reg", "reg2"}), "+OK");
  EXPECT_EQ(R({"TREG", "GET", "reg2"}), "1) \"v\"\n2) (integer) 7");
  EXPECT_EQ(R({"TREG", "GET", "reg"}), "(nil)");
  // Last-write-wins goes on from the same timestamp.
  EXPECT_EQ(Do({"TREG", "SET", "reg2", "older", "6"}), "+OK");
  EXPECT_EQ(R({"TREG", "GET", "reg2"}), "1) \"v\"\n2) (integer) 7");
}

TEST_F(RenameTest, PutKeyKeepsEveryVersionAGraceCanRead) {
  // Out of order: @200 written first, then @100; a tombstone @50 under both.
  ASSERT_EQ(Do({"DELETE", "p", "TS", "50"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "newer", "TS", "200"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "older", "TS", "100"}), "+OK");
  ASSERT_EQ(Do({"GET", "p"}), "$older");
  ASSERT_EQ(Do({"GET", "p", "GRACE", "1000"}), "$newer");
  // The target had a version a full-grace read would take over the copied ones: it is gone.
  ASSERT_EQ(Do({"PUT", "q", "stale", "TS", "900"}), "+OK");
  ASSERT_EQ(Do({"DELETE", "q", "TS", "800"}), "+OK");
  EXPECT_EQ(Do({"RENAME", "p", "q"}), "+OK");
  EXPECT_EQ(Do({"GET", "q"}), "$older");
  EXPECT_EQ(Do({"GET", "q", "GRACE", "1000"}), "$newer");
  EXPECT_EQ(Do({"GET", "p", "GRACE", "1000"}), "nil");
  // A tombstone newer than the value is carried too.
  ASSERT_EQ(Do({"PUT", "d", "a", "TS", "200"}), "+OK");
  ASSERT_EQ(Do({"DELETE", "d", "TS", "100"}), "+OK");
  EXPECT_EQ(Do({"COPY", "d", "d2"}), ":0");  // grace 0 reads the tombstone: no source
  ASSERT_EQ(Do({"PUT", "d", "b", "TS", "150"}), "+OK");
  EXPECT_EQ(Do({"COPY", "d", "d2"}), ":1");
  // Every grace reads the same from the copy as from the source.
  for (const char* grace : {"0", "40", "60", "100", "1000"}) {
    SCOPED_TRACE(grace);
    EXPECT_EQ(Do({"GET", "d2", "GRACE", grace}), Do({"GET", "d", "GRACE", grace}));
    EXPECT_EQ(Do({"GETMETA", "d2", "GRACE", grace}), Do({"GETMETA", "d", "GRACE", grace}));
  }
  EXPECT_EQ(Do({"GET", "d2"}), "$b");
  EXPECT_EQ(Do({"GET", "d2", "GRACE", "1000"}), "$a");
}

TEST_F(RenameTest, CopyDuplicatesEveryType) {
  ASSERT_EQ(Do({"SET", "s", "hello", "EX", "100"}), "+OK");
  EXPECT_EQ(Do({"COPY", "s", "s2"}), ":1");
  EXPECT_EQ(Do({"GET", "s"}), "$hello");
  EXPECT_EQ(Do({"GET", "s2"}), "$hello");
  EXPECT_EQ(Do({"TTL", "s2"}), ":100");
  ASSERT_EQ(Do({"TLOG", "INS", "l", "a", "1"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "l", "b", "2"}), "+OK");
  EXPECT_EQ(Do({"COPY", "l", "l2"}), ":1");
  // Independent logs: a change to one leaves the other.
  ASSERT_EQ(Do({"TLOG", "INS", "l2", "c", "3"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "CLR", "l"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "l2"}), "[[$c,:3],[$b,:2],[$a,:1]]");
  EXPECT_EQ(Do({"TLOG", "GET", "l"}), "[]");
  ASSERT_EQ(Do({"TREG", "SET", "r", "v", "9"}), "+OK");
  EXPECT_EQ(Do({"COPY", "r", "r2"}), ":1");
  EXPECT_EQ(R({"TREG", "GET", "r2"}), "1) \"v\"\n2) (integer) 9");
  EXPECT_EQ(R({"TREG", "GET", "r"}), "1) \"v\"\n2) (integer) 9");
}

TEST_F(RenameTest, CopyRepliesAndErrors) {
  EXPECT_EQ(Do({"COPY", "nokey", "x"}), ":0");
  ASSERT_EQ(Do({"SET", "mykey", "foobar"}), "+OK");
  ASSERT_EQ(Do({"SET", "mynewkey", "other"}), "+OK");
  EXPECT_EQ(Do({"COPY", "mykey", "mynewkey"}), ":0");
  EXPECT_EQ(Do({"GET", "mynewkey"}), "$other");
  EXPECT_EQ(Do({"COPY", "mykey", "mynewkey", "REPLACE"}), ":1");
  EXPECT_EQ(Do({"GET", "mynewkey"}), "$foobar");
  EXPECT_EQ(R({"COPY", "mykey", "mykey"}),
            "(error) ERR source and destination objects are the same");
  EXPECT_EQ(R({"COPY", "mykey", "mykey", "DB", "0"}),
            "(error) ERR source and destination objects are the same");
  EXPECT_EQ(R({"COPY", "mykey", "x", "DB", "16"}), "(error) ERR DB index is out of range");
  EXPECT_EQ(R({"COPY", "mykey", "x", "DB", "-1"}), "(error) ERR DB index is out of range");
  EXPECT_EQ(R({"COPY", "mykey", "x", "DB", "abc"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"COPY", "mykey", "x", "DB"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"COPY", "mykey", "x", "NOPE"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"COPY", "mykey"}), "(error) ERR wrong number of arguments for 'copy' command");
  // Into another database, where the same name may be used.
  EXPECT_EQ(Do({"COPY", "mykey", "mykey", "DB", "9"}), ":1");
  EXPECT_EQ(Do({"COPY", "mykey", "mykey", "db", "9"}), ":0");
  EXPECT_EQ(Do({"COPY", "mykey", "mykey", "REPLACE", "DB", "9"}), ":1");
  EXPECT_EQ(Do({"SELECT", "9"}), "+OK");
  EXPECT_EQ(Do({"GET", "mykey"}), "$foobar");
  // An expired source copies nothing.
  ASSERT_EQ(Do({"SET", "gone", "v", "PX", "1"}), "+OK");
  Advance(1);
  EXPECT_EQ(Do({"COPY", "gone", "there"}), ":0");
  EXPECT_EQ(Do({"EXISTS", "there"}), ":0");
}

TEST_F(RenameTest, MoveRepliesAndErrors) {
  ASSERT_EQ(Do({"SET", "mykey", "hello", "EX", "100"}), "+OK");
  EXPECT_EQ(Do({"MOVE", "mykey", "9"}), ":1");
  EXPECT_EQ(Do({"EXISTS", "mykey"}), ":0");
  EXPECT_EQ(Do({"SELECT", "9"}), "+OK");
  EXPECT_EQ(Do({"GET", "mykey"}), "$hello");
  EXPECT_EQ(Do({"TTL", "mykey"}), ":100");
  EXPECT_EQ(R({"MOVE", "mykey", "9"}), "(error) ERR source and destination objects are the same");
  EXPECT_EQ(R({"MOVE", "mykey", "16"}), "(error) ERR DB index is out of range");
  EXPECT_EQ(R({"MOVE", "mykey", "x"}), "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"MOVE", "mykey", "99999999999"}),
            "(error) ERR value is out of range, value must between -2147483648 and 2147483647");
  EXPECT_EQ(Do({"MOVE", "nokey", "0"}), ":0");
  // A key of the same name in the target: nothing moves.
  EXPECT_EQ(Do({"SELECT", "0"}), "+OK");
  ASSERT_EQ(Do({"SET", "mykey", "zero"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "9"}), "+OK");
  EXPECT_EQ(Do({"MOVE", "mykey", "0"}), ":0");
  EXPECT_EQ(Do({"GET", "mykey"}), "$hello");
  // A TLOG moves whole.
  ASSERT_EQ(Do({"TLOG", "INS", "log", "a", "5"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "TRIMAT", "log", "3"}), "+OK");
  EXPECT_EQ(Do({"MOVE", "log", "2"}), ":1");
  EXPECT_EQ(Do({"SELECT", "2"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$a,:5]]");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "log"}), ":3");
}

TEST_F(RenameTest, RetentionWindowEntriesKeepTheirExpiry) {
  ASSERT_EQ(Do({"CONFIG", "SET", "ttl-rule", "w:* 10s"}), "+OK");
  const int64_t t = kPinnedNowMs;
  ASSERT_EQ(Do({"TLOG", "INS", "w:log", "old", std::to_string(t - 8000)}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "w:log", "new", std::to_string(t)}), "+OK");
  EXPECT_EQ(Do({"RENAME", "w:log", "w:moved"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "w:moved"}), ":2");
  Advance(2000);  // "old" is past its window now
  EXPECT_EQ(Do({"TLOG", "GET", "w:moved"}), "[[$new,:" + std::to_string(t) + "]]");
}

TEST_F(RenameTest, KeyspaceEvents) {
  const size_t sub = ebb_->AddClient();
  ASSERT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "KEg"}), "+OK");
  ebb_->DoAs(sub, {"PSUBSCRIBE", "__keyevent@*__:*"});
  ebb_->TakePushed(sub);
  ASSERT_EQ(Do({"SET", "a", "1"}), "+OK");
  EXPECT_EQ(Do({"RENAME", "a", "b"}), "+OK");
  EXPECT_EQ(Pushed(sub),
            "[$pmessage,$__keyevent@*__:*,$__keyevent@0__:rename_from,$a] "
            "[$pmessage,$__keyevent@*__:*,$__keyevent@0__:rename_to,$b]");
  EXPECT_EQ(Do({"COPY", "b", "c", "DB", "1"}), ":1");
  EXPECT_EQ(Pushed(sub), "[$pmessage,$__keyevent@*__:*,$__keyevent@1__:copy_to,$c]");
  EXPECT_EQ(Do({"MOVE", "b", "3"}), ":1");
  EXPECT_EQ(Pushed(sub),
            "[$pmessage,$__keyevent@*__:*,$__keyevent@0__:move_from,$b] "
            "[$pmessage,$__keyevent@*__:*,$__keyevent@3__:move_to,$b]");
  // Nothing changed, nothing published.
  EXPECT_EQ(Do({"RENAMENX", "a", "b"}), "-ERR no such key");
  EXPECT_EQ(Do({"COPY", "nokey", "c"}), ":0");
  EXPECT_EQ(Do({"MOVE", "nokey", "3"}), ":0");
  EXPECT_EQ(Pushed(sub), "");
}

TEST_F(RenameTest, WatchIsInvalidatedOnBothKeys) {
  const size_t other = ebb_->AddClient();
  struct Case {
    const char* name;
    std::vector<std::string> write;
    const char* watched;
    int db;
  };
  const std::vector<Case> cases = {
      {"RENAME source", {"RENAME", "src", "dst"}, "src", 0},
      {"RENAME target", {"RENAME", "src", "dst"}, "dst", 0},
      {"RENAMENX target", {"RENAMENX", "src", "fresh"}, "fresh", 0},
      {"COPY target", {"COPY", "src", "dst", "REPLACE"}, "dst", 0},
      {"COPY other db", {"COPY", "src", "dst", "DB", "1"}, "dst", 1},
      {"MOVE source", {"MOVE", "src", "1"}, "src", 0},
      {"MOVE target", {"MOVE", "src", "1"}, "src", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Do({"FLUSHALL"}), "+OK");
    EXPECT_EQ(Do({"SET", "src", "v"}), "+OK");
    EXPECT_EQ(Do({"SELECT", std::to_string(c.db)}), "+OK");
    EXPECT_EQ(Do({"WATCH", c.watched}), "+OK");
    EXPECT_EQ(Do({"SELECT", "0"}), "+OK");
    EXPECT_EQ(DoAs(other, c.write).substr(0, 1) == "-", false);
    EXPECT_EQ(Do({"MULTI"}), "+OK");
    EXPECT_EQ(Do({"PING"}), "+QUEUED");
    EXPECT_EQ(Do({"EXEC"}), "nil");
  }
  // A copy that did nothing leaves the watch alone.
  EXPECT_EQ(Do({"SET", "dst", "kept"}), "+OK");
  EXPECT_EQ(Do({"WATCH", "dst"}), "+OK");
  EXPECT_EQ(DoAs(other, {"COPY", "dst2", "dst"}), ":0");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"PING"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+PONG]");
}

TEST_F(RenameTest, InsideATransactionItSeesTheTransactionsWrites) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "a", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "INS", "l", "x", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "INS", "l", "y", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"RENAME", "a", "b"}), "+QUEUED");
  EXPECT_EQ(Do({"COPY", "l", "l2"}), "+QUEUED");
  EXPECT_EQ(Do({"MOVE", "l", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"GET", "b"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "GET", "l2"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,+OK,+OK,+OK,:1,:1,$1,[[$y,:2],[$x,:1]]]");
  EXPECT_EQ(Do({"EXISTS", "a", "l"}), ":0");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "l"}), "[[$y,:2],[$x,:1]]");
  // A DEL in the transaction hides the versions before it from the renamed key, at every grace.
  EXPECT_EQ(Do({"SELECT", "0"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "before", "TS", "200"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"DEL", "p"}), "+QUEUED");
  EXPECT_EQ(Do({"PUT", "p", "after", "TS", "100"}), "+QUEUED");
  EXPECT_EQ(Do({"PUT", "p", "last", "TS", "50"}), "+QUEUED");
  EXPECT_EQ(Do({"RENAME", "p", "q"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[:1,+OK,+OK,+OK]");
  EXPECT_EQ(Do({"GET", "q"}), "$last");
  EXPECT_EQ(Do({"GET", "q", "GRACE", "1000"}), "$after");
}

TEST_F(RenameTest, SurvivesARestart) {
  ASSERT_EQ(Do({"PUT", "p", "newer", "TS", "200"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "older", "TS", "100"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "l", "x", "1"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "l", "y", "2"}), "+OK");
  ASSERT_EQ(Do({"EXPIRE", "l", "500"}), ":1");
  ASSERT_EQ(Do({"RENAME", "p", "p2"}), "+OK");
  ASSERT_EQ(Do({"RENAME", "l", "l2"}), "+OK");
  ebb_->Reopen();
  PinClock(kPinnedNowMs);
  EXPECT_EQ(Do({"GET", "p2"}), "$older");
  EXPECT_EQ(Do({"GET", "p2", "GRACE", "1000"}), "$newer");
  EXPECT_EQ(Do({"EXISTS", "p", "l"}), ":0");
  EXPECT_EQ(Do({"TLOG", "GET", "l2"}), "[[$y,:2],[$x,:1]]");
  EXPECT_EQ(Do({"TTL", "l2"}), ":500");
}

}  // namespace
}  // namespace ebb::test
