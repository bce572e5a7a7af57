#include "tests/support/active_active_support.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string_view>
#include <thread>

namespace ebb::test {

std::string LogicalDigest(redisContext* c) { return Cmd(c, {"DEBUG", "DIGEST-LOGICAL"}).str(); }

std::vector<std::string> PeerArgs(const std::vector<const TestServer*>& others) {
  std::vector<std::string> args;
  for (const TestServer* other : others) {
    args.insert(args.end(), {"--peer", "127.0.0.1", std::to_string(other->port())});
  }
  return args;
}

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
  EXPECT_EQ(
      Cmd(a, {"DEBUG", "PEER-LINK", "127.0.0.1", std::to_string(b_server.port()), state}).str(),
      "OK");
  EXPECT_EQ(
      Cmd(b, {"DEBUG", "PEER-LINK", "127.0.0.1", std::to_string(a_server.port()), state}).str(),
      "OK");
}

RefusingPort::RefusingPort() { fd_ = BindFreeLoopbackPort(&port_); }

RefusingPort::~RefusingPort() {
  if (fd_ >= 0) close(fd_);
}

std::vector<std::string> RefusingPort::PeerArgs() const {
  return {"--peer", "127.0.0.1", std::to_string(port_)};
}

std::vector<LoggedDelta> ReadOriginLog(const TestServer& node) {
  std::vector<LoggedDelta> deltas;
  RedisConnection c = node.Connect();
  const std::string origin = Cmd(c.get(), {"PEER", "ID"}).str();
  EXPECT_EQ(origin.size(), 40u) << origin;
  // The reply is "CONTINUE <end offset> <byte position>"; a snapshot would mean the log no
  // longer starts at offset 1.
  const std::string start = Cmd(c.get(), {"PEER", "SYNC", std::string(40, 'f'), "1"}).str();
  EXPECT_EQ(start.rfind("CONTINUE ", 0), 0u) << start;
  if (start.rfind("CONTINUE ", 0) != 0) return deltas;
  const uint64_t end = std::stoull(start.substr(9));
  uint64_t offset = 0;
  while (offset < end) {
    void* raw = nullptr;
    const Reply r =
        ReplyFromHiredis(c.get(), redisGetReply(c.get(), &raw) == REDIS_OK ? raw : nullptr);
    if (r.is_array() && r.size() > 0 && r[0].str() == "tick") continue;
    if (!r.is_array() || r.size() < 5 || r[0].str() != "delta") {
      ADD_FAILURE() << "after offset " << offset << " of " << end << ": " << r.ToString();
      return deltas;
    }
    const uint64_t next = std::stoull(r[1].str());
    EXPECT_EQ(next, offset + 1) << "a gap in the origin log";
    offset = next;
    LoggedDelta delta{.origin = origin, .db = std::stoi(r[3].str())};
    for (size_t i = 4; i < r.size(); i++) delta.args.push_back(r[i].str());
    deltas.push_back(std::move(delta));
  }
  return deltas;
}

void ApplyInOrder(redisContext* node, const std::vector<LoggedDelta>& deltas) {
  for (const LoggedDelta& delta : deltas) {
    std::vector<std::string> args = {"DEBUG", "PEER-APPLY", delta.origin, std::to_string(delta.db)};
    args.insert(args.end(), delta.args.begin(), delta.args.end());
    const Reply r = Cmd(node, args);
    std::string what;
    for (size_t i = 4; i < args.size(); i++) what += " " + args[i];
    ASSERT_EQ(r.str(), "OK") << r.ToString() << " applying" << what;
  }
}

}  // namespace ebb::test
