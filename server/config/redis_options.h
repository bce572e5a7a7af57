// Redis's configuration options that have no meaning for ebb, and the one Redis name ebb maps to
// its own: so that a redis.conf, or a command line written for redis-server, starts ebb.
//
//   - RedisOnlyOption(name): an option ebb accepts with any values and ignores, with the reason
//     the server logs once per line (RDB/AOF persistence, Redis's memory encodings and
//     allocator, its background tasks, daemonizing): nullptr for any other name.
//   - `appendfsync always|everysec|no` is ebb's `wal-fsync` with the same values.
// Pure functions; thread-safe.
#pragma once

#include <string_view>

namespace ebb::server {

// Why ebb ignores Redis's option `name` (lower case), or nullptr when it is not such an option.
const char* RedisOnlyOption(std::string_view name);

// The ebb option a Redis option name stands for ("appendfsync" -> "wal-fsync",
// "slave-read-only" -> "replica-read-only"), or `name`.
std::string_view MapRedisOptionName(std::string_view name);

}  // namespace ebb::server
