// Helpers for tests of active-active peers (docs/active-active.md) over spawned ebb-servers:
// the `peer` options of a mesh, DEBUG DIGEST-LOGICAL, waiting for convergence, cutting links.
// Thread-safety: none; use from the test's thread.
#pragma once

#include <hiredis/hiredis.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {

// `--peer 127.0.0.1 <port>` for each of `others`.
std::vector<std::string> PeerArgs(const std::vector<const TestServer*>& others);

// DEBUG DIGEST-LOGICAL of the node behind `c`.
std::string LogicalDigest(redisContext* c);

// Polls (every 20 ms, up to `timeout`) until every connection answers the same logical digest;
// "" then, else the digests seen last.
std::string WaitConverged(const std::vector<redisContext*>& nodes,
                          std::chrono::milliseconds timeout = std::chrono::milliseconds(15000));

// The link between two nodes cut (both directions) or healed (DEBUG PEER-LINK).
void SetLink(redisContext* a, const TestServer& a_server, redisContext* b,
             const TestServer& b_server, bool up);

}  // namespace ebb::test
