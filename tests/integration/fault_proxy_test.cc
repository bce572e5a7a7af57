// FaultProxy's delay modes (tests/support/fault_proxy.h), between a client and a plain loopback
// listener: a delayed chunk is not there before its delay, then arrives intact and in order; a
// one-way delay holds only its direction. Only lower bounds on time are asserted (a held chunk
// cannot arrive early); every wait for data is bounded and generous.
#include "tests/support/fault_proxy.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kDelay{600};
constexpr int kQuietMs = 200;  // well under kDelay: a delayed chunk cannot show up within it
constexpr int kArriveMs = 10000;

// The target: a listening loopback socket and the one connection it accepted.
class Target {
 public:
  Target() {
    listen_fd_ = BindFreeLoopbackPort(&port_);
    if (port_ != 0 && listen(listen_fd_, 4) != 0) port_ = 0;
  }
  ~Target() {
    for (int fd : {fd_, listen_fd_}) {
      if (fd >= 0) close(fd);
    }
  }
  int port() const { return port_; }
  bool Accept() {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, kArriveMs) != 1) return false;
    fd_ = accept(listen_fd_, nullptr, nullptr);
    return fd_ >= 0;
  }
  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Reads until `n` bytes came, the peer closed, or `timeout_ms` passed; returns what came.
  std::string Read(size_t n, int timeout_ms) {
    std::string out;
    const auto end = Clock::now() + milliseconds(timeout_ms);
    while (out.size() < n) {
      const auto left = std::chrono::duration_cast<milliseconds>(end - Clock::now()).count();
      pollfd p{fd_, POLLIN, 0};
      if (left <= 0 || poll(&p, 1, static_cast<int>(left)) != 1) break;
      char buf[65536];
      const ssize_t got = recv(fd_, buf, std::min(sizeof(buf), n - out.size()), 0);
      if (got <= 0) break;
      out.append(buf, static_cast<size_t>(got));
    }
    return out;
  }

 private:
  int listen_fd_ = -1;
  int fd_ = -1;
  int port_ = 0;
};

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i++) s[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return s;
}

class FaultProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(target_.port(), 0);
    proxy_ = std::make_unique<FaultProxy>(target_.port());
    ASSERT_NE(proxy_->port(), 0);
    client_ = std::make_unique<RawConnection>(proxy_->port());
    ASSERT_TRUE(client_->connected());
    ASSERT_TRUE(target_.Accept());
    proxy_->set_delay(kDelay);
  }

  // Client to target: nothing within kQuietMs when `delayed`, then all of it, intact, and (when
  // `delayed`) not before kDelay.
  void ExpectToTarget(const std::string& bytes, bool delayed) {
    const auto sent = Clock::now();
    ASSERT_TRUE(client_->Send(bytes));
    if (delayed) {
      EXPECT_EQ(target_.Read(1, kQuietMs), "");
    }
    EXPECT_EQ(target_.Read(bytes.size(), kArriveMs), bytes);
    if (delayed) {
      EXPECT_GE(Clock::now() - sent, kDelay);
    }
  }
  // Target to client, likewise.
  void ExpectToClient(const std::string& bytes, bool delayed) {
    const auto sent = Clock::now();
    ASSERT_TRUE(target_.Send(bytes));
    if (delayed) {
      EXPECT_EQ(client_->ReadExactly(1, kQuietMs), "");
    }
    EXPECT_EQ(client_->ReadExactly(bytes.size(), kArriveMs), bytes);
    if (delayed) {
      EXPECT_GE(Clock::now() - sent, kDelay);
    }
  }

  Target target_;
  std::unique_ptr<FaultProxy> proxy_;
  std::unique_ptr<RawConnection> client_;
};

TEST_F(FaultProxyTest, DelayHoldsBothDirectionsThenDeliversIntact) {
  proxy_->SetMode(FaultProxy::Mode::kDelay);
  ExpectToTarget("hello", /*delayed=*/true);
  ExpectToClient("world", /*delayed=*/true);
  // More than one read's worth, held as many chunks: every one, in order.
  ExpectToTarget(Pattern(256 << 10), /*delayed=*/true);
  ExpectToClient(Pattern(256 << 10), /*delayed=*/true);
}

TEST_F(FaultProxyTest, OneWayDelayHoldsOnlyItsDirection) {
  proxy_->SetMode(FaultProxy::Mode::kDelayToTarget);
  ExpectToTarget("to the target", /*delayed=*/true);
  ExpectToClient("to the client", /*delayed=*/false);
  proxy_->SetMode(FaultProxy::Mode::kDelayFromTarget);
  ExpectToTarget("to the target", /*delayed=*/false);
  ExpectToClient("to the client", /*delayed=*/true);
}

// Healing releases what is held in order, and what is sent after it never overtakes it.
TEST_F(FaultProxyTest, HealingKeepsTheOrder) {
  proxy_->SetMode(FaultProxy::Mode::kDelay);
  ASSERT_TRUE(client_->Send("first,"));
  ASSERT_TRUE(target_.Send("FIRST,"));
  std::this_thread::sleep_for(milliseconds(100));  // read, most likely, while delayed
  proxy_->SetMode(FaultProxy::Mode::kOpen);
  ASSERT_TRUE(client_->Send("second"));
  ASSERT_TRUE(target_.Send("SECOND"));
  EXPECT_EQ(target_.Read(12, kArriveMs), "first,second");
  EXPECT_EQ(client_->ReadExactly(12, kArriveMs), "FIRST,SECOND");
}

TEST_F(FaultProxyTest, DelayIsClamped) {
  proxy_->set_delay(std::chrono::hours(1));
  EXPECT_EQ(proxy_->delay(), FaultProxy::kMaxDelay);
  proxy_->set_delay(milliseconds(-5));
  EXPECT_EQ(proxy_->delay(), milliseconds(0));
}

}  // namespace
}  // namespace ebb::test
