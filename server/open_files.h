// The process's open-file budget: Redis's adjustOpenFilesLimit, plus the engine's tables.
//
// ebb needs descriptors for its clients, for a table cache of open table files, and a reserve
// (kReservedFds, Redis's CONFIG_MIN_RESERVED_FDS) for the listeners, the log, the event loop
// and the engine's WAL, manifest and files being written. At start the server raises
// RLIMIT_NOFILE toward what all three want; when it cannot, the table cache gets a quarter of
// what the reserve leaves (between kMinTableCache and kDefaultTableCache) and maxclients is
// lowered to the rest, so clients can never take the descriptors the engine needs (the engine
// would otherwise fail to open a table or create its next WAL). CONFIG SET maxclients raises
// the limit again, or is refused as Redis refuses it.
// Thread-safety: pure functions, and RaiseOpenFilesLimit changes process state (call it from
// one thread).
#pragma once

#include <cstdint>

#include "server/core/result.h"

namespace ebb::server {

inline constexpr int kReservedFds = 32;
inline constexpr int kDefaultTableCache = 1000;
inline constexpr int kMinTableCache = 64;

struct OpenFilesPlan {
  int maxclients = 0;   // < 1: the limit is too low to start
  int table_cache = 0;  // table files the engine keeps open (storage::Options::max_open_files)
};

// Descriptors wanted for `maxclients` clients: clients + reserve + the default table cache.
uint64_t OpenFilesWanted(int maxclients);

// Divides `limit` descriptors for `maxclients` clients (see above). With a `table_cache`
// already fixed (> 0: the engine is open), only maxclients is computed.
OpenFilesPlan PlanOpenFiles(int maxclients, uint64_t limit, int table_cache = 0);

// Why the limit could not be raised to what was wanted; the detail is the OS error (strerror),
// which the server logs in Redis's warning.
enum class OpenFilesCode {
  kOk,
  kUnreadable,  // getrlimit failed: the limit is taken as 0
  kRefused,     // setrlimit refused `wanted`
};
struct OpenFilesLimit {
  uint64_t limit = 0;             // the soft limit in effect
  Result<OpenFilesCode> raising;  // how raising it to `wanted` went
};

// Raises RLIMIT_NOFILE's soft limit to `wanted` (and its hard limit, when privileged); if the
// OS refuses, tries lower in steps of 16 down to the current limit, as Redis does.
OpenFilesLimit RaiseOpenFilesLimit(uint64_t wanted);

}  // namespace ebb::server
