// Helpers for tests of active-active meshes of spawned ebb-servers (docs/active-active.md): the
// `--peer` arguments, partitions with DEBUG PEER-LINK, and a bounded wait for every node to reach
// the same DEBUG DIGEST-LOGICAL.
// Thread-safety: none; use from the test's thread.
#pragma once

#include <hiredis/hiredis.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {

// DEBUG DIGEST-LOGICAL of the node.
std::string LogicalDigest(redisContext* c);

// `--peer 127.0.0.1 <port>` for each of `others`.
std::vector<std::string> PeerArgs(const std::vector<const TestServer*>& others);

// Polls (every 20 ms, up to `timeout`) until every connection answers the same logical digest;
// "" then, else the digests seen last.
std::string WaitConverged(const std::vector<redisContext*>& nodes,
                          std::chrono::milliseconds timeout = std::chrono::milliseconds(15000));

// Cuts (up = false) or heals the link between two nodes, both directions (DEBUG PEER-LINK).
// Asserts (gtest) that both nodes answer OK.
void SetLink(redisContext* a, const TestServer& a_server, redisContext* b,
             const TestServer& b_server, bool up);

}  // namespace ebb::test
