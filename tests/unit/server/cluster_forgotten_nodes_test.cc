// ForgottenNodes (server/cluster/forgotten_nodes.h): a forgotten name is held for a minute from
// when it was forgotten, a second FORGET starts a new minute, and the cron's Expire drops the
// names whose minute passed.
#include <gtest/gtest.h>

#include <string>

#include "server/cluster/forgotten_nodes.h"

namespace ebb::server::cluster {
namespace {

TEST(ClusterForgottenNodes, HeldForAMinuteFromTheLastForget) {
  const std::string b(40, 'b');
  const std::string c(40, 'c');
  ForgottenNodes forgotten;
  EXPECT_FALSE(forgotten.Holds(b, 0));
  forgotten.Add(b, 1000);
  EXPECT_TRUE(forgotten.Holds(b, 1000));
  EXPECT_TRUE(forgotten.Holds(b, 1000 + ForgottenNodes::kTtlMs - 1));
  EXPECT_FALSE(forgotten.Holds(b, 1000 + ForgottenNodes::kTtlMs));
  EXPECT_FALSE(forgotten.Holds(c, 1000));

  forgotten.Add(b, 30000);  // forgotten again: a new minute
  EXPECT_TRUE(forgotten.Holds(b, 1000 + ForgottenNodes::kTtlMs));
  forgotten.Add(c, 40000);
  EXPECT_EQ(forgotten.size(), 2u);
  forgotten.Expire(30000 + ForgottenNodes::kTtlMs);
  EXPECT_EQ(forgotten.size(), 1u);  // b's minute passed, c's not
  EXPECT_FALSE(forgotten.Holds(b, 30000 + ForgottenNodes::kTtlMs));
  EXPECT_TRUE(forgotten.Holds(c, 30000 + ForgottenNodes::kTtlMs));
  forgotten.Expire(40000 + ForgottenNodes::kTtlMs);
  EXPECT_EQ(forgotten.size(), 0u);
}

}  // namespace
}  // namespace ebb::server::cluster
