#include "server/core/client.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::server {
namespace {

TEST(ClientTest, InfoLineHasRedisFieldsInOrder) {
  Client c(7, "127.0.0.1:5000", "127.0.0.1:6379", 9, 1000, true);
  c.set_name("app");
  c.set_db_index(2);
  c.set_last_command("client|list");
  c.set_lib_name("hiredis");
  std::string line = c.InfoLine(4000, "default");
  EXPECT_EQ(
      line.rfind("id=7 addr=127.0.0.1:5000 laddr=127.0.0.1:6379 fd=9 name=app age=3 idle=3 ", 0),
      0u)
      << line;
  EXPECT_NE(line.find(" db=2 "), std::string::npos);
  EXPECT_NE(line.find(" cmd=client|list user=default "), std::string::npos);
  EXPECT_NE(line.find(" resp=2 lib-name=hiredis lib-ver="), std::string::npos);
  c.Touch(3500);
  EXPECT_EQ(c.idle_s(4000), 0);
}

TEST(ClientTest, RequestCloseCallsTheHookOnce) {
  Client c(1, "127.0.0.1:1", "", 0, 0, true);
  int calls = 0;
  c.set_close_hook([&] { ++calls; });
  EXPECT_FALSE(c.close_requested());
  c.RequestClose();
  c.RequestClose();
  EXPECT_TRUE(c.close_requested());
  EXPECT_EQ(calls, 1);
}

TEST(ClientRegistryTest, IdsAscendAndLookup) {
  ClientRegistry r;
  Client a(r.NextId(), "a", "", 0, 0, true);
  Client b(r.NextId(), "b", "", 0, 0, true);
  EXPECT_LT(a.id(), b.id());
  r.Add(&b);
  r.Add(&a);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(r.all().begin()->second, &a);
  EXPECT_EQ(r.Find(b.id()), &b);
  r.Remove(b.id());
  EXPECT_EQ(r.Find(b.id()), nullptr);
}

}  // namespace
}  // namespace ebb::server
