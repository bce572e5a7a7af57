#include <gtest/gtest.h>

#include "server/net/server.h"

namespace ebb::server {
namespace {

using boost::asio::ip::make_address;

TEST(ProtectedMode, RefusesOnlyNonLoopbackPeersWithoutAPassword) {
  Config config;  // defaults: protected-mode yes, no requirepass
  EXPECT_FALSE(ProtectedModeRefuses(config, make_address("127.0.0.1")));
  EXPECT_FALSE(ProtectedModeRefuses(config, make_address("127.3.4.5")));
  EXPECT_FALSE(ProtectedModeRefuses(config, make_address("::1")));
  EXPECT_FALSE(ProtectedModeRefuses(config, make_address("::ffff:127.0.0.1")));
  EXPECT_TRUE(ProtectedModeRefuses(config, make_address("192.0.2.7")));
  EXPECT_TRUE(ProtectedModeRefuses(config, make_address("2001:db8::1")));
  EXPECT_TRUE(ProtectedModeRefuses(config, make_address("::ffff:192.0.2.7")));
}

TEST(ProtectedMode, APasswordOrTurningItOffAdmitsEveryone) {
  Config with_password;
  with_password.requirepass = "secret";
  EXPECT_FALSE(ProtectedModeRefuses(with_password, make_address("192.0.2.7")));
  Config off;
  off.protected_mode = false;
  EXPECT_FALSE(ProtectedModeRefuses(off, make_address("192.0.2.7")));
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
