// Crash loop: ebb-server is SIGKILLed at random moments while several clients write, then
// restarted on the same data directory; every write the server acknowledged must be there, and
// every MSET, every MULTI/EXEC transaction and every RENAME and COPY must be all or nothing.
//
// Bounded: EBB_CRASH_SECONDS (default 30) of cycles; `make soak` raises it. Each cycle's writers
// stop on their own when the server dies; every wait is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using std::chrono::steady_clock;

int CrashSeconds() {
  const char* env = std::getenv("EBB_CRASH_SECONDS");
  return env ? std::max(1, std::atoi(env)) : 30;
}

// What one writer had acknowledged, and which MSETs it attempted (acknowledged or not).
struct WriterLog {
  std::map<std::string, std::string> strings;               // PUT/SET key -> value
  std::set<std::pair<std::string, uint64_t>> tlog_entries;  // (value, ts) in its own log
  uint64_t treg_ts = 0;                                     // greatest acknowledged TREG SET ts
  std::vector<std::pair<std::string, std::string>> msets;   // key pairs, attempted
  std::vector<std::string> transactions;  // the suffix of each transaction's keys, attempted
  // The suffix of each RENAME of a whole TLOG (kRenamedEntries entries), attempted, and whether
  // the server acknowledged it; then a COPY of the renamed log, attempted.
  std::vector<std::pair<std::string, bool>> renames;
  int acked = 0;
};

constexpr int kRenamedEntries = 8;

// Writes until the connection fails; appends to `log` only after the server's reply.
void RunWriter(int port, int writer, int cycle, WriterLog* log) {
  redisContext* raw = redisConnect("127.0.0.1", port);
  RedisConnection c(raw);
  if (!c || c->err) return;
  const std::string id = std::to_string(writer);
  const std::string tlog_key = "log:" + id;
  const std::string treg_key = "reg:" + id;
  for (uint64_t i = 0; i < 1'000'000; ++i) {
    const std::string n = std::to_string(cycle) + ":" + std::to_string(i);
    const uint64_t ts = static_cast<uint64_t>(cycle) * 10'000'000 + i + 1;
    Reply r;
    switch (i % 7) {
      case 0: {
        const std::string key = "put:" + id + ":" + n, value = "p" + n;
        r = Cmd(c.get(), {"PUT", key, value});
        if (!r.is_status()) return;
        log->strings[key] = value;
        break;
      }
      case 1: {
        const std::string key = "set:" + id + ":" + n, value = "s" + n;
        r = Cmd(c.get(), {"SET", key, value});
        if (!r.is_status()) return;
        log->strings[key] = value;
        break;
      }
      case 2:
        r = Cmd(c.get(), {"TLOG", "INS", tlog_key, "m" + n, std::to_string(ts)});
        if (!r.is_status()) return;
        log->tlog_entries.emplace("m" + n, ts);
        break;
      case 3:
        r = Cmd(c.get(), {"TREG", "SET", treg_key, "v" + n, std::to_string(ts)});
        if (!r.is_status()) return;
        log->treg_ts = std::max(log->treg_ts, ts);
        break;
      case 4: {
        const std::string a = "ma:" + id + ":" + n, b = "mb:" + id + ":" + n;
        log->msets.emplace_back(a, b);
        r = Cmd(c.get(), {"MSET", a, "1", b, "2"});
        if (!r.is_status()) return;
        log->strings[a] = "1";
        log->strings[b] = "2";
        break;
      }
      case 5: {
        // One transaction over three types, pipelined as clients send it.
        const std::string sfx = id + ":" + n;
        log->transactions.push_back(sfx);
        Append(c.get(), {"MULTI"});
        Append(c.get(), {"SET", "tx:a:" + sfx, "1"});
        Append(c.get(), {"INCR", "tx:a:" + sfx});
        Append(c.get(), {"TLOG", "INS", "tx:log:" + sfx, "e", std::to_string(ts)});
        Append(c.get(), {"TREG", "SET", "tx:reg:" + sfx, "v", std::to_string(ts)});
        Append(c.get(), {"EXEC"});
        for (int k = 0; k < 5; ++k) {
          if (!ReadReply(c.get()).is_status()) return;  // OK, QUEUED x4
        }
        r = ReadReply(c.get());
        if (!r.is_array() || r.size() != 4) return;
        log->strings["tx:a:" + sfx] = "2";
        break;
      }
      case 6: {
        // A log filled and acknowledged, then renamed and copied, pipelined.
        const std::string sfx = id + ":" + n;
        for (int e = 0; e < kRenamedEntries; ++e) {
          Append(c.get(), {"TLOG", "INS", "rn:src:" + sfx, "e" + std::to_string(e),
                           std::to_string(ts + static_cast<uint64_t>(e))});
        }
        for (int e = 0; e < kRenamedEntries; ++e) {
          if (!ReadReply(c.get()).is_status()) return;
        }
        log->renames.emplace_back(sfx, false);
        Append(c.get(), {"RENAME", "rn:src:" + sfx, "rn:dst:" + sfx});
        Append(c.get(), {"COPY", "rn:dst:" + sfx, "rn:copy:" + sfx});
        if (!ReadReply(c.get()).is_status()) return;
        log->renames.back().second = true;
        if (ReadReply(c.get()).integer() != 1) return;
        break;
      }
    }
    ++log->acked;
  }
}

void Verify(redisContext* c, int writer, const WriterLog& log) {
  const std::string id = std::to_string(writer);
  for (const auto& [key, value] : log.strings) {
    Reply r = Cmd(c, {"GET", key});
    ASSERT_TRUE(r.is_string()) << "acknowledged write lost: " << key << " -> " << r.ToString();
    ASSERT_EQ(r.str(), value) << key;
  }
  for (const auto& [a, b] : log.msets) {
    Reply ra = Cmd(c, {"EXISTS", a}), rb = Cmd(c, {"EXISTS", b});
    ASSERT_EQ(ra.integer(), rb.integer()) << "MSET applied partly: " << a << " / " << b;
  }
  for (const std::string& sfx : log.transactions) {
    const long long a = Cmd(c, {"EXISTS", "tx:a:" + sfx}).integer();
    ASSERT_EQ(Cmd(c, {"EXISTS", "tx:log:" + sfx}).integer(), a) << "transaction torn: " << sfx;
    ASSERT_EQ(Cmd(c, {"EXISTS", "tx:reg:" + sfx}).integer(), a) << "transaction torn: " << sfx;
  }
  for (const auto& [sfx, acked] : log.renames) {
    const long long src = Cmd(c, {"EXISTS", "rn:src:" + sfx}).integer();
    const long long dst = Cmd(c, {"EXISTS", "rn:dst:" + sfx}).integer();
    ASSERT_EQ(src + dst, 1) << "RENAME torn: " << sfx;
    if (acked) {
      ASSERT_EQ(dst, 1) << "acknowledged RENAME lost: " << sfx;
    }
    ASSERT_EQ(Cmd(c, {"TLOG", "SIZE", src ? "rn:src:" + sfx : "rn:dst:" + sfx}).integer(),
              kRenamedEntries)
        << sfx;
    ASSERT_EQ(Cmd(c, {"TLOG", "GET", src ? "rn:src:" + sfx : "rn:dst:" + sfx, "100"}).size(),
              static_cast<size_t>(kRenamedEntries))
        << sfx;
    if (Cmd(c, {"EXISTS", "rn:copy:" + sfx}).integer() == 1) {
      ASSERT_EQ(dst, 1) << "COPY without its RENAME: " << sfx;
      ASSERT_EQ(Cmd(c, {"TLOG", "GET", "rn:copy:" + sfx, "100"}).size(),
                static_cast<size_t>(kRenamedEntries))
          << "COPY torn: " << sfx;
    }
  }
  if (!log.tlog_entries.empty()) {
    Reply all = Cmd(c, {"TLOG", "GET", "log:" + id});
    ASSERT_TRUE(all.is_array()) << all.ToString();
    std::set<std::pair<std::string, uint64_t>> present;
    for (const Reply& e : all.elements()) {
      present.emplace(e[0].str(), static_cast<uint64_t>(e[1].integer()));
    }
    for (const auto& entry : log.tlog_entries) {
      ASSERT_TRUE(present.count(entry))
          << "TLOG entry lost: " << entry.first << "@" << entry.second;
    }
  }
  if (log.treg_ts > 0) {
    Reply r = Cmd(c, {"TREG", "GET", "reg:" + id});
    ASSERT_TRUE(r.is_array()) << r.ToString();
    ASSERT_GE(static_cast<uint64_t>(r[1].integer()), log.treg_ts) << "TREG write lost";
  }
}

TEST(CrashLoop, AcknowledgedWritesSurviveSigkillUnderWalFsyncAlways) {
  constexpr int kWriters = 4;
  // Small memtables, so kills also land during flushes and compactions.
  const std::vector<std::string> kArgs = {"--wal-fsync", "always", "--memtable-size", "256kb"};
  TestServer server;
  ASSERT_TRUE(server.Start(kArgs)) << server.error();
  std::vector<WriterLog> logs(kWriters);
  std::mt19937 rng(static_cast<uint32_t>(TestSeed(20240917)));
  const auto deadline = steady_clock::now() + std::chrono::seconds(CrashSeconds());
  int cycles = 0, total_acked = 0;
  for (; cycles < 1000 && steady_clock::now() < deadline; ++cycles) {
    if (cycles > 0) {
      ASSERT_TRUE(server.Start(kArgs)) << server.error();
    }
    std::vector<std::thread> writers;
    std::vector<WriterLog> cycle_logs(kWriters);
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back(RunWriter, server.port(), w, cycles, &cycle_logs[w]);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 400));
    server.Kill();
    for (auto& t : writers) t.join();

    ASSERT_TRUE(server.Start(kArgs)) << server.error();
    RedisConnection c = server.Connect();
    ASSERT_TRUE(c);
    for (int w = 0; w < kWriters; ++w) {
      // This cycle's writes now; everything from earlier cycles once more at the end.
      WriterLog& log = logs[w];
      log.treg_ts = std::max(log.treg_ts, cycle_logs[w].treg_ts);
      cycle_logs[w].treg_ts = log.treg_ts;
      Verify(c.get(), w, cycle_logs[w]);
      if (HasFatalFailure()) return;
      log.strings.merge(cycle_logs[w].strings);
      log.tlog_entries.merge(cycle_logs[w].tlog_entries);
      log.msets.insert(log.msets.end(), cycle_logs[w].msets.begin(), cycle_logs[w].msets.end());
      log.transactions.insert(log.transactions.end(), cycle_logs[w].transactions.begin(),
                              cycle_logs[w].transactions.end());
      log.renames.insert(log.renames.end(), cycle_logs[w].renames.begin(),
                         cycle_logs[w].renames.end());
      total_acked += cycle_logs[w].acked;
    }
    c.reset();
    server.Kill();
  }
  ASSERT_TRUE(server.Start(kArgs)) << server.error();
  RedisConnection c = server.Connect();
  for (int w = 0; w < kWriters; ++w) {
    Verify(c.get(), w, logs[w]);
    if (HasFatalFailure()) return;
  }
  std::printf("crash loop: %d cycles, %d acknowledged writes verified\n", cycles, total_acked);
  EXPECT_GT(total_acked, 0);
}

// Under everysec a reply leaves only once its write is in the kernel (the server writes the
// WAL out before replying), so a SIGKILL — the process dies, the kernel keeps its page cache —
// loses no acknowledged write: everysec's bound (a second's worth) is for power cuts
// (power_cut_test.cc). Surviving values are exact and MSETs are all or nothing.
TEST(CrashLoop, EverysecKillLosesNoAcknowledgedWriteAndNeverTearsAnMset) {
  constexpr int kWriters = 2;
  TestServer server;
  ASSERT_TRUE(server.Start({"--wal-fsync", "everysec"})) << server.error();
  std::vector<WriterLog> logs(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) writers.emplace_back(RunWriter, server.port(), w, 0, &logs[w]);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  server.Kill();
  for (auto& t : writers) t.join();
  ASSERT_TRUE(server.Start({"--wal-fsync", "everysec"})) << server.error();
  RedisConnection c = server.Connect();
  int acked = 0, lost = 0;
  for (int w = 0; w < kWriters; ++w) {
    acked += logs[w].acked;
    for (const auto& [key, value] : logs[w].strings) {
      Reply r = Cmd(c.get(), {"GET", key});
      if (r.is_nil()) {
        ++lost;
      } else {
        ASSERT_EQ(r.str(), value) << key;
      }
    }
    for (const auto& [a, b] : logs[w].msets) {
      ASSERT_EQ(Cmd(c.get(), {"EXISTS", a}).integer(), Cmd(c.get(), {"EXISTS", b}).integer())
          << "MSET applied partly: " << a;
    }
    for (const std::string& sfx : logs[w].transactions) {
      const long long a = Cmd(c.get(), {"EXISTS", "tx:a:" + sfx}).integer();
      ASSERT_EQ(Cmd(c.get(), {"EXISTS", "tx:log:" + sfx}).integer(), a) << "torn: " << sfx;
      ASSERT_EQ(Cmd(c.get(), {"EXISTS", "tx:reg:" + sfx}).integer(), a) << "torn: " << sfx;
    }
  }
  std::printf("everysec SIGKILL: %d acknowledged writes, %d string keys lost\n", acked, lost);
  EXPECT_GT(acked, 0);
  EXPECT_EQ(lost, 0) << "acknowledged writes lost to a SIGKILL under everysec";
}

}  // namespace
}  // namespace ebb::test
