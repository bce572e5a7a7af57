// LatencyMonitor as Redis 7's latency.c keeps events: the threshold, one sample per second (the
// largest), 160 samples, the all-time max, RESET by name without case; the engine's notes
// (storage/engine_latency.h) drained by Collect, their longest per event, from several threads;
// the GRAPH and DOCTOR texts for known samples. Durations are injected, never measured.
#include "server/services/latency_monitor.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "server/services/latency_report.h"
#include "storage/engine_latency.h"

namespace ebb::server {
namespace {

using storage::EngineEvent;
using storage::EngineLatency;
using storage::EngineLatencyTimer;

TEST(LatencyMonitorTest, ThresholdDecides) {
  LatencyMonitor m;
  m.AddIfNeeded("command", 500, 100, 0);  // monitor off
  m.AddIfNeeded("command", 9, 100, 10);   // below the threshold
  EXPECT_TRUE(m.events().empty());
  m.AddIfNeeded("command", 10, 100, 10);  // at it
  ASSERT_NE(m.Find("command"), nullptr);
  EXPECT_EQ(m.Find("command")->samples.size(), 1u);
  EXPECT_EQ(m.Find("Command"), nullptr);  // HISTORY's lookup is exact
}

TEST(LatencyMonitorTest, OneSamplePerSecondTheLargest) {
  LatencyMonitor m;
  m.Add("e", 30, 100);
  m.Add("e", 20, 100);  // same second, smaller: kept out
  m.Add("e", 40, 100);  // same second, larger: replaces
  m.Add("e", 5, 101);
  const LatencyMonitor::Series& s = *m.Find("e");
  ASSERT_EQ(s.samples.size(), 2u);
  EXPECT_EQ(s.samples[0].time_s, 100);
  EXPECT_EQ(s.samples[0].latency_ms, 40u);
  EXPECT_EQ(s.samples[1].time_s, 101);
  EXPECT_EQ(s.samples[1].latency_ms, 5u);
  EXPECT_EQ(s.max_ms, 40u);
}

TEST(LatencyMonitorTest, HistoryKeepsTheNewest160) {
  LatencyMonitor m;
  for (int64_t second = 0; second < 200; ++second) {
    m.Add("e", static_cast<uint64_t>(second == 3 ? 1000 : second), second);
  }
  const LatencyMonitor::Series& s = *m.Find("e");
  ASSERT_EQ(s.samples.size(), LatencyMonitor::kHistoryLen);
  EXPECT_EQ(s.samples.front().time_s, 40);
  EXPECT_EQ(s.samples.back().time_s, 199);
  EXPECT_EQ(s.max_ms, 1000u);  // all time, though its sample is gone
}

TEST(LatencyMonitorTest, ResetByNameWithoutCaseOrAll) {
  LatencyMonitor m;
  m.Add("command", 1, 1);
  m.Add("fast-command", 1, 1);
  m.Add("wal-fsync", 1, 1);
  EXPECT_EQ(m.Reset("nothing"), 0u);
  EXPECT_EQ(m.Reset("COMMAND"), 1u);
  EXPECT_EQ(m.Find("command"), nullptr);
  EXPECT_EQ(m.ResetAll(), 2u);
  EXPECT_TRUE(m.events().empty());
  EXPECT_EQ(m.ResetAll(), 0u);
}

TEST(LatencyMonitorTest, CollectDrainsTheEngineLongest) {
  auto engine = std::make_shared<EngineLatency>();
  LatencyMonitor m;
  m.set_engine(engine);
  engine->Record(EngineEvent::kWalFsync, 3000);
  engine->Record(EngineEvent::kWalFsync, 12500);
  engine->Record(EngineEvent::kWalFsync, 7000);
  engine->Record(EngineEvent::kCompaction, 900);  // under the threshold once in ms
  m.Collect(/*longest_disk_wait_us=*/4000, /*now_s=*/50, /*threshold_ms=*/2);
  ASSERT_NE(m.Find("wal-fsync"), nullptr);
  EXPECT_EQ(m.Find("wal-fsync")->samples.back().latency_ms, 12u);
  EXPECT_EQ(m.Find("wal-fsync")->samples.back().time_s, 50);
  EXPECT_EQ(m.Find("disk-read")->samples.back().latency_ms, 4u);
  EXPECT_EQ(m.Find("compaction"), nullptr);
  EXPECT_EQ(m.events().size(), 2u);
  // Drained: a second collection has nothing new; with the monitor off, notes are dropped.
  m.ResetAll();
  m.Collect(0, 51, 2);
  EXPECT_TRUE(m.events().empty());
  engine->Record(EngineEvent::kFileDrop, 50000);
  m.Collect(0, 52, 0);
  m.Collect(0, 53, 1);
  EXPECT_TRUE(m.events().empty());
}

TEST(LatencyMonitorTest, EngineEventNames) {
  EXPECT_EQ(EngineLatency::Name(EngineEvent::kWalFsync), "wal-fsync");
  EXPECT_EQ(EngineLatency::Name(EngineEvent::kMemtableFlush), "memtable-flush");
  EXPECT_EQ(EngineLatency::Name(EngineEvent::kCompaction), "compaction");
  EXPECT_EQ(EngineLatency::Name(EngineEvent::kPurgeCompaction), "purge-compaction");
  EXPECT_EQ(EngineLatency::Name(EngineEvent::kFileDrop), "file-drop");
}

TEST(LatencyMonitorTest, TimerRecordsUnlessCancelled) {
  EngineLatency engine;
  {
    EngineLatencyTimer timer(&engine, EngineEvent::kFileDrop);
    timer.Cancel();
  }
  EXPECT_EQ(engine.Take(EngineEvent::kFileDrop), 0u);
  { EngineLatencyTimer timer(nullptr, EngineEvent::kFileDrop); }  // no sink: nothing to do
  {
    EngineLatencyTimer timer(&engine, EngineEvent::kMemtableFlush);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // at least this long
  }
  EXPECT_GE(engine.Take(EngineEvent::kMemtableFlush), 2000u);
  EXPECT_EQ(engine.Take(EngineEvent::kMemtableFlush), 0u);
}

// The engine's threads record while the command thread drains: the largest is never lost.
TEST(LatencyMonitorTest, RecordFromManyThreads) {
  EngineLatency engine;
  std::vector<std::thread> threads;
  uint64_t drained_max = 0;
  for (uint64_t t = 0; t < 4; ++t) {
    threads.emplace_back([&engine, t] {
      for (uint64_t i = 1; i <= 10000; ++i) engine.Record(EngineEvent::kCompaction, i * 4 + t);
    });
  }
  for (int i = 0; i < 1000; ++i) {
    drained_max = std::max(drained_max, engine.Take(EngineEvent::kCompaction));
  }
  for (std::thread& thread : threads) thread.join();
  drained_max = std::max(drained_max, engine.Take(EngineEvent::kCompaction));
  EXPECT_EQ(drained_max, 10000u * 4 + 3);
}

TEST(LatencyReportTest, GraphOfKnownSamples) {
  LatencyMonitor m;
  m.Add("command", 10, 1000);
  m.Add("command", 20, 1030);
  m.Add("command", 40, 1090);
  EXPECT_EQ(LatencyGraph("command", *m.Find("command"), 1100),
            "command - high 40 ms, low 10 ms (all time high 40 ms)\n" + std::string(80, '-') +
                "\n"
                "  #\n"
                "  |\n"
                " o|\n"
                "_||\n"
                "   \n"
                "111\n"
                "mm0\n"
                "  s\n");  // 1m, 1m and 10s ago
}

TEST(LatencyReportTest, DoctorOfKnownSamples) {
  LatencyMonitor m;
  m.Add("command", 10, 1000);
  m.Add("command", 30, 1010);
  m.Add("wal-fsync", 7, 1010);
  const LatencyReportSettings settings{
      .threshold_ms = 5, .slowlog_slower_than_us = 10000, .wal_fsync_always = true};
  const std::string report = LatencyDoctorReport(m, settings, 1020);
  EXPECT_EQ(report.rfind(
                "Dave, I have observed latency spikes in this Redis instance. You don't mind "
                "talking about it, do you Dave?\n\n"
                "1. command: 2 latency spikes (average 20ms, mean deviation 10ms, period 10.00 "
                "sec). Worst all time event 30ms.\n"
                "2. wal-fsync: 1 latency spikes (average 7ms, mean deviation 0ms, period 10.00 "
                "sec). Worst all time event 7ms.\n"
                "\nI have a few advices for you:\n\n"
                "- Your current Slow Log configuration only logs events that are slower than your "
                "configured latency monitor threshold. Please use 'CONFIG SET "
                "slowlog-log-slower-than 5000'.\n",
                0),
            0u)
      << report;
  EXPECT_NE(report.find("relax the fsync policy"), std::string::npos) << report;
  EXPECT_EQ(LatencyDoctorReport(LatencyMonitor{}, {.threshold_ms = 0}, 1).rfind("I'm sorry", 0),
            0u);
}

}  // namespace
}  // namespace ebb::server
