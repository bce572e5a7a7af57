#include "server/active_active/series_purge.h"

#include <limits>
#include <vector>

#include "common/strings.h"
#include "server/active_active/series_state.h"
#include "storage/expired_retention.h"
#include "storage/util/coding.h"
#include "types/compaction_filter.h"
#include "types/key_encoding.h"
#include "types/keyspace.h"
#include "types/series.h"
#include "types/series_purge.h"

namespace ebb::server {
namespace {

using Decision = storage::CompactionFilter::Decision;

// A merge-state row's name (without the 0x00 tag), `aa-tss:<db>:<key length>:<key><fixed64-BE
// ts>`, split; false for any other name.
bool ParseSampleRowName(std::string_view name, int* db, std::string_view* key, int64_t* ts) {
  if (!name.starts_with(kSeriesSampleRowPrefix)) return false;
  name.remove_prefix(kSeriesSampleRowPrefix.size());
  const size_t colon = name.find(':');
  uint64_t db_number = 0;
  if (colon == std::string_view::npos || !ParseUint64(name.substr(0, colon), &db_number) ||
      db_number >= static_cast<uint64_t>(types::kMaxDatabases)) {
    return false;
  }
  name.remove_prefix(colon + 1);
  const size_t second = name.find(':');
  uint64_t length = 0;
  if (second == std::string_view::npos || !ParseUint64(name.substr(0, second), &length)) {
    return false;
  }
  name.remove_prefix(second + 1);
  if (name.size() < 8 || name.size() - 8 != length) return false;
  *db = static_cast<int>(db_number);
  *key = name.substr(0, length);
  *ts = static_cast<int64_t>(__builtin_bswap64(storage::DecodeFixed64(name.data() + length)));
  return true;
}

// The series' metadata in a metadata row's value; false when it is no series.
bool SeriesMetaOf(std::string_view value, types::SeriesMeta* meta) {
  types::KeyType type;
  std::string_view payload;
  return types::DecodeMetaValue(value, &type, &payload) && type == types::KeyType::kSeries &&
         types::DecodeSeriesMeta(payload, meta);
}

}  // namespace

void InstallSeriesPurge(types::Keyspace& keyspace) {
  keyspace.compaction_filter().RegisterDependentRowHook(
      std::string(kSeriesSampleRowPrefix),
      [](std::string_view name, const types::MetaRowReader& read, int64_t now_ms) {
        int db = 0;
        std::string_view key;
        int64_t ts = 0;
        if (!ParseSampleRowName(name, &db, &key, &ts)) return Decision::kKeep;
        storage::Row row;
        // No series (a delete removes the rows it covers itself) or unreadable: kept.
        if (!read(db, key, &row).ok()) return Decision::kKeep;
        types::SeriesMeta meta;
        if (!SeriesMetaOf(row.value, &meta)) return Decision::kKeep;
        return ts < types::SeriesPurgeFloor(meta, now_ms) ? Decision::kDrop : Decision::kKeep;
      });
}

storage::Status SeriesPurgeFloorNow(types::Keyspace& keyspace, int db, std::string_view key,
                                    int64_t* floor) {
  *floor = 0;
  std::optional<types::SeriesMeta> meta;  // live, or expired whole by its expiry register
  storage::Status s = HeldSeriesMeta(keyspace, db, key, &meta);
  if (!s.ok() || !meta) return s;
  const int64_t retention = storage::KeptExpiredRetentionMs(keyspace.purge_deadline_ms());
  const int64_t expiry_now = keyspace.db().ExpiryNowMs();
  const int64_t now = expiry_now < std::numeric_limits<int64_t>::min() + retention
                          ? std::numeric_limits<int64_t>::min()
                          : expiry_now - retention;
  *floor = types::SeriesPurgeFloor(*meta, now);
  return storage::Status::OK();
}

bool ReducedSeriesDelta(types::Keyspace& keyspace, const PeerDelta& delta,
                        std::optional<PeerDelta>* reduced, bool* more) {
  reduced->reset();
  *more = false;
  std::vector<SeriesGroup> groups;
  if (delta.args.empty() || delta.args[0] != kSeriesDelta ||
      !ParseSeriesDelta(delta.args, &groups)) {
    return false;
  }
  bool dropped = false;
  for (SeriesGroup& group : groups) {
    if (group.samples.empty()) continue;
    int64_t floor = 0;
    if (!SeriesPurgeFloorNow(keyspace, delta.db, group.key, &floor).ok()) {
      *more = true;  // judged again by a later pass
      continue;
    }
    const size_t before = group.samples.size();
    std::erase_if(group.samples, [floor](const auto& sample) { return sample.first < floor; });
    dropped = dropped || group.samples.size() < before;
    *more = *more || !group.samples.empty();
  }
  if (dropped) {
    PeerDelta out = delta;
    out.args = SeriesDeltaArgs(groups);
    *reduced = std::move(out);
  }
  return true;
}

}  // namespace ebb::server
