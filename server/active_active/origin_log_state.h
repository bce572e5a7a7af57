// The origin side's working types (ActiveActive: origin_log.cc): the run of log rows a pass of
// the reduction of expired values writes (the deltas kept in memory: wire_log.h; the peers'
// streams: peer_streams.h).
// Thread-safety: plain values, used on the io thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "server/active_active/peer_delta.h"

namespace ebb::server {

// What one pass of the reduction writes: the run of log rows from the first due one to the last
// it reduces.
struct ActiveActiveReducedRun {
  struct Reduced {
    PeerDelta delta;  // the reduced form (ReducedValueDelta)
    int64_t expire_at = 0;
    std::string first_digest;  // DeltaDigest of the delta as logged (and of each earlier form)
  };
  std::vector<std::pair<std::string, std::string>> rows;  // engine key, row to write
  std::vector<Reduced> reduced;
};

}  // namespace ebb::server
