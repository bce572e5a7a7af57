// PlayedPeer: the test as a node's only active-active peer. It listens on a loopback port,
// answers the node's link's PEER ID and PEER SYNC (+CONTINUE from offset 0, or the reply the test
// gives), then sends the stream messages the test gives it (docs/active-active.md, "Links"), and
// closes the link when told.
// Thread-safety: none; one test thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_server.h"

namespace ebb::test {

class PlayedPeer {
 public:
  int port() const { return listener_.port(); }
  bool listening() const { return listener_.listening(); }
  static constexpr std::string_view kId = "0123456789abcdef0123456789abcdef01234567";

  // Takes the node's link and answers its handshake, PEER SYNC with `sync_reply`; false when it
  // did not come as expected.
  bool Handshake(std::string_view sync_reply = "+CONTINUE 0 0") {
    conn_ = listener_.Accept();
    if (conn_ == nullptr) return false;
    std::vector<std::string> request = ReadArray();
    if (request.size() != 2 || request[0] != "PEER" || request[1] != "ID") return false;
    if (!conn_->Send("$40\r\n" + std::string(kId) + "\r\n")) return false;
    request = ReadArray();
    if (request.size() < 2 || request[1] != "SYNC") return false;
    return conn_->Send(std::string(sync_reply) + "\r\n");
  }
  // Closes the link, as a peer killed mid-stream.
  void Close() { conn_.reset(); }
  bool Send(const std::vector<std::string>& message) {
    std::string out = "*" + std::to_string(message.size()) + "\r\n";
    for (const std::string& arg : message) {
      out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
    }
    return conn_->Send(out);
  }
  // A delta of this peer's log at `offset` (origin clock 1), framed as an origin sends it
  // (DeltaFrame).
  bool SendDelta(uint64_t offset, int db, std::vector<std::string> args) {
    return conn_->Send(DeltaFrame(offset, db, std::move(args)));
  }

 private:
  // One RESP array of bulk strings from the node ({} when it is not one).
  std::vector<std::string> ReadArray() {
    std::string line = conn_->ReadUntil("\r\n");
    if (line.size() < 3 || line[0] != '*') return {};
    const int count = std::stoi(line.substr(1));
    std::vector<std::string> out;
    for (int i = 0; i < count && i < 1000; i++) {
      line = conn_->ReadUntil("\r\n");
      if (line.size() < 3 || line[0] != '$') return {};
      const size_t length = std::stoul(line.substr(1));
      const std::string bulk = conn_->ReadExactly(length + 2);
      if (bulk.size() != length + 2) return {};
      out.push_back(bulk.substr(0, length));
    }
    return out;
  }

  LoopbackListener listener_;
  std::unique_ptr<RawConnection> conn_;
};

}  // namespace ebb::test
