#include "server/active_active/peer_delta.h"

#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/strings.h"
#include "server/active_active/counters.h"
#include "server/core/digest.h"
#include "storage/util/coding.h"
#include "types/string_rank.h"

namespace ebb::server {

namespace {

// The `PXAT ms` (ms > 0) or `NOTTL` at args[at]; *end: the argument after it.
bool ParseDeltaExpiry(std::span<const std::string> args, size_t at, StringDelta* delta,
                      size_t* end) {
  if (at < args.size() && EqualsIgnoreCase(args[at], "nottl")) {
    delta->nottl = true;
    *end = at + 1;
    return true;
  }
  *end = at + 2;
  return *end <= args.size() && EqualsIgnoreCase(args[at], "pxat") &&
         ParseInt64(args[at + 1], &delta->version.expire_at) && delta->version.expire_at > 0;
}

// The version of `delta` up to its expiry; *end: the argument after it.
bool ParseDeltaVersion(std::span<const std::string> args, StringDelta* delta, size_t* end) {
  types::StringVersion& v = delta->version;
  const std::string_view op = args[0];  // compared inline (SameBytes)
  if (SameBytes(op, "put")) {
    delta->kind = StringDelta::Kind::kPut;
    v.value = args[2];
    return args.size() >= 6 && EqualsIgnoreCase(args[3], "ts") && ParseInt64(args[4], &v.ts) &&
           ParseDeltaExpiry(args, 5, delta, end);
  }
  if (SameBytes(op, "delete")) {
    delta->kind = StringDelta::Kind::kDelete;
    v.tombstone = true;
    *end = 4;
    return EqualsIgnoreCase(args[2], "ts") && ParseInt64(args[3], &v.ts);
  }
  if (!SameBytes(op, kPutExpired)) return false;
  delta->kind = StringDelta::Kind::kPutExpired;
  std::string digest;
  if (args.size() < 7 || !EqualsIgnoreCase(args[2], "digest") ||
      !types::ParseDigestHex(args[3], &digest) || !EqualsIgnoreCase(args[4], "ts") ||
      !ParseInt64(args[5], &v.ts)) {
    return false;
  }
  v.digest = std::move(digest);
  return ParseDeltaExpiry(args, 6, delta, end);
}

}  // namespace

bool ParseStringDelta(std::span<const std::string> args, StringDelta* delta) {
  *delta = StringDelta();
  size_t end = 0;
  if (args.size() < 4 || !ParseDeltaVersion(args, delta, &end)) return false;
  delta->key = args[1];
  if (end == args.size()) return true;
  if (end + 2 != args.size() || !EqualsIgnoreCase(args[end], kContextTag)) return false;
  delta->context = args[end + 1];
  return true;
}

StringDelta StringPutDelta(std::span<const std::string> args, int64_t ts,
                           std::optional<int64_t> expire_at) {
  StringDelta delta;
  delta.kind = StringDelta::Kind::kPut;
  delta.key = args[1];
  delta.version.value = args[2];
  delta.version.ts = ts;
  if (expire_at) {
    delta.version.expire_at = *expire_at;
  } else {
    delta.nottl = true;
  }
  return delta;
}

std::vector<std::string> StringDeltaArgs(const StringDelta& delta) {
  const types::StringVersion& v = delta.version;
  std::vector<std::string> args;
  args.reserve(10);
  switch (delta.kind) {
    case StringDelta::Kind::kPut:
      args.emplace_back("put");
      args.emplace_back(delta.key);
      args.emplace_back(v.value);
      break;
    case StringDelta::Kind::kDelete:
      args.emplace_back("delete");
      args.emplace_back(delta.key);
      break;
    case StringDelta::Kind::kPutExpired:
      args.emplace_back(kPutExpired);
      args.emplace_back(delta.key);
      args.emplace_back("DIGEST");
      args.push_back(types::DigestHex(v.digest.value_or("")));
      break;
  }
  args.push_back("TS");
  args.push_back(std::to_string(v.ts));
  if (delta.kind != StringDelta::Kind::kDelete) {
    if (delta.nottl) {
      args.push_back("NOTTL");
    } else {
      args.push_back("PXAT");
      args.push_back(std::to_string(v.expire_at));
    }
  }
  if (delta.context) {
    args.emplace_back(kContextTag);
    args.emplace_back(*delta.context);
  }
  return args;
}

bool IsTrimAtZero(std::span<const std::string> args) {
  uint64_t cutoff = 0;
  return args.size() == 4 && args[0] == "tlog" && args[1] == "trimat" &&
         ParseDigits(args[3], &cutoff) && cutoff == 0;
}

std::optional<std::string_view> WrittenKeyOf(std::span<const std::string> args) {
  if (args.empty()) return std::nullopt;
  const std::string_view op = args[0];
  if (args.size() >= 2 && IsStringDelta(op)) return args[1];
  if (args.size() >= 3 && (op == "tlog" || op == "treg")) return args[2];
  return std::nullopt;
}

bool OriginOfNodeId(std::string_view node_id, types::OriginId* origin) {
  const std::optional<types::OriginId> id = types::OriginId::FromHex(node_id);
  if (id) *origin = *id;
  return id.has_value();
}

std::string NodeIdOfOrigin(std::string_view origin) { return types::DigestHex(origin); }

bool DecodeDeltaContext(const StringDelta& delta, std::string_view origin_node_id,
                        std::optional<types::OrContext>* context) {
  context->reset();
  if (!delta.context) return true;
  types::OriginId origin;
  types::OrContext decoded;
  if (!OriginOfNodeId(origin_node_id, &origin) ||
      !types::DecodeOrContext(*delta.context, origin, &decoded)) {
    return false;
  }
  *context = std::move(decoded);
  return true;
}

bool StripDeltaContext(std::string_view origin_node_id, std::vector<std::string>* args) {
  StringDelta delta;
  std::optional<types::OrContext> context;
  if (!ParseStringDelta(*args, &delta) || !DecodeDeltaContext(delta, origin_node_id, &context)) {
    return false;
  }
  if (context) args->resize(args->size() - 2);
  return true;
}

std::vector<std::string> ReducedPutArgs(const ReducedPut& reduced) {
  StringDelta delta;
  delta.kind = StringDelta::Kind::kPutExpired;
  delta.key = reduced.key;
  delta.version.ts = reduced.ts;
  delta.version.digest = reduced.digest;
  delta.version.expire_at = reduced.expire_at;
  delta.nottl = reduced.expire_at == std::numeric_limits<int64_t>::max();
  if (reduced.context) delta.context = *reduced.context;
  return StringDeltaArgs(delta);
}

bool ParseReducedPut(std::span<const std::string> args, ReducedPut* reduced) {
  StringDelta delta;
  if (!ParseStringDelta(args, &delta) || delta.kind != StringDelta::Kind::kPutExpired) {
    return false;
  }
  reduced->key = delta.key;
  reduced->digest = std::move(*delta.version.digest);
  reduced->ts = delta.version.ts;
  reduced->expire_at = delta.nottl ? std::numeric_limits<int64_t>::max() : delta.version.expire_at;
  reduced->context = delta.context ? std::optional<std::string>(*delta.context) : std::nullopt;
  return true;
}

std::string EncodePeerDelta(const PeerDelta& delta) {
  std::string out;
  EncodePeerDelta(delta, &out);
  return out;
}

void EncodePeerDelta(const PeerDelta& delta, std::string* out) {
  size_t size = 8 + 8 + 4 + 4;  // offset, origin_ms, db, argc
  for (const std::string& arg : delta.args)
    size += static_cast<size_t>(storage::VarintLength(arg.size())) + arg.size();
  // Written in place into room of its exact size (the row is written once per logged delta):
  // the same bytes as PutFixed64/32 and PutLengthPrefixed appending one field at a time.
  out->resize(size);
  char* p = out->data();
  storage::EncodeFixed64(p, delta.offset);
  storage::EncodeFixed64(p + 8, static_cast<uint64_t>(delta.origin_ms));
  storage::EncodeFixed32(p + 16, static_cast<uint32_t>(delta.db));
  storage::EncodeFixed32(p + 20, static_cast<uint32_t>(delta.args.size()));
  p += 24;
  for (const std::string& arg : delta.args) {
    auto length = static_cast<uint32_t>(arg.size());
    while (length >= 0x80) {
      *p++ = static_cast<char>((length & 0x7f) | 0x80);
      length >>= 7;
    }
    *p++ = static_cast<char>(length);
    std::memcpy(p, arg.data(), arg.size());
    p += arg.size();
  }
}

namespace {

// Decodes the delta at the front of *encoded, leaving what follows it there. The arguments are
// assigned into the strings *delta holds, so a decoder that reuses one delta keeps their room.
bool ConsumePeerDelta(std::string_view* encoded, PeerDelta* delta) {
  uint64_t offset = 0;
  uint64_t origin_ms = 0;
  uint32_t db = 0;
  uint32_t argc = 0;
  if (!storage::GetFixed64(encoded, &offset) || !storage::GetFixed64(encoded, &origin_ms) ||
      !storage::GetFixed32(encoded, &db) || !storage::GetFixed32(encoded, &argc)) {
    return false;
  }
  // Each argument takes at least its length's byte: a count past what is left is malformed,
  // and sizes no vector.
  if (argc == 0 || argc > encoded->size()) return false;
  delta->offset = offset;
  delta->origin_ms = static_cast<int64_t>(origin_ms);
  delta->db = static_cast<int>(db);
  delta->args.resize(argc);
  for (std::string& arg : delta->args) {
    std::string_view bytes;
    if (!storage::GetLengthPrefixed(encoded, &bytes)) return false;
    AssignBytes(&arg, bytes);
  }
  return true;
}

}  // namespace

bool DecodePeerDelta(std::string_view encoded, PeerDelta* delta) {
  return ConsumePeerDelta(&encoded, delta) && encoded.empty();
}

std::string EncodeLogRow(const PeerDelta& delta, std::string_view first_digest) {
  std::string row = EncodePeerDelta(delta);
  row += first_digest;
  return row;
}

bool DecodeLogRow(std::string_view row, PeerDelta* delta, std::string* first_digest) {
  if (!ConsumePeerDelta(&row, delta) || row.size() % kDeltaDigestSize != 0) return false;
  first_digest->assign(row);
  return true;
}

bool NamesDigest(std::string_view digests, std::string_view digest) {
  for (size_t at = 0; at + kDeltaDigestSize <= digests.size(); at += kDeltaDigestSize) {
    if (digests.substr(at, kDeltaDigestSize) == digest) return true;
  }
  return false;
}

std::optional<int64_t> PutExpiry(const PeerDelta& delta) {
  StringDelta put;
  if (!ParseStringDelta(delta.args, &put) || put.kind != StringDelta::Kind::kPut || put.nottl) {
    return std::nullopt;
  }
  return put.version.expire_at;
}

PeerDelta ReducedPutDelta(const PeerDelta& delta) {
  StringDelta put;
  ParseStringDelta(delta.args, &put);
  ReducedPut reduced;
  reduced.key = put.key;
  reduced.digest = types::StringDigest(put.version.value);
  reduced.ts = put.version.ts;
  reduced.expire_at = put.version.expire_at;  // INT64_MAX for NOTTL
  if (put.context) reduced.context = std::string(*put.context);
  PeerDelta out;
  out.offset = delta.offset;
  out.origin_ms = delta.origin_ms;
  out.db = delta.db;
  out.args = ReducedPutArgs(reduced);
  return out;
}

std::vector<std::string> ReducedEntryArgs(const ReducedEntry& reduced) {
  return {reduced.tlog ? "tlog" : "treg",
          std::string(reduced.tlog ? kInsExpired : kSetExpired),
          reduced.key,
          "DIGEST",
          types::DigestHex(reduced.digest),
          std::to_string(reduced.ts)};
}

bool ParseReducedEntry(std::span<const std::string> args, ReducedEntry* reduced) {
  if (args.size() != 6 || !EqualsIgnoreCase(args[3], "digest")) return false;
  if (args[0] == "tlog" && args[1] == kInsExpired) {
    reduced->tlog = true;
  } else if (args[0] == "treg" && args[1] == kSetExpired) {
    reduced->tlog = false;
  } else {
    return false;
  }
  reduced->key = args[2];
  return types::ParseDigestHex(args[4], &reduced->digest) && ParseUint64(args[5], &reduced->ts);
}

std::vector<std::string> JudgedFormOf(const ReducedEntry& reduced) {
  return {reduced.tlog ? "tlog" : "treg", reduced.tlog ? "ins" : "set", reduced.key, "",
          std::to_string(reduced.ts)};
}

std::optional<LoggedValue> LoggedPutOf(std::span<const std::string> args,
                                       const StringDelta& parsed) {
  if (parsed.kind != StringDelta::Kind::kPut) return std::nullopt;
  LoggedValue logged;
  logged.ts = parsed.version.ts;
  if (!parsed.nottl) logged.own_expiry = parsed.version.expire_at;
  logged.key = args[1];
  logged.value = args[2];
  return logged;
}

std::optional<LoggedValue> LoggedValueOf(const PeerDelta& delta) {
  const std::vector<std::string>& args = delta.args;
  LoggedValue logged;
  if (!args.empty() && args[0] == kCounterDelta) {
    // `counter key BASE value <ts> <expiry> <value> ...`: the base's bytes, as a put's.
    CounterDelta counter;
    if (!ParseCounterDelta(args, &counter) || !counter.base ||
        counter.base->kind != types::CounterBase::Kind::kValue) {
      return std::nullopt;
    }
    logged.kind = LoggedValue::Kind::kCounterBase;
    logged.key = args[1];
    logged.value = args[6];
    logged.ts = counter.base->ts;
    if (counter.base->expire_at != std::numeric_limits<int64_t>::max()) {
      logged.own_expiry = counter.base->expire_at;
    }
    return logged;
  }
  if (!args.empty() && args[0] == "put") {
    StringDelta put;
    if (!ParseStringDelta(args, &put)) return std::nullopt;
    return LoggedPutOf(args, put);
  }
  if (args.size() != 5) return std::nullopt;
  if (args[0] == "treg" && args[1] == "set") {
    logged.kind = LoggedValue::Kind::kTregSet;
  } else if (args[0] == "tlog" && args[1] == "ins") {
    logged.kind = LoggedValue::Kind::kTlogIns;
  } else {
    return std::nullopt;
  }
  uint64_t ts = 0;
  if (!ParseUint64(args[4], &ts)) return std::nullopt;
  logged.ts = ts;
  logged.key = args[2];
  logged.value = args[3];
  return logged;
}

PeerDelta ReducedValueDelta(const PeerDelta& delta) {
  const LoggedValue logged = *LoggedValueOf(delta);
  if (logged.kind == LoggedValue::Kind::kPut) return ReducedPutDelta(delta);
  if (logged.kind == LoggedValue::Kind::kCounterBase) {
    CounterDelta counter;
    ParseCounterDelta(delta.args, &counter);
    counter.base->kind = types::CounterBase::Kind::kReduced;
    counter.base->value = types::StringDigest(counter.base->value);
    PeerDelta out = delta;
    out.args = CounterDeltaArgs(counter);
    return out;
  }
  ReducedEntry reduced;
  reduced.tlog = logged.kind == LoggedValue::Kind::kTlogIns;
  reduced.key = logged.key;
  reduced.digest = types::StringDigest(logged.value);
  reduced.ts = static_cast<uint64_t>(logged.ts);
  PeerDelta out;
  out.offset = delta.offset;
  out.origin_ms = delta.origin_ms;
  out.db = delta.db;
  out.args = ReducedEntryArgs(reduced);
  return out;
}

namespace {

// The RESP encoders write into room sized beforehand (WriteRoom), not by appends: a delta's frame
// is made once per logged delta and per DeltaDigest, a snapshot piece's bulks once per field.
constexpr size_t kMaxDigits = 20;  // of any uint64_t or int64_t, its sign included
// The most a bulk string adds beside its bytes: `$`, the length, two CRLFs.
constexpr size_t kBulkOverhead = 1 + kMaxDigits + 4;

// Writes the decimal digits of `n` at `p`; returns the end. Numbers below 100 (an argument's
// length, a database, a count) take no division loop.
template <typename Int>
char* PutDecimal(char* p, Int n) {
  if constexpr (std::is_signed_v<Int>) {
    if (n < 0) return std::to_chars(p, p + kMaxDigits, n).ptr;
  }
  const auto u = static_cast<std::make_unsigned_t<Int>>(n);
  if (u < 10) {
    *p++ = static_cast<char>('0' + u);
    return p;
  }
  if (u < 100) {
    *p++ = static_cast<char>('0' + u / 10);
    *p++ = static_cast<char>('0' + u % 10);
    return p;
  }
  return std::to_chars(p, p + kMaxDigits, u).ptr;
}

// Writes `prefix`, the decimal digits of `n`, then CRLF at `p`; returns the end.
template <typename Int>
char* PutNumberLine(char* p, char prefix, Int n) {
  *p++ = prefix;
  p = PutDecimal(p, n);
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

// Writes one RESP bulk string at `p`; returns the end.
char* PutBulk(char* p, std::string_view s) {
  p = PutNumberLine(p, '$', s.size());
  std::memcpy(p, s.data(), s.size());
  p += s.size();
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

// A bulk string of the decimal digits of `n`.
template <typename Int>
char* PutNumberBulk(char* p, Int n) {
  std::array<char, kMaxDigits> digits;
  const auto end = PutDecimal(digits.data(), n);
  return PutBulk(p, std::string_view(digits.data(), static_cast<size_t>(end - digits.data())));
}

// Grows *out by `most` bytes for `write` (which returns the end of what it wrote) and trims it
// to what was written.
template <typename Write>
void WriteRoom(std::string* out, size_t most, Write write) {
  const size_t old = out->size();
  out->resize(old + most);
  char* end = write(out->data() + old);
  out->resize(static_cast<size_t>(end - out->data()));
}

}  // namespace

void AppendRespBulk(std::string* out, std::string_view s) {
  WriteRoom(out, kBulkOverhead + s.size(), [s](char* p) { return PutBulk(p, s); });
}

void AppendDeltaFrame(std::string* out, std::string_view encoded) {
  WriteRoom(out, kDeltaFrameHead.size() + kBulkOverhead + encoded.size(), [encoded](char* p) {
    std::memcpy(p, kDeltaFrameHead.data(), kDeltaFrameHead.size());
    return PutBulk(p + kDeltaFrameHead.size(), encoded);
  });
}

std::string DeltaDigest(const PeerDelta& delta) {
  std::string frame;
  AppendDeltaFrame(&frame, EncodePeerDelta(delta));
  return WireDigest(frame);
}

std::string WireDigest(std::string_view wire) { return Sha1Hex(wire).substr(0, 16); }

void AppendTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes) {
  WriteRoom(out, 4 + 4 * kBulkOverhead + 4 + 3 * kMaxDigits, [=](char* p) {
    p = PutNumberLine(p, '*', 4);
    p = PutBulk(p, "tick");
    p = PutNumberBulk(p, now_ms);
    p = PutNumberBulk(p, end_offset);
    return PutNumberBulk(p, end_bytes);
  });
}

}  // namespace ebb::server
