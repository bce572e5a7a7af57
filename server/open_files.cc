#include "server/open_files.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ebb::server {

uint64_t OpenFilesWanted(int maxclients) {
  return static_cast<uint64_t>(std::max(maxclients, 0)) + kReservedFds + kDefaultTableCache;
}

OpenFilesPlan PlanOpenFiles(int maxclients, uint64_t limit, int table_cache) {
  OpenFilesPlan plan;
  const uint64_t spare = limit > kReservedFds ? limit - kReservedFds : 0;
  if (table_cache > 0) {
    plan.table_cache = table_cache;
  } else if (limit >= OpenFilesWanted(maxclients)) {
    plan.table_cache = kDefaultTableCache;
  } else {
    plan.table_cache =
        static_cast<int>(std::clamp<uint64_t>(spare / 4, kMinTableCache, kDefaultTableCache));
  }
  const uint64_t for_clients =
      spare > static_cast<uint64_t>(plan.table_cache) ? spare - plan.table_cache : 0;
  plan.maxclients = static_cast<int>(std::min<uint64_t>(for_clients, std::max(maxclients, 0)));
  return plan;
}

OpenFilesLimit RaiseOpenFilesLimit(uint64_t wanted) {
  rlimit current{};
  if (getrlimit(RLIMIT_NOFILE, &current) != 0) {
    return {.limit = 0, .raising = {OpenFilesCode::kUnreadable, std::strerror(errno)}};
  }
  const uint64_t old_limit = current.rlim_cur;
  if (old_limit >= wanted) return {.limit = old_limit};
  Result<OpenFilesCode> raising;
  // Try `wanted`, then lower in steps of 16 while the OS refuses.
  for (uint64_t best = wanted; best > old_limit;) {
    rlimit raised{};
    raised.rlim_cur = best;
    raised.rlim_max = current.rlim_max == RLIM_INFINITY ? RLIM_INFINITY
                                                        : std::max<rlim_t>(best, current.rlim_max);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return {.limit = best, .raising = raising};
    if (best == wanted) raising = {OpenFilesCode::kRefused, std::strerror(errno)};
    best = best > old_limit + 16 ? best - 16 : old_limit;
  }
  return {.limit = old_limit, .raising = raising};
}

}  // namespace ebb::server
