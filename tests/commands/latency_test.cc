// LATENCY as Redis 7 answers it: nothing sampled while latency-monitor-threshold is 0; a command
// at least that long a `command` sample in LATEST, HISTORY, GRAPH and DOCTOR; RESET's counts; an
// engine event (a memtable flush held on its table file) collected into the table; HISTOGRAM's
// shape from the per-command histograms; the errors and HELP.
// No assertion depends on how fast anything ran: the samples come from DEBUG SLEEP and from a
// flush held open, which take at least their time, the threshold (40 ms) is far above what the
// other commands take, and the clock is pinned (DEBUG CLOCK).
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/services/server_context.h"
#include "storage/env/fault_injection_file_system.h"
#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

constexpr int64_t kPinnedMs = 1700000000000;
constexpr int64_t kPinnedS = kPinnedMs / 1000;

class LatencyTest : public CommandTest {
 protected:
  // No once-a-second WAL sync: the engine's events come only from what a test makes happen.
  std::vector<std::string> RunnerOptions() const override { return {"--wal-fsync", "no"}; }

  void SetThreshold(int ms) {
    ASSERT_EQ(Do({"CONFIG", "SET", "latency-monitor-threshold", std::to_string(ms)}), "+OK");
  }
  // LATEST's entry for `event` (an empty reply when there is none).
  Reply Latest(std::string_view event) {
    for (const Reply& entry : Cmd({"LATENCY", "LATEST"}).elements()) {
      if (entry[0].str() == event) return entry;
    }
    return {};
  }
};

TEST_F(LatencyTest, ThresholdZeroRecordsNothing) {
  EXPECT_EQ(Do({"CONFIG", "GET", "latency-monitor-threshold"}), "[$latency-monitor-threshold,$0]");
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.05"}), "+OK");
  EXPECT_EQ(Do({"LATENCY", "LATEST"}), "[]");
  EXPECT_EQ(Do({"LATENCY", "HISTORY", "command"}), "[]");
  EXPECT_EQ(Do({"LATENCY", "RESET"}), ":0");
  EXPECT_EQ(Cmd({"LATENCY", "DOCTOR"})
                .str()
                .rfind("I'm sorry, Dave, I can't do that. Latency "
                       "monitoring is disabled in this Redis instance.",
                       0),
            0u);
  EXPECT_EQ(Do({"CONFIG", "SET", "latency-monitor-threshold", "-1"}).substr(0, 30),
            "-ERR CONFIG SET failed (possib");
}

TEST_F(LatencyTest, SlowCommandInLatestAndHistory) {
  PinClock(kPinnedMs);
  SetThreshold(40);
  EXPECT_EQ(Cmd({"LATENCY", "DOCTOR"}).str(),
            "Dave, no latency spike was observed during the lifetime of this Redis instance, not "
            "in the slightest bit. I honestly think you ought to sit down calmly, take a stress "
            "pill, and think things over.\n");
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.05"}), "+OK");
  const Reply latest = Latest("command");
  ASSERT_EQ(latest.size(), 4u) << Cmd({"LATENCY", "LATEST"}).ToString();
  EXPECT_EQ(latest[1].integer(), kPinnedS);
  EXPECT_GE(latest[2].integer(), 50);
  EXPECT_EQ(latest[3].integer(), latest[2].integer());
  const Reply history = Cmd({"LATENCY", "HISTORY", "command"});
  ASSERT_EQ(history.size(), 1u) << history.ToString();
  EXPECT_EQ(history[0][0].integer(), kPinnedS);
  EXPECT_EQ(history[0][1].integer(), latest[2].integer());
  // A longer one in the same second replaces that second's sample; the next second adds one.
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.1"}), "+OK");
  EXPECT_EQ(Cmd({"LATENCY", "HISTORY", "command"}).size(), 1u);
  EXPECT_GE(Latest("command")[2].integer(), 100);
  Advance(1000);
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.05"}), "+OK");
  const Reply two = Cmd({"LATENCY", "HISTORY", "command"});
  ASSERT_EQ(two.size(), 2u) << two.ToString();
  EXPECT_EQ(two[0][0].integer(), kPinnedS);  // oldest first
  EXPECT_EQ(two[1][0].integer(), kPinnedS + 1);
  EXPECT_GE(two[0][1].integer(), 100);
  const Reply now = Latest("command");
  EXPECT_EQ(now[1].integer(), kPinnedS + 1);
  EXPECT_EQ(now[2].integer(), two[1][1].integer());
  EXPECT_EQ(now[3].integer(),
            two[0][1].integer() > two[1][1].integer() ? two[0][1].integer() : two[1][1].integer());
  EXPECT_EQ(Do({"LATENCY", "HISTORY", "no-such-event"}), "[]");
}

TEST_F(LatencyTest, GraphAndDoctor) {
  PinClock(kPinnedMs);
  SetThreshold(40);
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.05"}), "+OK");
  const std::string ms = std::to_string(Latest("command")[2].integer());
  // One sample: the bottom row's '_', a blank line, then its age ("0s") downwards.
  EXPECT_EQ(Cmd({"LATENCY", "GRAPH", "command"}).str(),
            "command - high " + ms + " ms, low " + ms + " ms (all time high " + ms + " ms)\n" +
                std::string(80, '-') + "\n \n \n \n_\n \n0\ns\n");
  const std::string doctor = Cmd({"LATENCY", "DOCTOR"}).str();
  EXPECT_EQ(doctor.rfind("Dave, I have observed latency spikes in this Redis instance. You don't "
                         "mind talking about it, do you Dave?\n\n1. command: 1 latency spikes "
                         "(average " +
                             ms +
                             "ms, mean deviation 0ms, period 1.00 sec). Worst all time "
                             "event " +
                             ms + "ms.\n",
                         0),
            0u)
      << doctor;
  EXPECT_NE(doctor.find("- Check your Slow Log to understand what are the commands you are "
                        "running which are too slow to execute."),
            std::string::npos)
      << doctor;
}

TEST_F(LatencyTest, ResetCountsTheEventsForgotten) {
  PinClock(kPinnedMs);
  SetThreshold(40);
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.05"}), "+OK");
  EXPECT_EQ(Do({"LATENCY", "RESET", "no-such-event"}), ":0");
  EXPECT_EQ(Do({"LATENCY", "RESET", "COMMAND", "command"}), ":1");  // names without case
  EXPECT_EQ(Do({"LATENCY", "HISTORY", "command"}), "[]");
  ASSERT_EQ(Do({"DEBUG", "SLEEP", "0.05"}), "+OK");
  const size_t events = Cmd({"LATENCY", "LATEST"}).size();
  EXPECT_GE(events, 1u);
  EXPECT_EQ(Do({"LATENCY", "RESET"}), ":" + std::to_string(events));
  EXPECT_EQ(Do({"LATENCY", "LATEST"}), "[]");
}

// A flush whose table file is held open by the disk takes at least as long as the hold: the
// engine's thread notes it and LATENCY collects it as a `memtable-flush` sample.
TEST_F(LatencyTest, EngineFlushIsSampled) {
  PinClock(kPinnedMs);
  SetThreshold(1);
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  storage::FaultInjectionFileSystem* disk = ebb_->context().disk_faults();
  ASSERT_NE(disk, nullptr);
  disk->SetHoldNewFiles(".sst");
  std::thread release([disk] {
    for (int i = 0; i < 10000 && disk->held_creations() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    disk->SetHoldNewFiles("");
  });
  const std::string flushed = Do({"DEBUG", "FLUSH-MEMTABLE"});
  release.join();
  ASSERT_EQ(flushed, "+OK");
  const Reply latest = Latest("memtable-flush");
  ASSERT_EQ(latest.size(), 4u) << Cmd({"LATENCY", "LATEST"}).ToString();
  EXPECT_EQ(latest[1].integer(), kPinnedS);
  EXPECT_GE(latest[2].integer(), 5);
  EXPECT_EQ(Cmd({"LATENCY", "HISTORY", "memtable-flush"}).size(), 1u);
}

// The buckets Redis reports: HdrHistogram's at 2 significant figures, stepped by powers of two
// from 1024 ns, in whole µs.
std::set<long long> RedisBucketsUs() {
  std::set<long long> out;
  for (int k = 0; k <= 20; ++k) out.insert(((1024LL << k) + (8LL << k) - 1) / 1000);
  return out;
}

TEST_F(LatencyTest, HistogramShape) {
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  ASSERT_EQ(Do({"SET", "k", "w"}), "+OK");
  ASSERT_EQ(Do({"CONFIG", "GET", "port"}).substr(0, 6), "[$port");
  const Reply all = Cmd({"LATENCY", "HISTOGRAM", "set", "config", "no-such-command"});
  // RESP2: the maps are flat arrays. `config` names its subcommand that ran.
  ASSERT_EQ(all.size(), 4u) << all.ToString();
  EXPECT_EQ(all[0].str(), "set");
  EXPECT_EQ(all[2].str(), "config|get");
  const Reply set = all[1];
  ASSERT_EQ(set.size(), 4u) << set.ToString();
  EXPECT_EQ(set[0].str(), "calls");
  EXPECT_EQ(set[1].integer(), 2);
  EXPECT_EQ(set[2].str(), "histogram_usec");
  const Reply buckets = set[3];
  ASSERT_GE(buckets.size(), 2u);
  const std::set<long long> redis_buckets = RedisBucketsUs();
  long long previous_us = -1, previous_calls = 0;
  for (size_t i = 0; i + 1 < buckets.size(); i += 2) {
    EXPECT_TRUE(redis_buckets.count(buckets[i].integer())) << buckets[i].integer();
    EXPECT_GT(buckets[i].integer(), previous_us);
    EXPECT_GT(buckets[i + 1].integer(), previous_calls);  // cumulative, empty buckets left out
    previous_us = buckets[i].integer();
    previous_calls = buckets[i + 1].integer();
  }
  EXPECT_EQ(previous_calls, 2);
  EXPECT_EQ(Do({"LATENCY", "HISTOGRAM", "config|get"}).substr(0, 20), "[$config|get,[$calls");
  EXPECT_EQ(Do({"LATENCY", "HISTOGRAM", "no-such-command"}), "[]");
  // CONFIG RESETSTAT empties them; it is then the only command that ran.
  ASSERT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");
  const Reply after_reset = Cmd({"LATENCY", "HISTOGRAM"});
  ASSERT_EQ(after_reset.size(), 2u) << after_reset.ToString();
  EXPECT_EQ(after_reset[0].str(), "config|resetstat");
  EXPECT_EQ(after_reset[1][1].integer(), 1);
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  ASSERT_EQ(Do({"SET", "k", "w"}), "+OK");
  // No names: every command that ran, SET among them.
  const Reply every = Cmd({"LATENCY", "HISTOGRAM"});
  bool has_set = false;
  for (size_t i = 0; i < every.size(); i += 2) has_set |= every[i].str() == "set";
  EXPECT_TRUE(has_set) << every.ToString();
  // RESP3: real maps.
  ASSERT_EQ(ebb_->Raw({"HELLO", "3"}).substr(0, 1), "%");
  const std::string resp3 = ebb_->Raw({"LATENCY", "HISTOGRAM", "set"});
  EXPECT_EQ(
      resp3.rfind("%1\r\n$3\r\nset\r\n%2\r\n$5\r\ncalls\r\n:2\r\n$14\r\nhistogram_usec\r\n%", 0),
      0u)
      << resp3;
}

TEST_F(LatencyTest, ErrorsAndHelp) {
  EXPECT_EQ(Do({"LATENCY", "NOPE"}), "-ERR unknown subcommand 'NOPE'. Try LATENCY HELP.");
  EXPECT_EQ(Do({"LATENCY"}), "-ERR wrong number of arguments for 'latency' command");
  EXPECT_EQ(Do({"LATENCY", "HISTORY"}),
            "-ERR wrong number of arguments for 'latency|history' command");
  EXPECT_EQ(Do({"LATENCY", "LATEST", "x"}),
            "-ERR wrong number of arguments for 'latency|latest' command");
  EXPECT_EQ(Do({"LATENCY", "GRAPH", "a", "b"}),
            "-ERR wrong number of arguments for 'latency|graph' command");
  EXPECT_EQ(Do({"LATENCY", "DOCTOR", "x"}),
            "-ERR wrong number of arguments for 'latency|doctor' command");
  EXPECT_EQ(Do({"LATENCY", "HELP", "xxx"}),
            "-ERR wrong number of arguments for 'latency|help' command");
  EXPECT_EQ(Do({"LATENCY", "GRAPH", "nothing"}), "-ERR No samples available for event 'nothing'");
  std::vector<std::string> lines;
  for (const Reply& line : Cmd({"LATENCY", "HELP"}).elements()) lines.push_back(line.str());
  const std::vector<std::string> redis = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Print this help."};
  EXPECT_EQ(lines, redis);
}

}  // namespace
}  // namespace ebb::test
