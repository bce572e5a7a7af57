// How the open-file limit is divided between clients, the engine's table cache and the
// reserve (server/open_files.h).
#include "server/open_files.h"

#include <gtest/gtest.h>

namespace ebb::server {
namespace {

TEST(OpenFilesTest, AGenerousLimitGivesEveryoneWhatTheyAskFor) {
  EXPECT_EQ(OpenFilesWanted(10000), 10000u + 32 + 1000);
  const OpenFilesPlan plan = PlanOpenFiles(10000, 20000);
  EXPECT_EQ(plan.maxclients, 10000);
  EXPECT_EQ(plan.table_cache, 1000);
}

TEST(OpenFilesTest, ALowLimitShrinksTheTableCacheAndMaxclients) {
  OpenFilesPlan plan = PlanOpenFiles(10000, 1024);  // ulimit -n 1024
  EXPECT_EQ(plan.table_cache, (1024 - 32) / 4);
  EXPECT_EQ(plan.maxclients, 1024 - 32 - 248);
  plan = PlanOpenFiles(10000, 4096);
  EXPECT_EQ(plan.table_cache, 1000);  // a quarter of the rest, at most the default
  EXPECT_EQ(plan.maxclients, 4096 - 32 - 1000);
  plan = PlanOpenFiles(100, 1024);  // few clients asked for: they get them all
  EXPECT_EQ(plan.maxclients, 100);
}

TEST(OpenFilesTest, TheTableCacheHasAFloorAndTooLowALimitCannotStart) {
  OpenFilesPlan plan = PlanOpenFiles(10000, 200);
  EXPECT_EQ(plan.table_cache, 64);
  EXPECT_EQ(plan.maxclients, 200 - 32 - 64);
  plan = PlanOpenFiles(10000, 90);
  EXPECT_LT(plan.maxclients, 1);
}

TEST(OpenFilesTest, WithTheTableCacheFixedOnlyClientsChange) {
  const OpenFilesPlan plan = PlanOpenFiles(2000, 1024, 248);
  EXPECT_EQ(plan.table_cache, 248);
  EXPECT_EQ(plan.maxclients, 744);
}

TEST(OpenFilesTest, ALimitAlreadyHighEnoughIsKept) {
  const OpenFilesLimit raised = RaiseOpenFilesLimit(1);
  EXPECT_TRUE(raised.raising.ok());
  EXPECT_GE(raised.limit, 1u);
  EXPECT_EQ(raised.raising.detail(), "");
}

}  // namespace
}  // namespace ebb::server
