// TLOG and TREG through the command layer: the Jylis transcript, RESP2/RESP3 timestamps above
// 2^63-1, WRONGTYPE, arity and integer errors, HELP.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class TlogTest : public CommandTest {
 protected:
  long long Info(const std::string& section, const std::string& field) {
    return InfoField(Cmd({"INFO", section}).str(), field);
  }
};

TEST_F(TlogTest, JylisTranscript) {
  EXPECT_EQ(Do({"TLOG", "INS", "chat", "jemc: hello, world!", "1523258089149"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "chat", "world: hey jemc, how you been?", "1523258145906"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "chat", "world: must be nice...", "1523258158785"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "chat", "jemc: feeling pretty good these days", "1523258152362"}),
            "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "chat"}), ":4");
  EXPECT_EQ(Do({"TLOG", "GET", "chat"}),
            "[[$world: must be nice...,:1523258158785],"
            "[$jemc: feeling pretty good these days,:1523258152362],"
            "[$world: hey jemc, how you been?,:1523258145906],"
            "[$jemc: hello, world!,:1523258089149]]");
  EXPECT_EQ(Do({"TLOG", "GET", "chat", "1"}), "[[$world: must be nice...,:1523258158785]]");
  EXPECT_EQ(Do({"TLOG", "TRIM", "chat", "3"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "chat"}), ":3");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "chat"}), ":1523258145906");
  EXPECT_EQ(Do({"TLOG", "TRIMAT", "chat", "1523258152362"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "chat"}), ":2");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "chat"}), ":1523258152362");
  EXPECT_EQ(Do({"TLOG", "GET", "chat"}),
            "[[$world: must be nice...,:1523258158785],"
            "[$jemc: feeling pretty good these days,:1523258152362]]");
  EXPECT_EQ(Do({"TLOG", "CLR", "chat"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "chat"}), "[]");
}

TEST_F(TlogTest, CommandNamesAreCaseInsensitive) {
  EXPECT_EQ(Do({"tlog", "ins", "k", "v", "1"}), "+OK");
  EXPECT_EQ(Do({"TlOg", "GeT", "k"}), "[[$v,:1]]");
  EXPECT_EQ(Do({"treg", "set", "r", "v", "1"}), "+OK");
  EXPECT_EQ(Do({"TrEg", "gEt", "r"}), "[$v,:1]");
}

TEST_F(TlogTest, MissingKeys) {
  EXPECT_EQ(Do({"TLOG", "GET", "none"}), "[]");
  EXPECT_EQ(Do({"TLOG", "GET", "none", "5"}), "[]");
  EXPECT_EQ(Do({"TLOG", "SIZE", "none"}), ":0");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "none"}), ":0");
  EXPECT_EQ(Do({"TLOG", "CLR", "none"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "TRIM", "none", "2"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "none"}), ":0");
  EXPECT_EQ(Do({"TREG", "GET", "none"}), "nil");
}

TEST_F(TlogTest, GetCountZeroAndBadCounts) {
  Do({"TLOG", "INS", "k", "v", "1"});
  EXPECT_EQ(Do({"TLOG", "GET", "k", "0"}), "[]");
  for (std::string_view bad : {"-1", "abc", "1.5", "+1", " 1", "", "18446744073709551616"}) {
    EXPECT_EQ(Do({"TLOG", "GET", "k", bad}), "-ERR value is not an integer or out of range") << bad;
  }
  EXPECT_EQ(Do({"TLOG", "GET", "k", "18446744073709551615"}), "[[$v,:1]]");
}

TEST_F(TlogTest, BadTimestampsAndCounts) {
  const std::string kNotInt = "-ERR value is not an integer or out of range";
  for (std::string_view bad : {"-1", "x", "18446744073709551616", "1e3", "-0"}) {
    EXPECT_EQ(Do({"TLOG", "INS", "k", "v", bad}), kNotInt) << bad;
    EXPECT_EQ(Do({"TLOG", "TRIMAT", "k", bad}), kNotInt) << bad;
    EXPECT_EQ(Do({"TLOG", "TRIM", "k", bad}), kNotInt) << bad;
    EXPECT_EQ(Do({"TREG", "SET", "r", "v", bad}), kNotInt) << bad;
  }
  EXPECT_EQ(Do({"TLOG", "SIZE", "k"}), ":0");
  EXPECT_EQ(Do({"TREG", "GET", "r"}), "nil");
  // Digits only, but zero-padded numbers (redis-benchmark's __rand_int__) are fine.
  EXPECT_EQ(Do({"TLOG", "INS", "k", "v", "000000000042"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "k", "0001"}), "[[$v,:42]]");
  EXPECT_EQ(Do({"TREG", "SET", "r", "v", "007"}), "+OK");
  EXPECT_EQ(Do({"TREG", "GET", "r"}), "[$v,:7]");
}

TEST_F(TlogTest, ArityErrors) {
  auto wrong = [](std::string_view name) {
    return "-ERR wrong number of arguments for '" + std::string(name) + "' command";
  };
  EXPECT_EQ(Do({"TLOG", "INS", "k", "v"}), wrong("tlog|ins"));
  EXPECT_EQ(Do({"TLOG", "INS", "k", "v", "1", "2"}), wrong("tlog|ins"));
  EXPECT_EQ(Do({"TLOG", "GET"}), wrong("tlog|get"));
  EXPECT_EQ(Do({"TLOG", "GET", "k", "1", "2"}), wrong("tlog|get"));
  EXPECT_EQ(Do({"TLOG", "SIZE"}), wrong("tlog|size"));
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "k", "x"}), wrong("tlog|cutoff"));
  EXPECT_EQ(Do({"TLOG", "TRIMAT", "k"}), wrong("tlog|trimat"));
  EXPECT_EQ(Do({"TLOG", "TRIM", "k"}), wrong("tlog|trim"));
  EXPECT_EQ(Do({"TLOG", "CLR"}), wrong("tlog|clr"));
  EXPECT_EQ(Do({"TLOG"}), wrong("tlog"));
  EXPECT_EQ(Do({"TREG", "SET", "k", "v"}), wrong("treg|set"));
  EXPECT_EQ(Do({"TREG", "GET", "k", "x"}), wrong("treg|get"));
  EXPECT_EQ(Do({"TREG"}), wrong("treg"));
  EXPECT_EQ(Do({"TLOG", "NOPE", "k"}), "-ERR unknown subcommand 'NOPE'. Try TLOG HELP.");
  EXPECT_EQ(Do({"treg", "nope"}), "-ERR unknown subcommand 'nope'. Try TREG HELP.");
}

TEST_F(TlogTest, Help) {
  Reply tlog = Cmd({"TLOG", "HELP"});
  ASSERT_TRUE(tlog.is_array()) << tlog.ToString();
  std::string all;
  for (const Reply& line : tlog.elements()) {
    ASSERT_TRUE(line.is_status());
    all += line.str() + "\n";
  }
  for (std::string_view sub :
       {"INS <key> <value> <timestamp>", "GET <key> [<count>]",
        "RANGE <key> <from> <to> [COUNT <count>] [REV]",
        "RANGE <key> <from> <to> [COUNT <count>] [REV] [ALIGN <align>] AGGREGATION "
        "count|first|last <bucket> [BUCKETTIMESTAMP -|~|+]",
        "SIZE <key>", "CUTOFF <key>", "TRIMAT <key> <timestamp>", "TRIM <key> <count>", "CLR <key>",
        "HELP"}) {
    EXPECT_NE(all.find(std::string(sub) + "\n"), std::string::npos) << sub << " in\n" << all;
  }
  Reply treg = Cmd({"treg", "help"});
  ASSERT_TRUE(treg.is_array());
  all.clear();
  for (const Reply& line : treg.elements()) all += line.str() + "\n";
  EXPECT_NE(all.find("SET <key> <value> <timestamp>\n"), std::string::npos) << all;
  EXPECT_NE(all.find("GET <key>\n"), std::string::npos) << all;
}

// TLOG RANGE: entries by time, newest first or (REV) oldest first, bounded by COUNT; a seek to
// either end, from memory or from the engine's files alike.
TEST_F(TlogTest, RangeByTimestamps) {
  for (int ts = 10; ts <= 100; ts += 10) {
    ASSERT_EQ(Do({"TLOG", "INS", "log", "e" + std::to_string(ts), std::to_string(ts)}), "+OK");
  }
  ASSERT_EQ(Do({"TLOG", "INS", "log", "twin", "50"}), "+OK");  // two entries at one timestamp
  for (bool reopened : {false, true}) {
    if (reopened) ebb_->Reopen();
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "30", "55"}),
              "[[$twin,:50],[$e50,:50],[$e40,:40],[$e30,:30]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "30", "55", "REV"}),
              "[[$e30,:30],[$e40,:40],[$e50,:50],[$twin,:50]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "31", "49"}), "[[$e40,:40]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "COUNT", "2"}), "[[$e100,:100],[$e90,:90]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "count", "2", "rev"}),
              "[[$e10,:10],[$e20,:20]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "0", "10"}), "[[$e10,:10]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "100", "18446744073709551615", "REV"}), "[[$e100,:100]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "60", "50"}), "[]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "101", "+"}), "[]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "9", "REV"}), "[]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "COUNT", "0"}), "[]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "none", "-", "+"}), "[]");
  }
  // Entries below the cutoff are gone from every range.
  ASSERT_EQ(Do({"TLOG", "TRIMAT", "log", "80"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "REV", "COUNT", "1"}), "[[$e80,:80]]");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "79"}), "[]");
}

// TLOG RANGE ... AGGREGATION: the log's entries per bucket of timestamps, as TS.RANGE groups a
// series' samples: how many, the first (oldest) or the last (newest) value, reported at the
// bucket's start (BUCKETTIMESTAMP: its middle or end), newest bucket first unless REV, at most
// COUNT buckets.
TEST_F(TlogTest, RangeAggregatesBuckets) {
  // Buckets of 10: [0, 10) holds a b c, [10, 20) d e, [20, 30) f.
  const std::vector<std::pair<std::string, std::string>> entries = {
      {"a", "1"}, {"b", "3"}, {"c", "5"}, {"d", "12"}, {"e", "14"}, {"f", "27"}};
  for (const auto& [value, ts] : entries) {
    ASSERT_EQ(Do({"TLOG", "INS", "log", value, ts}), "+OK");
  }
  for (bool reopened : {false, true}) {
    if (reopened) ebb_->Reopen();
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "count", "10"}),
              "[[:1,:20],[:2,:10],[:3,:0]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "REV", "AGGREGATION", "COUNT", "10"}),
              "[[:3,:0],[:2,:10],[:1,:20]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "first", "10"}),
              "[[$f,:20],[$d,:10],[$a,:0]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "last", "10"}),
              "[[$f,:20],[$e,:10],[$c,:0]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "REV", "AGGREGATION", "last", "10"}),
              "[[$c,:0],[$e,:10],[$f,:20]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "COUNT", "2", "AGGREGATION", "count", "10"}),
              "[[:1,:20],[:2,:10]]");
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "COUNT", "0", "AGGREGATION", "count", "10"}),
              "[]");
  }
  EXPECT_EQ(
      Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "count", "10", "BUCKETTIMESTAMP", "+"}),
      "[[:1,:30],[:2,:20],[:3,:10]]");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "count", "10", "BUCKETTIMESTAMP",
                "mid"}),
            "[[:1,:25],[:2,:15],[:3,:5]]");
  // ALIGN 5: buckets start at 5 + 10k; a and b fall in the one starting at -5, reported at 0.
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "ALIGN", "5", "AGGREGATION", "count", "10"}),
            "[[:1,:25],[:3,:5],[:2,:0]]");
  // ALIGN - : the range's start, 3: [3, 13) holds b c d, [13, 23) e.
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "3", "14", "ALIGN", "-", "AGGREGATION", "count", "10"}),
            "[[:1,:13],[:3,:3]]");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "3", "14", "AGGREGATION", "count", "10"}),
            "[[:2,:10],[:2,:0]]");
  EXPECT_EQ(Do({"TLOG", "RANGE", "none", "-", "+", "AGGREGATION", "count", "10"}), "[]");
  // The largest timestamps: a bucket's end saturates at 2^64-1.
  ASSERT_EQ(Do({"TLOG", "INS", "big", "z", "18446744073709551615"}), "+OK");
  EXPECT_EQ(
      Do({"TLOG", "RANGE", "big", "-", "+", "AGGREGATION", "last", "10", "BUCKETTIMESTAMP", "end"}),
      "[[$z,$18446744073709551615]]");  // above 2^63-1: a bulk string in RESP2
}

TEST_F(TlogTest, RangeAggregationErrors) {
  Do({"TLOG", "INS", "log", "v", "1"});
  const std::string kSyntax = "-ERR syntax error";
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "avg", "10"}),
            "-ERR unknown TLOG aggregator: use count, first or last");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "count", "0"}),
            "-ERR TLOG bucket duration must be greater than zero");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "count", "-1"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "count"}), kSyntax);
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "ALIGN", "5"}), kSyntax);
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "BUCKETTIMESTAMP", "+"}), kSyntax);
  EXPECT_EQ(
      Do({"TLOG", "RANGE", "log", "-", "+", "AGGREGATION", "count", "10", "BUCKETTIMESTAMP", "x"}),
      kSyntax);
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "ALIGN", "x", "AGGREGATION", "count", "10"}),
            "-ERR value is not an integer or out of range");
  Do({"TREG", "SET", "reg", "v", "1"});
  EXPECT_EQ(Do({"TLOG", "RANGE", "reg", "-", "+", "AGGREGATION", "count", "10"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(TlogTest, RangeErrors) {
  const std::string kNotInt = "-ERR value is not an integer or out of range";
  Do({"TLOG", "INS", "log", "v", "1"});
  for (std::string_view bad : {"-1", "x", "++", "18446744073709551616", ""}) {
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", bad, "+"}), kNotInt) << bad;
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", bad}), kNotInt) << bad;
    EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "COUNT", bad}), kNotInt) << bad;
  }
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "COUNT"}), "-ERR syntax error");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-", "+", "LIMIT", "1"}), "-ERR syntax error");
  EXPECT_EQ(Do({"TLOG", "RANGE", "log", "-"}),
            "-ERR wrong number of arguments for 'tlog|range' command");
  Do({"TREG", "SET", "reg", "v", "1"});
  EXPECT_EQ(Do({"TLOG", "RANGE", "reg", "-", "+"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_F(TlogTest, WrongType) {
  const std::string kWrongType =
      "-WRONGTYPE Operation against a key holding the wrong kind of value";
  Do({"TREG", "SET", "reg", "v", "1"});
  Do({"TLOG", "INS", "log", "v", "1"});
  EXPECT_EQ(Do({"TLOG", "INS", "reg", "v", "1"}), kWrongType);
  EXPECT_EQ(Do({"TLOG", "GET", "reg"}), kWrongType);
  EXPECT_EQ(Do({"TLOG", "SIZE", "reg"}), kWrongType);
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "reg"}), kWrongType);
  EXPECT_EQ(Do({"TLOG", "TRIMAT", "reg", "5"}), kWrongType);
  EXPECT_EQ(Do({"TLOG", "TRIM", "reg", "1"}), kWrongType);
  EXPECT_EQ(Do({"TLOG", "CLR", "reg"}), kWrongType);
  EXPECT_EQ(Do({"TREG", "SET", "log", "v", "2"}), kWrongType);
  EXPECT_EQ(Do({"TREG", "GET", "log"}), kWrongType);
  EXPECT_EQ(Do({"TREG", "GET", "reg"}), "[$v,:1]");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$v,:1]]");
}

TEST_F(TlogTest, TimestampsAboveInt64AreBulkStringsInResp2) {
  EXPECT_EQ(Do({"TLOG", "INS", "k", "max", "18446744073709551615"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "k", "big", "9223372036854775808"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "k", "int", "9223372036854775807"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "k"}),
            "[[$max,$18446744073709551615],[$big,$9223372036854775808],"
            "[$int,:9223372036854775807]]");
  EXPECT_EQ(Do({"TLOG", "TRIMAT", "k", "9223372036854775808"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "k"}), "$9223372036854775808");
  // CLR at the maximum timestamp: the cutoff saturates and the log is emptied.
  EXPECT_EQ(Do({"TLOG", "CLR", "k"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "k"}), "$18446744073709551615");
  EXPECT_EQ(Do({"TLOG", "SIZE", "k"}), ":0");
  EXPECT_EQ(Do({"TLOG", "GET", "k"}), "[]");
  EXPECT_EQ(Do({"TLOG", "INS", "k", "again", "18446744073709551615"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "k"}), "[[$again,$18446744073709551615]]");
  EXPECT_EQ(Do({"TREG", "SET", "r", "v", "18446744073709551615"}), "+OK");
  EXPECT_EQ(Do({"TREG", "GET", "r"}), "[$v,$18446744073709551615]");
}

TEST_F(TlogTest, TimestampsAboveInt64AreBigNumbersInResp3) {
  ASSERT_NE(ebb_->Raw({"HELLO", "3"}).find("modules\r\n*0\r\n"), std::string::npos);
  EXPECT_EQ(ebb_->Raw({"TLOG", "INS", "k", "v", "18446744073709551615"}), "+OK\r\n");
  EXPECT_EQ(ebb_->Raw({"TLOG", "INS", "k", "w", "7"}), "+OK\r\n");
  EXPECT_EQ(ebb_->Raw({"TLOG", "GET", "k"}),
            "*2\r\n*2\r\n$1\r\nv\r\n(18446744073709551615\r\n*2\r\n$1\r\nw\r\n:7\r\n");
  EXPECT_EQ(ebb_->Raw({"TLOG", "TRIMAT", "k", "9223372036854775809"}), "+OK\r\n");
  EXPECT_EQ(ebb_->Raw({"TLOG", "CUTOFF", "k"}), "(9223372036854775809\r\n");
  EXPECT_EQ(ebb_->Raw({"TREG", "GET", "none"}), "_\r\n");
}

// TLOG GET of a log's newest entries is answered from the head cache after the first read; the
// cached head follows inserts, and trims, DEL and a new log under the same key are never
// answered from it.
TEST_F(TlogTest, NewestEntriesComeFromTheHeadCacheAndStayCurrent) {
  for (int ts = 1; ts <= 20; ts++) {
    ASSERT_EQ(Do({"TLOG", "INS", "feed", "e" + std::to_string(ts), std::to_string(ts)}), "+OK");
  }
  EXPECT_EQ(Do({"TLOG", "GET", "feed", "2"}), "[[$e20,:20],[$e19,:19]]");
  const long long hits = Info("storage", "tlog_cache_hits");
  EXPECT_EQ(Do({"TLOG", "GET", "feed", "2"}), "[[$e20,:20],[$e19,:19]]");
  EXPECT_EQ(Info("storage", "tlog_cache_hits"), hits + 1);
  EXPECT_GT(Info("storage", "tlog_cache_bytes"), 0);

  ASSERT_EQ(Do({"TLOG", "INS", "feed", "late", "15"}), "+OK");
  ASSERT_EQ(Do({"TLOG", "INS", "feed", "new", "30"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "feed", "3"}), "[[$new,:30],[$e20,:20],[$e19,:19]]");
  EXPECT_EQ(Info("storage", "tlog_cache_hits"), hits + 2);
  EXPECT_EQ(Do({"TLOG", "SIZE", "feed"}), ":22");

  ASSERT_EQ(Do({"TLOG", "TRIM", "feed", "2"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "feed", "5"}), "[[$new,:30],[$e20,:20]]");
  ASSERT_EQ(Do({"DEL", "feed"}), ":1");
  EXPECT_EQ(Do({"TLOG", "GET", "feed", "5"}), "[]");
  ASSERT_EQ(Do({"TLOG", "INS", "feed", "again", "1"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "feed", "5"}), "[[$again,:1]]");
}

}  // namespace
}  // namespace ebb::test
