// BITFIELD and BITFIELD_RO (Redis 7's bitfieldGeneric): integers of 1 to 64 bits (i1..i64,
// u1..u63) at any bit offset of a string, most significant bit first.
//
//   BITFIELD key [GET type offset | SET type offset value | INCRBY type offset increment |
//                 OVERFLOW WRAP|SAT|FAIL] ...
//
// Every operation is parsed (and any error replied) by Parse, before the key is read; they then run
// in order on one copy of the value, each GET seeing the SETs before it. OVERFLOW applies to the
// SETs and INCRBYs after it: WRAP (the default) wraps around, SAT saturates at the type's
// bounds, FAIL leaves the field and answers nil. SET answers the field's old value, INCRBY its
// new one. A command with a SET or INCRBY grows the string (zero bytes) to its farthest field
// and writes it as one new version (the string rows' read-modify-write: types/kv.h), with the
// event `setbit` when a field changed; BITFIELD_RO takes GETs only.
#include <algorithm>
#include <cstdint>
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

enum class Overflow { kWrap, kSat, kFail };

struct FieldOp {
  enum Kind { kGet, kSet, kIncrBy } kind = kGet;
  bool is_signed = false;
  int bits = 0;
  uint64_t offset = 0;
  int64_t value = 0;  // SET's value, INCRBY's increment
  Overflow overflow = Overflow::kWrap;
};

// "i<bits>" (1..64) or "u<bits>" (1..63), either case.
bool ParseFieldType(std::string_view text, FieldOp* op) {
  if (text.empty()) return false;
  const char sign = AsciiLower(text.front());
  if (sign != 'i' && sign != 'u') return false;
  int64_t bits = 0;
  if (!ParseInt64(text.substr(1), &bits) || bits < 1 || bits > (sign == 'i' ? 64 : 63)) {
    return false;
  }
  op->is_signed = sign == 'i';
  op->bits = static_cast<int>(bits);
  return true;
}

struct BitFieldOptions {
  std::string_view key;
  std::vector<FieldOp> ops;
};

// key, then the operations; the first error in Redis's words and order. An offset's byte must
// be below proto-max-bulk-len, hence the context.
BitFieldOptions ParseBitField(ArgParser& args, const CommandContext& ctx) {
  BitFieldOptions o;
  o.key = args.Next();
  Overflow overflow = Overflow::kWrap;
  const uint64_t max_bytes = ctx.server.config().proto_max_bulk_len;
  while (args.HasMore()) {
    const size_t left = args.remaining() - 1;  // after the operation's name
    FieldOp op;
    if (left >= 2 && args.Token("GET")) {
      op.kind = FieldOp::kGet;
    } else if (left >= 3 && args.Token("SET")) {
      op.kind = FieldOp::kSet;
    } else if (left >= 3 && args.Token("INCRBY")) {
      op.kind = FieldOp::kIncrBy;
    } else if (left >= 1 && args.Token("OVERFLOW")) {
      const int mode = args.Choice({"WRAP", "SAT", "FAIL"});
      if (mode < 0) args.Fail(kBitfieldOverflowType);
      overflow = static_cast<Overflow>(std::max(mode, 0));
      continue;
    } else {
      args.SyntaxError();
      break;
    }
    if (!ParseFieldType(args.Next(), &op)) {
      args.Fail(kBitfieldType);
      break;
    }
    if (!ParseBitOffset(args.Next(), op.bits, max_bytes, &op.offset)) {
      args.Fail(kBitOffset);
      break;
    }
    if (op.kind != FieldOp::kGet) op.value = args.Int64();
    op.overflow = overflow;
    o.ops.push_back(op);
  }
  return o;
}

uint64_t GetUnsigned(std::string_view value, uint64_t offset, int bits) {
  uint64_t field = 0;
  for (int j = 0; j < bits; ++j, ++offset) {
    const uint64_t byte = offset >> 3;
    const uint64_t bit =
        byte < value.size() ? (static_cast<uint8_t>(value[byte]) >> (7 - (offset & 7))) & 1 : 0;
    field = (field << 1) | bit;
  }
  return field;
}

int64_t GetSigned(std::string_view value, uint64_t offset, int bits) {
  uint64_t field = GetUnsigned(value, offset, bits);
  if (bits < 64 && (field & (uint64_t{1} << (bits - 1)))) field |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(field);
}

// REQUIRES: the value holds every bit of the field.
void SetField(std::string* value, uint64_t offset, int bits, uint64_t field) {
  for (int j = 0; j < bits; ++j, ++offset) {
    const bool on = (field >> (bits - 1 - j)) & 1;
    const uint8_t mask = static_cast<uint8_t>(1u << (7 - (offset & 7)));
    uint8_t& byte = reinterpret_cast<uint8_t&>((*value)[offset >> 3]);
    byte = on ? (byte | mask) : (byte & ~mask);
  }
}

// `value + incr` in a signed field of `bits`: true with *result set when it fits, or per
// `overflow` (WRAP: wrapped, SAT: the bound); false for FAIL on overflow.
bool AddSigned(int64_t value, int64_t incr, int bits, Overflow overflow, int64_t* result) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  __int128 sum = static_cast<__int128>(value) + incr;
  if (sum >= min && sum <= max) {
    *result = static_cast<int64_t>(sum);
    return true;
  }
  if (overflow == Overflow::kFail) return false;
  if (overflow == Overflow::kSat) {
    *result = sum > max ? max : min;
    return true;
  }
  uint64_t wrapped = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
  if (bits < 64) {
    const uint64_t mask = ~uint64_t{0} << bits;
    wrapped = (wrapped & (uint64_t{1} << (bits - 1))) ? (wrapped | mask) : (wrapped & ~mask);
  }
  *result = static_cast<int64_t>(wrapped);
  return true;
}

// The same for an unsigned field (bits <= 63). SET passes its value as `value` with incr 0, so
// a negative value is a huge unsigned one, as Redis.
bool AddUnsigned(uint64_t value, int64_t incr, int bits, Overflow overflow, uint64_t* result) {
  const uint64_t max = (uint64_t{1} << bits) - 1;
  const __int128 sum = static_cast<__int128>(value) + incr;
  if (sum >= 0 && sum <= static_cast<__int128>(max)) {
    *result = static_cast<uint64_t>(sum);
    return true;
  }
  if (overflow == Overflow::kFail) return false;
  if (overflow == Overflow::kSat) {
    *result = sum > 0 ? max : 0;
    return true;
  }
  *result = (value + static_cast<uint64_t>(incr)) & max;
  return true;
}

// The replies of a BITFIELD of GETs only, read without locking the key for an update.
void ExecuteBitFieldGets(CommandContext& ctx, std::string_view key,
                         const std::vector<FieldOp>& ops) {
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, key, std::nullopt, &row)) return;
  const std::string_view value = row ? std::string_view(row->value) : std::string_view();
  ctx.reply.ArrayHeader(ops.size());
  for (const FieldOp& op : ops) {
    if (op.is_signed) {
      ctx.reply.Integer(GetSigned(value, op.offset, op.bits));
    } else {
      ctx.reply.Integer(static_cast<int64_t>(GetUnsigned(value, op.offset, op.bits)));
    }
  }
}

// What one SET or INCRBY did to the value.
enum class FieldWrite { kRefused, kSameBits, kChangedBits };

// Applies one SET or INCRBY to *value and writes its reply to `out` (nil when OVERFLOW FAIL
// refused it).
FieldWrite ApplyFieldWrite(const FieldOp& op, std::string* value, protocol::ReplyWriter& out) {
  const bool incr = op.kind == FieldOp::kIncrBy;
  uint64_t old_bits = 0, new_bits = 0;
  int64_t reply = 0;
  bool ok = false;
  if (op.is_signed) {
    const int64_t old = GetSigned(*value, op.offset, op.bits);
    int64_t next = 0;
    ok = AddSigned(incr ? old : op.value, incr ? op.value : 0, op.bits, op.overflow, &next);
    old_bits = static_cast<uint64_t>(old);
    new_bits = static_cast<uint64_t>(next);
    reply = incr ? next : old;
  } else {
    const uint64_t old = GetUnsigned(*value, op.offset, op.bits);
    uint64_t next = 0;
    ok = AddUnsigned(incr ? old : static_cast<uint64_t>(op.value), incr ? op.value : 0, op.bits,
                     op.overflow, &next);
    old_bits = old;
    new_bits = next;
    reply = static_cast<int64_t>(incr ? next : old);
  }
  if (!ok) {
    out.Null();
    return FieldWrite::kRefused;
  }
  out.Integer(reply);
  SetField(value, op.offset, op.bits, new_bits);
  return old_bits != new_bits ? FieldWrite::kChangedBits : FieldWrite::kSameBits;
}

template <bool kReadOnly>
void ExecuteBitField(CommandContext& ctx, const BitFieldOptions& o) {
  const std::vector<FieldOp>& ops = o.ops;
  uint64_t end_bit = 0;  // one past the farthest bit a SET or INCRBY touches
  bool writes = false;
  for (const FieldOp& op : ops) {
    if (op.kind == FieldOp::kGet) continue;
    writes = true;
    end_bit = std::max(end_bit, op.offset + static_cast<uint64_t>(op.bits));
  }
  if (!writes) return ExecuteBitFieldGets(ctx, o.key, ops);
  if (kReadOnly) return ctx.reply.Error(kBitfieldReadOnly);
  types::Kv kv = KvOf(ctx);
  OpResult<std::optional<types::KvRow>> base = kv.ReadForUpdate(o.key);
  if (!base.ok()) return ReplyError(ctx, base);
  std::string value = *base ? (*base)->value : std::string();
  const size_t needed = static_cast<size_t>((end_bit + 7) >> 3);
  const bool grown = !*base || value.size() < needed;
  if (value.size() < needed) value.resize(needed, '\0');
  bool changed = false;
  std::string replies;
  protocol::ReplyWriter out(&replies, ctx.reply.protocol());
  for (const FieldOp& op : ops) {
    if (op.kind == FieldOp::kGet) {
      if (op.is_signed) {
        out.Integer(GetSigned(value, op.offset, op.bits));
      } else {
        out.Integer(static_cast<int64_t>(GetUnsigned(value, op.offset, op.bits)));
      }
      continue;
    }
    const FieldWrite write = ApplyFieldWrite(op, &value, out);
    if (write != FieldWrite::kRefused) changed |= grown || write == FieldWrite::kChangedBits;
  }
  if (grown || changed) {
    const int64_t now = ctx.server.clock().NowMs();
    OpResult<void> put =
        kv.PutDerived(o.key, value, *base, now, ctx.server.keyspace().PolicyExpireAt(o.key, now),
                      /*raw=*/true);
    if (!put.ok()) return ReplyError(ctx, put);
    if (changed) SignalKeyChange(ctx, o.key, kNotifyString, "setbit");
  }
  ctx.reply.ArrayHeader(ops.size());
  ctx.reply.Raw(replies);
}

std::vector<ArgSpec> FieldArgs(bool with_value, std::string_view value_name) {
  std::vector<ArgSpec> args = {{.name = "encoding"}, {.name = "offset", .type = ArgType::kInteger}};
  if (with_value) args.push_back({.name = value_name, .type = ArgType::kInteger});
  return args;
}

}  // namespace

std::vector<CommandSpec> BitFieldCommands() {
  const ArgSpec key = {.name = "key", .type = ArgType::kKey};
  const ArgSpec get = {.name = "get-block",
                       .type = ArgType::kBlock,
                       .token = "GET",
                       .children = FieldArgs(false, "")};
  return {
      {.name = "bitfield",
       .arity = -2,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "bitmap",
       .since = "3.2.0",
       .summary = "Performs arbitrary bitfield integer operations on strings.",
       .complexity = "O(1) for each subcommand specified",
       .arguments =
           {key,
            {.name = "operation",
             .type = ArgType::kOneOf,
             .optional = true,
             .multiple = true,
             .children =
                 {get,
                  {.name = "write",
                   .type = ArgType::kBlock,
                   .children =
                       {{.name = "overflow-block",
                         .type = ArgType::kOneOf,
                         .token = "OVERFLOW",
                         .optional = true,
                         .children =
                             {{.name = "wrap", .type = ArgType::kPureToken, .token = "WRAP"},
                              {.name = "sat", .type = ArgType::kPureToken, .token = "SAT"},
                              {.name = "fail", .type = ArgType::kPureToken, .token = "FAIL"}}},
                        {.name = "write-operation",
                         .type = ArgType::kOneOf,
                         .children = {{.name = "set-block",
                                       .type = ArgType::kBlock,
                                       .token = "SET",
                                       .children = FieldArgs(true, "value")},
                                      {.name = "incrby-block",
                                       .type = ArgType::kBlock,
                                       .token = "INCRBY",
                                       .children = FieldArgs(true, "increment")}}}}}}}},
       .handler = Handler<ParseBitField, ExecuteBitField<false>>},
      {.name = "bitfield_ro",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kFirstKey,
       .group = "bitmap",
       .since = "6.0.0",
       .summary = "Performs arbitrary read-only bitfield integer operations on strings.",
       .complexity = "O(1) for each subcommand specified",
       .arguments = {key,
                     {.name = "get-block",
                      .type = ArgType::kBlock,
                      .token = "GET",
                      .optional = true,
                      .multiple = true,
                      .multiple_token = true,  // GET before each field, as Redis's JSON has it
                      .children = FieldArgs(false, "")}},
       .handler = Handler<ParseBitField, ExecuteBitField<true>>},
  };
}

}  // namespace ebb::server
