#include "tests/support/peer_mesh.h"

#include <gtest/gtest.h>

#include <thread>

namespace ebb::test {

std::vector<std::string> PeerArgs(const std::vector<const TestServer*>& others) {
  std::vector<std::string> args;
  for (const TestServer* other : others) {
    args.insert(args.end(), {"--peer", "127.0.0.1", std::to_string(other->port())});
  }
  return args;
}

std::string LogicalDigest(redisContext* c) { return Cmd(c, {"DEBUG", "DIGEST-LOGICAL"}).str(); }

std::string WaitConverged(const std::vector<redisContext*>& nodes,
                          std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string seen;
  for (;;) {
    std::vector<std::string> digests;
    for (redisContext* c : nodes) digests.push_back(LogicalDigest(c));
    bool equal = true;
    seen.clear();
    for (const std::string& d : digests) {
      equal = equal && d == digests.front();
      seen += d + " ";
    }
    if (equal) return "";
    if (std::chrono::steady_clock::now() > deadline) return seen;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void SetLink(redisContext* a, const TestServer& a_server, redisContext* b,
             const TestServer& b_server, bool up) {
  const char* state = up ? "UP" : "DOWN";
  ASSERT_EQ(
      Cmd(a, {"DEBUG", "PEER-LINK", "127.0.0.1", std::to_string(b_server.port()), state}).str(),
      "OK");
  ASSERT_EQ(
      Cmd(b, {"DEBUG", "PEER-LINK", "127.0.0.1", std::to_string(a_server.port()), state}).str(),
      "OK");
}

}  // namespace ebb::test
