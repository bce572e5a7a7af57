// A cluster node's data directory (docs/key-encoding.md, "Key layouts"): ebb-server with
// cluster-enabled yes keeps its keys grouped by hash slot, so a server without cluster-enabled
// refuses to start on that directory, and a cluster node refuses one a standalone server wrote —
// each saying why, losing nothing. A cluster node has one database.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// The bus port is chosen free like the client port: the default (port + 10000) may be taken, or
// past 65535 when the client port is high.
std::vector<std::string> ClusterOptions() {
  return {"--cluster-enabled", "yes", "--cluster-port", std::to_string(TestServer::FreePort())};
}

TEST(ClusterDataDirTest, EachModeRefusesTheOthersDirectory) {
  TestServer cluster_node;
  ASSERT_TRUE(cluster_node.Start(ClusterOptions())) << cluster_node.error();
  {
    RedisConnection c = cluster_node.Connect();
    ASSERT_TRUE(c != nullptr);
    EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "KEYSLOT", "foo"}).ToString(), "(integer) 12182");
    EXPECT_EQ(Cmd(c.get(), {"SELECT", "1"}).ToString(),
              "(error) ERR SELECT is not allowed in cluster mode");
    EXPECT_EQ(Cmd(c.get(), {"SELECT", "0"}).ToString(), "OK");
  }
  EXPECT_EQ(cluster_node.Stop(), 0);
  EXPECT_FALSE(cluster_node.Start({}));
  EXPECT_NE(cluster_node.error().find("the data directory holds a cluster node's keys (grouped by "
                                      "hash slot): start the server with cluster-enabled yes"),
            std::string::npos)
      << cluster_node.error();
  ASSERT_TRUE(cluster_node.Start(ClusterOptions())) << cluster_node.error();

  TestServer standalone;
  ASSERT_TRUE(standalone.Start({})) << standalone.error();
  {
    RedisConnection c = standalone.Connect();
    ASSERT_TRUE(c != nullptr);
    EXPECT_EQ(Cmd(c.get(), {"SET", "k", "v"}).ToString(), "OK");
  }
  EXPECT_EQ(standalone.Stop(), 0);
  EXPECT_FALSE(standalone.Start(ClusterOptions()));
  EXPECT_NE(standalone.error().find("start it with cluster-enabled no"), std::string::npos)
      << standalone.error();
  ASSERT_TRUE(standalone.Start({})) << standalone.error();
  RedisConnection c = standalone.Connect();
  ASSERT_TRUE(c != nullptr);
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).ToString(), "\"v\"");
}

}  // namespace
}  // namespace ebb::test
