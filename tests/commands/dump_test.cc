// DUMP and RESTORE through the command layer, as Redis 7 answers them (tests/unit/dump.tcl):
// the round trip of every type with every timestamp, TTL / ABSTTL / REPLACE / IDLETIME / FREQ,
// BUSYKEY, payloads that are damaged or of another format, events and restarts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class DumpTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
  }
  std::string Dump(const std::string& key) {
    Reply r = Cmd(std::vector<std::string>{"DUMP", key});
    EXPECT_TRUE(r.is_string()) << r.ToString();
    return r.str();
  }
  std::string Restore(const std::string& key, const std::string& ttl, const std::string& payload,
                      std::vector<std::string> options = {}) {
    std::vector<std::string> args = {"RESTORE", key, ttl, payload};
    args.insert(args.end(), options.begin(), options.end());
    return Do(args);
  }
};

TEST_F(DumpTest, RoundTripOfASimpleKey) {
  ASSERT_EQ(Do({"SET", "foo", "bar"}), "+OK");
  const std::string encoded = Dump("foo");
  EXPECT_EQ(encoded.substr(0, 4), std::string("EBB\x02", 4));
  ASSERT_EQ(Do({"DEL", "foo"}), ":1");
  EXPECT_EQ(Restore("foo", "0", encoded), "+OK");
  EXPECT_EQ(Do({"TTL", "foo"}), ":-1");
  EXPECT_EQ(Do({"GET", "foo"}), "$bar");
  EXPECT_EQ(Do({"DUMP", "nokey"}), "nil");
}

TEST_F(DumpTest, TtlAbsTtlAndAnExpiryInThePast) {
  ASSERT_EQ(Do({"SET", "foo", "bar", "EX", "100"}), "+OK");
  const std::string encoded = Dump("foo");
  ASSERT_EQ(Do({"DEL", "foo"}), ":1");
  // RESTORE's ttl is the latest the key expires.
  EXPECT_EQ(Restore("foo", "3000", encoded), "+OK");
  EXPECT_EQ(Do({"PTTL", "foo"}), ":3000");
  ASSERT_EQ(Do({"DEL", "foo"}), ":1");
  EXPECT_EQ(Restore("foo", std::to_string(kPinnedNowMs + 3000), encoded, {"ABSTTL"}), "+OK");
  EXPECT_EQ(Do({"PTTL", "foo"}), ":3000");
  ASSERT_EQ(Do({"DEL", "foo"}), ":1");
  EXPECT_EQ(Restore("foo", std::to_string(kPinnedNowMs - 3000), encoded, {"ABSTTL"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "foo"}), ":0");
  EXPECT_EQ(Do({"DEBUG", "OBJECT", "foo"}).substr(0, 1), "-");
}

TEST_F(DumpTest, ReplaceAndBusyKey) {
  ASSERT_EQ(Do({"SET", "foo", "bar"}), "+OK");
  const std::string encoded = Dump("foo");
  ASSERT_EQ(Do({"SET", "foo", "bar2"}), "+OK");
  EXPECT_EQ(Restore("foo", "0", encoded), "-BUSYKEY Target key name already exists.");
  // BUSYKEY comes before the TTL's and the payload's checks, as in Redis.
  EXPECT_EQ(Restore("foo", "abc", "junk"), "-BUSYKEY Target key name already exists.");
  EXPECT_EQ(Do({"GET", "foo"}), "$bar2");
  EXPECT_EQ(Restore("foo", "0", encoded, {"REPLACE"}), "+OK");
  EXPECT_EQ(Do({"GET", "foo"}), "$bar");
  // A key of another type is replaced whole.
  ASSERT_EQ(Do({"TLOG", "INS", "log", "x", "1"}), "+OK");
  EXPECT_EQ(Restore("log", "0", encoded, {"replace"}), "+OK");
  EXPECT_EQ(Do({"TYPE", "log"}), "+string");
}

TEST_F(DumpTest, Errors) {
  ASSERT_EQ(Do({"SET", "foo", "bar"}), "+OK");
  const std::string encoded = Dump("foo");
  ASSERT_EQ(Do({"DEL", "foo"}), ":1");
  EXPECT_EQ(Restore("foo", "0", encoded, {"invalid-option"}), "-ERR syntax error");
  EXPECT_EQ(Restore("foo", "-1", encoded), "-ERR Invalid TTL value, must be >= 0");
  EXPECT_EQ(Restore("foo", "x", encoded), "-ERR value is not an integer or out of range");
  EXPECT_EQ(Restore("foo", "0", encoded, {"IDLETIME", "-1"}),
            "-ERR Invalid IDLETIME value, must be >= 0");
  EXPECT_EQ(Restore("foo", "0", encoded, {"IDLETIME", "x"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Restore("foo", "0", encoded, {"FREQ", "256"}),
            "-ERR Invalid FREQ value, must be >= 0 and <= 255");
  EXPECT_EQ(Restore("foo", "0", encoded, {"IDLETIME", "1", "FREQ", "1"}), "-ERR syntax error");
  EXPECT_EQ(Restore("foo", "0", encoded, {"FREQ", "1", "IDLETIME", "1"}), "-ERR syntax error");
  EXPECT_EQ(Restore("foo", "0", encoded, {"IDLETIME"}), "-ERR syntax error");
  EXPECT_EQ(Do({"RESTORE", "foo", "0"}), "-ERR wrong number of arguments for 'restore' command");
  // Damaged, truncated, foreign payloads.
  const std::string kBad = "-ERR DUMP payload version or checksum are wrong";
  for (size_t i = 0; i < encoded.size(); ++i) {
    std::string flipped = encoded;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x20);
    EXPECT_EQ(Restore("foo", "0", flipped), kBad) << "byte " << i;
  }
  EXPECT_EQ(Restore("foo", "0", encoded.substr(0, encoded.size() - 1)), kBad);
  EXPECT_EQ(Restore("foo", "0", ""), kBad);
  EXPECT_EQ(Restore("foo", "0", "hello world"), kBad);
  // Redis 7's own payload of SET foo bar: another format.
  EXPECT_EQ(Restore("foo", "0",
                    std::string("\x00\x03"
                                "bar\x0a\x00\xbc\x9b\x1e\x4b\x6d\x4c\x5b\x88",
                                14)),
            kBad);
  EXPECT_EQ(Do({"EXISTS", "foo"}), ":0");
  EXPECT_EQ(Restore("foo", "0", encoded, {"FREQ", "100"}), "+OK");  // accepted, no LFU policy
}

TEST_F(DumpTest, TlogKeepsItsEntriesCutoffAndTimestamps) {
  for (int ts = 1; ts <= 30; ts++) {
    ASSERT_EQ(Do({"TLOG", "INS", "log", "e" + std::to_string(ts % 7), std::to_string(ts)}), "+OK");
  }
  ASSERT_EQ(Do({"TLOG", "INS", "log", std::string("bin\0ary", 7), "30"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "TRIMAT", "log", "6"}), "+OK");
  const std::string before = Do({"TLOG", "GET", "log", "100"});
  Advance(5000);
  const std::string encoded = Dump("log");
  EXPECT_EQ(Restore("copy", "0", encoded), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "copy", "100"}), before);
  EXPECT_EQ(Do({"TLOG", "SIZE", "copy"}), ":26");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "copy"}), ":6");
  // The last write's time came along too.
  EXPECT_EQ(Do({"OBJECT", "IDLETIME", "copy"}), ":5");
  EXPECT_EQ(Do({"TLOG", "INS", "copy", "below", "5"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "copy"}), ":26");
  // IDLETIME sets when it was last written.
  EXPECT_EQ(Restore("idle", "0", encoded, {"IDLETIME", "1000"}), "+OK");
  EXPECT_EQ(Do({"OBJECT", "IDLETIME", "idle"}), ":1000");
}

TEST_F(DumpTest, TregAndPutVersionsKeepTheirTimestamps) {
  ASSERT_EQ(Do({"TREG", "SET", "reg", "v", "7"}), "+OK");
  EXPECT_EQ(Restore("reg2", "0", Dump("reg")), "+OK");
  EXPECT_EQ(R({"TREG", "GET", "reg2"}), "1) \"v\"\n2) (integer) 7");
  EXPECT_EQ(Do({"TREG", "SET", "reg2", "w", "6"}), "+OK");  // older: loses, as before
  EXPECT_EQ(R({"TREG", "GET", "reg2"}), "1) \"v\"\n2) (integer) 7");

  ASSERT_EQ(Do({"PUT", "p", "a", "TS", "200"}), "+OK");
  ASSERT_EQ(Do({"DELETE", "p", "TS", "100"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "b", "TS", "150"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "gone", "TS", "120", "TTL", "10"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "c", "TS", "90"}), "+OK");
  EXPECT_EQ(Restore("q", "0", Dump("p")), "+OK");
  for (const char* grace : {"0", "20", "40", "60", "100", "1000"}) {
    SCOPED_TRACE(grace);
    EXPECT_EQ(Do({"GET", "q", "GRACE", grace}), Do({"GET", "p", "GRACE", grace}));
    EXPECT_EQ(Do({"GETMETA", "q", "GRACE", grace}), Do({"GETMETA", "p", "GRACE", grace}));
  }
}

// A TREG or TLOG dumped by a server whose clock runs ahead is restored with its last write at
// this server's clock: a DELETE here afterwards covers it, before and after its versions merge.
TEST_F(DumpTest, ALocalDeleteCoversAKeyDumpedUnderAClockAhead) {
  Advance(10'000);  // the dumping server's clock
  ASSERT_EQ(Do({"TREG", "SET", "reg", "v", "7"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "log", "e", "1"}), "+OK");
  const std::string reg = Dump("reg");
  const std::string log = Dump("log");
  PinClock(kPinnedNowMs);  // the restoring server's clock
  ASSERT_EQ(Restore("reg2", "0", reg), "+OK");
  ASSERT_EQ(Restore("log2", "0", log), "+OK");
  EXPECT_EQ(Do({"OBJECT", "IDLETIME", "reg2"}), ":0");
  ASSERT_EQ(Do({"DELETE", "reg2"}), "+OK");
  ASSERT_EQ(Do({"DELETE", "log2"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "reg2", "log2"}), ":0");
  ASSERT_EQ(Do({"DEBUG", "COMPACT"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "reg2", "log2"}), ":0");
  EXPECT_EQ(Do({"TREG", "GET", "reg2"}), "nil");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log2"}), ":0");
}

// Every version comes back with its own expiry: one that expires in 5 s is gone from the copy
// after 6 s as from the original, one that never expires stays so, and a TREG's or TLOG's TTL
// comes along with ttl 0. A nonzero ttl is the latest any version expires.
TEST_F(DumpTest, EveryVersionKeepsItsOwnExpiry) {
  // GRACE 0 reads "never" (written last), GRACE 1000 "soon" (the greater timestamp).
  ASSERT_EQ(Do({"PUT", "p", "soon", "TS", std::to_string(kPinnedNowMs + 200), "TTL", "5s"}), "+OK");
  ASSERT_EQ(Do({"PUT", "p", "never", "TS", std::to_string(kPinnedNowMs + 100)}), "+OK");
  ASSERT_EQ(Do({"TREG", "SET", "reg", "v", "7"}), "+OK");
  ASSERT_EQ(Do({"PEXPIRE", "reg", "5000"}), ":1");
  const std::string payload = Dump("p");
  EXPECT_EQ(Restore("q", "0", payload), "+OK");
  EXPECT_EQ(Restore("capped", "10000", payload), "+OK");
  EXPECT_EQ(Restore("reg2", "0", Dump("reg")), "+OK");
  EXPECT_EQ(Do({"PTTL", "reg2"}), ":5000");
  const auto same = [&](const std::string& copy) {
    for (const char* grace : {"0", "1000"}) {
      SCOPED_TRACE(copy + " GRACE " + grace);
      EXPECT_EQ(Do({"GETMETA", copy, "GRACE", grace}), Do({"GETMETA", "p", "GRACE", grace}));
    }
  };
  same("q");
  EXPECT_EQ(Do({"PTTL", "q"}), ":-1");
  // Capped: "never" now expires at the ttl, "soon" keeps its earlier expiry.
  EXPECT_EQ(Do({"PTTL", "capped"}), ":10000");
  EXPECT_EQ(Do({"GETMETA", "capped", "GRACE", "1000"}), Do({"GETMETA", "p", "GRACE", "1000"}));
  EXPECT_EQ(Do({"GET", "q", "GRACE", "1000"}), "$soon");
  Advance(6000);
  same("q");
  EXPECT_EQ(Do({"GET", "q", "GRACE", "1000"}), "nil");
  EXPECT_EQ(Do({"GET", "q", "GRACE", "0"}), "$never");
  EXPECT_EQ(Do({"GET", "capped", "GRACE", "0"}), "$never");
  EXPECT_EQ(Do({"EXISTS", "reg2"}), ":0");
  Advance(5000);  // past the capping ttl
  EXPECT_EQ(Do({"GET", "capped", "GRACE", "0"}), "nil");
  EXPECT_EQ(Do({"GET", "q", "GRACE", "0"}), "$never");
}

// A payload of format 1 (no expiries: what servers before format 2 wrote) restores, its
// versions expiring at RESTORE's ttl.
TEST_F(DumpTest, AFormat1PayloadStillRestores) {
  const std::string format1(
      "EBB\x01\x00\x02\x03\x64\x00\x00\x00\x00\x00\x00\x00\x02\x00\x68\xe5\xcf\x8b\x01\x00"
      "\x00\x03\x62\x61\x72\xd8\x8e\xed\x28",
      32);
  EXPECT_EQ(Restore("old", "3000", format1), "+OK");
  EXPECT_EQ(Do({"GET", "old"}), "$bar");
  EXPECT_EQ(Do({"PTTL", "old"}), ":3000");
  EXPECT_EQ(Restore("forever", "0", format1), "+OK");
  EXPECT_EQ(Do({"PTTL", "forever"}), ":-1");
}

TEST_F(DumpTest, RetentionWindowLog) {
  ASSERT_EQ(Do({"CONFIG", "SET", "ttl-rule", "w:* 10s"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "w:log", "old", std::to_string(kPinnedNowMs - 8000)}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "w:log", "new", std::to_string(kPinnedNowMs)}), "+OK");
  EXPECT_EQ(Restore("w:copy", "0", Dump("w:log")), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "w:copy"}), ":2");
  Advance(2000);  // "old" leaves its window in the copy too
  EXPECT_EQ(Do({"TLOG", "GET", "w:copy"}), "[[$new,:" + std::to_string(kPinnedNowMs) + "]]");
  EXPECT_EQ(Do({"TLOG", "GET", "w:copy"}), Do({"TLOG", "GET", "w:log"}));
}

TEST_F(DumpTest, EventsAndWatch) {
  const size_t sub = ebb_->AddClient();
  ASSERT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "Eg"}), "+OK");
  ebb_->DoAs(sub, {"PSUBSCRIBE", "__keyevent@0__:*"});
  ebb_->TakePushed(sub);
  ASSERT_EQ(Do({"SET", "foo", "bar"}), "+OK");
  const std::string encoded = Dump("foo");
  EXPECT_EQ(Restore("k", "0", encoded), "+OK");
  EXPECT_EQ(Restore("k", std::to_string(kPinnedNowMs - 1), encoded, {"ABSTTL", "REPLACE"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "k"}), ":0");
  EXPECT_EQ(Pushed(sub),
            "[$pmessage,$__keyevent@0__:*,$__keyevent@0__:restore,$k] "
            "[$pmessage,$__keyevent@0__:*,$__keyevent@0__:del,$k]");
  const size_t other = ebb_->AddClient();
  EXPECT_EQ(Do({"WATCH", "w"}), "+OK");
  EXPECT_EQ(DoAs(other, {"RESTORE", "w", "0", encoded}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"EXEC"}), "nil");
}

TEST_F(DumpTest, InsideATransactionAndAcrossARestart) {
  ASSERT_EQ(Do({"TLOG", "INS", "log", "a", "1"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "b", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"DUMP", "log"}), "+QUEUED");
  Reply exec = Cmd({"EXEC"});
  ASSERT_EQ(exec.size(), 2u) << exec.ToString();
  const std::string encoded = exec[1].str();
  EXPECT_EQ(Restore("copy", "500", encoded), "+OK");
  ebb_->Reopen();
  PinClock(kPinnedNowMs);
  EXPECT_EQ(Do({"TLOG", "GET", "copy"}), "[[$b,:2],[$a,:1]]");
  EXPECT_EQ(Do({"TTL", "copy"}), ":1");
  EXPECT_EQ(Do({"PTTL", "copy"}), ":500");
}

}  // namespace
}  // namespace ebb::test
