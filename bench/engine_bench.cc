// engine_bench: ebb's engine (storage::DB) and RocksDB on the same workloads, in one run.
//
// Same settings for both (engine_adapters.h): WAL on without fsync, 64 MiB memtable, 4 KiB
// blocks, bloom 10 bits per key, no compression, 256 MiB block cache, 16-byte keys, 100-byte
// values. Workloads (engine_workloads.h): fillseq; fillrandom then overwrite on one database,
// which is then fully compacted (both engines) before readrandom (hits and misses, reported
// separately), readseq and seekrandom; and the TTL workload (engine_ttl.h), with the rows that
// never expire among the others and in a key range of their own. Each engine runs a
// phase alone (ebb first, then RocksDB) on a fresh database that is closed before the other
// starts. Prints Markdown on stdout (progress on stderr).
//
// Usage: engine_bench [--num N] [--reads N] [--ttl_num N] [--ttl_rounds R] [--round_ms MS]
//                     [--rocksdb_manual_wal_flush 0|1] [--dir PARENT]
// N defaults to 1,000,000; reads (per read workload) to N/4; ttl_num to N. The databases live in a
// fresh temporary directory under PARENT (default /tmp), removed at the end. Not a test: it takes
// minutes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/engine_adapters.h"
#include "bench/engine_ttl.h"
#include "bench/engine_workloads.h"

namespace ebb::bench {
namespace {

struct Flags {
  uint64_t num = 1'000'000;
  uint64_t reads = 0;    // 0: num / 4
  uint64_t ttl_num = 0;  // 0: num
  int ttl_rounds = 12;
  int round_ms = 1000;
  std::string parent = "/tmp";
  bool rocksdb_manual_wal_flush = true;
};

constexpr const char* kUsage =
    "usage: engine_bench [--num N] [--reads N] [--ttl_num N] [--ttl_rounds R] [--round_ms MS]\n"
    "                    [--rocksdb_manual_wal_flush 0|1] [--dir PARENT]\n";

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  const std::map<std::string, std::function<void(const char*)>> setters = {
      {"--num", [&](const char* v) { f.num = std::stoull(v); }},
      {"--reads", [&](const char* v) { f.reads = std::stoull(v); }},
      {"--ttl_num", [&](const char* v) { f.ttl_num = std::stoull(v); }},
      {"--ttl_rounds", [&](const char* v) { f.ttl_rounds = std::stoi(v); }},
      {"--round_ms", [&](const char* v) { f.round_ms = std::stoi(v); }},
      {"--rocksdb_manual_wal_flush",
       [&](const char* v) { f.rocksdb_manual_wal_flush = std::stoi(v) != 0; }},
      {"--dir", [&](const char* v) { f.parent = v; }},
  };
  for (int i = 1; i < argc; i += 2) {
    const auto setter = setters.find(argv[i]);
    if (setter == setters.end() || i + 1 >= argc) {
      std::fprintf(stderr, "engine_bench: bad argument %s\n%s", argv[i], kUsage);
      std::exit(2);
    }
    try {
      setter->second(argv[i + 1]);
    } catch (const std::exception&) {
      std::fprintf(stderr, "engine_bench: bad value for %s: %s\n", argv[i], argv[i + 1]);
      std::exit(2);
    }
  }
  if (f.num == 0 || f.ttl_rounds < 0 || f.round_ms < 0) {
    std::fprintf(stderr, "engine_bench: --num must be > 0, rounds and round_ms >= 0\n%s", kUsage);
    std::exit(2);
  }
  if (f.reads == 0) f.reads = std::max<uint64_t>(f.num / 4, 1);
  if (f.ttl_num == 0) f.ttl_num = f.num;
  return f;
}

std::string g_tmp_dir;  // removed at exit, also when an engine call fails
void RemoveTmpDir() {
  std::error_code ec;
  if (!g_tmp_dir.empty()) std::filesystem::remove_all(g_tmp_dir, ec);
}

// One row of the results table.
struct Row {
  std::string name;
  Measurement ebb, rocks;
};

void Report(const Row& row) {
  std::fprintf(stderr, "  %-24s ebb %10.0f ops/s   RocksDB %10.0f ops/s\n", row.name.c_str(),
               row.ebb.ops_per_sec(), row.rocks.ops_per_sec());
}

// Opens a fresh database for each engine in turn, runs `body` on it, closes and removes it.
template <typename Body>
void ForEachEngine(const BenchSettings& settings, const std::string& phase, Body&& body) {
  for (bool ebb : {true, false}) {
    const std::string dir = g_tmp_dir + (ebb ? "/ebb-" : "/rocksdb-") + phase;
    {
      std::unique_ptr<BenchEngine> e = ebb ? OpenEbb(settings, dir) : OpenRocksDb(settings, dir);
      body(*e, ebb);
    }
    std::filesystem::remove_all(dir);
  }
}

std::string MachineLine() {
  std::string mem = "?", load = "?";
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    unsigned long long kb = 0;
    if (std::sscanf(line.c_str(), "MemTotal: %llu kB", &kb) == 1) {
      mem = std::to_string(kb / 1024 / 1024) + " GiB";
    }
  }
  std::ifstream loadavg("/proc/loadavg");
  std::getline(loadavg, load);
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return std::string(date) + " · nproc " + std::to_string(std::thread::hardware_concurrency()) +
         " · memory " + mem + " · load average at start " + load.substr(0, load.find(' ')) +
         " · RocksDB " + RocksDbVersion();
}

}  // namespace
}  // namespace ebb::bench

int main(int argc, char** argv) {
  using namespace ebb::bench;
  const Flags flags = ParseFlags(argc, argv);
  std::string tmpl = flags.parent + "/ebb_engine_bench.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::perror("engine_bench: mkdtemp");
    return 1;
  }
  g_tmp_dir = tmpl;
  std::atexit(RemoveTmpDir);
  const std::string machine = MachineLine();
  BenchSettings settings;
  settings.rocksdb_manual_wal_flush = flags.rocksdb_manual_wal_flush;
  std::vector<Row> rows;

  std::fprintf(stderr, "engine_bench: %llu keys, %llu reads, in %s\n",
               static_cast<unsigned long long>(flags.num),
               static_cast<unsigned long long>(flags.reads), g_tmp_dir.c_str());
  Row fillseq{"fillseq", {}, {}};
  ForEachEngine(settings, "seq", [&](BenchEngine& e, bool ebb) {
    (ebb ? fillseq.ebb : fillseq.rocks) = FillSeq(e, flags.num);
  });
  Report(fillseq);
  rows.push_back(fillseq);

  Row fillrandom{"fillrandom", {}, {}}, overwrite{"overwrite", {}, {}};
  Row hit{"readrandom (hits)", {}, {}}, miss{"readrandom (misses)", {}, {}};
  Row readseq{"readseq", {}, {}}, seek{"seekrandom", {}, {}};
  double compact_s[2] = {0, 0};
  ForEachEngine(settings, "rand", [&](BenchEngine& e, bool ebb) {
    const auto pick = [ebb](Row& r) -> Measurement& { return ebb ? r.ebb : r.rocks; };
    pick(fillrandom) = FillRandom(e, flags.num, 1);
    pick(overwrite) = Overwrite(e, flags.num, 2);
    const auto start = std::chrono::steady_clock::now();
    e.CompactAll();
    compact_s[ebb ? 0 : 1] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    pick(hit) = ReadRandom(e, flags.reads, flags.num, false, 3);
    pick(miss) = ReadRandom(e, flags.reads, flags.num, true, 4);
    pick(readseq) = ReadSeq(e);
    pick(seek) = SeekRandom(e, flags.reads, flags.num, 6);
  });
  for (Row* r : {&fillrandom, &overwrite, &hit, &miss, &readseq, &seek}) {
    Report(*r);
    rows.push_back(*r);
  }

  TtlConfig ttl;
  ttl.settings = settings;
  ttl.dir = g_tmp_dir;
  ttl.num = flags.ttl_num;
  ttl.rounds = flags.ttl_rounds;
  ttl.round_ms = flags.round_ms;
  const TtlResult ttl_result = RunTtlWorkload(ttl);
  rows.push_back(Row{"fillrandom with TTLs", ttl_result.ebb_fill, ttl_result.rocks_fill});
  // The same with the rows that never expire in a key range of their own, where whole files can
  // expire at once.
  TtlConfig grouped = ttl;
  grouped.group_live = true;
  const TtlResult grouped_result = RunTtlWorkload(grouped);

  std::printf("## engine_bench: ebb's engine vs RocksDB\n\n%s\n\n", machine.c_str());
  std::printf(
      "%llu keys (16 B) with 100 B values; %llu reads/seeks. Both engines: WAL on without fsync "
      "(%s), 64 MiB memtable, 4 KiB blocks, bloom 10 bits/key, no compression, 256 MiB block "
      "cache, default level sizing. One engine runs at a time, each on a fresh database. Reads "
      "run after a full compaction of the fillrandom + overwrite database (ebb %.1f s, RocksDB "
      "%.1f s). readrandom: hits and misses (in-range absent keys) are separate rows. ops/s is "
      "wall clock with one client thread; ops/CPU-s divides by the CPU time of the whole process "
      "(background threads included) over the same span. On a shared, loaded machine the "
      "numbers are indicative only.\n\n",
      static_cast<unsigned long long>(flags.num), static_cast<unsigned long long>(flags.reads),
      flags.rocksdb_manual_wal_flush
          ? "RocksDB with manual_wal_flush, so both buffer the WAL in the process and hand it to "
            "the OS in large writes"
          : "RocksDB's default of one write(2) per Put; ebb buffers 64 KiB",
      compact_s[0], compact_s[1]);
  std::printf(
      "| workload | ebb ops/s | RocksDB ops/s | ebb / RocksDB | ebb ops/CPU-s | RocksDB ops/CPU-s "
      "| ebb / RocksDB (CPU) | found (ebb / RocksDB) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  for (const Row& r : rows) {
    std::printf("| %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f | %llu / %llu |\n", r.name.c_str(),
                r.ebb.ops_per_sec(), r.rocks.ops_per_sec(),
                ratio(r.ebb.ops_per_sec(), r.rocks.ops_per_sec()), r.ebb.ops_per_cpu_sec(),
                r.rocks.ops_per_cpu_sec(),
                ratio(r.ebb.ops_per_cpu_sec(), r.rocks.ops_per_cpu_sec()),
                static_cast<unsigned long long>(r.ebb.found),
                static_cast<unsigned long long>(r.rocks.found));
  }
  PrintTtlReport(ttl, ttl_result);
  PrintTtlReport(grouped, grouped_result);
  return 0;
}
