#include "server/active_active/merge_gate.h"

#include <limits>
#include <optional>
#include <tuple>

#include "common/strings.h"
#include "server/active_active/peer_delta.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

// The gate reads the most recently written version (retrieval grace 0), one step whatever the
// key's history: in the mode every version a node writes is greater than the one it read here,
// so the most recent version is also the greatest, the one a full-grace read would walk every
// version to find.
constexpr int64_t kNewestVersion = 0;

// A string version's place in the last-writer-wins order: (ts, tombstone, digest of the value,
// expire_at). The digest is computed only when two versions tie before it; a reduced dead version
// (types/string_rank.h) has it without the value.
struct StringVersion {
  int64_t ts = 0;
  bool tombstone = false;
  std::string_view value;
  std::optional<std::string> digest;  // set for a reduced version, else computed from `value`
  int64_t expire_at = std::numeric_limits<int64_t>::max();  // never: greatest

  const std::string& Digest() {
    if (!digest) digest = types::StringDigest(value);
    return *digest;
  }
};

// a < b in the last-writer-wins order.
bool Less(StringVersion& a, StringVersion& b) {
  if (a.ts != b.ts) return a.ts < b.ts;
  if (a.tombstone != b.tombstone) return b.tombstone;
  if (!a.tombstone) {
    const int c = a.Digest().compare(b.Digest());
    if (c != 0) return c < 0;
  }
  return a.expire_at < b.expire_at;
}

// The incoming version of canonical `PUT key value TS ts PXAT ms|NOTTL`, `DELETE key TS ts` or
// `PUT-EXPIRED key DIGEST hex TS ts PXAT ms|NOTTL`.
bool IncomingVersion(std::span<const std::string> args, StringVersion* v) {
  if (args[0] == "put" && args.size() >= 6) {
    if (!ParseInt64(args[4], &v->ts)) return false;
    v->value = args[2];
    if (args.size() == 7 && !ParseInt64(args[6], &v->expire_at)) return false;
    return true;
  }
  if (args[0] == "delete" && args.size() == 4) {
    v->tombstone = true;
    return ParseInt64(args[3], &v->ts);
  }
  if (args[0] == kPutExpired) {
    ReducedPut reduced;
    if (!ParseReducedPut(args, &reduced)) return false;
    v->ts = reduced.ts;
    v->digest = std::move(reduced.digest);
    v->expire_at = reduced.expire_at;
    return true;
  }
  return false;
}

// The type of a dead version that still holds its key between peers: a TREG pair or a log that
// expired (in the mode a TREG expires only by an expiry register; a log by its register or its
// retention window). A string that expired, a tombstone or a wipe leaves the key free. nullopt:
// free.
std::optional<types::KeyType> HeldByExpiredVersion(const storage::DeadVersion& dead) {
  types::KeyType type;
  std::string_view payload;
  if (dead.kind != storage::RowKind::kValue || !dead.meta.expire_at_ms ||
      !types::DecodeMetaValue(dead.value, &type, &payload) || type == types::KeyType::kString) {
    return std::nullopt;
  }
  return type;
}

}  // namespace

int TypePrecedence(types::KeyType type) {
  switch (type) {
    case types::KeyType::kTlog:
      return 2;
    case types::KeyType::kTreg:
      return 1;
    case types::KeyType::kString:
      return 0;
  }
  return 0;
}

storage::Status HeldType(types::Keyspace& keyspace, int db, std::string_view key,
                         std::optional<types::KeyType>* type) {
  type->reset();
  types::KeyMetaRow row;
  std::optional<storage::DeadVersion> dead;
  storage::Status s = keyspace.GetMeta(db, key, &row, kNewestVersion, &dead);
  if (s.ok()) {
    *type = row.type;
  } else if (s.IsNotFound() && dead) {
    *type = HeldByExpiredVersion(*dead);
  }
  return s.IsNotFound() ? storage::Status::OK() : s;
}

storage::Status JudgeDelta(types::Keyspace& keyspace, int db, std::span<const std::string> args,
                           MergeVerdict* verdict) {
  *verdict = MergeVerdict::kWrite;
  const bool string_write = IsStringDelta(args[0]);
  const std::string& key = string_write ? args[1] : args[2];
  types::KeyMetaRow row;
  std::optional<storage::DeadVersion> dead;
  storage::Status s = keyspace.GetMeta(db, key, &row, kNewestVersion, &dead);
  if (!s.ok() && !s.IsNotFound()) return s;
  const bool live = s.ok();

  if (!string_write) {
    const int incoming = args[0] == "tlog" ? 2 : 1;
    std::optional<types::KeyType> held_type;
    if (live) {
      held_type = row.type;
    } else if (dead) {
      held_type = HeldByExpiredVersion(*dead);
    }
    if (!held_type) return storage::Status::OK();
    const int held = TypePrecedence(*held_type);
    if (held > incoming) *verdict = MergeVerdict::kOtherTypeWins;
    if (held < incoming) *verdict = MergeVerdict::kReplaceFirst;
    return storage::Status::OK();
  }

  StringVersion incoming;
  if (!IncomingVersion(args, &incoming)) return storage::Status::InvalidArgument("bad delta");
  StringVersion held;
  if (live) {
    if (row.type != types::KeyType::kString) {
      *verdict = MergeVerdict::kOtherTypeWins;
      return storage::Status::OK();
    }
    held.ts = row.meta.timestamp_or_zero();
    held.value = row.payload;
    held.expire_at = row.meta.expire_at_ms.value_or(held.expire_at);
  } else if (dead && dead->kind == storage::RowKind::kTombstone) {
    held.ts = dead->meta.timestamp_or_zero();
    std::string digest;
    if (types::DecodeReducedString(dead->value, &digest, &held.expire_at)) {
      held.digest = std::move(digest);  // an expired version compaction reduced: its rank
    } else {
      held.tombstone = true;
    }
  } else if (dead && dead->kind == storage::RowKind::kValue) {
    types::KeyType type;
    std::string_view payload;
    if (!types::DecodeMetaValue(dead->value, &type, &payload) || type != types::KeyType::kString) {
      // A log or a register: still holding the key when it expired.
      if (HeldByExpiredVersion(*dead)) *verdict = MergeVerdict::kOtherTypeWins;
      return storage::Status::OK();
    }
    held.ts = dead->meta.timestamp_or_zero();
    held.value = payload;
    held.expire_at = dead->meta.expire_at_ms.value_or(held.expire_at);
  } else {
    return storage::Status::OK();  // never written, or wiped
  }
  if (!Less(held, incoming)) *verdict = MergeVerdict::kLoses;
  return storage::Status::OK();
}

}  // namespace ebb::server
