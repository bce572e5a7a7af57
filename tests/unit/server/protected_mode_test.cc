#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "server/acl/acl.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/io/listen.h"
#include "server/net/server.h"
#include "tests/support/temp_path.h"

namespace ebb::server {
namespace {

using boost::asio::ip::make_address;

// The default user's rules, from a fresh Acl over the real command table.
class ProtectedModeTest : public ::testing::Test {
 protected:
  ProtectedModeTest() { RegisterAllCommands(table_); }
  bool Refuses(const Config& config, std::string_view peer) {
    return ProtectedModeRefuses(config, acl_.default_user(), make_address(peer));
  }
  CommandTable table_;
  Acl acl_{&table_};
};

TEST_F(ProtectedModeTest, RefusesOnlyNonLoopbackPeersWithoutAPassword) {
  Config config;  // defaults: protected-mode yes, no requirepass
  EXPECT_FALSE(Refuses(config, "127.0.0.1"));
  EXPECT_FALSE(Refuses(config, "127.3.4.5"));
  EXPECT_FALSE(Refuses(config, "::1"));
  EXPECT_FALSE(Refuses(config, "::ffff:127.0.0.1"));
  EXPECT_TRUE(Refuses(config, "192.0.2.7"));
  EXPECT_TRUE(Refuses(config, "2001:db8::1"));
  EXPECT_TRUE(Refuses(config, "::ffff:192.0.2.7"));
}

TEST_F(ProtectedModeTest, APasswordOrTurningItOffAdmitsEveryone) {
  Config with_password;
  with_password.requirepass = "secret";
  acl_.SetRequirePass(with_password.requirepass);
  EXPECT_FALSE(Refuses(with_password, "192.0.2.7"));
  Config off;
  off.protected_mode = false;
  acl_.SetRequirePass("");
  EXPECT_FALSE(Refuses(off, "192.0.2.7"));
}

// What counts is the default user, whatever gave it its password or took it away.
TEST_F(ProtectedModeTest, FollowsTheDefaultUserNotRequirepass) {
  Config config;
  const std::string_view password[] = {">pw"};
  ASSERT_TRUE(acl_.SetUser("default", password).ok());
  EXPECT_FALSE(Refuses(config, "192.0.2.7"));  // no requirepass, yet a password

  config.requirepass = "secret";
  acl_.SetRequirePass(config.requirepass);
  const std::string_view nopass[] = {"nopass"};
  ASSERT_TRUE(acl_.SetUser("default", nopass).ok());
  EXPECT_TRUE(Refuses(config, "192.0.2.7"));  // requirepass set, yet nopass

  acl_.SetRequirePass(config.requirepass);
  EXPECT_FALSE(Refuses(config, "192.0.2.7"));
  const std::string path = test::ProcessTempPath("protected_mode_users", "acl");
  std::ofstream(path) << "user default on nopass ~* &* +@all\n";
  ASSERT_TRUE(acl_.LoadFile(path, nullptr).ok());
  EXPECT_TRUE(Refuses(config, "192.0.2.7"));  // ACL LOAD made it nopass again
  std::remove(path.c_str());
}

// What enable-debug-command local trusts: the socket's address, parsed, not a formatted string
// (an IPv6 address that merely starts with "::1:" is not loopback).
TEST(ProtectedMode, LoopbackPeersAreExactlyTheLoopbackAddresses) {
  EXPECT_TRUE(IsLoopbackPeer(make_address("127.0.0.1")));
  EXPECT_TRUE(IsLoopbackPeer(make_address("127.200.0.9")));
  EXPECT_TRUE(IsLoopbackPeer(make_address("::1")));
  EXPECT_TRUE(IsLoopbackPeer(make_address("::ffff:127.0.0.1")));
  EXPECT_FALSE(IsLoopbackPeer(make_address("::1:0:0:1")));
  EXPECT_FALSE(IsLoopbackPeer(make_address("128.0.0.1")));
  EXPECT_FALSE(IsLoopbackPeer(make_address("::ffff:10.0.0.1")));
  EXPECT_FALSE(IsLoopbackPeer(make_address("2001:db8::1")));
}

}  // namespace
}  // namespace ebb::server
