// INFO as Redis 7 answers it: the sections one call selects (several names, `default`, `all`,
// `everything`, any case), in Redis's order and each once; commandstats (calls, rejected and
// failed calls per command row, subcommands as "cmd|sub"), errorstats by error code,
// latencystats (percentiles per command row, latency-tracking and its percentiles), and
// CONFIG RESETSTAT clearing them.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class InfoTest : public CommandTest {
 protected:
  std::string Info(std::initializer_list<std::string_view> args) { return Cmd(args).str(); }

  // The "# Title" lines of an INFO reply, in order.
  static std::vector<std::string> Titles(const std::string& info) {
    std::vector<std::string> titles;
    size_t pos = 0;
    while (pos < info.size()) {
      size_t end = info.find("\r\n", pos);
      if (end == std::string::npos) end = info.size();
      if (info.compare(pos, 2, "# ") == 0) titles.push_back(info.substr(pos + 2, end - pos - 2));
      pos = end + 2;
    }
    return titles;
  }

  // The value of `field` ("cmdstat_get") in an INFO reply, or "" when absent.
  static std::string Line(const std::string& info, const std::string& field) {
    const std::string key = "\r\n" + field + ":";
    const size_t at = ("\r\n" + info).find(key);
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size() - 2;
    return info.substr(begin, info.find("\r\n", begin) - begin);
  }
};

const std::vector<std::string> kDefault = {
    "Server", "Clients", "Memory",     "Persistence", "Stats",    "Replication", "Peers",
    "CPU",    "Modules", "Errorstats", "Cluster",     "Keyspace", "Storage"};

TEST_F(InfoTest, DefaultAllAndEverything) {
  EXPECT_EQ(Titles(Info({"INFO"})), kDefault);
  EXPECT_EQ(Titles(Info({"INFO", "default"})), kDefault);
  std::vector<std::string> all = kDefault;
  all.insert(all.begin() + 9, "Commandstats");
  all.insert(all.begin() + 11, "Latencystats");
  EXPECT_EQ(Titles(Info({"INFO", "all"})), all);
  EXPECT_EQ(Titles(Info({"INFO", "everything"})), all);
  EXPECT_EQ(Titles(Info({"INFO", "ALL"})), all);
}

TEST_F(InfoTest, SeveralSectionsInRedisOrderEachOnce) {
  EXPECT_EQ(Titles(Info({"INFO", "keyspace", "CPU", "server"})),
            (std::vector<std::string>{"Server", "CPU", "Keyspace"}));
  EXPECT_EQ(Titles(Info({"INFO", "cpu", "cpu", "commandSTATS"})),
            (std::vector<std::string>{"CPU", "Commandstats"}));
  // A section with `default`: the defaults and it; `all` with one: everything once.
  std::vector<std::string> with_commandstats = kDefault;
  with_commandstats.insert(with_commandstats.begin() + 9, "Commandstats");
  EXPECT_EQ(Titles(Info({"INFO", "commandstats", "default"})), with_commandstats);
  std::vector<std::string> all = with_commandstats;
  all.insert(all.begin() + 11, "Latencystats");
  EXPECT_EQ(Titles(Info({"INFO", "cpu", "all"})), all);
  // Names INFO does not know add nothing, as Redis (sentinel on a plain server).
  EXPECT_EQ(Info({"INFO", "sentinel"}), "");
  EXPECT_EQ(Titles(Info({"INFO", "sentinel", "cpu"})), (std::vector<std::string>{"CPU"}));
}

TEST_F(InfoTest, SectionFields) {
  // run_id: 40 hex characters, the same for the whole life of the server (Sentinel reads a
  // change as a restart).
  const std::string run_id = Line(Info({"INFO", "server"}), "run_id");
  EXPECT_EQ(run_id.size(), 40u) << run_id;
  EXPECT_EQ(run_id.find_first_not_of("0123456789abcdef"), std::string::npos) << run_id;
  EXPECT_EQ(Line(Info({"INFO"}), "run_id"), run_id);
  const std::string cpu = Info({"INFO", "cpu"});
  for (const char* field :
       {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children",
        "used_cpu_sys_main_thread", "used_cpu_user_main_thread"}) {
    EXPECT_NE(Line(cpu, field), "") << field;
  }
  const std::string replication = Info({"INFO", "replication"});
  EXPECT_EQ(Line(replication, "role"), "master");
  EXPECT_EQ(Line(replication, "connected_slaves"), "0");
  EXPECT_EQ(Line(replication, "master_repl_offset"), "0");
  EXPECT_EQ(Info({"INFO", "cluster"}), "# Cluster\r\ncluster_enabled:0\r\n");
  EXPECT_EQ(Info({"INFO", "modules"}), "# Modules\r\n");
}

TEST_F(InfoTest, CommandStatsCountCallsRejectionsAndFailures) {
  EXPECT_EQ(Do({"SET", "n", "1"}), "+OK");
  EXPECT_EQ(Do({"INCR", "n"}), ":2");
  EXPECT_EQ(Do({"SET", "s", "text"}), "+OK");
  EXPECT_EQ(Do({"INCR", "s"}), "-ERR value is not an integer or out of range");  // failed
  EXPECT_EQ(Do({"INCR"}), "-ERR wrong number of arguments for 'incr' command");  // rejected
  EXPECT_EQ(Do({"CONFIG", "GET", "databases"}), "[$databases,$16]");
  const std::string stats = Info({"INFO", "commandstats"});
  EXPECT_EQ(stats.substr(0, stats.find("\r\n")), "# Commandstats");
  const std::string set = Line(stats, "cmdstat_set");
  EXPECT_TRUE(set.starts_with("calls=2,usec=")) << set;
  EXPECT_TRUE(set.ends_with(",rejected_calls=0,failed_calls=0")) << set;
  EXPECT_NE(set.find(",usec_per_call="), std::string::npos) << set;
  const std::string incr = Line(stats, "cmdstat_incr");
  EXPECT_TRUE(incr.starts_with("calls=2,")) << incr;
  EXPECT_TRUE(incr.ends_with(",rejected_calls=1,failed_calls=1")) << incr;
  EXPECT_TRUE(Line(stats, "cmdstat_config|get").starts_with("calls=1,")) << stats;
  // Rows never called are not listed.
  EXPECT_EQ(Line(stats, "cmdstat_getrange"), "");
}

TEST_F(InfoTest, ErrorStatsByCodeAndReset) {
  EXPECT_EQ(Do({"SET", "s", "text"}), "+OK");
  EXPECT_EQ(Do({"INCR", "s"}), "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"NOSUCHCOMMAND"}).substr(0, 21), "-ERR unknown command ");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "1000"}), "+OK");
  EXPECT_EQ(Do({"GET", "log"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
  std::string errors = Info({"INFO", "errorstats"});
  EXPECT_EQ(Line(errors, "errorstat_ERR"), "count=2");
  EXPECT_EQ(Line(errors, "errorstat_WRONGTYPE"), "count=1");
  EXPECT_EQ(InfoField(Info({"INFO", "stats"}), "total_error_replies"), 3);
  // An error inside EXEC counts for the queued command and its code.
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"INCR", "s"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[-ERR value is not an integer or out of range]");
  errors = Info({"INFO", "errorstats"});
  EXPECT_EQ(Line(errors, "errorstat_ERR"), "count=3");
  EXPECT_TRUE(Line(Info({"INFO", "commandstats"}), "cmdstat_incr")
                  .ends_with(",rejected_calls=0,failed_calls=2"));

  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Info({"INFO", "errorstats"}), "# Errorstats\r\n");
  EXPECT_EQ(Line(Info({"INFO", "commandstats"}), "cmdstat_incr"), "");
  EXPECT_EQ(InfoField(Info({"INFO", "stats"}), "total_error_replies"), 0);
}

// A command a script calls counts as if a client had sent it: refused (rejected_calls) or failed
// (failed_calls), its error once in errorstats. The script's reply passing that error on counts
// as the script's failed call only, as Redis counts it.
TEST_F(InfoTest, ErrorsInsideScriptsCountOnce) {
  EXPECT_EQ(Do({"SET", "s", "text"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Do({"EVAL", "return redis.call('incr', 's')", "0"})
                .starts_with("-ERR value is not an integer or out of range script: "),
            true);
  EXPECT_EQ(Line(Info({"INFO", "errorstats"}), "errorstat_ERR"), "count=1");
  EXPECT_EQ(InfoField(Info({"INFO", "stats"}), "total_error_replies"), 1);
  std::string stats = Info({"INFO", "commandstats"});
  EXPECT_TRUE(Line(stats, "cmdstat_incr").ends_with(",rejected_calls=0,failed_calls=1")) << stats;
  EXPECT_TRUE(Line(stats, "cmdstat_eval").ends_with(",rejected_calls=0,failed_calls=1")) << stats;

  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Do({"EVAL", "local t = redis.pcall('get') return 1", "0"}), ":1");
  EXPECT_EQ(Line(Info({"INFO", "errorstats"}), "errorstat_ERR"), "count=1");
  stats = Info({"INFO", "commandstats"});
  EXPECT_TRUE(Line(stats, "cmdstat_get").starts_with("calls=0,")) << stats;
  EXPECT_TRUE(Line(stats, "cmdstat_get").ends_with(",rejected_calls=1,failed_calls=0")) << stats;
  EXPECT_TRUE(Line(stats, "cmdstat_eval").ends_with(",rejected_calls=0,failed_calls=0")) << stats;

  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Do({"EVAL", "return redis.pcall('get')", "0"}),
            "-ERR Wrong number of args calling Redis command from script");
  EXPECT_EQ(Line(Info({"INFO", "errorstats"}), "errorstat_ERR"), "count=1");
  EXPECT_EQ(InfoField(Info({"INFO", "stats"}), "total_error_replies"), 1);
  stats = Info({"INFO", "commandstats"});
  EXPECT_TRUE(Line(stats, "cmdstat_eval").ends_with(",rejected_calls=0,failed_calls=1")) << stats;
  // An error the script makes itself is the script's, counted once.
  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Do({"EVAL", "return redis.error_reply('MINE failed')", "0"}), "-MINE failed");
  EXPECT_EQ(Line(Info({"INFO", "errorstats"}), "errorstat_MINE"), "count=1");
}

// Redis 7's line: latency_percentiles_usec_<cmd>:p50=<usec>,p99=<usec>,p99.9=<usec>, three
// decimals each, the percentiles in increasing order giving values that do not decrease.
TEST_F(InfoTest, LatencyStatsPerCommandRow) {
  for (int i = 0; i < 20; ++i) ASSERT_EQ(Do({"SET", "k", std::to_string(i)}), "+OK");
  ASSERT_EQ(Do({"CONFIG", "GET", "maxclients"}).substr(0, 1), "[");
  const std::string info = Info({"INFO", "latencystats"});
  EXPECT_EQ(Titles(info), (std::vector<std::string>{"Latencystats"}));
  const std::string set = Line(info, "latency_percentiles_usec_set");
  double p50 = -1, p99 = -1, p999 = -1;
  ASSERT_EQ(std::sscanf(set.c_str(), "p50=%lf,p99=%lf,p99.9=%lf", &p50, &p99, &p999), 3) << set;
  EXPECT_GT(p50, 0);
  EXPECT_LE(p50, p99);
  EXPECT_LE(p99, p999);
  EXPECT_NE(set.find('.'), std::string::npos);
  EXPECT_NE(Line(info, "latency_percentiles_usec_config|get"), "");
  EXPECT_EQ(Line(info, "latency_percentiles_usec_get"), "");  // never called
  // Not a default section.
  EXPECT_EQ(Line(Info({"INFO"}), "latency_percentiles_usec_set"), "");
  // Other percentiles, printed as Redis prints them; "" prints none.
  EXPECT_EQ(Do({"CONFIG", "SET", "latency-tracking-info-percentiles", "0 50.5 100"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "GET", "latency-tracking-info-percentiles"}),
            "[$latency-tracking-info-percentiles,$0 50.5 100]");
  const std::string other = Line(Info({"INFO", "latencystats"}), "latency_percentiles_usec_set");
  EXPECT_EQ(std::sscanf(other.c_str(), "p0=%lf,p50.5=%lf,p100=%lf", &p50, &p99, &p999), 3) << other;
  EXPECT_EQ(Do({"CONFIG", "SET", "latency-tracking-info-percentiles", ""}), "+OK");
  EXPECT_EQ(Line(Info({"INFO", "latencystats"}), "latency_percentiles_usec_set"), "");
  EXPECT_NE(Info({"INFO", "latencystats"}).find("\r\nlatency_percentiles_usec_set:\r\n"),
            std::string::npos);
  EXPECT_EQ(Do({"CONFIG", "SET", "latency-tracking-info-percentiles", "101"}),
            "-ERR CONFIG SET failed (possibly related to argument "
            "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters "
            "should sit between [0.0,100.0]");
  EXPECT_EQ(Do({"CONFIG", "SET", "latency-tracking-info-percentiles", "a"}),
            "-ERR CONFIG SET failed (possibly related to argument "
            "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
            "parameters");
}

TEST_F(InfoTest, LatencyTrackingOffAndResetStat) {
  EXPECT_EQ(Do({"CONFIG", "GET", "latency-tracking"}), "[$latency-tracking,$yes]");
  EXPECT_EQ(Do({"CONFIG", "SET", "latency-tracking", "no"}), "+OK");
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  // Still counted in commandstats, not in latencystats.
  EXPECT_NE(Line(Info({"INFO", "commandstats"}), "cmdstat_set"), "");
  EXPECT_EQ(Line(Info({"INFO", "latencystats"}), "latency_percentiles_usec_set"), "");
  EXPECT_EQ(Do({"CONFIG", "SET", "latency-tracking", "yes"}), "+OK");
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_NE(Line(Info({"INFO", "latencystats"}), "latency_percentiles_usec_set"), "");
  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Line(Info({"INFO", "latencystats"}), "latency_percentiles_usec_set"), "");
}

// Writes that answer OK yet arrive dead are counted by reason, so an operator sees data that
// no read will ever show (a TS in the past beyond the TTL, a timestamp in seconds in a log).
class DeadOnArrivalTest : public InfoTest {
 protected:
  std::vector<std::string> RunnerOptions() const override {
    return {"--default-ttl", "1h", "--ttl-rule", "r:*", "7d", "u:*", "unlimited"};
  }
  std::string Counts() {
    const std::string info = Info({"INFO", "stats"});
    std::string out;
    for (const char* reason :
         {"own_expiry", "ttl_rule", "default_ttl", "tlog_cutoff", "tlog_retention"}) {
      out += Line(info, std::string("dead_on_arrival_") + reason) + " ";
    }
    return out;
  }
};

TEST_F(DeadOnArrivalTest, CountedByReasonAndReset) {
  EXPECT_EQ(Counts(), "0 0 0 0 0 ");
  EXPECT_EQ(Do({"PUT", "r:1", "v", "TS", "1000"}), "+OK");  // 1970 + 7 days
  EXPECT_EQ(Do({"PUT", "p:1", "v", "TS", "1000"}), "+OK");  // 1970 + 1 hour
  EXPECT_EQ(Do({"PUT", "o:1", "v", "TS", "1000", "TTL", "5s"}), "+OK");
  EXPECT_EQ(Do({"PUT", "o:2", "v", "PXAT", "5000"}), "+OK");
  EXPECT_EQ(Do({"PUT", "live", "v"}), "+OK");                        // default-ttl from now
  EXPECT_EQ(Do({"PUT", "n:1", "v", "TS", "1000", "NOTTL"}), "+OK");  // never expires
  EXPECT_EQ(Do({"PUT", "u:1", "v", "TS", "1000"}), "+OK");           // unlimited rule
  EXPECT_EQ(Counts(), "2 1 1 0 0 ");
  EXPECT_EQ(Do({"EXISTS", "r:1", "p:1", "o:1", "o:2", "live", "n:1", "u:1"}), ":3");

  EXPECT_EQ(Do({"TLOG", "INS", "r:log", "a", "1700000000"}), "+OK");  // seconds, window in ms
  EXPECT_EQ(Do({"TLOG", "INS", "u:log", "a", "10"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "TRIMAT", "u:log", "20"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "u:log", "b", "15"}), "+OK");  // below the cutoff
  EXPECT_EQ(Do({"TLOG", "INS", "u:log", "c", "25"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "INS", "u:log", "c", "25"}), "+OK");  // a duplicate is not dead
  EXPECT_EQ(Counts(), "2 1 1 1 1 ");
  EXPECT_EQ(Do({"TLOG", "SIZE", "u:log"}), ":1");

  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Counts(), "0 0 0 0 0 ");
}

}  // namespace
}  // namespace ebb::test
