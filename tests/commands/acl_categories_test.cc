// ACL CAT <category> holds what Redis 7.0.15's holds, for every command ebb shares with Redis
// (tests/commands/data/redis-7.0.15-acl-categories.txt, derived from Redis's command table), and
// ebb's own commands hold the categories docs/commands.md gives them.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

using Categories = std::map<std::string, std::set<std::string>>;  // row -> its categories

Categories RedisCategories() {
  std::ifstream in(std::string(EBB_SOURCE_DIR) +
                   "/tests/commands/data/redis-7.0.15-acl-categories.txt");
  Categories rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, category;
    words >> name;
    while (words >> category) rows[name].insert(category);
  }
  return rows;
}

class AclCategoriesTest : public CommandTest {
 protected:
  // Every row ebb has with its categories, from ACL CAT.
  Categories EbbCategories() {
    Categories rows;
    for (const Reply& category : Cmd({"ACL", "CAT"}).elements()) {
      for (const Reply& row : Cmd({"ACL", "CAT", category.str()}).elements()) {
        rows[row.str()].insert(category.str());
      }
    }
    return rows;
  }
};

TEST_F(AclCategoriesTest, EveryCategoryHoldsWhatRedisHolds) {
  const Categories redis = RedisCategories();
  ASSERT_GT(redis.size(), 380u);  // the whole table was read
  const Categories ebb = EbbCategories();
  size_t shared = 0;
  for (const auto& [row, categories] : ebb) {
    auto it = redis.find(row);
    if (it == redis.end()) continue;
    shared++;
    EXPECT_EQ(categories, it->second) << row;
  }
  EXPECT_GT(shared, 180u);
}

// ebb's own commands: the categories a Redis user would expect of them (docs/commands.md).
TEST_F(AclCategoriesTest, EbbsOwnCommands) {
  const Categories redis = RedisCategories();
  const Categories expected = {
      {"client|setinfo", {"connection", "slow"}},
      {"cluster|myshardid", {"slow"}},
      {"delete", {"fast", "string", "write"}},
      {"getmeta", {"fast", "read", "string"}},
      {"peer", {"slow"}},
      {"peer|add", {"admin", "dangerous", "slow"}},
      {"peer|help", {"slow"}},
      {"peer|id", {"admin", "dangerous", "fast"}},
      {"peer|list", {"admin", "dangerous", "slow"}},
      {"peer|remove", {"admin", "dangerous", "slow"}},
      {"peer|sync", {"admin", "dangerous", "slow"}},
      {"put", {"slow", "string", "write"}},
      {"tlog", {"slow"}},
      {"tlog|clr", {"slow", "tlog", "write"}},
      {"tlog|cutoff", {"fast", "read", "tlog"}},
      {"tlog|get", {"read", "slow", "tlog"}},
      {"tlog|help", {"fast", "read", "tlog"}},
      {"tlog|ins", {"slow", "tlog", "write"}},
      {"tlog|range", {"read", "slow", "tlog"}},
      {"tlog|size", {"fast", "read", "tlog"}},
      {"tlog|trim", {"slow", "tlog", "write"}},
      {"tlog|trimat", {"slow", "tlog", "write"}},
      {"treg", {"slow"}},
      {"treg|get", {"fast", "read", "treg"}},
      {"treg|help", {"fast", "read", "treg"}},
      {"treg|set", {"fast", "treg", "write"}},
      {"ts.add", {"slow", "timeseries", "write"}},
      {"ts.alter", {"slow", "timeseries", "write"}},
      {"ts.create", {"slow", "timeseries", "write"}},
      {"ts.createrule", {"slow", "timeseries", "write"}},
      {"ts.decrby", {"slow", "timeseries", "write"}},
      {"ts.del", {"slow", "timeseries", "write"}},
      {"ts.deleterule", {"slow", "timeseries", "write"}},
      {"ts.get", {"fast", "read", "timeseries"}},
      {"ts.incrby", {"slow", "timeseries", "write"}},
      {"ts.info", {"read", "slow", "timeseries"}},
      {"ts.madd", {"slow", "timeseries", "write"}},
      {"ts.mget", {"read", "slow", "timeseries"}},
      {"ts.mrange", {"read", "slow", "timeseries"}},
      {"ts.mrevrange", {"read", "slow", "timeseries"}},
      {"ts.queryindex", {"read", "slow", "timeseries"}},
      {"ts.range", {"read", "slow", "timeseries"}},
      {"ts.revrange", {"read", "slow", "timeseries"}},
  };
  Categories own;
  for (const auto& [row, categories] : EbbCategories()) {
    if (!redis.contains(row)) own[row] = categories;
  }
  EXPECT_EQ(own, expected);
}

TEST_F(AclCategoriesTest, DangerousHoldsWhatCanDestroyOrReveal) {
  EXPECT_EQ(Do({"ACL", "SETUSER", "app", "on", "nopass", "allkeys", "+@all", "-@dangerous"}),
            "+OK");
  EXPECT_EQ(Do({"AUTH", "app", "x"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  const std::vector<std::vector<std::string>> refused = {
      {"FLUSHALL"},
      {"FLUSHDB"},
      {"KEYS", "*"},
      {"INFO"},
      {"ROLE"},
      {"MIGRATE", "127.0.0.1", "1", "k", "0", "1000"},
      {"RESTORE", "k2", "0", "payload"},
      {"CONFIG", "SET", "timeout", "1"}};
  for (const std::vector<std::string>& command : refused) {
    const std::string reply = Do(command);
    EXPECT_EQ(reply.rfind("-NOPERM this user has no permissions to run the '", 0), 0u)
        << command[0] << ": " << reply;
  }
  EXPECT_EQ(Do({"GET", "k"}), "$v");
}

}  // namespace
}  // namespace ebb::test
