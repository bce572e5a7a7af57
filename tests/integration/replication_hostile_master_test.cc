// A replica against a master that answers PSYNC with an ID that is not one (docs/replication.md,
// "The link"): the test plays the master on a loopback port, answers the replica's handshake,
// then +CONTINUE or +FULLRESYNC with 40 characters that are not hex or with words that are no ID.
// The replica must not take such an ID for its history: it would show in INFO replication and
// go into the saved position (`<dir>/replication`), which the next start could not read.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/eventually.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// One RESP array of bulk strings from `c` (empty when none came in time).
std::vector<std::string> ReadCommand(RawConnection& c) {
  const std::string header = c.ReadUntil("\r\n");
  if (header.size() < 3 || header[0] != '*') return {};
  std::vector<std::string> args(std::stoul(header.substr(1)));
  for (std::string& arg : args) {
    const std::string length = c.ReadUntil("\r\n");
    if (length.size() < 3 || length[0] != '$') return {};
    arg = c.ReadExactly(std::stoul(length.substr(1)) + 2);
    arg.resize(arg.size() - 2);
  }
  return args;
}

class ReplicationHostileMasterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    listener_ = BindFreeLoopbackPort(&master_port_);
    ASSERT_GE(listener_, 0);
    ASSERT_EQ(::listen(listener_, 4), 0);
    ASSERT_TRUE(replica_.Start()) << replica_.error();
    client_ = replica_.Connect();
  }
  // The replica stops before the port it follows closes: it would go on connecting to it, and
  // the port may be another test's by then.
  void TearDown() override {
    if (replica_.Running()) {
      EXPECT_EQ(replica_.Stop(), 0) << replica_.ReadLog();
    }
    if (listener_ >= 0) ::close(listener_);
  }

  // Makes the replica follow the test's port, answers its handshake and gives `psync_reply` to
  // its PSYNC.
  void AnswerHandshake(const std::string& psync_reply) {
    ASSERT_EQ(Cmd(client_.get(), {"REPLICAOF", "127.0.0.1", std::to_string(master_port_)}).str(),
              "OK");
    link_ = RawConnection::Accept(listener_);
    ASSERT_NE(link_, nullptr) << "the replica did not connect";
    for (int step = 0; step < 8; step++) {
      const std::vector<std::string> command = ReadCommand(*link_);
      ASSERT_FALSE(command.empty()) << "the handshake stopped\n" << replica_.ReadLog();
      if (command[0] == "PING") {
        ASSERT_TRUE(link_->Send("+PONG\r\n"));
      } else if (command[0] == "REPLCONF") {
        ASSERT_TRUE(link_->Send("+OK\r\n"));
      } else {
        ASSERT_EQ(command[0], "PSYNC");
        ASSERT_TRUE(link_->Send(psync_reply));
        return;
      }
    }
    FAIL() << "no PSYNC in the handshake";
  }

  std::string MasterReplid() { return InfoText(client_.get(), "replication", "master_replid"); }

  int master_port_ = 0;
  int listener_ = -1;
  TestServer replica_;
  RedisConnection client_;
  std::unique_ptr<RawConnection> link_;  // the replica's connection, kept open
};

TEST_F(ReplicationHostileMasterTest, AContinueWithAnIdThatIsNotOneKeepsTheReplicasHistory) {
  const std::string before = MasterReplid();
  ASSERT_NO_FATAL_FAILURE(AnswerHandshake("+CONTINUE not an id but words\r\n"));
  EXPECT_TRUE(Eventually([&] {
    return InfoText(client_.get(), "replication", "master_link_status") == "up";
  })) << replica_.ReadLog();
  EXPECT_EQ(MasterReplid(), before);
  EXPECT_NE(replica_.ReadLog().find("Master replied +CONTINUE with an ID that is not one"),
            std::string::npos)
      << replica_.ReadLog();
}

TEST_F(ReplicationHostileMasterTest, AFullResyncWithAnIdThatIsNotOneIsRefused) {
  const std::string before = MasterReplid();
  ASSERT_NO_FATAL_FAILURE(
      AnswerHandshake("+FULLRESYNC " + std::string(40, 'z') + " 0\r\n$8\r\nEBBSNAP1"));
  EXPECT_TRUE(Eventually([&] {
    return replica_.ReadLog().find("Master replied with wrong +FULLRESYNC syntax") !=
           std::string::npos;
  })) << replica_.ReadLog();
  EXPECT_EQ(MasterReplid(), before);
  EXPECT_EQ(InfoText(client_.get(), "replication", "master_link_status"), "down");
}

}  // namespace
}  // namespace ebb::test
