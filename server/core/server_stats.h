// ServerStats: the server's counters for INFO (stats and clients sections), reset by
// CONFIG RESETSTAT. Field names follow Redis's INFO fields.
// Thread-safety: none; updated and read on the command (io) thread only.
#pragma once

#include <cstdint>

namespace ebb::server {

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t total_net_input_bytes = 0;
  uint64_t total_net_output_bytes = 0;
  // Handlers count reads that found / missed a key. The dispatcher withdraws these two when a
  // restartable run comes back incomplete (server/dispatch/dispatcher.h); any other counter a
  // handler moves, it moves only after its write succeeded (a run that wrote is never withdrawn).
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  // Writes answered OK that arrived dead, so no read ever shows them (INFO stats
  // dead_on_arrival_*): PUT rows whose expiry had already passed, by where the expiry came from,
  // and TLOG INS entries below their log's cutoff or past its retention window.
  uint64_t dead_on_arrival_own_expiry = 0;  // PUT's own TTL, EXAT or PXAT
  uint64_t dead_on_arrival_ttl_rule = 0;
  uint64_t dead_on_arrival_default_ttl = 0;
  uint64_t dead_on_arrival_tlog_cutoff = 0;
  uint64_t dead_on_arrival_tlog_retention = 0;
  // The most memory allocated that the server cron or a report saw (INFO used_memory_peak).
  uint64_t used_memory_peak = 0;
  uint64_t total_error_replies = 0;
  uint64_t unexpected_error_replies = 0;
  uint64_t client_query_buffer_limit_disconnections = 0;
  uint64_t client_output_buffer_limit_disconnections = 0;
  uint64_t wal_group_commits = 0;  // SyncWal calls made for wal-fsync always batches
  // Restartable commands (server/dispatch/dispatcher.h): runs that came back incomplete and waited
  // for blocks; blocks read off the command thread for them (and the bytes those reads asked the
  // device for: a block, its trailer and the rest of the aligned pages they touch), and those
  // whose read failed; runs that
  // read inline because a request reached the bound on rounds or pinned bytes; and blocks read
  // inline on the command thread by commands after their first write (none do: every handler
  // reads first).
  uint64_t disk_waits = 0;
  uint64_t disk_reads = 0;
  uint64_t disk_read_bytes = 0;
  uint64_t disk_read_errors = 0;
  uint64_t disk_wait_fallbacks = 0;
  uint64_t inline_block_reads = 0;

  // The counters a handler moves (keyspace_hits, keyspace_misses), taken before a run and put
  // back when the run is withdrawn.
  struct HandlerCounts {
    uint64_t keyspace_hits;
    uint64_t keyspace_misses;
  };
  HandlerCounts handler_counts() const { return {keyspace_hits, keyspace_misses}; }
  void Withdraw(const HandlerCounts& before) {
    keyspace_hits = before.keyspace_hits;
    keyspace_misses = before.keyspace_misses;
  }

  // Everything above back to zero (CONFIG RESETSTAT).
  void Reset() { *this = ServerStats(); }
};

}  // namespace ebb::server
