// OneMessageBusPeer: a cluster bus peer that says one thing. It listens on a loopback port,
// takes the first connection, reads the MEET that arrives on it and answers with the message the
// test gives (a PONG naming the peer: the node then knows it by that name), then stays silent
// with the connection open.
// Thread-safety: none; one test thread.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "server/cluster/bus_message.h"
#include "tests/support/test_server.h"

namespace ebb::test {

class OneMessageBusPeer {
 public:
  OneMessageBusPeer() : listener_(BindFreeLoopbackPort(&port_)) {
    listening_ = listener_ >= 0 && ::listen(listener_, 4) == 0;
  }
  ~OneMessageBusPeer() {
    if (listener_ >= 0) ::close(listener_);
  }
  OneMessageBusPeer(const OneMessageBusPeer&) = delete;
  OneMessageBusPeer& operator=(const OneMessageBusPeer&) = delete;

  int port() const { return port_; }
  bool listening() const { return listening_; }

  // Waits up to 10 s for the node's connection and its MEET, then sends `answer`.
  bool AnswerMeet(const server::cluster::BusMessage& answer) {
    conn_ = RawConnection::Accept(listener_);
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
  int port_ = 0;
  int listener_ = -1;
  bool listening_ = false;
  std::unique_ptr<RawConnection> conn_;  // the node's connection, kept open
};

}  // namespace ebb::test
