#include "types/merge_rule.h"

#include "types/keyspace.h"
#include "types/or_string_ext.h"
#include "types/string_rank.h"

namespace ebb::types {
namespace {

// The merge reads the most recently written version (retrieval grace 0), one step whatever the
// key's history: between peers every version a node writes is greater than the one it read
// here, so the most recent version is also the greatest, the one a full-grace read would walk
// every version to find.
constexpr int64_t kNewestVersion = 0;

// The type of a dead version that still holds its key between peers: a TREG pair or a log that
// expired (between peers a TREG expires only by an expiry register; a log by its register or its
// retention window). A string that expired, a tombstone or a wipe leaves the key free. nullopt:
// free.
std::optional<KeyType> HeldByExpiredVersion(const storage::DeadVersion& dead) {
  KeyType type;
  std::string_view payload;
  if (dead.kind != storage::RowKind::kValue || !dead.meta.expire_at_ms ||
      !DecodeMetaValue(dead.value, &type, &payload) || type == KeyType::kString) {
    return std::nullopt;
  }
  return type;
}

// The verdict on a log or register write: by precedence against the held type.
MergeVerdict JudgeByPrecedence(KeyType incoming_type, std::optional<KeyType> held_type) {
  if (!held_type) return MergeVerdict::kWrite;
  const int held = TypePrecedence(*held_type);
  const int incoming = TypePrecedence(incoming_type);
  if (held > incoming) return MergeVerdict::kOtherTypeWins;
  if (held < incoming) return MergeVerdict::kReplaceFirst;
  return MergeVerdict::kWrite;
}

// The verdict on a string version against the key's newest version (`live` or `dead`).
MergeVerdict JudgeString(const KeyMetaView* live, const std::optional<storage::DeadVersion>& dead,
                         StringVersion* incoming) {
  StringVersion held;
  if (live != nullptr) {
    if (live->type != KeyType::kString) return MergeVerdict::kOtherTypeWins;
    const storage::RowMeta& meta = live->row.meta;
    held.ts = meta.timestamp_or_zero();
    held.value = live->payload;
    held.expire_at = meta.expire_at_ms.value_or(held.expire_at);
  } else if (dead && dead->kind == storage::RowKind::kTombstone) {
    held.ts = dead->meta.timestamp_or_zero();
    std::string digest;
    if (DecodeReducedString(OrInnerRow(dead->value), &digest, &held.expire_at)) {
      held.digest = std::move(digest);  // an expired version compaction reduced: its rank
    } else {
      held.tombstone = true;
    }
  } else if (dead && dead->kind == storage::RowKind::kValue) {
    KeyType type;
    std::string_view payload;
    if (!DecodeMetaValue(dead->value, &type, &payload) || type != KeyType::kString) {
      // A log or a register: still holding the key when it expired.
      return HeldByExpiredVersion(*dead) ? MergeVerdict::kOtherTypeWins : MergeVerdict::kWrite;
    }
    held.ts = dead->meta.timestamp_or_zero();
    held.value = payload;
    held.expire_at = dead->meta.expire_at_ms.value_or(held.expire_at);
  } else {
    return MergeVerdict::kWrite;  // never written, or wiped
  }
  return RanksBelow(held, *incoming) ? MergeVerdict::kWrite : MergeVerdict::kLoses;
}

}  // namespace

int TypePrecedence(KeyType type) {
  switch (type) {
    case KeyType::kSeries:
      return 3;
    case KeyType::kTlog:
      return 2;
    case KeyType::kTreg:
      return 1;
    case KeyType::kString:
      return 0;
  }
  return 0;
}

const std::string& StringVersion::Digest() {
  if (!digest) digest = StringDigest(value);
  return *digest;
}

bool RanksBelow(StringVersion& a, StringVersion& b) {
  if (a.ts != b.ts) return a.ts < b.ts;
  if (a.tombstone != b.tombstone) return b.tombstone;
  // Equal value bytes have equal digests: two versions that both carry their bytes (a SET of the
  // value a key already holds, in the same millisecond) are compared without hashing them.
  const bool same_bytes = !a.digest && !b.digest && a.value == b.value;
  if (!a.tombstone && !same_bytes) {
    const int c = a.Digest().compare(b.Digest());
    if (c != 0) return c < 0;
  }
  return a.expire_at < b.expire_at;
}

storage::Status HeldType(Keyspace& keyspace, int db, std::string_view key,
                         std::optional<KeyType>* type) {
  type->reset();
  KeyMetaView row;  // only its type is read: not copied out of the engine
  std::optional<storage::DeadVersion> dead;
  storage::Status s = keyspace.GetMetaPinned(db, key, &row, kNewestVersion, &dead);
  if (s.ok()) {
    *type = row.type;
  } else if (s.IsNotFound() && dead) {
    *type = HeldByExpiredVersion(*dead);
  }
  return s.IsNotFound() ? storage::Status::OK() : s;
}

OpResult<MergeVerdict> JudgeWrite(Keyspace& keyspace, int db, std::string_view key,
                                  KeyType incoming_type, StringVersion* incoming) {
  KeyMetaView row;  // the held value is only compared: not copied out of the engine
  std::optional<storage::DeadVersion> dead;
  storage::Status s = keyspace.GetMetaPinned(db, key, &row, kNewestVersion, &dead);
  if (!s.ok() && !s.IsNotFound()) return s;
  const bool live = s.ok();
  if (incoming_type != KeyType::kString) {
    std::optional<KeyType> held_type;
    if (live) {
      held_type = row.type;
    } else if (dead) {
      held_type = HeldByExpiredVersion(*dead);
    }
    return JudgeByPrecedence(incoming_type, held_type);
  }
  return JudgeString(live ? &row : nullptr, dead, incoming);
}

}  // namespace ebb::types
