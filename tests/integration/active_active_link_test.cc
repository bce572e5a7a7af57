// A peer link's stream against a spawned ebb-server (server/active_active/peer_link.h): the io
// thread applies one batch of the stream per turn of its loop, so a fast stream of large deltas
// does not hold the node's clients until all of it is applied.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/eventually.h"
#include "tests/support/played_peer.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// Deltas of 300 KB each: one batch each (PeerLink::kBatchBytes), all read by the link while the
// node's loop sleeps. A client's request sent meanwhile is answered after a batch or two, not
// after the whole stream.
TEST(ActiveActiveLinkTest, ClientsAreServedBetweenTheBatchesOfAFastStream) {
  constexpr int kDeltas = 40;
  PlayedPeer peer;
  ASSERT_TRUE(peer.listening());
  TestServer node;
  ASSERT_TRUE(node.Start({"--peer", "127.0.0.1", std::to_string(peer.port())})) << node.error();
  ASSERT_TRUE(peer.Handshake());
  RedisConnection c = node.Connect();
  ASSERT_TRUE(Eventually([&] {
    return InfoText(c.get(), "peers", "peer0").find("state=connected") != std::string::npos;
  }));

  RawConnection sleeper(node.port());
  ASSERT_TRUE(sleeper.Send("*3\r\n$5\r\nDEBUG\r\n$5\r\nSLEEP\r\n$1\r\n2\r\n"));
  const std::string value(300 * 1024, 'v');
  std::vector<std::string> keys = {"EXISTS"};
  for (int i = 1; i <= kDeltas; i++) {
    const std::string key = "big:" + std::to_string(i);
    keys.push_back(key);
    ASSERT_TRUE(peer.SendDelta(i, 0, {"put", key, value, "TS", "1", "NOTTL"}));
  }
  // Sent while the loop still sleeps: the link has read the stream by the time it wakes.
  RawConnection client(node.port());
  std::string exists = "*" + std::to_string(keys.size()) + "\r\n";
  for (const std::string& k : keys) exists += "$" + std::to_string(k.size()) + "\r\n" + k + "\r\n";
  ASSERT_TRUE(client.Send(exists));
  EXPECT_EQ(sleeper.ReadUntil("\r\n", 20000), "+OK\r\n");
  const std::string answer = client.ReadUntil("\r\n", 20000);
  ASSERT_EQ(answer.rfind(':', 0), 0u) << answer;
  EXPECT_LT(std::stoi(answer.substr(1)), kDeltas) << "the client waited for the whole stream";
  // And the whole stream is applied.
  EXPECT_TRUE(Eventually([&] {
    std::vector<std::string> args(keys.begin(), keys.end());
    return Cmd(c.get(), args).integer() == kDeltas;
  }));
  EXPECT_EQ(InfoField(c.get(), "peers", "malformed_deltas"), 0);
  EXPECT_EQ(node.Stop(), 0) << node.ReadLog();
}

}  // namespace
}  // namespace ebb::test
