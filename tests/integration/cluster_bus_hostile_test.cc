// A cluster node's bus under hostile input (docs/cluster.md, "The bus"). A fake peer completes
// the handshake, so the node knows it by name. Three cases each show one refusal (a message in
// the node's own name, an UPDATE about the node, a peer naming itself its master); then a seeded
// run of messages on links opened to the node's bus port — every type and unknown ones, names
// that are no node name, the node's own name, epochs at their extremes, slot claims, gossip,
// roles, votes, damaged bytes — while an answerer gives every link the node opens to it hostile
// PONGs. The node must keep serving clients, keep CLUSTER NODES well formed with no node its
// own master, and start again from the nodes.conf it wrote.
//
// Every address a message names is 127.0.0.1 (or no address at all) and every port is one this
// test holds: bound and not listening (a connection is refused), the peer's or the answerer's.
// Nothing outside the test is reached. The run is bounded by its message count; EBB_TEST_SEED
// replays or varies it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "server/cluster/bus_message.h"
#include "server/cluster/node_table.h"
#include "tests/support/cluster_views.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_bus_peer.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using server::cluster::BusMessage;
using server::cluster::GossipEntry;
using server::cluster::MessageType;

using server::cluster::kGossipLength;
using server::cluster::kHeaderLength;
using server::cluster::kIpLength;
using server::cluster::kOffCount;
using server::cluster::kOffExtensions;
using server::cluster::kOffMflags;
using server::cluster::kOffMyip;
using server::cluster::kOffTotlen;
using server::cluster::kOffType;
using server::cluster::kOffVer;

void Put16(std::string* b, size_t at, uint16_t v) {
  (*b)[at] = static_cast<char>(v >> 8);
  (*b)[at + 1] = static_cast<char>(v);
}
void Put32(std::string* b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) (*b)[at + i] = static_cast<char>(v >> (24 - 8 * i));
}

// Draws the fields of hostile messages. Names come from the peer's, the node's own, fresh valid
// ones and bytes that are no name; ports only from `ports` (bound by the test, refusing).
class HostileMessages {
 public:
  HostileMessages(uint64_t seed, std::string peer, std::string node, std::vector<uint16_t> ports)
      : rng_(seed), peer_(std::move(peer)), node_(std::move(node)), ports_(std::move(ports)) {}

  // A message of a random type, damaged or not (*damaged says which).
  std::string Next(bool* damaged) {
    return Next(static_cast<MessageType>(Below(server::cluster::kMessageTypeCount)), damaged);
  }
  std::string Next(MessageType type, bool* damaged) {
    BusMessage m;
    m.type = type;
    m.port = Port();
    m.pport = Port();
    m.cport = Port();
    m.current_epoch = Epoch();
    m.config_epoch = Epoch();
    m.offset = rng_();
    m.sender = Chance(75) ? peer_ : Name();
    if (Chance(40)) m.slots = Slots();
    m.slaveof = Chance(60) ? "" : Name();
    m.myip = Ip();
    m.flags = Flags();
    m.state = static_cast<uint8_t>(Chance(80) ? Below(2) : rng_());
    m.mflags0 = static_cast<uint8_t>(rng_());
    const int gossip = static_cast<int>(Below(6));
    for (int i = 0; i < gossip; i++) {
      GossipEntry g;
      g.name = Name();
      g.ping_sent = static_cast<uint32_t>(rng_());
      g.pong_received = static_cast<uint32_t>(rng_());
      g.ip = Ip();
      g.port = Port();
      g.cport = Port();
      g.pport = Port();
      g.flags = Flags();
      m.gossip.push_back(std::move(g));
    }
    m.about = Name();
    m.update_config_epoch = Epoch();
    m.update_slots = Slots();
    m.channel = Bytes(Below(20));
    m.message = Bytes(Below(200));
    std::string bytes = server::cluster::EncodeMessage(m);
    *damaged = Chance(25);
    if (*damaged) Damage(&bytes);
    return bytes;
  }

 private:
  uint64_t Below(uint64_t n) { return rng_() % n; }
  bool Chance(int percent) { return Below(100) < static_cast<uint64_t>(percent); }

  std::string Bytes(uint64_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng_());
    return s;
  }
  std::string Name() {
    switch (Below(7)) {
      case 0:
        return peer_;
      case 1:
        return node_;
      case 2:
        return server::cluster::RandomNodeName();
      case 3:
        return "";
      case 4:  // 40 characters, not hex: spaces and a newline among them
        return "not a node name\n" + std::string(24, 'z');
      case 5: {
        std::string upper = peer_;  // hex, but upper case
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return upper;
      }
      default:
        return Bytes(40);
    }
  }
  uint16_t Port() { return Chance(10) ? 0 : ports_[Below(ports_.size())]; }
  uint64_t Epoch() {
    static constexpr uint64_t kEpochs[] = {0, 1, 2, 7, UINT64_MAX, UINT64_MAX - 1, 1ull << 63};
    return Chance(30) ? kEpochs[Below(std::size(kEpochs))] : Below(1000);
  }
  uint16_t Flags() {
    using namespace server::cluster;
    static constexpr uint16_t kFlags[] = {kFlagMaster,
                                          kFlagSlave,
                                          kFlagMaster | kFlagFail,
                                          kFlagSlave | kFlagNoFailover,
                                          kFlagMyself,
                                          kFlagHandshake | kFlagMeet,
                                          kFlagNoAddr};
    return Chance(70) ? kFlags[Below(std::size(kFlags))] : static_cast<uint16_t>(rng_());
  }
  // Letters only: no text that parses as an address other than loopback's.
  std::string Ip() {
    switch (Below(4)) {
      case 0:
        return "";
      case 1:
        return "127.0.0.1";
      case 2:
        return "localhost-but-not-an-address";
      default:
        return std::string(45, 'x');
    }
  }
  server::cluster::SlotBitmap Slots() {
    server::cluster::SlotBitmap slots;
    switch (Below(4)) {
      case 0:
        slots.set();
        break;
      case 1:
        slots.set(Below(16384));
        break;
      default: {
        const uint64_t first = Below(16384);
        const uint64_t last = std::min<uint64_t>(16383, first + Below(4000));
        for (uint64_t s = first; s <= last; s++) slots.set(s);
      }
    }
    return slots;
  }

  // One kind of damage to an encoded message: the length field, the version, an unknown type,
  // a gossip count the body does not have, ping extensions that do not add up, an IP field
  // without its NUL, a cut, or bytes appended.
  void Damage(std::string* b) {
    switch (Below(8)) {
      case 0:
        Put32(b, kOffTotlen, static_cast<uint32_t>(Chance(50) ? rng_() : b->size() + Below(9) - 4));
        break;
      case 1:
        Put16(b, kOffVer, static_cast<uint16_t>(Below(4)));
        break;
      case 2:
        Put16(b, kOffType, static_cast<uint16_t>(Chance(50) ? 9 + Below(20) : rng_()));
        break;
      case 3:
        Put16(b, kOffCount, static_cast<uint16_t>(Chance(50) ? Below(8) : rng_()));
        break;
      case 4: {
        (*b)[kOffMflags] = static_cast<char>((*b)[kOffMflags] | 4);  // ext data
        Put16(b, kOffExtensions, static_cast<uint16_t>(1 + Below(3)));
        std::string ext = Bytes(8 + Below(24));
        Put32(&ext, 0, static_cast<uint32_t>(Chance(50) ? ext.size() : rng_()));
        b->append(ext);
        Put32(b, kOffTotlen, static_cast<uint32_t>(b->size()));
        break;
      }
      case 5:
        b->replace(kOffMyip, kIpLength, std::string(kIpLength, 'x'));
        if (b->size() >= kHeaderLength + kGossipLength) {
          b->replace(kHeaderLength + 48, kIpLength, std::string(kIpLength, 'y'));
        }
        break;
      case 6:
        b->resize(8 + Below(b->size() - 8));
        Put32(b, kOffTotlen, static_cast<uint32_t>(Chance(50) ? b->size() : rng_()));
        break;
      default:
        b->append(Bytes(1 + Below(200)));
        if (Chance(50)) Put32(b, kOffTotlen, static_cast<uint32_t>(b->size()));
        break;
    }
  }

  std::mt19937_64 rng_;
  std::string peer_;
  std::string node_;
  std::vector<uint16_t> ports_;
};

// Answers every link the node opens to its port — to a node it met by a message's MEET or
// gossip — with hostile PONGs: one for each message the node sends on it, so a handshake
// completes (or fails) with whatever name the PONG gives. Runs on its own thread until
// destroyed; every wait is bounded.
class HostileAnswerer {
 public:
  HostileAnswerer(uint64_t seed, const std::string& peer, const std::string& node,
                  std::vector<uint16_t> ports)
      : listener_(BindFreeLoopbackPort(&port_)) {
    if (listener_ < 0 || ::listen(listener_, 16) != 0) return;
    ports.push_back(static_cast<uint16_t>(port_));
    messages_ = std::make_unique<HostileMessages>(seed, peer, node, std::move(ports));
    thread_ = std::thread([this] { Run(); });
  }
  ~HostileAnswerer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (listener_ >= 0) ::close(listener_);
  }
  HostileAnswerer(const HostileAnswerer&) = delete;
  HostileAnswerer& operator=(const HostileAnswerer&) = delete;

  uint16_t port() const { return static_cast<uint16_t>(port_); }
  bool running() const { return thread_.joinable(); }
  int answered() const { return answered_; }

 private:
  void Run() {
    while (!stop_) {
      std::unique_ptr<RawConnection> link = RawConnection::Accept(listener_, 100);
      // Up to 4 messages a link: a handshake's MEET or PING, then the pings that follow.
      for (int i = 0; link != nullptr && i < 4 && !stop_; i++) {
        const std::string header = link->ReadExactly(8, 500);
        const uint32_t length = server::cluster::MessageLength(header);
        if (length < 8 || length > (1u << 20) || link->ReadExactly(length - 8, 500).empty()) break;
        bool damaged = false;
        if (!link->Send(messages_->Next(MessageType::kPong, &damaged))) break;
        answered_++;
      }
    }
  }

  int port_ = 0;
  int listener_ = -1;
  std::unique_ptr<HostileMessages> messages_;
  std::atomic<bool> stop_{false};
  std::atomic<int> answered_{0};
  std::thread thread_;
};

// CLUSTER NODES's lines, each checked: at least 8 fields, a node name first, a master that is
// another node.
std::string NodesProblem(redisContext* c) {
  const Reply nodes = Cmd(c, {"CLUSTER", "NODES"});
  if (!nodes.is_string()) return "CLUSTER NODES answered " + nodes.ToString();
  for (const std::string& line : Lines(nodes.str())) {
    const std::vector<std::string> fields = Fields(line);
    if (fields.size() < 8 || !server::cluster::IsNodeName(fields[0])) {
      return "a malformed CLUSTER NODES line: " + line;
    }
    if (fields[3] == fields[0]) return "a node that is its own master: " + line;
  }
  return "";
}

// What must hold after any message: the node answers, and its views of the cluster are well
// formed ("" when they are).
std::string Problem(redisContext* c) {
  if (Cmd(c, {"PING"}).str() != "PONG") return "no PONG";
  if (std::string nodes = NodesProblem(c); !nodes.empty()) return nodes;
  if (ClusterInfo(c, "cluster_state").empty()) return "CLUSTER INFO without cluster_state";
  // An epoch of 2^63 or more is refused on the bus: no election can wrap one to 0.
  const std::string epoch = ClusterInfo(c, "cluster_current_epoch");
  if (epoch.empty() || std::stoull(epoch) > static_cast<uint64_t>(INT64_MAX)) {
    return "cluster_current_epoch " + epoch;
  }
  if (!Cmd(c, {"CLUSTER", "SLOTS"}).is_array()) return "CLUSTER SLOTS is no array";
  if (!Cmd(c, {"CLUSTER", "SHARDS"}).is_array()) return "CLUSTER SHARDS is no array";
  return "";
}

// A node holding slots 0-8191 that has met the peer (named all 'e', holding 8192-16383), and
// three ports held bound and not listening for the messages to name.
class ClusterBusHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3; i++) {
      int port = 0;
      const int fd = BindFreeLoopbackPort(&port);
      ASSERT_GE(fd, 0);
      held_.push_back(fd);
      ports_.push_back(static_cast<uint16_t>(port));
    }
    bus_port_ = TestServer::FreePort();
    ASSERT_TRUE(node_.Start({"--cluster-enabled", "yes", "--cluster-port",
                             std::to_string(bus_port_), "--cluster-node-timeout", "1500"}))
        << node_.error();
    client_ = node_.Connect();
    ASSERT_EQ(Cmd(client_.get(), {"CLUSTER", "ADDSLOTSRANGE", "0", "8191"}).str(), "OK");
    node_name_ = Cmd(client_.get(), {"CLUSTER", "MYID"}).str();

    ASSERT_TRUE(peer_.listening());
    ASSERT_EQ(Cmd(client_.get(), {"CLUSTER", "MEET", "127.0.0.1", std::to_string(ports_[0]),
                                  std::to_string(peer_.port())})
                  .str(),
              "OK");
    BusMessage pong;
    pong.type = MessageType::kPong;
    pong.port = ports_[0];
    pong.cport = static_cast<uint16_t>(peer_.port());
    pong.current_epoch = pong.config_epoch = 1;
    pong.sender = peer_name_;
    pong.flags = server::cluster::kFlagMaster;
    for (int slot = 8192; slot < 16384; slot++) pong.slots.set(slot);
    ASSERT_TRUE(peer_.AnswerMeet(pong));
    ASSERT_TRUE(Eventually([&] {
      return NodesProblem(client_.get()).empty() &&
             Cmd(client_.get(), {"CLUSTER", "NODES"}).str().find(peer_name_) != std::string::npos;
    })) << Cmd(client_.get(), {"CLUSTER", "NODES"}).str();
    ports_.push_back(static_cast<uint16_t>(peer_.port()));
  }
  // A message from the peer, as it would send one (its ports, its role, its epochs).
  BusMessage FromPeer(MessageType type) const {
    BusMessage m;
    m.type = type;
    m.sender = peer_name_;
    m.port = ports_[0];
    m.cport = static_cast<uint16_t>(peer_.port());
    m.current_epoch = m.config_epoch = 1;
    m.flags = server::cluster::kFlagMaster;
    for (int slot = 8192; slot < 16384; slot++) m.slots.set(slot);
    return m;
  }
  // Sends `bytes` on a link from the peer, then a PUBLISH on the same link, and waits for a
  // subscriber to receive it: the node has taken the messages before it.
  void SendAndWaitTaken(const std::string& bytes) {
    auto subscriber = node_.Connect();
    ASSERT_TRUE(Cmd(subscriber.get(), {"SUBSCRIBE", "taken"}).is_array());
    BusMessage publish = FromPeer(MessageType::kPublish);
    publish.channel = "taken";
    publish.message = "yes";
    RawConnection link(bus_port_);
    ASSERT_TRUE(link.Send(bytes + server::cluster::EncodeMessage(publish)));
    const Reply message = ReadReply(subscriber.get());
    ASSERT_TRUE(message.is_array()) << message.ToString();
  }
  void TearDown() override {
    if (node_.Running()) {
      EXPECT_EQ(node_.Stop(), 0) << node_.ReadLog();
    }
    for (int fd : held_) ::close(fd);
  }

  std::vector<int> held_;
  std::vector<uint16_t> ports_;  // the held ports and the peer's
  int bus_port_ = 0;
  TestServer node_;
  RedisConnection client_;
  std::string node_name_;
  OneMessageBusPeer peer_;
  const std::string peer_name_ = std::string(40, 'e');
};

// A message under the node's own name is refused: as the node's own word it would make the node
// a replica of the peer and drop its slots.
TEST_F(ClusterBusHostileTest, AMessageInTheNodesOwnNameIsRefused) {
  BusMessage forged;
  forged.type = MessageType::kPing;
  forged.sender = node_name_;
  forged.slaveof = peer_name_;
  forged.flags = server::cluster::kFlagSlave;
  forged.port = ports_[1];
  forged.cport = ports_[2];
  RawConnection link(bus_port_);
  ASSERT_TRUE(link.Send(server::cluster::EncodeMessage(forged)));
  EXPECT_TRUE(link.WaitClosed(5000)) << "the link that sent it is dropped";
  const std::string mine = NodeLine(client_.get(), node_name_);
  EXPECT_NE(mine.find(" myself,master - "), std::string::npos) << mine;
  EXPECT_TRUE(mine.ends_with(" connected 0-8191")) << mine;
  EXPECT_NE(node_.ReadLog().find("a message under this node's name"), std::string::npos);
}

// An UPDATE about the node itself is ignored, as Redis discards one: the node's own epoch and
// role are its own to say.
TEST_F(ClusterBusHostileTest, AnUpdateAboutTheNodeItselfIsIgnored) {
  BusMessage update = FromPeer(MessageType::kUpdate);
  update.about = node_name_;
  update.update_config_epoch = 99;
  ASSERT_NO_FATAL_FAILURE(SendAndWaitTaken(server::cluster::EncodeMessage(update)));
  EXPECT_NE(NodeLine(client_.get(), node_name_).find(" myself,master - 0 0 0 connected 0-8191"),
            std::string::npos)
      << NodeLine(client_.get(), node_name_);
}

// A peer that names itself as its master keeps the role it had: no node replicates itself.
TEST_F(ClusterBusHostileTest, APeerThatNamesItselfItsMasterKeepsItsRole) {
  BusMessage ping = FromPeer(MessageType::kPing);
  ping.slaveof = peer_name_;
  ping.flags = server::cluster::kFlagSlave;
  ASSERT_NO_FATAL_FAILURE(SendAndWaitTaken(server::cluster::EncodeMessage(ping)));
  const std::string line = NodeLine(client_.get(), peer_name_);
  EXPECT_NE(line.find(" master - "), std::string::npos) << line;
  EXPECT_TRUE(line.ends_with(" connected 8192-16383")) << line;
}

TEST_F(ClusterBusHostileTest, TheNodeKeepsServingAndItsTableStaysWellFormed) {
  const uint64_t seed = TestSeed(20261203);
  SCOPED_TRACE("seed " + std::to_string(seed));
  HostileAnswerer answerer(seed + 1, peer_name_, node_name_, ports_);
  ASSERT_TRUE(answerer.running());
  ports_.push_back(answerer.port());
  HostileMessages messages(seed, peer_name_, node_name_, ports_);
  constexpr int kMessages = 2000;
  // Each message on a link of its own: the node drops a link that sent a message it refuses, and
  // a newer link from the same node replaces an older one, so later messages on a shared link
  // would be lost unseen.
  int whole = 0;  // messages the node should take: well formed, not in its own name
  for (int i = 0; i < kMessages; i++) {
    bool damaged = false;
    const std::string bytes = messages.Next(&damaged);
    BusMessage decoded;
    const bool refused =
        !server::cluster::DecodeMessage(bytes, &decoded).ok() || decoded.sender == node_name_;
    whole += refused ? 0 : 1;
    RawConnection link(bus_port_);
    ASSERT_TRUE(link.connected()) << "message " << i << ": the bus port refuses connections\n"
                                  << node_.ReadLog();
    link.Send(bytes);
    if (refused) link.WaitClosed(50);
    if (i % 100 == 99) {
      const std::string problem = Problem(client_.get());
      ASSERT_EQ(problem, "") << "after message " << i << "\n" << node_.ReadLog();
    }
  }
  ASSERT_EQ(Problem(client_.get()), "") << node_.ReadLog();
  // A last MEET names the answerer, so the node opens a link to it whatever the run's messages
  // did.
  BusMessage meet;
  meet.type = MessageType::kMeet;
  meet.sender = server::cluster::RandomNodeName();
  meet.port = meet.cport = answerer.port();
  RawConnection(bus_port_).Send(server::cluster::EncodeMessage(meet));
  // The run reached the node: it took most whole messages, and it opened links to the answerer
  // (handshakes with nodes the messages named) and read its PONGs.
  EXPECT_GT(std::stoll(ClusterInfo(client_.get(), "cluster_stats_messages_received")), whole / 2)
      << Cmd(client_.get(), {"CLUSTER", "INFO"}).str();
  EXPECT_TRUE(Eventually([&] { return answerer.answered() > 0; }));

  // The nodes.conf the node wrote through all that is one it starts from.
  ASSERT_EQ(node_.Stop(), 0) << node_.ReadLog();
  ASSERT_TRUE(node_.Restart()) << node_.ReadLog();
  client_ = node_.Connect();
  EXPECT_EQ(Cmd(client_.get(), {"CLUSTER", "MYID"}).str(), node_name_);
  EXPECT_EQ(Problem(client_.get()), "") << node_.ReadLog();
  // The node stops before the answerer's port closes: it would go on connecting to it, and the
  // port may be another test's by then.
  EXPECT_EQ(node_.Stop(), 0) << node_.ReadLog();
}

}  // namespace
}  // namespace ebb::test
