// OneMessageBusPeer: a cluster bus peer that says one thing. It listens on a loopback port,
// takes the first connection, reads the MEET that arrives on it and answers with the message the
// test gives (a PONG naming the peer: the node then knows it by that name), then stays silent
// with the connection open.
// Thread-safety: none; one test thread.
#pragma once

#include <memory>
#include <string>

#include "server/cluster/bus_message.h"
#include "tests/support/test_server.h"

namespace ebb::test {

class OneMessageBusPeer {
 public:
  int port() const { return listener_.port(); }
  bool listening() const { return listener_.listening(); }

  // Waits up to 10 s for the node's connection and its MEET, then sends `answer`.
  bool AnswerMeet(const server::cluster::BusMessage& answer) {
    conn_ = listener_.Accept();
    if (conn_ == nullptr) return false;
    const std::string header = conn_->ReadExactly(8, 10000);
    const uint32_t length = server::cluster::MessageLength(header);
    if (length < 8) return false;
    const std::string rest = conn_->ReadExactly(length - 8, 10000);
    server::cluster::BusMessage meet;
    std::string error;
    if (!server::cluster::DecodeMessage(header + rest, &meet, &error) ||
        meet.type != server::cluster::MessageType::kMeet) {
      return false;
    }
    return conn_->Send(server::cluster::EncodeMessage(answer));
  }

 private:
  LoopbackListener listener_;
  std::unique_ptr<RawConnection> conn_;  // the node's connection, kept open
};

}  // namespace ebb::test
