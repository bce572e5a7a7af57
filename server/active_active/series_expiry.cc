#include "server/active_active/series_expiry.h"

#include <optional>

#include "server/active_active/series_state.h"
#include "server/active_active/whole_key.h"
#include "types/keyspace.h"
#include "types/series.h"

namespace ebb::server {

storage::Status ApplyRegisterToSeries(types::Keyspace& keyspace, int db, std::string_view key,
                                      const ExpiryRegister& reg, int64_t deleted_up_to) {
  std::optional<types::SeriesMeta> meta;
  storage::Status s = HeldSeriesMeta(keyspace, db, key, &meta);
  if (!s.ok() || !meta) return s;
  auto live = types::Series(keyspace, db).Meta(key);
  if (live.status() == types::OpStatus::kEngineError) return live.engine_status();
  if (!live.ok() && deleted_up_to != KeyMarker::kNothingDeleted) {
    // Expired here, so a flush passed over it: what the key's delete covers goes before the
    // register may bring the series back (a live series had it applied when it came).
    s = DeleteSeriesUpTo(keyspace, db, key, deleted_up_to);
    if (s.ok()) s = HeldSeriesMeta(keyspace, db, key, &meta);
    if (!s.ok() || !meta) return s;
  }
  std::optional<types::SeriesRegister> settings;
  s = ReadSeriesRegister(keyspace, db, key, &settings);
  if (!s.ok()) return s;
  types::SeriesMeta::ExpiryRegister applied{.ts = reg.ts, .expire_at = reg.expire_at};
  applied.settings_after =
      reg.expire_at && settings && settings->ms > reg.ts && settings->ms >= *reg.expire_at;
  auto set = KeepingSeries(keyspace, db).SetExpiryRegister(key, applied);
  if (set.ok()) return storage::Status::OK();
  return set.status() == types::OpStatus::kEngineError ? set.engine_status()
                                                       : storage::Status::OK();
}

storage::Status WholeKeyMarkers::ApplyRegisterToHeldSeries(int db, std::string_view key,
                                                           const ExpiryRegister& reg) {
  KeyMarker effective;  // with the horizon: a flush passes over a series expired here
  bool found = false;
  storage::Status s = Marker(db, key, &effective, &found);
  return s.ok() ? ApplyRegisterToSeries(keyspace_, db, key, reg, effective.deleted_up_to) : s;
}

}  // namespace ebb::server
