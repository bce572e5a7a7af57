// The cluster bus's messages as Redis 7.0 puts them on the wire (its cluster.h clusterMsg,
// protocol version 1; docs/cluster.md, "The bus"): a 2256-byte header — signature "RCmb", total
// length, version, the sender's client port, type, count, currentEpoch, configEpoch, replication
// offset, name (40 hex), slot bitmap, master's name, IP, extension count, plaintext port, bus
// port, flags, the cluster state it sees, message flags — then the type's data:
//   PING / PONG / MEET: `count` gossip entries of 104 bytes (a node's name, ping sent, pong
//     received, IP, port, bus port, flags, plaintext port), then `extensions` ping extensions
//     (parsed only to be skipped: every one starts with its length);
//   FAIL: the failed node's name;
//   UPDATE: a configEpoch, a node's name and its slot bitmap;
//   PUBLISH / PUBLISHSHARD: channel length, message length, channel, message;
//   FAILOVER_AUTH_REQUEST / FAILOVER_AUTH_ACK / MFSTART: nothing.
// Every integer is big-endian; strings are NUL-padded fixed fields.
//
// Encode and Decode are pure functions over bytes; Decode refuses a malformed message with a
// BusMessageCode. Thread-safety: none needed.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/result.h"

namespace ebb::server::cluster {

inline constexpr size_t kNameLength = 40;  // a node's name: 40 lower-case hex digits
inline constexpr size_t kIpLength = 46;    // NET_IP_STR_LEN
inline constexpr size_t kHeaderLength = 2256;
inline constexpr size_t kGossipLength = 104;
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kSlotBytes = 16384 / 8;
// Field offsets in the header (Redis's static_asserts on clusterMsg; docs/cluster.md, "The bus").
inline constexpr size_t kOffTotlen = 4, kOffVer = 8, kOffPort = 10, kOffType = 12, kOffCount = 14;
inline constexpr size_t kOffCurrentEpoch = 16, kOffConfigEpoch = 24, kOffOffset = 32;
inline constexpr size_t kOffSender = 40, kOffSlots = 80, kOffSlaveof = 2128, kOffMyip = 2168;
inline constexpr size_t kOffExtensions = 2214, kOffPport = 2246, kOffCport = 2248;
inline constexpr size_t kOffFlags = 2250, kOffState = 2252, kOffMflags = 2253;

enum class MessageType : uint16_t {
  kPing = 0,
  kPong = 1,
  kMeet = 2,
  kFail = 3,
  kPublish = 4,
  kFailoverAuthRequest = 5,
  kFailoverAuthAck = 6,
  kUpdate = 7,
  kMfStart = 8,
  kModule = 9,
  kPublishShard = 10,
};
inline constexpr int kMessageTypeCount = 11;
// CLUSTER INFO's name of a type ("ping", "auth-req", ...).
std::string_view MessageTypeName(int type);

// A node's flags as the bus carries them (and CLUSTER NODES prints them).
enum NodeFlag : uint16_t {
  kFlagMaster = 1,
  kFlagSlave = 2,
  kFlagPfail = 4,
  kFlagFail = 8,
  kFlagMyself = 16,
  kFlagHandshake = 32,
  kFlagNoAddr = 64,
  kFlagMeet = 128,
  kFlagMigrateTo = 256,
  kFlagNoFailover = 512,
};

// mflags[0]
inline constexpr uint8_t kMsgFlagPaused = 1;    // the master paused its clients (manual failover)
inline constexpr uint8_t kMsgFlagForceAck = 2;  // give the vote even if the master is up
inline constexpr uint8_t kMsgFlagExtData = 4;   // ping extensions follow the gossip

using SlotBitmap = std::bitset<16384>;

struct GossipEntry {
  std::string name;            // 40 hex
  uint32_t ping_sent = 0;      // seconds
  uint32_t pong_received = 0;  // seconds
  std::string ip;
  uint16_t port = 0;
  uint16_t cport = 0;
  uint16_t flags = 0;
  uint16_t pport = 0;
};

struct BusMessage {
  MessageType type = MessageType::kPing;
  uint16_t port = 0;  // the sender's client port
  uint64_t current_epoch = 0;
  uint64_t config_epoch = 0;
  uint64_t offset = 0;  // replication offset
  std::string sender;   // 40 hex
  SlotBitmap slots;
  std::string slaveof;  // 40 hex, or "" for a master (all NULs on the wire)
  std::string myip;     // "" when the sender leaves it to the receiver
  uint16_t pport = 0;
  uint16_t cport = 0;
  uint16_t flags = 0;
  uint8_t state = 0;  // 0 ok, 1 fail
  uint8_t mflags0 = 0;

  std::vector<GossipEntry> gossip;   // PING, PONG, MEET
  std::string about;                 // FAIL: the failed node; UPDATE: the node described
  uint64_t update_config_epoch = 0;  // UPDATE
  SlotBitmap update_slots;           // UPDATE
  std::string channel, message;      // PUBLISH, PUBLISHSHARD
};

// The bytes of `m` (its length is in them).
std::string EncodeMessage(const BusMessage& m);

// Reads the total length from the first 8 bytes of a message (0 when `header` is shorter or its
// signature is not "RCmb").
uint32_t MessageLength(std::string_view header);

// DecodeMessage's outcomes: why a message is refused (the link that sent it is dropped).
enum class BusMessageCode {
  kOk,
  kNotABusMessage,      // too short, or not signed "RCmb"
  kLengthMismatch,      // the header's total length is not the message's
  kUnsupportedVersion,  // not protocol version 1
  kUnknownType,         // detail: the type's number
  kMalformedExtension,  // a ping extension shorter than its own header
  kBodyLengthMismatch,  // detail: the type's name; its data is not the length it should be
  kBadSenderName,       // the sender's name is not 40 hex digits
  kBadMasterName,       // the master's name is neither all NULs nor 40 hex digits
  kBadEpoch,            // an epoch above 2^63 - 1, which the next election would wrap to 0
};
// The text a log gives a refusal ("length mismatch for a ping message").
std::string BusMessageErrorText(const Result<BusMessageCode>& r);

// Parses one whole message into *m. A refusal when it is malformed: wrong signature or version,
// a length that does not match its type's contents, an unknown type, a sender's or master's name
// that is no node name (a node would take it as a node's name: CLUSTER NODES and nodes.conf
// could no longer be read), an epoch above 2^63 - 1 (no cluster counts that far; a node that took
// it would wrap to epoch 0 at its next election).
Result<BusMessageCode> DecodeMessage(std::string_view bytes, BusMessage* m);
// The same, false with the refusal's text in *error.
bool DecodeMessage(std::string_view bytes, BusMessage* m, std::string* error);

}  // namespace ebb::server::cluster
