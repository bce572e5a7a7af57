// MULTI, EXEC, DISCARD, WATCH, UNWATCH through the command layer, as Redis 7 answers them
// (tests/unit/multi.tcl): queueing, EXECABORT, the refusals, WATCH invalidated by every kind of
// write from another client (and by expiry and FLUSHDB/FLUSHALL), not by writes that change
// nothing, and read-your-writes inside one transaction across every type.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class TransactionTest : public CommandTest {};

TEST_F(TransactionTest, QueuesAndExecutesInOrder) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"INCR", "k"}), "+QUEUED");
  EXPECT_EQ(Do({"GET", "k"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,:2,$2]");
  EXPECT_EQ(Do({"GET", "k"}), "$2");
  EXPECT_EQ(Do({"EXEC"}), "-ERR EXEC without MULTI");
}

TEST_F(TransactionTest, EmptyTransaction) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "[]");
}

TEST_F(TransactionTest, ErrorsInsideExecAreElementsAndTheRestApplies) {
  EXPECT_EQ(Do({"SET", "s", "text"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "a", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"INCR", "s"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "SIZE", "s"}), "+QUEUED");
  EXPECT_EQ(Do({"SET", "b", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}),
            "[+OK,-ERR value is not an integer or out of range,-WRONGTYPE Operation against a key "
            "holding the wrong kind of value,+OK]");
  EXPECT_EQ(Do({"MGET", "a", "b"}), "[$1,$2]");
}

TEST_F(TransactionTest, QueueingErrorsAbortWithExecAbort) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "a", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"NOSUCHCOMMAND"}),
            "-ERR unknown command 'NOSUCHCOMMAND', with args beginning with: ");
  EXPECT_EQ(Do({"SET", "b"}), "-ERR wrong number of arguments for 'set' command");
  EXPECT_EQ(Do({"TLOG", "NOPE", "x"}), "-ERR unknown subcommand 'NOPE'. Try TLOG HELP.");
  EXPECT_EQ(Do({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(Do({"EXISTS", "a"}), ":0");
  EXPECT_EQ(Do({"EXEC"}), "-ERR EXEC without MULTI");  // the transaction ended
}

TEST_F(TransactionTest, RefusedExecCarriesItsReason) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "a", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC", "extra"}),
            "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
            "command");
  EXPECT_EQ(Do({"EXISTS", "a"}), ":0");
  EXPECT_EQ(Do({"DISCARD"}), "-ERR DISCARD without MULTI");
}

// EXEC is refused as its queue would be when the server's state changed after queueing: past
// maxmemory a transaction that uses memory is discarded whole, one that only reads runs.
TEST_F(TransactionTest, ExecIsRefusedAsItsQueueWouldBe) {
  EXPECT_EQ(Do({"SET", "xx", "1"}), "+OK");
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"INCR", "xx"}), "+QUEUED");
  EXPECT_EQ(DoAs(other, {"CONFIG", "SET", "maxmemory", "1"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}),
            "-EXECABORT Transaction discarded because of: OOM command not allowed when used "
            "memory > 'maxmemory'.");
  EXPECT_EQ(Do({"GET", "xx"}), "$1");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"GET", "xx"}), "+QUEUED");
  EXPECT_EQ(Do({"DEL", "xx"}), "+QUEUED");  // frees memory: not refused
  EXPECT_EQ(Do({"EXEC"}), "[$1,:1]");
  EXPECT_EQ(DoAs(other, {"CONFIG", "SET", "maxmemory", "0"}), "+OK");
}

TEST_F(TransactionTest, ShutdownIsRefusedInsideMulti) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "foo", "bar"}), "+QUEUED");
  EXPECT_EQ(Do({"SHUTDOWN"}), "-ERR Command not allowed inside a transaction");
  EXPECT_EQ(Do({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(Do({"EXISTS", "foo"}), ":0");
}

TEST_F(TransactionTest, NestingWatchAndDiscardRules) {
  EXPECT_EQ(Do({"DISCARD"}), "-ERR DISCARD without MULTI");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "-ERR MULTI calls can not be nested");
  EXPECT_EQ(Do({"WATCH", "x"}), "-ERR WATCH inside MULTI is not allowed");
  EXPECT_EQ(Do({"SET", "x", "1"}), "+QUEUED");
  // Neither refusal aborts the transaction (Redis 7.0).
  EXPECT_EQ(Do({"EXEC"}), "[+OK]");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "x", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"DISCARD"}), "+OK");
  EXPECT_EQ(Do({"GET", "x"}), "$1");
  EXPECT_EQ(Do({"WATCH"}), "-ERR wrong number of arguments for 'watch' command");
}

TEST_F(TransactionTest, ReadsSeeTheTransactionsOwnWritesOnEveryType) {
  EXPECT_EQ(Do({"SET", "gone", "x"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "10"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "b", "20"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "+QUEUED");
  EXPECT_EQ(Do({"TREG", "SET", "reg", "v", "5"}), "+QUEUED");
  EXPECT_EQ(Do({"TREG", "GET", "reg"}), "+QUEUED");
  EXPECT_EQ(Do({"PUT", "row", "r1", "TS", "100"}), "+QUEUED");
  EXPECT_EQ(Do({"GET", "row"}), "+QUEUED");
  EXPECT_EQ(Do({"DEL", "gone"}), "+QUEUED");
  EXPECT_EQ(Do({"EXISTS", "gone"}), "+QUEUED");
  EXPECT_EQ(Do({"KEYS", "*"}), "+QUEUED");
  EXPECT_EQ(Do({"DBSIZE"}), "+QUEUED");
  EXPECT_EQ(Do({"APPEND", "row", "+"}), "+QUEUED");
  EXPECT_EQ(Do({"GET", "row"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}),
            "[+OK,+OK,[[$b,:20],[$a,:10]],+OK,[$v,:5],+OK,$r1,:1,:0,[$log,$reg,$row],:3,:3,$r1+]");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log"}), ":2");
  EXPECT_EQ(Do({"KEYS", "*"}), "[$log,$reg,$row]");
}

TEST_F(TransactionTest, ScanInsideATransactionMergesPendingKeys) {
  EXPECT_EQ(Do({"MSET", "a", "1", "c", "3", "e", "5"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "b", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"DEL", "c"}), "+QUEUED");
  EXPECT_EQ(Do({"SET", "f", "6"}), "+QUEUED");
  EXPECT_EQ(Do({"SCAN", "0", "COUNT", "100"}), "+QUEUED");
  EXPECT_EQ(Do({"RANDOMKEY"}), "+QUEUED");
  Reply exec = Cmd({"EXEC"});
  ASSERT_EQ(exec.size(), 5u);
  EXPECT_EQ(Canon(exec.elements()[3]), "[$0,[$a,$b,$e,$f]]");
  EXPECT_NE(Canon(exec.elements()[4]), "$c");
}

TEST_F(TransactionTest, WatchedKeyWrittenByAnotherClientFailsExec) {
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(Do({"SET", "x", "30"}), "+OK");
  EXPECT_EQ(Do({"WATCH", "x"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"INCR", "x"}), ":31");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "x", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "nil");
  EXPECT_EQ(Do({"GET", "x"}), "$31");
  // The watch ended with EXEC: the next transaction runs.
  EXPECT_EQ(ebb_->DoAs(other, {"INCR", "x"}), ":32");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "x", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK]");
}

TEST_F(TransactionTest, WatchIsInvalidatedByEveryKindOfWrite) {
  const size_t other = ebb_->AddClient();
  PinClock(kPinnedNowMs);
  const std::vector<std::pair<std::string, std::vector<std::string>>> writes = {
      {"SET", {"SET", "k", "v"}},
      {"SETNX on absent", {"SETNX", "k", "v"}},
      {"APPEND", {"APPEND", "k", "v"}},
      {"INCRBY", {"INCRBY", "k", "2"}},
      {"MSET", {"MSET", "z", "1", "k", "2"}},
      {"PUT", {"PUT", "k", "v", "TS", "5"}},
      {"DELETE", {"DELETE", "k"}},
      {"TLOG INS", {"TLOG", "INS", "k", "v", "5"}},
      {"TREG SET", {"TREG", "SET", "k", "v", "5"}},
      {"FLUSHALL", {"FLUSHALL"}},
  };
  for (const auto& [name, write] : writes) {
    SCOPED_TRACE(name);
    EXPECT_EQ(Do({"FLUSHALL"}), "+OK");
    if (name != "SETNX on absent" && name.rfind("TLOG", 0) != 0 && name.rfind("TREG", 0) != 0 &&
        name != "APPEND" && name != "INCRBY") {
      EXPECT_EQ(Do({"SET", "k", "1"}), "+OK");
    }
    EXPECT_EQ(Do({"WATCH", "k"}), "+OK");
    EXPECT_NE(ebb_->DoAs(other, write).substr(0, 1), "-");
    EXPECT_EQ(Do({"MULTI"}), "+OK");
    EXPECT_EQ(Do({"PING"}), "+QUEUED");
    EXPECT_EQ(Do({"EXEC"}), "nil");
  }
  // Keys of the generic commands.
  const std::vector<std::pair<std::string, std::vector<std::string>>> generic = {
      {"DEL", {"DEL", "k"}},
      {"UNLINK", {"UNLINK", "k"}},
      {"EXPIRE", {"EXPIRE", "k", "100"}},
      {"PEXPIREAT past", {"PEXPIREAT", "k", "1"}},
      {"GETDEL", {"GETDEL", "k"}},
      {"GETEX", {"GETEX", "k", "EX", "50"}},
      {"FLUSHDB", {"FLUSHDB"}},
      {"GETSET", {"GETSET", "k", "n"}},
  };
  for (const auto& [name, write] : generic) {
    SCOPED_TRACE(name);
    EXPECT_EQ(Do({"SET", "k", "1"}), "+OK");
    EXPECT_EQ(Do({"WATCH", "k"}), "+OK");
    EXPECT_NE(ebb_->DoAs(other, write).substr(0, 1), "-");
    EXPECT_EQ(Do({"MULTI"}), "+OK");
    EXPECT_EQ(Do({"PING"}), "+QUEUED");
    EXPECT_EQ(Do({"EXEC"}), "nil");
  }
  EXPECT_EQ(Do({"SET", "k", "1", "EX", "100"}), "+OK");
  EXPECT_EQ(Do({"WATCH", "k"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"PERSIST", "k"}), ":1");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "nil");
}

TEST_F(TransactionTest, WritesThatChangeNothingDoNotInvalidate) {
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(Do({"SET", "k", "1"}), "+OK");
  EXPECT_EQ(Do({"WATCH", "k", "absent"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"SETNX", "k", "2"}), ":0");
  EXPECT_EQ(ebb_->DoAs(other, {"SET", "k", "2", "NX"}), "nil");
  EXPECT_EQ(ebb_->DoAs(other, {"SET", "absent", "2", "XX"}), "nil");
  EXPECT_EQ(ebb_->DoAs(other, {"DEL", "absent"}), ":0");
  EXPECT_EQ(ebb_->DoAs(other, {"PERSIST", "k"}), ":0");
  EXPECT_EQ(ebb_->DoAs(other, {"EXPIRE", "absent", "10"}), ":0");
  EXPECT_EQ(ebb_->DoAs(other, {"SET", "unwatched", "1"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"GET", "k"}), "$1");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"PING"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+PONG]");
}

TEST_F(TransactionTest, FlushDoesNotTouchWatchedKeysThatDoNotExist) {
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(Do({"WATCH", "absent"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"FLUSHALL"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"FLUSHDB"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "[]");
  // A key of another database is not touched by FLUSHDB of this one.
  EXPECT_EQ(ebb_->DoAs(other, {"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "1"}), "+OK");
  EXPECT_EQ(Do({"WATCH", "k"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"FLUSHDB"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "[]");
}

TEST_F(TransactionTest, WatchedKeyThatExpiresFailsExec) {
  PinClock(kPinnedNowMs);
  EXPECT_EQ(Do({"SET", "k", "1", "PX", "100"}), "+OK");
  EXPECT_EQ(Do({"WATCH", "k"}), "+OK");
  Advance(100);  // expired, and nobody read it
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"PING"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "nil");
  // A key already expired when watched does not fail EXEC (Redis: "stale keys").
  EXPECT_EQ(Do({"SET", "s", "1", "PX", "10"}), "+OK");
  Advance(10);
  EXPECT_EQ(Do({"WATCH", "s"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "[]");
}

TEST_F(TransactionTest, UnwatchAndDiscardForgetWatches) {
  const size_t other = ebb_->AddClient();
  // UNWATCH after the watched key changed: the transaction runs (Redis: "possible to UNWATCH").
  EXPECT_EQ(Do({"WATCH", "x"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"SET", "x", "0"}), "+OK");
  EXPECT_EQ(Do({"UNWATCH"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"PING"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+PONG]");
  EXPECT_EQ(Do({"WATCH", "x"}), "+OK");
  EXPECT_EQ(Do({"UNWATCH"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"SET", "x", "1"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "[]");
  EXPECT_EQ(Do({"WATCH", "x"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"DISCARD"}), "+OK");
  EXPECT_EQ(ebb_->DoAs(other, {"SET", "x", "2"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "[]");
}

TEST_F(TransactionTest, ATransactionsOwnWritesDoNotFailItsWatch) {
  EXPECT_EQ(Do({"WATCH", "x"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "x", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK]");
  // Writes of this client before MULTI do fail it (Redis: "WATCH after own write").
  EXPECT_EQ(Do({"WATCH", "x"}), "+OK");
  EXPECT_EQ(Do({"SET", "x", "2"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "nil");
}

TEST_F(TransactionTest, ResetEndsTheTransaction) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "x", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"RESET"}), "+RESET");
  EXPECT_EQ(Do({"EXEC"}), "-ERR EXEC without MULTI");
  EXPECT_EQ(Do({"EXISTS", "x"}), ":0");
}

TEST_F(TransactionTest, TransactionSurvivesReopenWhole) {
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "a", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "e", "7"}), "+QUEUED");
  EXPECT_EQ(Do({"TREG", "SET", "reg", "r", "9"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,+OK,+OK]");
  ebb_->Reopen();
  EXPECT_EQ(Do({"GET", "a"}), "$1");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$e,:7]]");
  EXPECT_EQ(Do({"TREG", "GET", "reg"}), "[$r,:9]");
}

// FLUSHDB and FLUSHALL join the transaction's one write: reads after them inside it see only
// what the transaction wrote since, every other database keeps its keys, and the whole of it
// (the flush included) holds after a restart.
TEST_F(TransactionTest, FlushInsideATransactionIsPartOfItsOneWrite) {
  EXPECT_EQ(Do({"MSET", "a", "1", "b", "2"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "e", "7"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"SET", "other", "x"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "0"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "before", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"FLUSHDB"}), "+QUEUED");
  EXPECT_EQ(Do({"GET", "a"}), "+QUEUED");
  EXPECT_EQ(Do({"GET", "before"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "f", "8"}), "+QUEUED");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "+QUEUED");
  EXPECT_EQ(Do({"SET", "after", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"KEYS", "*"}), "+QUEUED");
  EXPECT_EQ(Do({"DBSIZE"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,+OK,nil,nil,+OK,[[$f,:8]],+OK,[$after,$log],:2]");
  ebb_->Reopen();
  EXPECT_EQ(Do({"KEYS", "*"}), "[$after,$log]");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$f,:8]]");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"GET", "other"}), "$x");
  EXPECT_EQ(Do({"SELECT", "0"}), "+OK");

  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"FLUSHALL"}), "+QUEUED");
  EXPECT_EQ(Do({"SET", "k", "v"}), "+QUEUED");
  EXPECT_EQ(Do({"SCAN", "0"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,+OK,[$0,[$k]]]");
  ebb_->Reopen();
  EXPECT_EQ(Do({"KEYS", "*"}), "[$k]");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"DBSIZE"}), ":0");
}

TEST_F(TransactionTest, DiscardedTransactionLeavesNoTrace) {
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "1"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$a,:1]]");  // fills the head cache
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "b", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"DISCARD"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$a,:1]]");
  ebb_->Reopen();
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$a,:1]]");
}

}  // namespace
}  // namespace ebb::test
