// The Redis bit commands over string rows (bitops.c's replies and errors, Redis 7): SETBIT,
// GETBIT, BITCOUNT, BITPOS, BITOP. Bit 0 is the most significant bit of byte 0. A bit offset is
// below proto-max-bulk-len * 8 ("ERR bit offset is not an integer or out of range"); BITCOUNT
// and BITPOS ranges count bytes, or bits with BIT, negative indexes from the end.
//
// Writes follow the string rows' rules (types/kv.h): SETBIT is a read-modify-write (a new
// version at max(clock, old ts), the expiry kept; a key it creates gets the TTL policy's) and
// writes only when the bit changes or the string grows, as Redis; BITOP writes its destination
// like SET (at the clock, the policy's expiry) or deletes it when the result is empty.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/bit_offset.h"
#include "server/commands/read_string.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/kv.h"

namespace ebb::server {
namespace {

using types::OpResult;
using types::OpStatus;

// The bit at `offset` of `value` (0 past its end).
int BitAt(std::string_view value, uint64_t offset) {
  const uint64_t byte = offset >> 3;
  if (byte >= value.size()) return 0;
  return (static_cast<uint8_t>(value[byte]) >> (7 - (offset & 7))) & 1;
}

// A bit offset argument (bit_offset.h); false after replying the error.
bool BitOffsetOrReply(CommandContext& ctx, std::string_view text, uint64_t* offset) {
  if (ParseBitOffset(text, 0, ctx.server.config().proto_max_bulk_len, offset)) return true;
  ctx.reply.Error(kBitOffset);
  return false;
}

// ---- SETBIT, GETBIT

// The offset's limit comes from the configuration, which Parse does not see: Execute checks the
// texts, in Redis's order (the offset, then the bit).
struct BitArgs {
  std::string_view key;
  std::string_view offset;
  std::string_view bit;  // SETBIT's value
};

BitArgs ParseSetBit(ArgParser& args) {
  BitArgs o;
  o.key = args.Next();
  o.offset = args.Next();
  o.bit = args.Next();
  return o;
}

BitArgs ParseGetBit(ArgParser& args) {
  BitArgs o;
  o.key = args.Next();
  o.offset = args.Next();
  return o;
}

// SETBIT key offset value -> the bit's previous value.
void ExecuteSetBit(CommandContext& ctx, const BitArgs& o) {
  uint64_t offset = 0;
  if (!BitOffsetOrReply(ctx, o.offset, &offset)) return;
  int64_t bit = 0;
  if (!ParseInt64(o.bit, &bit) || (bit & ~int64_t{1}) != 0) return ctx.reply.Error(kBitValue);
  types::Kv kv = KvOf(ctx);
  OpResult<std::optional<types::KvRow>> base = kv.ReadForUpdate(o.key);
  if (!base.ok()) return ReplyError(ctx, base);
  std::string value = *base ? (*base)->value : std::string();
  const int old = BitAt(value, offset);
  const size_t byte = static_cast<size_t>(offset >> 3);
  const bool grows = !*base || byte >= value.size();
  if (grows || old != bit) {
    if (byte >= value.size()) value.resize(byte + 1, '\0');
    const uint8_t mask = static_cast<uint8_t>(1u << (7 - (offset & 7)));
    value[byte] = static_cast<char>(bit ? (static_cast<uint8_t>(value[byte]) | mask)
                                        : (static_cast<uint8_t>(value[byte]) & ~mask));
    const int64_t now = ctx.server.clock().NowMs();
    OpResult<void> put =
        kv.PutDerived(o.key, value, *base, now, ctx.server.keyspace().PolicyExpireAt(o.key, now),
                      /*raw=*/true);
    if (!put.ok()) return ReplyError(ctx, put);
    SignalKeyChange(ctx, o.key, kNotifyString, "setbit");
  }
  ctx.reply.Integer(old);
}

// GETBIT key offset -> the bit (0 past the end or for a missing key).
void ExecuteGetBit(CommandContext& ctx, const BitArgs& o) {
  uint64_t offset = 0;
  if (!BitOffsetOrReply(ctx, o.offset, &offset)) return;
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, o.key, std::nullopt, &row)) return;
  ctx.reply.Integer(row ? BitAt(row->value, offset) : 0);
}

// ---- BITCOUNT, BITPOS

// A [start, end] range of BITCOUNT or BITPOS resolved to bit offsets in a string of `bytes`
// bytes: empty when start > end.
struct BitRange {
  int64_t first = 0;  // first bit
  int64_t last = -1;  // last bit, inclusive
  bool empty() const { return first > last; }
};

// Redis's index rules: negative indexes count from the end, then both are clamped into the
// string; `unit_bits` is 8 for BYTE and 1 for BIT.
BitRange ResolveRange(int64_t start, int64_t end, uint64_t bytes, int unit_bits) {
  const int64_t total = static_cast<int64_t>(bytes) * (unit_bits == 8 ? 1 : 8);
  if (start < 0) start += total;
  if (end < 0) end += total;
  start = std::max<int64_t>(start, 0);
  end = std::max<int64_t>(end, 0);
  end = std::min(end, total - 1);
  if (start > end) return {};
  if (unit_bits == 8) return {start * 8, end * 8 + 7};
  return {start, end};
}

int64_t CountBits(std::string_view value, BitRange range) {
  if (range.empty()) return 0;
  int64_t count = 0;
  int64_t bit = range.first;
  for (; bit <= range.last && (bit & 7) != 0; ++bit) count += BitAt(value, bit);
  int64_t byte = bit >> 3;
  const int64_t whole_end = (range.last + 1) >> 3;  // bytes wholly inside the range end here
  for (; byte + 8 <= whole_end; byte += 8) {
    uint64_t word;
    std::memcpy(&word, value.data() + byte, 8);
    count += __builtin_popcountll(word);
  }
  for (; byte < whole_end; ++byte) count += __builtin_popcount(static_cast<uint8_t>(value[byte]));
  for (bit = std::max(bit, whole_end * 8); bit <= range.last; ++bit) count += BitAt(value, bit);
  return count;
}

// The first bit equal to `bit` in the range, or -1.
int64_t FindBit(std::string_view value, BitRange range, int bit) {
  const uint8_t skip = bit ? 0x00 : 0xff;  // a byte that cannot hold the bit looked for
  int64_t at = range.first;
  while (at <= range.last) {
    if ((at & 7) == 0 && at + 7 <= range.last && static_cast<uint8_t>(value[at >> 3]) == skip) {
      at += 8;
      continue;
    }
    if (BitAt(value, at) == bit) return at;
    ++at;
  }
  return -1;
}

struct RangeArgs {
  std::string_view key;
  std::vector<std::string_view> rest;  // what follows the key (BITPOS: the bit first)
};

RangeArgs ParseKeyAndRest(ArgParser& args) {
  RangeArgs o;
  o.key = args.Next();
  while (args.HasMore()) o.rest.push_back(args.Next());
  return o;
}

// The optional BYTE|BIT unit: 8 or 1, or 0 after replying a syntax error.
int UnitOrReply(CommandContext& ctx, std::string_view unit) {
  if (EqualsIgnoreCase(unit, "byte")) return 8;
  if (EqualsIgnoreCase(unit, "bit")) return 1;
  ctx.reply.Error(kSyntaxError);
  return 0;
}

// BITCOUNT key [start end [BYTE|BIT]] -> the set bits. A missing key is 0 whatever follows, as
// Redis (the key is looked up before the range is parsed).
void ExecuteBitCount(CommandContext& ctx, const RangeArgs& o) {
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, o.key, std::nullopt, &row)) return;
  if (!row) return ctx.reply.Integer(0);
  const std::string_view value = row->value;
  if (o.rest.empty())
    return ctx.reply.Integer(CountBits(value, {0, int64_t(value.size()) * 8 - 1}));
  if (o.rest.size() != 2 && o.rest.size() != 3) return ctx.reply.Error(kSyntaxError);
  int64_t start = 0, end = 0;
  if (!ParseInt64(o.rest[0], &start) || !ParseInt64(o.rest[1], &end)) {
    return ctx.reply.Error(kNotInteger);
  }
  if (start < 0 && end < 0 && start > end) return ctx.reply.Integer(0);
  int unit = 8;
  if (o.rest.size() == 3 && (unit = UnitOrReply(ctx, o.rest[2])) == 0) return;
  ctx.reply.Integer(CountBits(value, ResolveRange(start, end, value.size(), unit)));
}

// BITPOS key bit [start [end [BYTE|BIT]]] -> the first bit set (1) or clear (0) in the range, or
// -1. A missing key is all clear bits (0, or -1 for a set bit); looking for a clear bit with no
// end given finds the first bit after the string when the range has none, as Redis.
void ExecuteBitPos(CommandContext& ctx, const RangeArgs& o) {
  int64_t bit = 0;
  if (o.rest.empty() || o.rest.size() > 4) return ctx.reply.Error(kSyntaxError);
  if (!ParseInt64(o.rest[0], &bit)) return ctx.reply.Error(kNotInteger);
  if (bit != 0 && bit != 1) return ctx.reply.Error(kBitposBit);
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, o.key, std::nullopt, &row)) return;
  if (!row) return ctx.reply.Integer(bit ? -1 : 0);
  const std::string_view value = row->value;
  const int64_t bits = static_cast<int64_t>(value.size()) * 8;
  BitRange range{0, bits - 1};
  const bool end_given = o.rest.size() >= 3;
  if (o.rest.size() >= 2) {
    int64_t start = 0;
    int64_t end = -1;
    if (!ParseInt64(o.rest[1], &start)) return ctx.reply.Error(kNotInteger);
    int unit = 8;
    if (o.rest.size() == 4 && (unit = UnitOrReply(ctx, o.rest[3])) == 0) return;
    if (end_given && !ParseInt64(o.rest[2], &end)) return ctx.reply.Error(kNotInteger);
    range = ResolveRange(start, end, value.size(), unit);
  }
  if (range.empty()) return ctx.reply.Integer(-1);
  const int64_t found = FindBit(value, range, static_cast<int>(bit));
  if (found >= 0) return ctx.reply.Integer(found);
  ctx.reply.Integer(bit == 0 && !end_given ? range.last + 1 : -1);
}

// ---- BITOP

enum class BitOp { kAnd, kOr, kXor, kNot };

struct BitOpOptions {
  BitOp op = BitOp::kAnd;
  std::string_view dest;
  std::vector<std::string_view> sources;
};

BitOpOptions ParseBitOp(ArgParser& args) {
  BitOpOptions o;
  const int op = args.Choice({"AND", "OR", "XOR", "NOT"});
  if (op < 0) {
    args.SyntaxError();
    return o;
  }
  o.op = static_cast<BitOp>(op);
  o.dest = args.Next();
  while (args.HasMore()) o.sources.push_back(args.Next());
  if (o.op == BitOp::kNot && o.sources.size() != 1) args.Fail(kBitopNotSingle);
  return o;
}

// BITOP AND|OR|XOR|NOT destkey key [key ...] -> the destination's length. Missing sources are
// empty strings; shorter ones are zero-padded to the longest.
void ExecuteBitOp(CommandContext& ctx, const BitOpOptions& o) {
  types::Kv kv = KvOf(ctx);
  std::vector<std::string> values;
  values.reserve(o.sources.size());
  std::optional<types::OpFailure> failure;
  for (std::string_view key : o.sources) {
    OpResult<types::KvRow> row = kv.Get(key);
    if (row.ok()) {
      values.push_back(std::move(row->value));
    } else if (row.status() == OpStatus::kNotFound) {
      values.emplace_back();
    } else if (!failure) {
      failure = types::FailureOf(row);  // read on: a command waiting for the disk asks for all
    }
  }
  if (failure) return ReplyError(ctx, *failure);
  size_t length = 0;
  for (const std::string& v : values) length = std::max(length, v.size());
  std::string result(length, '\0');
  if (o.op == BitOp::kNot) {
    for (size_t i = 0; i < length; ++i) result[i] = static_cast<char>(~values[0][i]);
  } else {
    for (size_t i = 0; i < length; ++i) {
      uint8_t acc = i < values[0].size() ? static_cast<uint8_t>(values[0][i]) : 0;
      for (size_t v = 1; v < values.size(); ++v) {
        const uint8_t b = i < values[v].size() ? static_cast<uint8_t>(values[v][i]) : 0;
        acc = o.op == BitOp::kAnd ? (acc & b) : o.op == BitOp::kOr ? (acc | b) : (acc ^ b);
      }
      result[i] = static_cast<char>(acc);
    }
  }
  const int db = ctx.client.db_index();
  if (length == 0) {
    OpResult<bool> deleted = ctx.server.keyspace().Delete(db, o.dest);
    if (!deleted.ok()) return ReplyError(ctx, deleted);
    if (*deleted) SignalKeyChange(ctx, o.dest, kNotifyGeneric, "del");
    return ctx.reply.Integer(0);
  }
  const int64_t now = ctx.server.clock().NowMs();
  OpResult<void> put =
      kv.Put({o.dest, result, now, ctx.server.keyspace().PolicyExpireAt(o.dest, now),
              /*raw=*/true});
  if (!put.ok()) return ReplyError(ctx, put);
  SignalKeyChange(ctx, o.dest, kNotifyString, "set");
  ctx.reply.Integer(static_cast<int64_t>(length));
}

const ArgSpec kKey = {.name = "key", .type = ArgType::kKey};

std::vector<ArgSpec> RangeWithUnit(std::vector<ArgSpec> first) {
  first.push_back({.name = "unit",
                   .type = ArgType::kOneOf,
                   .optional = true,
                   .children = {{.name = "byte", .type = ArgType::kPureToken, .token = "BYTE"},
                                {.name = "bit", .type = ArgType::kPureToken, .token = "BIT"}}});
  return first;
}

}  // namespace

std::vector<CommandSpec> BitCommands() {
  return {
      {.name = "setbit",
       .arity = 4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "bitmap",
       .since = "2.2.0",
       .summary = "Sets or clears the bit at offset of the string value. Creates the key if it "
                  "doesn't exist.",
       .arguments = {kKey,
                     {.name = "offset", .type = ArgType::kInteger},
                     {.name = "value", .type = ArgType::kInteger}},
       .handler = Handler<ParseSetBit, ExecuteSetBit>},
      {.name = "getbit",
       .arity = 3,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kFirstKey,
       .group = "bitmap",
       .since = "2.2.0",
       .summary = "Returns a bit value by offset.",
       .arguments = {kKey, {.name = "offset", .type = ArgType::kInteger}},
       .handler = Handler<ParseGetBit, ExecuteGetBit>},
      {.name = "bitcount",
       .arity = -2,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "bitmap",
       .since = "2.6.0",
       .summary = "Counts the number of set bits (population counting) in a string.",
       .complexity = "O(N)",
       .arguments = {kKey,
                     {.name = "range",
                      .type = ArgType::kBlock,
                      .optional = true,
                      .children = RangeWithUnit({{.name = "start", .type = ArgType::kInteger},
                                                 {.name = "end", .type = ArgType::kInteger}})}},
       .handler = Handler<ParseKeyAndRest, ExecuteBitCount>},
      {.name = "bitpos",
       .arity = -3,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "bitmap",
       .since = "2.8.7",
       .summary = "Finds the first set (1) or clear (0) bit in a string.",
       .complexity = "O(N)",
       .arguments = {kKey,
                     {.name = "bit", .type = ArgType::kInteger},
                     {.name = "range",
                      .type = ArgType::kBlock,
                      .optional = true,
                      .children = {{.name = "start", .type = ArgType::kInteger},
                                   {.name = "end-unit-block",
                                    .type = ArgType::kBlock,
                                    .optional = true,
                                    .children = RangeWithUnit(
                                        {{.name = "end", .type = ArgType::kInteger}})}}}},
       .handler = Handler<ParseKeyAndRest, ExecuteBitPos>},
      {.name = "bitop",
       .arity = -4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = {2, -1, 1},
       .group = "bitmap",
       .since = "2.6.0",
       .summary = "Performs bitwise operations on multiple strings, and stores the result.",
       .complexity = "O(N)",
       .arguments = {{.name = "operation",
                      .type = ArgType::kOneOf,
                      .children = {{.name = "and", .type = ArgType::kPureToken, .token = "AND"},
                                   {.name = "or", .type = ArgType::kPureToken, .token = "OR"},
                                   {.name = "xor", .type = ArgType::kPureToken, .token = "XOR"},
                                   {.name = "not", .type = ArgType::kPureToken, .token = "NOT"}}},
                     {.name = "destkey", .type = ArgType::kKey},
                     {.name = "key", .type = ArgType::kKey, .multiple = true}},
       .handler = Handler<ParseBitOp, ExecuteBitOp>},
  };
}

}  // namespace ebb::server
