// MEMORY USAGE (a key's name and DUMP payload bytes, for every type), STATS, DOCTOR,
// MALLOC-STATS, PURGE and HELP, with Redis 7's replies and errors; INFO memory's peak and startup.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "server/metrics/memory_report.h"
#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class MemoryTest : public CommandTest {
 protected:
  long long Usage(std::string_view key) {
    const Reply r = Cmd({"MEMORY", "USAGE", key});
    EXPECT_TRUE(r.is_integer()) << r.ToString();
    return r.is_integer() ? r.integer() : -1;
  }
};

TEST_F(MemoryTest, UsageOfEveryType) {
  EXPECT_EQ(Do({"MEMORY", "USAGE", "none"}), "nil");
  ASSERT_EQ(Do({"SET", "small", "v"}), "+OK");
  ASSERT_EQ(Do({"SET", "large", std::string(1000, 'x')}), "+OK");
  EXPECT_GT(Usage("small"), 5);
  EXPECT_GT(Usage("large"), Usage("small") + 900);
  ASSERT_EQ(Do({"TREG", "SET", "reg", "value", "1"}), "+OK");
  EXPECT_GT(Usage("reg"), 8);
  ASSERT_EQ(Do({"TLOG", "INS", "log", "entry", "1"}), "+OK");
  const long long one_entry = Usage("log");
  for (int i = 2; i <= 100; ++i) {
    ASSERT_EQ(Do({"TLOG", "INS", "log", "entry", std::to_string(i)}), "+OK");
  }
  EXPECT_GT(Usage("log"), one_entry + 99 * 5);  // grows with the entries
  // The rows, wherever they live: the same after a restart.
  const long long before = Usage("large");
  ebb_->Reopen();
  EXPECT_EQ(Usage("large"), before);
  ASSERT_EQ(Do({"DEL", "large"}), ":1");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "large"}), "nil");
}

TEST_F(MemoryTest, UsageOptions) {
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Cmd({"MEMORY", "USAGE", "k", "SAMPLES", "0"}).integer(), Usage("k"));
  EXPECT_EQ(Cmd({"MEMORY", "USAGE", "k", "samples", "5"}).integer(), Usage("k"));
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "SAMPLES", "-1"}), "-ERR syntax error");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "SAMPLES", "x"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "SAMPLES"}), "-ERR syntax error");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "FAST"}), "-ERR syntax error");
  EXPECT_EQ(Do({"MEMORY", "USAGE"}), "-ERR wrong number of arguments for 'memory|usage' command");
}

TEST_F(MemoryTest, AllocatorSubcommands) {
  const Reply stats = Cmd({"MEMORY", "MALLOC-STATS"});
  ASSERT_TRUE(stats.is_string()) << stats.ToString();
  EXPECT_NE(stats.str().find("<malloc"), std::string::npos) << stats.str();
  EXPECT_EQ(Do({"MEMORY", "PURGE"}), "+OK");
  EXPECT_EQ(Do({"MEMORY", "NOPE"}), "-ERR unknown subcommand 'NOPE'. Try MEMORY HELP.");
  const Reply help = Cmd({"MEMORY", "HELP"});
  ASSERT_TRUE(help.is_array());
  std::string all;
  for (const Reply& line : help.elements()) all += line.str() + "\n";
  for (const char* line :
       {"USAGE <key> [SAMPLES <count>]\n", "STATS\n", "DOCTOR\n", "MALLOC-STATS\n", "PURGE\n"}) {
    EXPECT_NE(all.find(line), std::string::npos) << all;
  }
}

// Redis 7.0.15's fields in its order (without db.N), then ebb's own; figures that must agree do.
TEST_F(MemoryTest, StatsFieldsAsRedisOrdersThem) {
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  const Reply stats = Cmd({"MEMORY", "STATS"});
  ASSERT_TRUE(stats.is_array()) << stats.ToString();
  std::vector<std::string> names;
  std::map<std::string, double> value;
  for (size_t i = 0; i + 1 < stats.size(); i += 2) {
    names.push_back(stats[i].str());
    const Reply& v = stats[i + 1];
    value[stats[i].str()] = v.is_integer() ? static_cast<double>(v.integer()) : std::stod(v.str());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"peak.allocated",
                                             "total.allocated",
                                             "startup.allocated",
                                             "replication.backlog",
                                             "clients.slaves",
                                             "clients.normal",
                                             "cluster.links",
                                             "aof.buffer",
                                             "lua.caches",
                                             "functions.caches",
                                             "overhead.total",
                                             "keys.count",
                                             "keys.bytes-per-key",
                                             "dataset.bytes",
                                             "dataset.percentage",
                                             "peak.percentage",
                                             "allocator.allocated",
                                             "allocator.active",
                                             "allocator.resident",
                                             "allocator-fragmentation.ratio",
                                             "allocator-fragmentation.bytes",
                                             "allocator-rss.ratio",
                                             "allocator-rss.bytes",
                                             "rss-overhead.ratio",
                                             "rss-overhead.bytes",
                                             "fragmentation",
                                             "fragmentation.bytes",
                                             "engine.memtables",
                                             "engine.block-cache",
                                             "engine.table-index",
                                             "engine.table-filter",
                                             "tlog.cache"}));
  EXPECT_EQ(value["keys.count"], 1);
  EXPECT_GE(value["peak.allocated"], value["total.allocated"]);
  EXPECT_EQ(value["allocator.allocated"], value["total.allocated"]);
  EXPECT_EQ(value["dataset.bytes"] + value["overhead.total"], value["total.allocated"]);
  EXPECT_GT(value["engine.memtables"], 0);
  // INFO memory reads the same report.
  const std::string info = Cmd({"INFO", "memory"}).str();
  for (const char* field : {"used_memory_peak:", "used_memory_startup:"}) {
    EXPECT_NE(info.find(field), std::string::npos) << info;
  }
}

// MEMORY DOCTOR answers Redis's texts for the conditions ebb can judge: nearly empty, healthy, and
// each issue (figures made up here, so each case is certain).
TEST_F(MemoryTest, DoctorReports) {
  const Reply doctor = Cmd({"MEMORY", "DOCTOR"});
  ASSERT_TRUE(doctor.is_string()) << doctor.ToString();
  EXPECT_TRUE(doctor.str().starts_with("Hi Sam") || doctor.str().starts_with("Sam, I detected"))
      << doctor.str();
  server::MemoryReport r;
  r.used = 1 << 20;
  EXPECT_TRUE(server::MemoryDoctorReport(r).starts_with(
      "Hi Sam, this instance is empty or is using very little memory"));
  r.used = r.peak = r.rss = 100 << 20;
  EXPECT_EQ(server::MemoryDoctorReport(r),
            "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
            "occurs on this base.\n");
  r.peak = 200 << 20;
  r.rss = 150 << 20;
  r.normal_clients = 1;
  r.clients_normal = 1 << 20;
  r.cached_scripts = 1001;
  const std::string report = server::MemoryDoctorReport(r);
  EXPECT_TRUE(report.starts_with(
      "Sam, I detected a few issues in this Redis instance memory implants:\n\n"));
  for (const char* issue :
       {" * Peak memory:", " * High total RSS:", " * Big client buffers:", " * Many scripts:"}) {
    EXPECT_NE(report.find(issue), std::string::npos) << issue;
  }
  EXPECT_EQ(report.find(" * Big replica buffers:"), std::string::npos);
  EXPECT_TRUE(report.ends_with("I'm here to keep you safe, Sam. I want to help you.\n"));
  // The engine's problems are reported whatever the memory in use.
  server::MemoryReport small;
  small.used = 1 << 20;
  small.damaged_tables = {"000012.sst: bad block checksum"};
  const std::string engine = server::MemoryDoctorReport(small);
  EXPECT_NE(engine.find(" * Damaged table left out of compaction: 000012.sst"), std::string::npos)
      << engine;
  EXPECT_NE(engine.find("ebb-check --repair"), std::string::npos) << engine;
}

}  // namespace
}  // namespace ebb::test
