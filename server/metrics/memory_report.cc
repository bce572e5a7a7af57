#include "server/metrics/memory_report.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "server/core/client.h"
#include "server/replication/backlog.h"
#include "server/replication/master.h"
#include "server/scripting/script_engine.h"
#include "storage/stats.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

uint64_t RssBytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

constexpr uint64_t kMiB = 1024 * 1024;

}  // namespace

uint64_t MemoryReport::overhead() const {
  return replication_backlog + clients_normal + clients_replicas + lua + script_cache +
         engine_memtables + engine_block_cache + engine_table_index + engine_table_filter +
         tlog_cache;
}

uint64_t AllocatedBytes() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

MemoryReport ReadMemoryReport(ServerContext& ctx) {
  MemoryReport r;
  const struct mallinfo2 mi = mallinfo2();
  r.used = mi.uordblks + mi.hblkhd;
  r.allocator_active = mi.arena + mi.hblkhd;
  r.rss = RssBytes();
  ctx.stats().used_memory_peak = std::max(ctx.stats().used_memory_peak, r.used);
  r.peak = ctx.stats().used_memory_peak;
  r.startup = ctx.startup_memory();
  if (const ReplicationMaster* master = ctx.replication_master()) {
    if (master->backlog() != nullptr) r.replication_backlog = master->backlog()->capacity();
  }
  for (const auto& [id, client] : ctx.clients().all()) {
    const uint64_t bytes = client->memory().total;
    (client->is_replica() ? r.clients_replicas : r.clients_normal) += bytes;
    (client->is_replica() ? r.replica_clients : r.normal_clients)++;
  }
  r.lua = ctx.scripts().lua_memory();
  r.script_cache = ctx.scripts().scripts_memory();
  r.cached_scripts = ctx.scripts().script_count();
  r.tlog_cache = ctx.MemoryNow().tlog_cache;
  if (ctx.has_keyspace()) {
    const storage::Stats s = ctx.keyspace().db().GetStats();
    r.engine_memtables = s.memtable_bytes;
    r.engine_block_cache = s.block_cache_bytes;
    r.engine_block_cache_capacity = s.block_cache_capacity;
    r.engine_table_index = s.table_index_bytes;
    r.engine_table_filter = s.table_filter_bytes;
    r.compaction_error = s.compaction_error;
    r.damaged_tables = s.damaged_tables;
  }
  return r;
}

namespace {

// The engine's problems: bytes that stay on disk and in its caches until they are solved.
std::string EngineIssues(const MemoryReport& r) {
  std::string issues;
  if (!r.compaction_error.empty()) {
    issues += " * Compaction is failing: " + r.compaction_error +
              ". Expired and overwritten data are not reclaimed until it succeeds; check the "
              "disk's free space and the log.\n\n";
  }
  for (const std::string& table : r.damaged_tables) {
    issues += " * Damaged table left out of compaction: " + table +
              ". Its space is not reclaimed; stop the server and run `ebb-check --repair` on "
              "the data directory to keep what is readable.\n\n";
  }
  return issues;
}

// Redis's getMemoryDoctorReport, for the conditions glibc's figures let ebb judge the same way.
std::string AllocatorIssues(const MemoryReport& r) {
  std::string issues;
  if (static_cast<double>(r.peak) / static_cast<double>(r.used) > 1.5) {
    issues +=
        " * Peak memory: In the past this instance used more than 150% the memory that is "
        "currently using. The allocator is normally not able to release memory after a peak, so "
        "you can expect to see a big fragmentation ratio, however this is actually harmless and "
        "is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is "
        "currently bigger than expected, the memory will be used as soon as you fill the Redis "
        "instance with more data. If the memory peak was only occasional and you want to try to "
        "reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is "
        "to shutdown and restart the instance.\n\n";
  }
  if (static_cast<double>(r.rss) / static_cast<double>(r.used) > 1.4 &&
      r.rss > r.used + 10 * kMiB) {
    issues +=
        " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
        "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
        "than the sum of the logical allocations Redis performed). This problem is usually due "
        "either to a large peak memory (check if there is a peak memory entry above in the "
        "report) or may result from a workload that causes the allocator to fragment memory a "
        "lot. If the problem is a large peak memory, then there is no issue. Otherwise, make "
        "sure you are using the Jemalloc allocator and not the default libc malloc. Note: The "
        "currently used allocator is \"libc\".\n\n";
  }
  if (r.replica_clients > 0 && r.clients_replicas / r.replica_clients > 10 * kMiB) {
    issues +=
        " * Big replica buffers: The replica output buffers in this instance are greater than "
        "10MB for each replica (on average). This likely means that there is some replica "
        "instance that is struggling receiving data, either because it is too slow or because "
        "of networking issues. As a result, data piles on the master output buffers. Please try "
        "to identify what replica is not receiving data correctly and why. You can use the INFO "
        "output in order to check the replicas delays and the CLIENT LIST command to check the "
        "output buffers of each replica.\n\n";
  }
  if (r.normal_clients > 0 && r.clients_normal / r.normal_clients > 200 * 1024) {
    issues +=
        " * Big client buffers: The clients output buffers in this instance are greater than "
        "200K per client (on average). This may result from different causes, like Pub/Sub "
        "clients subscribed to channels bot not receiving data fast enough, so that data piles "
        "on the Redis instance output buffer, or clients sending commands with large replies or "
        "very large sequences of commands in the same pipeline. Please use the CLIENT LIST "
        "command in order to investigate the issue if it causes problems in your instance, or "
        "to understand better why certain clients are using a big amount of memory.\n\n";
  }
  if (r.cached_scripts > 1000) {
    issues +=
        " * Many scripts: There seem to be many cached scripts in this instance (more than "
        "1000). This may be because scripts are generated and `EVAL`ed, instead of being "
        "parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT "
        "FLUSH` is called periodically, the scripts' caches may end up consuming most of your "
        "memory.\n\n";
  }
  return issues;
}

}  // namespace

std::string MemoryDoctorReport(const MemoryReport& r) {
  const bool little = r.used < 5 * kMiB;
  const std::string issues = EngineIssues(r) + (little ? "" : AllocatorIssues(r));
  if (!issues.empty()) {
    return "Sam, I detected a few issues in this Redis instance memory implants:\n\n" + issues +
           "I'm here to keep you safe, Sam. I want to help you.\n";
  }
  if (little) {
    return "Hi Sam, this instance is empty or is using very little memory, my issues detector "
           "can't be used in these conditions. Please, leave for your mission on Earth and fill "
           "it with some data. The new Sam and I will be back to our programming as soon as I "
           "finished rebooting.\n";
  }
  return "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
         "occurs on this base.\n";
}

}  // namespace ebb::server
