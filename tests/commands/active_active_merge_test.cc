// Active-active's merge laws on nodes in this process (CommandRunner::HostActiveActive): deltas
// applied in one order and in another leave the same state (DEBUG DIGEST-LOGICAL). Each case
// is an input tests/fuzz/active_active_fuzz.cc found, reduced to the deltas it turned on.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "types/series_merge.h"

namespace ebb::test {
namespace {

const std::string kOriginA(40, 'a');
const std::string kOriginB(40, 'b');

// A delta from `origin` at `offset`, in the stream's words.
struct Delta {
  const std::string* origin;
  int offset;
  std::vector<std::string> args;
};

class ActiveActiveMergeTest : public ::testing::Test {
 protected:
  std::unique_ptr<CommandRunner> Node() {
    auto node = std::make_unique<CommandRunner>();
    node->HostActiveActive();
    EXPECT_EQ(node->Do({"DEBUG", "CLOCK", "SET", "1700000000000"}), "+OK");
    return node;
  }

  static void Apply(CommandRunner& node, const Delta& delta) {
    std::vector<std::string> request = {"DEBUG", "PEER-APPLY", *delta.origin,
                                        "0",     "OFFSET",     std::to_string(delta.offset)};
    request.insert(request.end(), delta.args.begin(), delta.args.end());
    ASSERT_EQ(node.Do(request), "+OK");
  }

  // Applies `deltas` in their order on one node and in the reverse order on another; expects
  // the same digest on both. Returns the first node, to read.
  std::unique_ptr<CommandRunner> ExpectOrderIrrelevant(const std::vector<Delta>& deltas) {
    return ExpectSameState(deltas, {deltas.rbegin(), deltas.rend()});
  }

  // Applies `one` on a node and `other` (the same deltas in another order) on another; expects
  // the same digest on both. Returns the first node, to read.
  std::unique_ptr<CommandRunner> ExpectSameState(const std::vector<Delta>& one,
                                                 const std::vector<Delta>& other) {
    std::unique_ptr<CommandRunner> forwards = Node();
    std::unique_ptr<CommandRunner> backwards = Node();
    for (const Delta& delta : one) Apply(*forwards, delta);
    for (const Delta& delta : other) Apply(*backwards, delta);
    EXPECT_EQ(forwards->Do({"DEBUG", "DIGEST-LOGICAL"}),
              backwards->Do({"DEBUG", "DIGEST-LOGICAL"}));
    EXPECT_EQ(forwards->Do({"TYPE", "k"}), backwards->Do({"TYPE", "k"}));
    EXPECT_EQ(forwards->Do({"GET", "k"}), backwards->Do({"GET", "k"}));
    return forwards;
  }
};

// DEBUG PEER-COLLECT: the node logs a collect at once, its C its last joined with the pairs, and
// INFO peers shows it; an origin that is no node id is refused.
TEST_F(ActiveActiveMergeTest, PeerCollectLogsACollectAtOnce) {
  std::unique_ptr<CommandRunner> node = Node();
  ASSERT_EQ(node->Do({"DEBUG", "PEER-COLLECT", kOriginA, "3"}), "+OK");
  ASSERT_EQ(node->Do({"DEBUG", "PEER-COLLECT", kOriginB, "2", kOriginA, "1"}), "+OK");
  const std::string info = node->Do({"INFO", "peers"});
  EXPECT_NE(info.find("last_collect:" + kOriginA + "=3," + kOriginB + "=2"), std::string::npos)
      << info;
  EXPECT_EQ(node->Do({"DEBUG", "PEER-COLLECT", "abc", "1"}),
            "-ERR an origin id is 40 hexadecimal digits (PEER ID)");
  EXPECT_EQ(node->Do({"DEBUG", "PEER-COLLECT", kOriginA, "-1"}), "-ERR offset is out of range");
}

TEST_F(ActiveActiveMergeTest, ATrimAtZeroOfAnAbsentLogAndAPutMergeInEitherOrder) {
  ExpectOrderIrrelevant({{&kOriginA, 1, {"put", "k", "a", "TS", "1700000000000", "NOTTL"}},
                         {&kOriginB, 1, {"tlog", "trimat", "k", "0"}}});
}

TEST_F(ActiveActiveMergeTest, ATrimAtOfAnAbsentLogAndAPutMergeInEitherOrder) {
  ExpectOrderIrrelevant({{&kOriginA, 1, {"put", "k", "a", "TS", "1700000000000", "NOTTL"}},
                         {&kOriginB, 1, {"tlog", "trimat", "k", "5"}}});
}

TEST_F(ActiveActiveMergeTest, TwoCountersResetToOneVersionObserveWhatEitherObserved) {
  // a resets the counter to "0" at ts 4 seeing nothing and adds 49; b adds 1, resets to "0" at
  // ts 4 seeing its 1, and adds 1 more: 0 + 49 + (2 - 1) in either order.
  std::unique_ptr<CommandRunner> node =
      ExpectOrderIrrelevant({{&kOriginA,
                              1,
                              {"counter", "k", "BASE", "value", "4", "NOTTL", "0", "0", "BY",
                               kOriginA, "0", "1", "49", "0"}},
                             {&kOriginB,
                              1,
                              {"counter", "k", "BASE", "value", "0", "NOTTL", "0", "0", "BY",
                               kOriginB, "0", "1", "1", "0"}},
                             {&kOriginB,
                              2,
                              {"counter", "k", "BASE", "value", "4", "NOTTL", "0", "1", kOriginB,
                               "0", "1", "1", "0", "BY", kOriginB, "0", "2", "2", "0"}}});
  EXPECT_EQ(node->Do({"GET", "k"}), "$50");
}

TEST_F(ActiveActiveMergeTest, AnEmptySeriesAFlushCoversRaisesTheFloorWhicheverCameFirst) {
  // b creates series k (TS.CREATE: its register, stamped at the flush's T, and no sample) while
  // a flushes at T and then writes a string to k: the series' type floor holds the key on every
  // node, whether the series arrived before the flush or after it.
  const types::SeriesRegister created{.ms = 1700000000000, .origin = kOriginB};
  const Delta create = {&kOriginB, 1, {"ts-merge", "k", types::EncodeSeriesRegister(created), "0"}};
  const Delta flush = {&kOriginA, 1, {"flushall-at", "1700000000000"}};
  const Delta put = {&kOriginA, 2, {"put", "k", "a", "TS", "1700000098145", "NOTTL"}};
  std::unique_ptr<CommandRunner> node = ExpectSameState({create, flush, put}, {flush, create, put});
  EXPECT_EQ(node->Do({"TYPE", "k"}), "+none");
}

TEST_F(ActiveActiveMergeTest, APersistThatCarriesALogsCutoffPersistsWhatItCovers) {
  // A PERSIST of a log with hidden entries carries its cutoff, applied as a TRIMAT first: the
  // register that follows must still be a PERSIST, so an entry at or before its T stays.
  std::unique_ptr<CommandRunner> node = Node();
  Apply(*node, {&kOriginA, 1, {"expiry-at", "1700000000529", "k", "persist", "1"}});
  Apply(*node, {&kOriginB, 1, {"tlog", "ins", "k", "x", "5"}});
  EXPECT_EQ(node->Do({"TLOG", "GET", "k"}), "[[$x,:5]]");
  EXPECT_EQ(node->Do({"TTL", "k"}), ":-1");
}

TEST_F(ActiveActiveMergeTest, ATrimAtZeroIsNotLogged) {
  std::unique_ptr<CommandRunner> node = Node();
  auto logged = [&node] {
    const std::string info = node->Cmd({"INFO", "peers"}).str();
    const size_t at = info.find("origin_offset:");
    return info.substr(at, info.find('\r', at) - at);
  };
  EXPECT_EQ(node->Do({"TLOG", "TRIMAT", "k", "0"}), "+OK");
  EXPECT_EQ(logged(), "origin_offset:0");
  EXPECT_EQ(node->Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(node->Do({"TLOG", "TRIMAT", "k", "0"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(node->Do({"GET", "k"}), "$v");
  EXPECT_EQ(node->Do({"TLOG", "TRIMAT", "log", "5"}), "+OK");
  EXPECT_EQ(node->Do({"TLOG", "TRIMAT", "log", "0"}), "+OK");
  EXPECT_EQ(logged(), "origin_offset:2");
}

// A TREG pair or TLOG entry above INT64_MAX counts as INT64_MAX against a delete, whose T is
// signed: a flush at INT64_MAX removes it held and drops it arriving, alike.
TEST_F(ActiveActiveMergeTest, ATimestampAboveInt64MaxMeetsADeleteAtInt64MaxAlikeInEitherOrder) {
  const std::string kMax = "18446744073709551615";
  const std::string kDeleteT = "9223372036854775807";
  for (const std::vector<std::string>& write :
       {std::vector<std::string>{"treg", "set", "k", "b", kMax},
        std::vector<std::string>{"tlog", "ins", "k", "b", kMax}}) {
    SCOPED_TRACE(write[0]);
    std::unique_ptr<CommandRunner> node =
        ExpectOrderIrrelevant({{&kOriginA, 1, write}, {&kOriginB, 1, {"flushall-at", kDeleteT}}});
    EXPECT_EQ(node->Do({"EXISTS", "k"}), ":0");
  }
}

// On its origin, a DEL removes a log whose newest entry lies above INT64_MAX (its T is INT64_MAX).
TEST_F(ActiveActiveMergeTest, ADelRemovesALogWithAnEntryAboveInt64Max) {
  std::unique_ptr<CommandRunner> node = Node();
  EXPECT_EQ(node->Do({"TLOG", "INS", "k", "v", "18446744073709551615"}), "+OK");
  EXPECT_EQ(node->Do({"DEL", "k"}), ":1");
  EXPECT_EQ(node->Do({"EXISTS", "k"}), ":0");
}

// On its origin, a CLR (or TRIM to 0) of a log with an entry at 2^64-1 runs as the TRIMAT it
// travels as: no cutoff cuts that entry, so it stays there as on a peer that applies the TRIMAT.
TEST_F(ActiveActiveMergeTest, AClearKeepsAnEntryAt2To64Minus1AsItsPeersDo) {
  const std::string kLast = "18446744073709551615";
  for (const std::vector<std::string>& clear :
       {std::vector<std::string>{"TLOG", "CLR", "k"},
        std::vector<std::string>{"TLOG", "TRIM", "k", "0"}}) {
    SCOPED_TRACE(clear[1]);
    std::unique_ptr<CommandRunner> origin = Node();
    ASSERT_EQ(origin->Do({"TLOG", "INS", "k", "a", kLast}), "+OK");
    ASSERT_EQ(origin->Do({"TLOG", "INS", "k", "b", "5"}), "+OK");
    EXPECT_EQ(origin->Do(clear), "+OK");
    EXPECT_EQ(origin->Do({"TLOG", "GET", "k"}), "[[$a,$" + kLast + "]]");
    EXPECT_EQ(origin->Do({"TLOG", "CUTOFF", "k"}), "$" + kLast);  // above INT64_MAX: a bulk
    std::unique_ptr<CommandRunner> peer = Node();
    Apply(*peer, {&kOriginA, 1, {"tlog", "ins", "k", "a", kLast}});
    Apply(*peer, {&kOriginA, 2, {"tlog", "ins", "k", "b", "5"}});
    Apply(*peer, {&kOriginA, 3, {"tlog", "trimat", "k", kLast}});
    EXPECT_EQ(origin->Do({"DEBUG", "DIGEST-LOGICAL"}), peer->Do({"DEBUG", "DIGEST-LOGICAL"}));
  }
}

}  // namespace
}  // namespace ebb::test
