// ListenOnAddresses's outcomes (server/io/listen.h) and the texts ListenErrorText gives them: what
// the server logs before exiting when it cannot listen.
#include "server/io/listen.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ebb::server {
namespace {

using boost::asio::ip::tcp;

TEST(ListenTest, AMalformedAddressIsRefusedByName) {
  boost::asio::io_context io;
  std::vector<std::unique_ptr<tcp::acceptor>> opened;
  const Result<ListenCode> r = ListenOnAddresses(io, {"not-an-address"}, 0, &opened);
  EXPECT_EQ(r.code(), ListenCode::kInvalidBindAddress);
  EXPECT_EQ(ListenErrorText(r), "Invalid bind address 'not-an-address'");
  EXPECT_TRUE(opened.empty());
}

TEST(ListenTest, AnAddressInUseGivesRedisTwoLinesUnlessItIsOptional) {
  boost::asio::io_context io;
  std::vector<std::unique_ptr<tcp::acceptor>> first;
  ASSERT_TRUE(ListenOnAddresses(io, {"127.0.0.1"}, 0, &first).ok());
  ASSERT_EQ(first.size(), 1u);
  const int port = first[0]->local_endpoint().port();

  std::vector<std::unique_ptr<tcp::acceptor>> second;
  const Result<ListenCode> r = ListenOnAddresses(io, {"127.0.0.1"}, port, &second);
  ASSERT_EQ(r.code(), ListenCode::kBind);
  const std::string text = ListenErrorText(r);
  const std::string head =
      "Could not create server TCP listening socket 127.0.0.1:" + std::to_string(port) + ": ";
  EXPECT_EQ(text.rfind(head, 0), 0u) << text;
  const std::string tail =
      ". Failed listening on port " + std::to_string(port) + " (tcp), aborting.";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;

  // "-" marks an address that may be unavailable: skipped, not a failure.
  EXPECT_TRUE(ListenOnAddresses(io, {"-127.0.0.1"}, port, &second).ok());
  EXPECT_TRUE(second.empty());
}

TEST(ListenTest, TextsOfTheOtherOutcomes) {
  EXPECT_EQ(ListenErrorText(ListenCode::kNoAddress), "No address to listen on");
  EXPECT_EQ(ListenErrorText({ListenCode::kCluster, "Cluster bus: x"}), "Cluster bus: x");
}

}  // namespace
}  // namespace ebb::server
