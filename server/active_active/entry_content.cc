#include "server/active_active/entry_content.h"

#include <optional>
#include <string_view>
#include <vector>

#include "server/active_active/merge_gate.h"
#include "server/active_active/whole_key.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/tlog_codec.h"
#include "types/treg.h"

namespace ebb::server {
namespace {

// The version a read of a key takes, as a row: what it holds, or none (never written, wiped).
struct Version {
  storage::RowKind kind = storage::RowKind::kWipe;  // kWipe: nothing to write again
  bool live = false;
  storage::RowMeta meta;
  std::string value;  // the metadata row's value (kValue), what a tombstone carries (kTombstone)

  bool operator==(const Version& other) const {
    return kind == other.kind && meta.timestamp_ms == other.meta.timestamp_ms &&
           meta.expire_at_ms == other.meta.expire_at_ms && value == other.value;
  }
};

storage::Status ReadVersion(types::Keyspace& keyspace, int db, std::string_view key, int64_t grace,
                            Version* version) {
  types::KeyMetaRow row;
  std::optional<storage::DeadVersion> dead;
  storage::Status s = keyspace.GetMeta(db, key, &row, grace, &dead);
  if (s.ok()) {
    version->kind = storage::RowKind::kValue;
    version->live = true;
    version->meta = row.meta;
    version->value = types::EncodeMetaValue(row.type, row.payload, row.raw_string);
    return s;
  }
  if (!s.IsNotFound()) return s;
  if (dead) {
    version->kind = dead->kind;
    version->meta = dead->meta;
    version->value = std::move(dead->value);
  }
  return storage::Status::OK();
}

// A key to change: its greatest version to write again (kWipe: none), the expiry register a
// TREG or a log takes, and whether its type becomes the key's floor (a log under a retention
// window, live or already gone: whole_key.h, "type floor").
struct Change {
  int db = 0;
  std::string key;
  Version greatest;
  std::optional<ExpiryRegister> expiry_register;
  bool tlog_floor = false;
};

// Whether the key's versions were written out of timestamp order: its greatest version
// (`greatest`, read at full grace) is not the newest (the iterator's `newest_value` and
// `newest_meta`). When the newest is the greatest (the usual case) no second read is made; a
// dead newest version, which the iterator shows without its kind, is read again at grace 0.
storage::Status OutOfOrder(types::Keyspace& keyspace, int db, std::string_view key,
                           const Version& greatest, std::string_view newest_value,
                           const storage::RowMeta& newest_meta, bool* out_of_order) {
  *out_of_order =
      !(greatest.kind == storage::RowKind::kValue && !newest_value.empty() &&
        greatest.value == newest_value && greatest.meta.timestamp_ms == newest_meta.timestamp_ms &&
        greatest.meta.expire_at_ms == newest_meta.expire_at_ms);
  if (!*out_of_order) return storage::Status::OK();
  Version newest;
  storage::Status s = ReadVersion(keyspace, db, key, 0, &newest);
  if (s.ok()) *out_of_order = !(newest == greatest);
  return s;
}

// The marker rows *change's kept version asks for: the expiry register of a TREG with an
// expiry or of a live TLOG whose expiry its own writes did not give it, and TLOG as the floor
// of a log under a retention window.
storage::Status MarkersOf(WholeKeyMarkers& markers, const std::string& node_id, Change* change) {
  const Version& kept = change->greatest;
  types::KeyType type;
  std::string_view payload;
  types::TlogMeta log;
  const bool decoded =
      kept.kind == storage::RowKind::kValue && types::DecodeMetaValue(kept.value, &type, &payload);
  if (!decoded) return storage::Status::OK();
  if (kept.live && type == types::KeyType::kTlog && types::DecodeTlogMeta(payload, &log) &&
      kept.meta.expire_at_ms != types::TlogOwnExpiry(log)) {
    // An expiry set by EXPIRE or PERSIST: a register covering every entry the log holds.
    int64_t newest = 0;
    bool existed = false;
    storage::Status s = markers.RaiseToNewest(change->db, change->key, &newest, &existed);
    if (!s.ok()) return s;
    change->expiry_register =
        ExpiryRegister{.ts = newest, .origin = node_id, .expire_at = kept.meta.expire_at_ms};
  }
  change->tlog_floor =
      type == types::KeyType::kTlog && types::DecodeTlogMeta(payload, &log) && log.window_ms > 0;
  std::string_view pair_value;
  uint64_t pair_ts = 0;
  if (kept.meta.expire_at_ms && type == types::KeyType::kTreg &&
      types::DecodeTregPayload(payload, &pair_value, &pair_ts)) {
    change->expiry_register = ExpiryRegister{.ts = static_cast<int64_t>(pair_ts),
                                             .origin = node_id,
                                             .expire_at = kept.meta.expire_at_ms};
  }
  return storage::Status::OK();
}

// Walks database `db`, counting its keys into *keys and adding to *changes those that change.
storage::Status CollectChanges(types::Keyspace& keyspace, WholeKeyMarkers& markers, int db,
                               const std::string& node_id, std::vector<Change>* changes,
                               uint64_t* keys) {
  std::unique_ptr<types::RowCursor> cursor =
      keyspace.KeyCursor(db, keyspace.FirstKeyPosition(db), keyspace.EndKeyPosition(db));
  for (; cursor->Valid(); cursor->Next()) {
    const std::string_view key = cursor->name();
    ++*keys;
    Change change{.db = db, .key = std::string(key)};
    storage::Status s =
        ReadVersion(keyspace, db, key, types::Keyspace::kFullGrace, &change.greatest);
    bool rewrite = false;
    if (s.ok()) {
      s = OutOfOrder(keyspace, db, key, change.greatest, cursor->value(), cursor->meta(), &rewrite);
    }
    if (s.ok()) s = MarkersOf(markers, node_id, &change);
    if (!s.ok()) return s;
    if (!rewrite) change.greatest.kind = storage::RowKind::kWipe;  // nothing to write again
    if (change.greatest.kind != storage::RowKind::kWipe || change.expiry_register ||
        change.tlog_floor) {
      changes->push_back(std::move(change));
    }
  }
  return cursor->status();
}

// Writes one change into the open keyspace batch.
storage::Status WriteChange(types::Keyspace& keyspace, WholeKeyMarkers& markers,
                            const Change& change) {
  storage::Status s;
  if (change.greatest.kind != storage::RowKind::kWipe) {
    // With what it carries: a reduced string version's rank (types/string_rank.h).
    s = keyspace.WriteMetaVersion(change.db, change.key, change.greatest.kind,
                                  change.greatest.value, change.greatest.meta);
  }
  if (s.ok() && change.expiry_register) {
    s = markers.SetExpiry(change.db, change.key, *change.expiry_register);
  }
  if (s.ok() && change.tlog_floor) {
    s = markers.RaiseFloor(change.db, change.key, TypePrecedence(types::KeyType::kTlog));
  }
  return s;
}

}  // namespace

storage::Status PrepareEntryContent(types::Keyspace& keyspace, WholeKeyMarkers& markers,
                                    int databases, const std::string& node_id, uint64_t* keys) {
  *keys = 0;
  std::vector<Change> changes;
  for (int db = 0; db < databases; db++) {
    storage::Status s = CollectChanges(keyspace, markers, db, node_id, &changes, keys);
    if (!s.ok()) return s;
  }
  keyspace.BeginBatch();
  for (const Change& change : changes) {
    storage::Status s = WriteChange(keyspace, markers, change);
    if (!s.ok()) {
      markers.DiscardBatch();
      return s;
    }
  }
  return storage::Status::OK();
}

}  // namespace ebb::server
