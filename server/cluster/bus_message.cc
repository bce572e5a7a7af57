#include "server/cluster/bus_message.h"

#include <cstdint>
#include <cstring>

#include "server/cluster/node_table.h"

namespace ebb::server::cluster {
namespace {

// The greatest epoch a message may carry.
constexpr uint64_t kMaxEpoch = static_cast<uint64_t>(INT64_MAX);

constexpr size_t kUpdateLength = 8 + kNameLength + kSlotBytes;
constexpr size_t kPublishFixed = 8;  // channel_len, message_len

void Put16(std::string& b, size_t at, uint16_t v) {
  b[at] = static_cast<char>(v >> 8);
  b[at + 1] = static_cast<char>(v);
}
void Put32(std::string& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b[at + i] = static_cast<char>(v >> (24 - 8 * i));
}
void Put64(std::string& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; i++) b[at + i] = static_cast<char>(v >> (56 - 8 * i));
}
// Copies at most `width` bytes of `s`; the rest of the field stays NUL.
void PutField(std::string& b, size_t at, std::string_view s, size_t width) {
  std::memcpy(b.data() + at, s.data(), std::min(s.size(), width));
}
void PutSlots(std::string& b, size_t at, const SlotBitmap& slots) {
  // Redis's bitmap: slot j is bit (j & 7) of byte j >> 3.
  for (size_t byte = 0; byte < kSlotBytes; byte++) {
    uint8_t v = 0;
    for (int bit = 0; bit < 8; bit++) {
      if (slots.test(byte * 8 + bit)) v |= static_cast<uint8_t>(1u << bit);
    }
    b[at + byte] = static_cast<char>(v);
  }
}

uint16_t Get16(std::string_view b, size_t at) {
  return static_cast<uint16_t>((static_cast<uint8_t>(b[at]) << 8) |
                               static_cast<uint8_t>(b[at + 1]));
}
uint32_t Get32(std::string_view b, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}
uint64_t Get64(std::string_view b, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}
// A NUL-padded field: its bytes up to the first NUL.
std::string GetField(std::string_view b, size_t at, size_t width) {
  std::string_view field = b.substr(at, width);
  return std::string(field.substr(0, field.find('\0')));
}
void GetSlots(std::string_view b, size_t at, SlotBitmap* slots) {
  slots->reset();
  for (size_t byte = 0; byte < kSlotBytes; byte++) {
    const uint8_t v = static_cast<uint8_t>(b[at + byte]);
    if (v == 0) continue;
    for (int bit = 0; bit < 8; bit++) {
      if (v & (1u << bit)) slots->set(byte * 8 + bit);
    }
  }
}

bool IsPingLike(MessageType t) {
  return t == MessageType::kPing || t == MessageType::kPong || t == MessageType::kMeet;
}

}  // namespace

std::string_view MessageTypeName(int type) {
  static constexpr std::string_view kNames[kMessageTypeCount] = {
      "ping",     "pong",   "meet",    "fail",   "publish",     "auth-req",
      "auth-ack", "update", "mfstart", "module", "publishshard"};
  return type >= 0 && type < kMessageTypeCount ? kNames[type] : "unknown";
}

std::string EncodeMessage(const BusMessage& m) {
  size_t length = kHeaderLength;
  if (IsPingLike(m.type)) {
    length += m.gossip.size() * kGossipLength;
  } else if (m.type == MessageType::kFail) {
    length += kNameLength;
  } else if (m.type == MessageType::kUpdate) {
    length += kUpdateLength;
  } else if (m.type == MessageType::kPublish || m.type == MessageType::kPublishShard) {
    length += kPublishFixed + m.channel.size() + m.message.size();
  }
  std::string b(length, '\0');
  std::memcpy(b.data(), "RCmb", 4);
  Put32(b, kOffTotlen, static_cast<uint32_t>(length));
  Put16(b, kOffVer, kProtocolVersion);
  Put16(b, kOffPort, m.port);
  Put16(b, kOffType, static_cast<uint16_t>(m.type));
  Put16(b, kOffCount, IsPingLike(m.type) ? static_cast<uint16_t>(m.gossip.size()) : 0);
  Put64(b, kOffCurrentEpoch, m.current_epoch);
  Put64(b, kOffConfigEpoch, m.config_epoch);
  Put64(b, kOffOffset, m.offset);
  PutField(b, kOffSender, m.sender, kNameLength);
  PutSlots(b, kOffSlots, m.slots);
  PutField(b, kOffSlaveof, m.slaveof, kNameLength);
  PutField(b, kOffMyip, m.myip, kIpLength - 1);
  Put16(b, kOffExtensions, 0);
  Put16(b, kOffPport, m.pport);
  Put16(b, kOffCport, m.cport);
  Put16(b, kOffFlags, m.flags);
  b[kOffState] = static_cast<char>(m.state);
  // No extensions are sent: the ext-data flag stays clear whatever the caller set.
  b[kOffMflags] = static_cast<char>(m.mflags0 & ~kMsgFlagExtData);
  size_t at = kHeaderLength;
  if (IsPingLike(m.type)) {
    for (const GossipEntry& g : m.gossip) {
      PutField(b, at, g.name, kNameLength);
      Put32(b, at + 40, g.ping_sent);
      Put32(b, at + 44, g.pong_received);
      PutField(b, at + 48, g.ip, kIpLength - 1);
      Put16(b, at + 94, g.port);
      Put16(b, at + 96, g.cport);
      Put16(b, at + 98, g.flags);
      Put16(b, at + 100, g.pport);
      at += kGossipLength;
    }
  } else if (m.type == MessageType::kFail) {
    PutField(b, at, m.about, kNameLength);
  } else if (m.type == MessageType::kUpdate) {
    Put64(b, at, m.update_config_epoch);
    PutField(b, at + 8, m.about, kNameLength);
    PutSlots(b, at + 8 + kNameLength, m.update_slots);
  } else if (m.type == MessageType::kPublish || m.type == MessageType::kPublishShard) {
    Put32(b, at, static_cast<uint32_t>(m.channel.size()));
    Put32(b, at + 4, static_cast<uint32_t>(m.message.size()));
    std::memcpy(b.data() + at + 8, m.channel.data(), m.channel.size());
    std::memcpy(b.data() + at + 8 + m.channel.size(), m.message.data(), m.message.size());
  }
  return b;
}

uint32_t MessageLength(std::string_view header) {
  if (header.size() < 8 || header.substr(0, 4) != "RCmb") return 0;
  return Get32(header, kOffTotlen);
}

namespace {

// The header's fields into *m, with the gossip entries' and the ping extensions' counts; a
// refusal when it is no message of this protocol or its length is not the one it states.
Result<BusMessageCode> DecodeHeader(std::string_view b, BusMessage* m, uint16_t* count,
                                    uint16_t* extensions) {
  if (b.size() < kHeaderLength || b.substr(0, 4) != "RCmb") return BusMessageCode::kNotABusMessage;
  if (Get32(b, kOffTotlen) != b.size()) return BusMessageCode::kLengthMismatch;
  if (Get16(b, kOffVer) != kProtocolVersion) return BusMessageCode::kUnsupportedVersion;
  const uint16_t type = Get16(b, kOffType);
  if (type >= kMessageTypeCount) return {BusMessageCode::kUnknownType, std::to_string(type)};
  m->type = static_cast<MessageType>(type);
  m->port = Get16(b, kOffPort);
  *count = Get16(b, kOffCount);
  m->current_epoch = Get64(b, kOffCurrentEpoch);
  m->config_epoch = Get64(b, kOffConfigEpoch);
  m->offset = Get64(b, kOffOffset);
  m->sender = GetField(b, kOffSender, kNameLength);
  GetSlots(b, kOffSlots, &m->slots);
  m->slaveof = GetField(b, kOffSlaveof, kNameLength);
  if (m->current_epoch > kMaxEpoch || m->config_epoch > kMaxEpoch) return BusMessageCode::kBadEpoch;
  if (!IsNodeName(m->sender)) return BusMessageCode::kBadSenderName;
  if (!m->slaveof.empty() && !IsNodeName(m->slaveof)) return BusMessageCode::kBadMasterName;
  m->myip = GetField(b, kOffMyip, kIpLength);
  *extensions = Get16(b, kOffExtensions);
  m->pport = Get16(b, kOffPport);
  m->cport = Get16(b, kOffCport);
  m->flags = Get16(b, kOffFlags);
  m->state = static_cast<uint8_t>(b[kOffState]);
  m->mflags0 = static_cast<uint8_t>(b[kOffMflags]);
  return {};
}

// Each body decoder below reads its type's data after the header when the message holds it, and
// returns the length the whole message should have.

// PING / PONG / MEET: the gossip entries, then the ping extensions (skipped); the length in
// *expected. kMalformedExtension when an extension is.
Result<BusMessageCode> DecodeGossipBody(std::string_view b, uint16_t count, uint16_t extensions,
                                        BusMessage* m, size_t* expected) {
  *expected = kHeaderLength + static_cast<size_t>(count) * kGossipLength;
  if (b.size() < *expected) return {};
  for (size_t i = 0; i < count; i++) {
    const size_t g = kHeaderLength + i * kGossipLength;
    GossipEntry e;
    e.name = GetField(b, g, kNameLength);
    e.ping_sent = Get32(b, g + 40);
    e.pong_received = Get32(b, g + 44);
    e.ip = GetField(b, g + 48, kIpLength);
    e.port = Get16(b, g + 94);
    e.cport = Get16(b, g + 96);
    e.flags = Get16(b, g + 98);
    e.pport = Get16(b, g + 100);
    m->gossip.push_back(std::move(e));
  }
  if (!(m->mflags0 & kMsgFlagExtData)) return {};
  // Each extension: uint32 length (its header included, 8-byte aligned), type, padding.
  for (uint16_t i = 0; i < extensions; i++) {
    if (b.size() < *expected + 8) {
      *expected += 8;
      return {};
    }
    const uint32_t ext_length = Get32(b, *expected);
    if (ext_length < 8) return BusMessageCode::kMalformedExtension;
    *expected += ext_length;
  }
  return {};
}

size_t DecodeFailBody(std::string_view b, BusMessage* m) {
  const size_t expected = kHeaderLength + kNameLength;
  if (b.size() >= expected) m->about = GetField(b, kHeaderLength, kNameLength);
  return expected;
}

size_t DecodeUpdateBody(std::string_view b, BusMessage* m) {
  const size_t expected = kHeaderLength + kUpdateLength;
  if (b.size() >= expected) {
    m->update_config_epoch = Get64(b, kHeaderLength);
    m->about = GetField(b, kHeaderLength + 8, kNameLength);
    GetSlots(b, kHeaderLength + 8 + kNameLength, &m->update_slots);
  }
  return expected;
}

size_t DecodePublishBody(std::string_view b, BusMessage* m) {
  const size_t at = kHeaderLength;
  size_t expected = at + kPublishFixed;
  if (b.size() < expected) return expected;
  const uint32_t channel_length = Get32(b, at);
  const uint32_t message_length = Get32(b, at + 4);
  expected += static_cast<size_t>(channel_length) + message_length;
  if (b.size() == expected) {
    m->channel = std::string(b.substr(at + 8, channel_length));
    m->message = std::string(b.substr(at + 8 + channel_length, message_length));
  }
  return expected;
}

}  // namespace

std::string BusMessageErrorText(const Result<BusMessageCode>& r) {
  switch (r.code()) {
    case BusMessageCode::kOk:
      break;
    case BusMessageCode::kNotABusMessage:
      return "not a cluster bus message";
    case BusMessageCode::kLengthMismatch:
      return "length mismatch";
    case BusMessageCode::kUnsupportedVersion:
      return "unsupported protocol version";
    case BusMessageCode::kUnknownType:
      return "unknown message type " + r.detail();
    case BusMessageCode::kMalformedExtension:
      return "malformed ping extension";
    case BusMessageCode::kBodyLengthMismatch:
      return "length mismatch for a " + r.detail() + " message";
    case BusMessageCode::kBadSenderName:
      return "a sender name that is no node name";
    case BusMessageCode::kBadMasterName:
      return "a master name that is no node name";
    case BusMessageCode::kBadEpoch:
      return "an epoch above 2^63 - 1";
  }
  return {};
}

bool DecodeMessage(std::string_view b, BusMessage* m, std::string* error) {
  const Result<BusMessageCode> decoded = DecodeMessage(b, m);
  if (!decoded.ok()) *error = BusMessageErrorText(decoded);
  return decoded.ok();
}

Result<BusMessageCode> DecodeMessage(std::string_view b, BusMessage* m) {
  uint16_t count = 0, extensions = 0;
  if (Result<BusMessageCode> header = DecodeHeader(b, m, &count, &extensions); !header.ok()) {
    return header;
  }
  m->gossip.clear();
  size_t expected = kHeaderLength;
  switch (m->type) {
    case MessageType::kPing:
    case MessageType::kPong:
    case MessageType::kMeet:
      if (Result<BusMessageCode> body = DecodeGossipBody(b, count, extensions, m, &expected);
          !body.ok()) {
        return body;
      }
      break;
    case MessageType::kFail:
      expected = DecodeFailBody(b, m);
      break;
    case MessageType::kUpdate:
      expected = DecodeUpdateBody(b, m);
      break;
    case MessageType::kPublish:
    case MessageType::kPublishShard:
      expected = DecodePublishBody(b, m);
      break;
    case MessageType::kModule:
      expected = b.size();  // not interpreted: ebb has no modules
      break;
    default:
      break;
  }
  if (expected != b.size()) {
    return {BusMessageCode::kBodyLengthMismatch, MessageTypeName(static_cast<int>(m->type))};
  }
  if (m->type == MessageType::kUpdate && m->update_config_epoch > kMaxEpoch) {
    return BusMessageCode::kBadEpoch;
  }
  return {};
}

}  // namespace ebb::server::cluster
