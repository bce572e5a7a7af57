#include "server/active_active/series_expiry.h"

#include <optional>

#include "server/active_active/series_state.h"
#include "server/active_active/whole_key.h"
#include "types/keyspace.h"
#include "types/series.h"

namespace ebb::server {

storage::Status ApplyRegisterToSeries(types::Keyspace& keyspace, int db, std::string_view key,
                                      const ExpiryRegister& reg) {
  std::optional<types::SeriesMeta> meta;
  storage::Status s = HeldSeriesMeta(keyspace, db, key, &meta);
  if (!s.ok() || !meta) return s;
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

}  // namespace ebb::server
