// WholeKeyMarkers (whole_key.h): the expiry register's part — a key's register set and settled,
// and applied to what the key holds (a string version, a TREG pair, a log, a series: the series'
// part is in series_expiry.cc). docs/active-active.md, "Expiry changes".
#include <algorithm>

#include "server/active_active/counters.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/series_expiry.h"
#include "server/active_active/whole_key.h"
#include "storage/row.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/or_string_rows.h"
#include "types/tlog.h"
#include "types/treg.h"
#include "types/treg_state.h"

namespace ebb::server {

storage::Status WholeKeyMarkers::SetExpiry(int db, std::string_view key,
                                           const ExpiryRegister& reg) {
  KeyMarker marker;
  bool found = false;
  storage::Status s = ReadRow(db, key, &marker, &found);
  if (!s.ok()) return s;
  if (marker.expiry && !marker.expiry->Precedes(reg)) return s;  // an equal or later one holds
  marker.expiry = reg;
  // The register may make the key's content go: its type becomes the key's floor.
  std::optional<types::KeyType> held;
  s = HeldType(keyspace_, db, key, &held);
  if (!s.ok()) return s;
  if (held) marker.floor = std::max(marker.floor, TypePrecedence(*held));
  s = PutRow(KeyMarkerRowName(db, key), EncodeKeyMarker(marker), !found);
  if (!s.ok()) return s;
  s = ApplyRegisterToTreg(db, key, reg);              // nothing unless the key holds a TREG
  if (s.ok()) s = ApplyRegisterToTlog(db, key, reg);  // nothing unless it holds a log
  if (s.ok()) s = ApplyRegisterToSeries(keyspace_, db, key, reg);
  if (!s.ok()) return s;
  if (counters_ != nullptr && counters_->any()) {
    // A counter's row is what its state reads as: the state takes the register (counters.h).
    std::optional<types::CounterState> state;
    s = counters_->Read(db, key, &state);
    if (!s.ok() || state) return s.ok() ? SettleCounter(db, key) : s;
  }
  bool extended = false;
  s = ApplyRegisterToOrString(db, key, reg, &extended);
  if (!s.ok() || extended) return s;
  types::KeyMetaRow row;
  s = ReadNewest(db, key, &row, &found);
  if (!s.ok() || !found) return s;
  const int64_t version_ts = row.meta.timestamp_or_zero();
  if (row.type != types::KeyType::kString || version_ts > reg.ts ||
      row.meta.expire_at_ms == reg.expire_at) {
    return storage::Status::OK();
  }
  // The same version (timestamp, value) with the register's expiry.
  types::KvPut put{.key = key,
                   .value = row.payload,
                   .ts = version_ts,
                   .expire_at_ms = reg.expire_at,
                   .raw = row.raw_string};
  auto written = types::Kv(keyspace_, db).Put(put);
  return written.ok() ? storage::Status::OK() : written.engine_status();
}

storage::Status WholeKeyMarkers::ApplyRegisterToOrString(int db, std::string_view key,
                                                         const ExpiryRegister& reg,
                                                         bool* extended) {
  // The origin a row in today's forms would load with does not matter: only an extended row
  // (one under the observed-remove rule) is rewritten here.
  types::OrStringRows rows;
  storage::Status s = types::LoadOrString(keyspace_, db, key, &rows);
  *extended = rows.extended;
  if (!s.ok() || !rows.extended) return s;
  const types::OrApplied applied = types::ApplyOrExpiry(&rows, reg.ts, reg.expire_at);
  return types::StoreOrString(keyspace_, db, key, rows, applied);
}

storage::Status WholeKeyMarkers::SettleExpiry(int db, std::string_view key) {
  KeyMarker marker;
  bool found = false;
  storage::Status s = ReadRow(db, key, &marker, &found);
  if (!s.ok() || !marker.expiry) return s;
  s = ApplyRegisterToTreg(db, key, *marker.expiry);
  if (s.ok()) s = ApplyRegisterToTlog(db, key, *marker.expiry);
  return s.ok() ? ApplyRegisterToSeries(keyspace_, db, key, *marker.expiry) : s;
}

storage::Status WholeKeyMarkers::ApplyRegisterToTlog(int db, std::string_view key,
                                                     const ExpiryRegister& reg) {
  auto set = types::Tlog(keyspace_, db)
                 .SetExpiryRegister(
                     key, types::TlogMeta::Register{.ts = reg.ts, .expire_at = reg.expire_at});
  if (set.status() == types::OpStatus::kEngineError) return set.engine_status();
  return storage::Status::OK();  // another type: nothing to do
}

storage::Status WholeKeyMarkers::ApplyRegisterToTreg(int db, std::string_view key,
                                                     const ExpiryRegister& reg) {
  types::KeyMetaRow row;
  bool found = false;
  storage::Status s = ReadTreg(db, key, &row, &found);
  if (!s.ok() || !found) return s;
  std::string_view value;
  uint64_t pair_ts = 0;
  if (!types::DecodeTregPayload(row.payload, &value, &pair_ts)) {
    return storage::Status::Corruption("TREG payload");
  }
  const int64_t version_ts = ClampToSigned(pair_ts);
  const std::optional<int64_t> expiry = version_ts <= reg.ts ? reg.expire_at : std::nullopt;
  if (row.meta.expire_at_ms == expiry) return storage::Status::OK();
  // The same metadata row with the register's expiry, kept even when that has passed by this
  // node's clock (not wiped, as a single node's EXPIRE would): another node may still hold it
  // live, and a later register must find it on both.
  return keyspace_.WriteMetaVersion(
      db, key, storage::RowKind::kValue, types::EncodeMetaValue(types::KeyType::kTreg, row.payload),
      {.timestamp_ms = row.meta.timestamp_ms, .expire_at_ms = expiry});
}

storage::Status WholeKeyMarkers::RaiseAboveRegister(int db, std::string_view key, int64_t* ts) {
  KeyMarker marker;
  bool found = false;
  storage::Status s = ReadRow(db, key, &marker, &found);
  if (s.ok() && marker.expiry && marker.expiry->ts < INT64_MAX) {
    *ts = std::max(*ts, marker.expiry->ts + 1);
  }
  return s;
}

}  // namespace ebb::server
