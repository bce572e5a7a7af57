// MemoryReport: what ebb knows of its own memory, read in one place for INFO memory, MEMORY STATS
// and MEMORY DOCTOR (docs/commands.md, "MEMORY").
//
// The allocator is glibc's: `used` is what the program holds (mallinfo2's in-use chunks plus its
// mmap'd blocks), `allocator_active` what the allocator holds from the system (its arenas plus
// those blocks), `rss` the process's resident pages. `peak` is the largest `used` the server
// cron (10 Hz) or a report has seen since start or CONFIG RESETSTAT, `startup` the `used` when
// the server began serving. Keys are kept on disk: the memory they cost is the engine's caches
// and indexes, not one in-memory object per key (so the report does not count them: reading it
// costs no engine reads).
//
// Thread-safety: the command (io) thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/services/server_context.h"

namespace ebb::server {

struct MemoryReport {
  uint64_t used = 0;
  uint64_t allocator_active = 0;
  uint64_t rss = 0;
  uint64_t peak = 0;
  uint64_t startup = 0;
  uint64_t replication_backlog = 0;  // the master's backlog ring, when it has one
  uint64_t clients_normal = 0;       // buffers of clients that are not replicas
  uint64_t clients_replicas = 0;     // buffers of replicas' connections
  uint64_t normal_clients = 0;       // how many of each
  uint64_t replica_clients = 0;
  uint64_t lua = 0;             // the Lua heap
  uint64_t script_cache = 0;    // cached scripts' source
  uint64_t cached_scripts = 0;  // how many
  uint64_t engine_memtables = 0;
  uint64_t engine_block_cache = 0;
  uint64_t engine_block_cache_capacity = 0;
  uint64_t engine_table_index = 0;
  uint64_t engine_table_filter = 0;
  uint64_t tlog_cache = 0;
  // The engine's problems that keep bytes from being reclaimed (INFO storage).
  std::string compaction_error;             // a compaction that keeps failing, or ""
  std::vector<std::string> damaged_tables;  // tables compaction found damaged and leaves alone

  // Memory that is not data: engine caches and indexes, client and replication buffers, scripts.
  uint64_t overhead() const;
};

// The program's allocated bytes now (MemoryReport::used).
uint64_t AllocatedBytes();
// Reads the report; also raises the recorded peak to `used`.
MemoryReport ReadMemoryReport(ServerContext& ctx);
// MEMORY DOCTOR's text for `r`: Redis 7's wording for the cases that apply to ebb, and the
// engine's problems (whatever the memory in use: they are not about the allocator).
std::string MemoryDoctorReport(const MemoryReport& r);

}  // namespace ebb::server
