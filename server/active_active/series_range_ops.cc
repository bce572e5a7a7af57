// ActiveActive's TS.DEL (series_range.h): judged and run on the origin as RedisTimeSeries would
// answer it there (RunSeriesRangeDelete), and a peer's `ts-delrange` delta or snapshot piece
// merged (ApplySeriesRange).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/series_range.h"
#include "server/active_active/series_rules_state.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series.h"

namespace ebb::server {

bool ActiveActive::RunSeriesRangeDelete(LocalWrite* plan, protocol::ReplyWriter& reply) {
  types::Keyspace& ks = context_->keyspace();
  const std::vector<std::string> form = plan->args;  // ts-del key from to
  const int db = plan->db;
  types::SeriesRangeMarker marker{.origin = node_id_};
  if (form.size() != 4 || !ParseInt64(form[2], &marker.from) || !ParseInt64(form[3], &marker.to)) {
    reply.Error(EngineError("malformed TS.DEL form"));
    return false;
  }
  const std::string& key = form[1];
  std::optional<types::KeyType> held;
  storage::Status s = HeldType(ks, db, key, &held);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  if (held && *held != types::KeyType::kSeries) {
    reply.Error(kWrongType);
    return false;
  }
  auto meta = types::Series(ks, db).Meta(key);
  if (!meta.ok()) {
    reply.Error(meta.status() == types::OpStatus::kEngineError
                    ? EngineError(meta.engine_status().ToString())
                    : std::string(kTsKeyMissing));
    return false;
  }
  std::string refused;  // a rule's destination, or a series linked before the mode
  if (s = SeriesRuleWriteError(ks, db, key, &refused); !s.ok() || !refused.empty()) {
    reply.Error(s.ok() ? refused : EngineError(s.ToString()));
    return false;
  }
  if (marker.from > marker.to) {  // an empty range: nothing to delete, nothing to log
    reply.Integer(0);
    return false;
  }
  // Stamped after every contribution the range holds here, so it removes all of them.
  int64_t greatest = std::numeric_limits<int64_t>::min();
  s = GreatestStampInRange(ks, db, key, marker.from, marker.to, &greatest);
  marker.ms = std::max<int64_t>(0, ks.NowMs());
  if (greatest != std::numeric_limits<int64_t>::min()) {
    marker.ms = std::max(marker.ms,
                         greatest == std::numeric_limits<int64_t>::max() ? greatest : greatest + 1);
  }
  uint64_t removed = 0;
  if (s.ok()) s = MergeSeriesRange(db, key, std::span(&marker, 1), &own_collect_, &removed);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  reply.Integer(static_cast<int64_t>(removed));
  if (removed > 0) SignalKeyChange(*context_, db, key, kNotifyTimestamped, "ts.del");
  plan->args = SeriesRangeDeltaArgs(key, std::span(&marker, 1));
  plan->views.assign(plan->args.begin(), plan->args.end());
  return true;
}

storage::Status ActiveActive::MergeSeriesRange(int db, const std::string& key,
                                               std::span<const types::SeriesRangeMarker> markers,
                                               const types::OrContext* view,
                                               uint64_t* removed_visible) {
  KeyMarker key_marker;
  bool has_row = false;
  storage::Status s = whole_key_->Marker(db, key, &key_marker, &has_row, view);
  if (!s.ok()) return s;
  // A marker that ends at or before a delete its view does not cover covers nothing that delete
  // does not: the samples there were dropped or removed, as the marker would drop them.
  std::vector<types::SeriesRangeMarker> kept;
  for (const types::SeriesRangeMarker& m : markers) {
    if (m.to > key_marker.deleted_up_to) kept.push_back(m);
  }
  if (kept.empty()) return storage::Status::OK();
  s = MergeRangeMarkers(context_->keyspace(), db, key, kept, removed_visible);
  // A destination the key feeds, or the key as a destination, follows what is left
  // (series_rules_state.h).
  return s.ok() ? SettleSeriesRules(context_->keyspace(), db, key, true) : s;
}

ActiveActive::ApplyOutcome ActiveActive::ApplySeriesRange(const std::string& origin_id,
                                                          const PeerDelta& delta,
                                                          const std::vector<std::string>& args,
                                                          Arrival arrival) {
  SeriesRangeDelete range;
  if (!ParseSeriesRangeDelta(args, &range)) {
    return Malformed(origin_id, delta);
  }
  DeltaView view;
  storage::Status s = JudgingView(origin_id, arrival, &view);
  uint64_t removed = 0;
  if (s.ok()) s = MergeSeriesRange(delta.db, range.key, range.markers, view.collects, &removed);
  if (!s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  NoteKeyChange(*context_, delta.db, range.key);
  return ApplyOutcome::kApplied;
}

}  // namespace ebb::server
