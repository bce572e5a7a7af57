// The cluster node's pure parts: the bus message codec (round trips, and messages captured from
// redis-server 7.0 decoded field by field), the nodes.conf text (written, read back, Redis's
// own lines read), and the node table's rules (slots, roles, failure reports, epochs, health).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/cluster/bus_message.h"
#include "server/cluster/node_table.h"
#include "server/cluster/nodes_conf.h"
#include "tests/support/test_constants.h"
#include "tests/unit/server/cluster_captured_messages.h"

namespace ebb::server::cluster {
namespace {

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

BusMessage SamplePing() {
  BusMessage m;
  m.type = MessageType::kPing;
  m.port = 7000;
  m.current_epoch = 12;
  m.config_epoch = 5;
  m.offset = 987654321;
  m.sender = test::kNodeIdA;
  m.slots.set(0);
  m.slots.set(7);
  m.slots.set(8);
  m.slots.set(16383);
  m.myip = "10.0.0.1";
  m.cport = 17000;
  m.flags = kFlagMaster | kFlagMyself;
  m.mflags0 = kMsgFlagPaused;
  GossipEntry g;
  g.name = test::kNodeIdB;
  g.ping_sent = 1700000000;
  g.pong_received = 1700000001;
  g.ip = "127.0.0.1";
  g.port = 7001;
  g.cport = 17001;
  g.flags = kFlagSlave | kFlagPfail;
  m.gossip.push_back(g);
  return m;
}

TEST(ClusterBusMessage, PingRoundTripsWithItsLayout) {
  const BusMessage m = SamplePing();
  const std::string bytes = EncodeMessage(m);
  ASSERT_EQ(bytes.size(), kHeaderLength + kGossipLength);
  EXPECT_EQ(bytes.substr(0, 4), "RCmb");
  EXPECT_EQ(MessageLength(bytes), bytes.size());
  // Slot 7 is bit 7 of byte 0, slot 8 bit 0 of byte 1 (Redis's bitmap).
  EXPECT_EQ(static_cast<uint8_t>(bytes[80]), 0x81);
  EXPECT_EQ(static_cast<uint8_t>(bytes[81]), 0x01);
  EXPECT_EQ(static_cast<uint8_t>(bytes[80 + 2047]), 0x80);
  BusMessage d;
  std::string error;
  ASSERT_TRUE(DecodeMessage(bytes, &d, &error)) << error;
  EXPECT_EQ(d.type, MessageType::kPing);
  EXPECT_EQ(d.port, 7000);
  EXPECT_EQ(d.current_epoch, 12u);
  EXPECT_EQ(d.config_epoch, 5u);
  EXPECT_EQ(d.offset, 987654321u);
  EXPECT_EQ(d.sender, test::kNodeIdA);
  EXPECT_EQ(d.slots, m.slots);
  EXPECT_EQ(d.slaveof, "");
  EXPECT_EQ(d.myip, "10.0.0.1");
  EXPECT_EQ(d.cport, 17000);
  EXPECT_EQ(d.flags, kFlagMaster | kFlagMyself);
  EXPECT_EQ(d.mflags0, kMsgFlagPaused);
  ASSERT_EQ(d.gossip.size(), 1u);
  EXPECT_EQ(d.gossip[0].name, test::kNodeIdB);
  EXPECT_EQ(d.gossip[0].ping_sent, 1700000000u);
  EXPECT_EQ(d.gossip[0].pong_received, 1700000001u);
  EXPECT_EQ(d.gossip[0].ip, "127.0.0.1");
  EXPECT_EQ(d.gossip[0].port, 7001);
  EXPECT_EQ(d.gossip[0].cport, 17001);
  EXPECT_EQ(d.gossip[0].flags, kFlagSlave | kFlagPfail);
}

TEST(ClusterBusMessage, FailUpdatePublishAndVotesRoundTrip) {
  BusMessage fail;
  fail.type = MessageType::kFail;
  fail.sender = test::kNodeIdA;
  fail.about = test::kNodeIdC;
  BusMessage d;
  std::string error;
  std::string bytes = EncodeMessage(fail);
  EXPECT_EQ(bytes.size(), kHeaderLength + 40);
  ASSERT_TRUE(DecodeMessage(bytes, &d, &error)) << error;
  EXPECT_EQ(d.type, MessageType::kFail);
  EXPECT_EQ(d.about, test::kNodeIdC);

  BusMessage update;
  update.type = MessageType::kUpdate;
  update.sender = test::kNodeIdA;
  update.about = test::kNodeIdB;
  update.update_config_epoch = 42;
  update.update_slots.set(100);
  update.update_slots.set(16000);
  bytes = EncodeMessage(update);
  EXPECT_EQ(bytes.size(), kHeaderLength + 8 + 40 + 2048);
  ASSERT_TRUE(DecodeMessage(bytes, &d, &error)) << error;
  EXPECT_EQ(d.about, test::kNodeIdB);
  EXPECT_EQ(d.update_config_epoch, 42u);
  EXPECT_EQ(d.update_slots, update.update_slots);

  BusMessage publish;
  publish.type = MessageType::kPublish;
  publish.sender = test::kNodeIdA;
  publish.channel = "news";
  publish.message = std::string("a\0b", 3);
  bytes = EncodeMessage(publish);
  EXPECT_EQ(bytes.size(), kHeaderLength + 8 + 4 + 3);
  ASSERT_TRUE(DecodeMessage(bytes, &d, &error)) << error;
  EXPECT_EQ(d.channel, "news");
  EXPECT_EQ(d.message, std::string("a\0b", 3));

  BusMessage ack;
  ack.type = MessageType::kFailoverAuthAck;
  ack.sender = test::kNodeIdB;
  ack.slaveof = test::kNodeIdA;
  bytes = EncodeMessage(ack);
  EXPECT_EQ(bytes.size(), kHeaderLength);
  ASSERT_TRUE(DecodeMessage(bytes, &d, &error)) << error;
  EXPECT_EQ(d.type, MessageType::kFailoverAuthAck);
  EXPECT_EQ(d.slaveof, test::kNodeIdA);
}

TEST(ClusterBusMessage, MalformedMessagesAreRefused) {
  std::string bytes = EncodeMessage(SamplePing());
  BusMessage d;
  std::string error;
  EXPECT_FALSE(DecodeMessage(bytes.substr(0, bytes.size() - 1), &d, &error));
  std::string bad_signature = bytes;
  bad_signature[0] = 'X';
  EXPECT_FALSE(DecodeMessage(bad_signature, &d, &error));
  EXPECT_EQ(MessageLength(bad_signature), 0u);
  std::string bad_version = bytes;
  bad_version[9] = 2;
  EXPECT_FALSE(DecodeMessage(bad_version, &d, &error));
  std::string bad_type = bytes;
  bad_type[13] = 99;
  EXPECT_FALSE(DecodeMessage(bad_type, &d, &error));
  // A count that promises more gossip than the message holds.
  std::string bad_count = bytes;
  bad_count[15] = 2;
  EXPECT_FALSE(DecodeMessage(bad_count, &d, &error));
}

TEST(ClusterBusMessage, EachRefusalHasItsCodeAndItsLogText) {
  const std::string bytes = EncodeMessage(SamplePing());
  BusMessage d;
  Result<BusMessageCode> r = DecodeMessage(bytes.substr(0, bytes.size() - 1), &d);
  EXPECT_EQ(r.code(), BusMessageCode::kLengthMismatch);
  EXPECT_EQ(BusMessageErrorText(r), "length mismatch");
  std::string bad_signature = bytes;
  bad_signature[0] = 'X';
  r = DecodeMessage(bad_signature, &d);
  EXPECT_EQ(r.code(), BusMessageCode::kNotABusMessage);
  EXPECT_EQ(BusMessageErrorText(r), "not a cluster bus message");
  std::string bad_version = bytes;
  bad_version[9] = 2;
  r = DecodeMessage(bad_version, &d);
  EXPECT_EQ(r.code(), BusMessageCode::kUnsupportedVersion);
  EXPECT_EQ(BusMessageErrorText(r), "unsupported protocol version");
  std::string bad_type = bytes;
  bad_type[13] = 99;
  r = DecodeMessage(bad_type, &d);
  EXPECT_EQ(r.code(), BusMessageCode::kUnknownType);
  EXPECT_EQ(BusMessageErrorText(r), "unknown message type 99");
  std::string bad_count = bytes;
  bad_count[15] = 2;
  r = DecodeMessage(bad_count, &d);
  EXPECT_EQ(r.code(), BusMessageCode::kBodyLengthMismatch);
  EXPECT_EQ(BusMessageErrorText(r), "length mismatch for a ping message");
  // Names that are no node name (a node would take them as one), and an epoch no election may
  // wrap.
  BusMessage no_name = SamplePing();
  no_name.sender = "not a node name\n" + std::string(24, 'z');
  r = DecodeMessage(EncodeMessage(no_name), &d);
  EXPECT_EQ(r.code(), BusMessageCode::kBadSenderName);
  EXPECT_EQ(BusMessageErrorText(r), "a sender name that is no node name");
  no_name.sender = "";
  EXPECT_EQ(DecodeMessage(EncodeMessage(no_name), &d).code(), BusMessageCode::kBadSenderName);
  BusMessage bad_master = SamplePing();
  bad_master.slaveof = std::string(39, 'a') + "-";
  r = DecodeMessage(EncodeMessage(bad_master), &d);
  EXPECT_EQ(r.code(), BusMessageCode::kBadMasterName);
  EXPECT_EQ(BusMessageErrorText(r), "a master name that is no node name");
  BusMessage huge_epoch = SamplePing();
  huge_epoch.current_epoch = uint64_t{1} << 63;
  r = DecodeMessage(EncodeMessage(huge_epoch), &d);
  EXPECT_EQ(r.code(), BusMessageCode::kBadEpoch);
  EXPECT_EQ(BusMessageErrorText(r), "an epoch above 2^63 - 1");
  huge_epoch.current_epoch = uint64_t{1} << 62;
  huge_epoch.config_epoch = UINT64_MAX;
  EXPECT_EQ(DecodeMessage(EncodeMessage(huge_epoch), &d).code(), BusMessageCode::kBadEpoch);
  BusMessage update;
  update.type = MessageType::kUpdate;
  update.sender = test::kNodeIdA;
  update.about = test::kNodeIdB;
  update.update_config_epoch = UINT64_MAX;
  EXPECT_EQ(DecodeMessage(EncodeMessage(update), &d).code(), BusMessageCode::kBadEpoch);
  update.update_config_epoch = static_cast<uint64_t>(INT64_MAX);
  EXPECT_TRUE(DecodeMessage(EncodeMessage(update), &d).ok());
  // The text form says the same.
  std::string error;
  EXPECT_FALSE(DecodeMessage(bad_count, &d, &error));
  EXPECT_EQ(error, "length mismatch for a ping message");
  EXPECT_TRUE(DecodeMessage(bytes, &d).ok());
}

TEST(ClusterBusMessage, DecodesRedisServerMeetWithGossip) {
  const std::string bytes = FromHex(test::kRedisMeetWithGossip);
  ASSERT_EQ(bytes.size(), 2568u);
  BusMessage m;
  std::string error;
  ASSERT_TRUE(DecodeMessage(bytes, &m, &error)) << error;
  EXPECT_EQ(m.type, MessageType::kMeet);
  EXPECT_EQ(m.sender, "fceb08b362bfb1fad544fc537a81bccbae6dedf7");
  EXPECT_EQ(m.port, 7201);
  EXPECT_EQ(m.cport, 17201);
  EXPECT_EQ(m.current_epoch, 8u);
  EXPECT_EQ(m.config_epoch, 0u);
  EXPECT_EQ(m.flags, kFlagMaster | kFlagMyself);
  EXPECT_EQ(m.slaveof, "");
  EXPECT_EQ(m.myip, "");
  EXPECT_EQ(m.slots.count(), 0u);
  ASSERT_EQ(m.gossip.size(), 3u);
  EXPECT_EQ(m.gossip[0].name, "692776e31762181b5afc4aca5247c7825194af3c");
  EXPECT_EQ(m.gossip[0].ip, "127.0.0.1");
  EXPECT_EQ(m.gossip[0].port, 7106);
  EXPECT_EQ(m.gossip[0].cport, 17106);
  EXPECT_EQ(m.gossip[0].flags, kFlagSlave);
  EXPECT_EQ(m.gossip[1].flags, kFlagMaster | kFlagMigrateTo);
  // Encoding what was decoded gives redis-server's bytes back.
  EXPECT_EQ(EncodeMessage(m), bytes);
}

TEST(ClusterBusMessage, SkipsRedisServerPingExtensions) {
  const std::string bytes = FromHex(test::kRedisMeetWithHostname);
  BusMessage m;
  std::string error;
  ASSERT_TRUE(DecodeMessage(bytes, &m, &error)) << error;
  EXPECT_EQ(m.type, MessageType::kMeet);
  EXPECT_EQ(m.sender, "15444b5b8ae0e102bbe405b7c2eca3c6a23ea307");
  EXPECT_TRUE(m.mflags0 & kMsgFlagExtData);
  EXPECT_TRUE(m.gossip.empty());
  // A truncated extension is a malformed message.
  EXPECT_FALSE(DecodeMessage(bytes.substr(0, bytes.size() - 8), &m, &error));
}

TEST(ClusterNodesConf, RoundTripsTheTable) {
  ClusterState state(test::kNodeIdA);
  Node* me = state.myself();
  me->ip = "127.0.0.1";
  me->port = 7000;
  me->cport = 17000;
  me->config_epoch = 3;
  for (int j = 0; j <= 5460; j++) state.AddSlot(me, j);
  state.AddSlot(me, 6000);
  Node* b = state.AddNode(test::kNodeIdB, kFlagMaster, 1);
  b->ip = "127.0.0.1";
  b->port = 7001;
  b->cport = 17001;
  b->config_epoch = 4;
  b->pong_received_ms = 1234;
  for (int j = 5461; j <= 5999; j++) state.AddSlot(b, j);
  Node* c = state.AddNode(test::kNodeIdC, kFlagSlave | kFlagFail, 1);
  c->ip = "127.0.0.1";
  c->port = 7002;
  c->cport = 17002;
  state.SetReplicaOf(c, b);
  state.set_migrating(10, b);
  state.set_importing(7000, b);
  state.set_current_epoch(9);
  state.set_last_vote_epoch(7);
  state.AddNode(std::string(40, 'd'), kFlagHandshake, 1);  // left out of the file

  const std::string text = NodesConfigText(state);
  EXPECT_EQ(text, test::kNodeIdA +
                      " 127.0.0.1:7000@17000 myself,master - 0 0 3 connected 0-5460 6000 [10->-" +
                      test::kNodeIdB + "] [7000-<-" + test::kNodeIdB + "]\n" + test::kNodeIdB +
                      " 127.0.0.1:7001@17001 master - 0 1234 4 disconnected 5461-5999\n" +
                      test::kNodeIdC + " 127.0.0.1:7002@17002 slave,fail " + test::kNodeIdB +
                      " 0 0 4 disconnected\n" + "vars currentEpoch 9 lastVoteEpoch 7\n");
  Result<ClusterCode, std::unique_ptr<ClusterState>> parsed = ParseNodesConfig(text, 5000);
  ASSERT_TRUE(parsed.ok()) << ClusterErrorText(parsed);
  const std::unique_ptr<ClusterState>& loaded = *parsed;
  EXPECT_EQ(loaded->myself()->name, test::kNodeIdA);
  EXPECT_EQ(loaded->current_epoch(), 9u);
  EXPECT_EQ(loaded->last_vote_epoch(), 7u);
  EXPECT_EQ(loaded->slot_owner(6000), loaded->myself());
  EXPECT_EQ(loaded->slot_owner(5461)->name, test::kNodeIdB);
  EXPECT_EQ(loaded->slot_owner(6001), nullptr);
  EXPECT_EQ(loaded->migrating_to(10)->name, test::kNodeIdB);
  EXPECT_EQ(loaded->importing_from(7000)->name, test::kNodeIdB);
  const Node* lc = loaded->Find(test::kNodeIdC);
  ASSERT_NE(lc, nullptr);
  EXPECT_EQ(lc->master, loaded->Find(test::kNodeIdB));
  EXPECT_TRUE(lc->failed());
  EXPECT_EQ(loaded->Find(test::kNodeIdB)->pong_received_ms,
            5000);  // a non-zero time reads as "now"
  EXPECT_EQ(loaded->Find(std::string(40, 'd')), nullptr);
  // Written again, the text is the same (the pong time aside).
  loaded->Find(test::kNodeIdB)->pong_received_ms = 1234;
  EXPECT_EQ(NodesConfigText(*loaded), text);
}

TEST(ClusterNodesConf, ReadsRedisServerFilesAndRefusesDamagedOnes) {
  // Written by redis-server 7.0 (a hostname after the address; no bus port in older files).
  const std::string redis_file =
      "3a923a2e8ca8a38513cf23c2bf5503a3b66efec6 127.0.0.1:7103@17103,host-c master - 0 "
      "1795598557502 3 connected 10923-16383\n"
      "6a60dfbdcb840afa9dc1d21aeada587be347ab78 127.0.0.1:7101 myself,master - 0 0 1 "
      "connected 0-5460\n"
      "vars currentEpoch 6 lastVoteEpoch 0\n";
  Result<ClusterCode, std::unique_ptr<ClusterState>> parsed = ParseNodesConfig(redis_file, 1);
  ASSERT_TRUE(parsed.ok()) << ClusterErrorText(parsed);
  const std::unique_ptr<ClusterState>& state = *parsed;
  EXPECT_EQ(state->myself()->name, "6a60dfbdcb840afa9dc1d21aeada587be347ab78");
  EXPECT_EQ(state->myself()->cport, 17101);
  EXPECT_EQ(state->Find("3a923a2e8ca8a38513cf23c2bf5503a3b66efec6")->ip, "127.0.0.1");
  EXPECT_EQ(state->slot_owner(16383)->config_epoch, 3u);
  EXPECT_EQ(state->current_epoch(), 6u);

  const auto no_myself = ParseNodesConfig("vars currentEpoch 1 lastVoteEpoch 0\n", 1);
  ASSERT_FALSE(no_myself.ok());
  EXPECT_EQ(no_myself.code(), ClusterCode::kNodesConfCorrupt);
  EXPECT_NE(ClusterErrorText(no_myself).find("myself"), std::string::npos);
  EXPECT_FALSE(
      ParseNodesConfig(test::kNodeIdA + " 127.0.0.1:7000@17000 myself,master - 0 0 0\n", 1).ok());
  EXPECT_FALSE(
      ParseNodesConfig(
          test::kNodeIdA + " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 5-3\n", 1)
          .ok());
  const auto bogus = ParseNodesConfig(
      test::kNodeIdA + " 127.0.0.1:7000@17000 myself,bogus - 0 0 0 connected\n", 1);
  ASSERT_FALSE(bogus.ok());
  EXPECT_EQ(ClusterErrorText(bogus),
            "Unrecoverable error: corrupted cluster config file (line 1: unknown flag)");
  const auto short_line = ParseNodesConfig(test::kNodeIdA + " 127.0.0.1:7000@17000 myself\n", 1);
  ASSERT_FALSE(short_line.ok());
  EXPECT_EQ(ClusterErrorText(short_line), "Unrecoverable error: corrupted cluster config file \"" +
                                              test::kNodeIdA +
                                              " 127.0.0.1:7000@17000 myself\" (line 1)");
  EXPECT_FALSE(ParseNodesConfig(
                   test::kNodeIdA + " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 1\n" +
                       test::kNodeIdB + " 127.0.0.1:7001@17001 master - 0 0 0 connected 1\n",
                   1)
                   .ok());
  // Found by cluster_codecs_fuzz: a node that is its own master, a node on two lines (the second
  // without `myself` would start a node that is not itself), ports that are none.
  const auto own_master = ParseNodesConfig(
      test::kNodeIdA + " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\n" + test::kNodeIdB +
          " 127.0.0.1:7001@17001 slave " + test::kNodeIdB + " 0 0 0 connected\n",
      1);
  ASSERT_FALSE(own_master.ok());
  EXPECT_EQ(ClusterErrorText(own_master),
            "Unrecoverable error: corrupted cluster config file "
            "(line 2: a node that is its own master)");
  EXPECT_FALSE(
      ParseNodesConfig(test::kNodeIdA + " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\n" +
                           test::kNodeIdA + " 127.0.0.1:7001@17001 master - 0 0 0 connected\n",
                       1)
          .ok());
  EXPECT_FALSE(ParseNodesConfig(
                   test::kNodeIdA + " 127.0.0.1:70000@17000 myself,master - 0 0 0 connected\n", 1)
                   .ok());
  EXPECT_FALSE(
      ParseNodesConfig(test::kNodeIdA + " 127.0.0.1:7000@-1 myself,master - 0 0 0 connected\n", 1)
          .ok());
  EXPECT_FALSE(ParseNodesConfig(
                   test::kNodeIdA + " 127.0.0.1:99999999999 myself,master - 0 0 0 connected\n", 1)
                   .ok());
  // A port without its bus port takes port + 10000 as an older file's does: past 55535 that is
  // no port, and the line is refused as the bus port it would write back is.
  const auto high_port = ParseNodesConfig(
      test::kNodeIdA + " 127.0.0.1:57101 myself,master - 0 0 1 connected 0-5460\n", 1);
  ASSERT_FALSE(high_port.ok());
  EXPECT_EQ(ClusterErrorText(high_port),
            "Unrecoverable error: corrupted cluster config file (line 1: bad bus port)");
  EXPECT_TRUE(ParseNodesConfig(
                  test::kNodeIdA + " 127.0.0.1:55535 myself,master - 0 0 1 connected 0-5460\n", 1)
                  .ok());
}

TEST(ClusterState, SlotsRolesAndDeletion) {
  ClusterState state(test::kNodeIdA);
  Node* b = state.AddNode(test::kNodeIdB, kFlagMaster, 0);
  Node* c = state.AddNode(test::kNodeIdC, kFlagMaster, 0);
  EXPECT_TRUE(state.AddSlot(b, 1));
  EXPECT_FALSE(state.AddSlot(c, 1));
  EXPECT_EQ(b->num_slots, 1);
  state.SetReplicaOf(c, b);
  EXPECT_TRUE(c->is_replica());
  EXPECT_EQ(b->replicas, std::vector<Node*>{c});
  state.SetAsMaster(c);
  EXPECT_TRUE(b->replicas.empty());
  state.SetReplicaOf(c, b);
  state.set_migrating(2, b);
  state.AddFailureReport(c, b, 0);
  state.DeleteNode(b);
  EXPECT_EQ(state.slot_owner(1), nullptr);
  EXPECT_EQ(state.migrating_to(2), nullptr);
  EXPECT_EQ(c->master, nullptr);
  EXPECT_TRUE(c->fail_reports.empty());
  EXPECT_EQ(state.nodes().size(), 2u);
}

TEST(ClusterState, FailureReportsExpireAfterTwoTimeouts) {
  ClusterState state(test::kNodeIdA);
  Node* b = state.AddNode(test::kNodeIdB, kFlagMaster, 0);
  Node* c = state.AddNode(test::kNodeIdC, kFlagMaster, 0);
  Node* d = state.AddNode(std::string(40, 'd'), kFlagMaster, 0);
  state.AddFailureReport(d, b, 1000);
  state.AddFailureReport(d, c, 2500);
  state.AddFailureReport(d, c, 3000);  // the same reporter again: one report
  EXPECT_EQ(state.CountFailureReports(d, 3000, 1000), 2);
  EXPECT_EQ(state.CountFailureReports(d, 3500, 1000), 1);  // b's is older than 2 s
  state.DelFailureReport(d, c);
  EXPECT_EQ(state.CountFailureReports(d, 3500, 1000), 0);
}

TEST(ClusterState, HealthNeedsCoverageAndAMajorityOfMasters) {
  ClusterState state(test::kNodeIdA);
  Node* me = state.myself();
  Node* b = state.AddNode(test::kNodeIdB, kFlagMaster, 0);
  Node* c = state.AddNode(test::kNodeIdC, kFlagMaster, 0);
  for (int j = 0; j < 6000; j++) state.AddSlot(me, j);
  for (int j = 6000; j < 12000; j++) state.AddSlot(b, j);
  state.UpdateHealth(true);
  EXPECT_EQ(state.health(), ClusterState::Health::kFail);  // slots 12000.. unserved
  state.UpdateHealth(false);
  EXPECT_EQ(state.health(), ClusterState::Health::kOk);
  for (int j = 12000; j < kSlots; j++) state.AddSlot(c, j);
  state.UpdateHealth(true);
  EXPECT_EQ(state.health(), ClusterState::Health::kOk);
  EXPECT_EQ(state.size(), 3);
  c->flags |= kFlagFail;  // its slots are served by a failed master
  state.UpdateHealth(true);
  EXPECT_EQ(state.health(), ClusterState::Health::kFail);
  state.UpdateHealth(false);
  EXPECT_EQ(state.health(), ClusterState::Health::kOk);  // 2 of 3 masters reachable
  b->flags |= kFlagPfail;
  state.UpdateHealth(false);
  EXPECT_EQ(state.health(), ClusterState::Health::kFail);  // a minority
}

TEST(ClusterState, EpochBumpTakesANewEpochOnlyWhenNotAlreadyTheGreatest) {
  ClusterState state(test::kNodeIdA);
  Node* b = state.AddNode(test::kNodeIdB, kFlagMaster, 0);
  EXPECT_TRUE(state.BumpConfigEpochWithoutConsensus());  // 0: always takes one
  EXPECT_EQ(state.myself()->config_epoch, 1u);
  EXPECT_EQ(state.current_epoch(), 1u);
  EXPECT_FALSE(state.BumpConfigEpochWithoutConsensus());  // already the greatest
  b->config_epoch = 5;
  EXPECT_TRUE(state.BumpConfigEpochWithoutConsensus());
  EXPECT_EQ(state.myself()->config_epoch, 2u);  // currentEpoch + 1, as Redis does
  EXPECT_EQ(state.MaxEpoch(), 5u);
}

TEST(ClusterState, NodeNames) {
  const std::string name = RandomNodeName();
  EXPECT_TRUE(IsNodeName(name));
  EXPECT_NE(RandomNodeName(), name);
  EXPECT_FALSE(IsNodeName("xyz"));
  EXPECT_FALSE(IsNodeName(std::string(40, 'g')));
}

}  // namespace
}  // namespace ebb::server::cluster
