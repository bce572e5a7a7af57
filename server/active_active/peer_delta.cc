#include "server/active_active/peer_delta.h"

#include <array>
#include <charconv>
#include <limits>

#include "common/strings.h"
#include "server/active_active/counters.h"
#include "server/core/digest.h"
#include "storage/util/coding.h"
#include "types/string_rank.h"

namespace ebb::server {

std::vector<std::string> ReducedPutArgs(const ReducedPut& reduced) {
  std::vector<std::string> args = {
      std::string(kPutExpired),         reduced.key, "DIGEST",
      types::DigestHex(reduced.digest), "TS",        std::to_string(reduced.ts)};
  if (reduced.expire_at == std::numeric_limits<int64_t>::max()) {
    args.push_back("NOTTL");
  } else {
    args.push_back("PXAT");
    args.push_back(std::to_string(reduced.expire_at));
  }
  return args;
}

bool ParseReducedPut(std::span<const std::string> args, ReducedPut* reduced) {
  if (args.empty() || args[0] != kPutExpired || (args.size() != 7 && args.size() != 8) ||
      !EqualsIgnoreCase(args[2], "digest") || !EqualsIgnoreCase(args[4], "ts") ||
      !types::ParseDigestHex(args[3], &reduced->digest) || !ParseInt64(args[5], &reduced->ts)) {
    return false;
  }
  reduced->key = args[1];
  if (args.size() == 7) {
    reduced->expire_at = std::numeric_limits<int64_t>::max();
    return EqualsIgnoreCase(args[6], "nottl");
  }
  return EqualsIgnoreCase(args[6], "pxat") && ParseInt64(args[7], &reduced->expire_at);
}

std::string EncodePeerDelta(const PeerDelta& delta) {
  std::string out;
  storage::PutFixed64(&out, delta.offset);
  storage::PutFixed64(&out, static_cast<uint64_t>(delta.origin_ms));
  storage::PutFixed32(&out, static_cast<uint32_t>(delta.db));
  storage::PutFixed32(&out, static_cast<uint32_t>(delta.args.size()));
  for (const std::string& arg : delta.args) storage::PutLengthPrefixed(&out, arg);
  return out;
}

namespace {

// Decodes the delta at the front of *encoded, leaving what follows it there.
bool ConsumePeerDelta(std::string_view* encoded, PeerDelta* delta) {
  uint64_t offset = 0;
  uint64_t origin_ms = 0;
  uint32_t db = 0;
  uint32_t argc = 0;
  if (!storage::GetFixed64(encoded, &offset) || !storage::GetFixed64(encoded, &origin_ms) ||
      !storage::GetFixed32(encoded, &db) || !storage::GetFixed32(encoded, &argc)) {
    return false;
  }
  delta->offset = offset;
  delta->origin_ms = static_cast<int64_t>(origin_ms);
  delta->db = static_cast<int>(db);
  delta->args.clear();
  for (uint32_t i = 0; i < argc; i++) {
    std::string_view arg;
    if (!storage::GetLengthPrefixed(encoded, &arg)) return false;
    delta->args.emplace_back(arg);
  }
  return argc > 0;
}

constexpr size_t kDeltaDigestSize = 16;  // DeltaDigest's hex digits

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
  if (!ConsumePeerDelta(&row, delta) || (!row.empty() && row.size() != kDeltaDigestSize)) {
    return false;
  }
  first_digest->assign(row);
  return true;
}

std::optional<int64_t> PutExpiry(const PeerDelta& delta) {
  const std::vector<std::string>& args = delta.args;
  int64_t ts = 0;
  int64_t expire_at = 0;
  if (args.size() != 7 || args[0] != "put" || !EqualsIgnoreCase(args[3], "ts") ||
      !ParseInt64(args[4], &ts) || !EqualsIgnoreCase(args[5], "pxat") ||
      !ParseInt64(args[6], &expire_at)) {
    return std::nullopt;
  }
  return expire_at;
}

PeerDelta ReducedPutDelta(const PeerDelta& delta) {
  const std::vector<std::string>& args = delta.args;
  ReducedPut reduced;
  reduced.key = args[1];
  reduced.digest = types::StringDigest(args[2]);
  ParseInt64(args[4], &reduced.ts);
  reduced.expire_at = std::numeric_limits<int64_t>::max();  // NOTTL
  if (args.size() == 7) ParseInt64(args[6], &reduced.expire_at);
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
  if (args.size() >= 6 && args[0] == "put") {
    int64_t ts = 0;
    if (!EqualsIgnoreCase(args[3], "ts") || !ParseInt64(args[4], &ts)) return std::nullopt;
    logged.ts = ts;
    if (args.size() == 7) {
      logged.own_expiry = PutExpiry(delta);
      if (!logged.own_expiry) return std::nullopt;
    } else if (args.size() != 6 || !EqualsIgnoreCase(args[5], "nottl")) {
      return std::nullopt;
    }
    logged.key = args[1];
    logged.value = args[2];
    return logged;
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

// `prefix`, the decimal digits of `n`, then CRLF.
template <typename Int>
void AppendNumberLine(std::string* out, char prefix, Int n) {
  std::array<char, 24> digits;
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), n).ptr;
  *out += prefix;
  out->append(digits.data(), end);
  *out += "\r\n";
}

// A bulk string of the decimal digits of `n`.
template <typename Int>
void AppendNumberBulk(std::string* out, Int n) {
  std::array<char, 24> digits;
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), n).ptr;
  AppendRespBulk(out, std::string_view(digits.data(), static_cast<size_t>(end - digits.data())));
}

}  // namespace

void AppendRespBulk(std::string* out, std::string_view s) {
  AppendNumberLine(out, '$', s.size());
  *out += s;
  *out += "\r\n";
}

void AppendDeltaResp(std::string* out, const PeerDelta& delta) {
  size_t size = 80;  // the header and the four fixed fields
  for (const std::string& arg : delta.args) size += arg.size() + 16;
  out->reserve(out->size() + size);
  AppendNumberLine(out, '*', 4 + delta.args.size());
  AppendRespBulk(out, "delta");
  AppendNumberBulk(out, delta.offset);
  AppendNumberBulk(out, delta.origin_ms);
  AppendNumberBulk(out, delta.db);
  for (const std::string& arg : delta.args) AppendRespBulk(out, arg);
}

std::string DeltaDigest(const PeerDelta& delta) {
  std::string wire;
  AppendDeltaResp(&wire, delta);
  return WireDigest(wire);
}

std::string WireDigest(std::string_view wire) { return Sha1Hex(wire).substr(0, 16); }

void AppendTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes) {
  *out += "*4\r\n";
  AppendRespBulk(out, "tick");
  AppendNumberBulk(out, now_ms);
  AppendNumberBulk(out, end_offset);
  AppendNumberBulk(out, end_bytes);
}

}  // namespace ebb::server
