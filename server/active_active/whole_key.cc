// WholeKeyMarkers (whole_key.h): the key markers' and database horizons' rows — read, cached,
// judged against and written. The expiry register's part is in whole_key_expiry.cc;
// ActiveActive's whole-key writes that use them, planned on the origin and applied from peers,
// are in whole_key_ops.cc.
#include "server/active_active/whole_key.h"

#include <algorithm>

#include "common/strings.h"
#include "server/active_active/counters.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/series_rules_state.h"
#include "server/active_active/series_state.h"
#include "storage/row.h"
#include "storage/util/coding.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/or_string_rows.h"
#include "types/tlog.h"
#include "types/treg.h"
#include "types/treg_state.h"

namespace ebb::server {
namespace {

constexpr uint8_t kMarkerVersionWithoutDots = 1;
constexpr uint8_t kMarkerVersion = 2;
constexpr uint8_t kHorizonVersion = 2;
// The most recently written version: in the mode it is also the greatest (merge_gate.h).
constexpr int64_t kNewestVersion = 0;

bool ParseUnsigned(std::string_view text, __int128* out) {
  uint64_t v = 0;
  if (!ParseUint64(text, &v)) return false;
  *out = v;
  return true;
}

// Consumes an optional register (the rest of a key marker row) into *marker; `with_offset`: of
// version 2, which keeps the register's offset.
bool ConsumeRegister(std::string_view encoded, bool with_offset, KeyMarker* marker) {
  marker->expiry.reset();
  if (encoded.empty()) return true;
  ExpiryRegister reg;
  uint64_t ts = 0;
  uint64_t expire_at = 0;
  std::string_view origin;
  if (!storage::GetFixed64(&encoded, &ts) || encoded.empty()) return false;
  const uint8_t has_expiry = static_cast<uint8_t>(encoded[0]);
  encoded.remove_prefix(1);
  if (has_expiry > 1 || !storage::GetFixed64(&encoded, &expire_at) ||
      (with_offset && !types::GetShortestVarint64(&encoded, &reg.offset)) ||
      !storage::GetLengthPrefixed(&encoded, &origin) || !encoded.empty()) {
    return false;
  }
  reg.ts = static_cast<int64_t>(ts);
  if (has_expiry) reg.expire_at = static_cast<int64_t>(expire_at);
  reg.origin = std::string(origin);
  marker->expiry = std::move(reg);
  return true;
}

// A floor byte: a type precedence, 3 (a series, merge_rule.h) the highest.
bool ConsumeFloor(std::string_view* encoded, int* floor) {
  if (encoded->empty() || static_cast<uint8_t>((*encoded)[0]) > 3) return false;
  *floor = static_cast<uint8_t>((*encoded)[0]);
  encoded->remove_prefix(1);
  return true;
}

}  // namespace

bool KeyMarker::AddDelete(const MarkerEntry& del) {
  if (!deletes.Add(del)) return false;
  deleted_up_to = std::max(deleted_up_to, del.value);
  return true;
}

std::string EncodeKeyMarker(const KeyMarker& marker) {
  std::string out(1, static_cast<char>(kMarkerVersion));
  out.push_back(static_cast<char>(marker.floor));
  AppendMarkerEntries(marker.deletes, &out);
  if (const auto& reg = marker.expiry) {
    storage::PutFixed64(&out, static_cast<uint64_t>(reg->ts));
    out.push_back(reg->expire_at ? 1 : 0);
    storage::PutFixed64(&out, static_cast<uint64_t>(reg->expire_at.value_or(0)));
    storage::PutVarint64(&out, reg->offset);
    storage::PutLengthPrefixed(&out, reg->origin);
  }
  return out;
}

bool DecodeKeyMarker(std::string_view encoded, KeyMarker* marker) {
  *marker = KeyMarker();
  if (encoded.empty()) return false;
  const uint8_t version = static_cast<uint8_t>(encoded[0]);
  encoded.remove_prefix(1);
  if (version == kMarkerVersion) {
    if (!ConsumeFloor(&encoded, &marker->floor) ||
        !ConsumeMarkerEntries(&encoded, &marker->deletes)) {
      return false;
    }
    marker->deleted_up_to = marker->deletes.Greatest();
    return ConsumeRegister(encoded, /*with_offset=*/true, marker);
  }
  if (version != kMarkerVersionWithoutDots) return false;
  uint64_t up_to = 0;
  if (!storage::GetFixed64(&encoded, &up_to) || !ConsumeFloor(&encoded, &marker->floor)) {
    return false;
  }
  if (static_cast<int64_t>(up_to) != KeyMarker::kNothingDeleted) {
    marker->AddDelete({PreModeMarkerDot(), static_cast<int64_t>(up_to)});
  }
  return ConsumeRegister(encoded, /*with_offset=*/false, marker);
}

std::string EncodeHorizon(const MarkerEntries& deletes) {
  std::string out(1, static_cast<char>(kHorizonVersion));
  AppendMarkerEntries(deletes, &out);
  return out;
}

bool DecodeHorizon(std::string_view encoded, MarkerEntries* deletes) {
  *deletes = MarkerEntries();
  if (!encoded.empty() && static_cast<uint8_t>(encoded[0]) == kHorizonVersion) {
    encoded.remove_prefix(1);
    return ConsumeMarkerEntries(&encoded, deletes) && encoded.empty();
  }
  int64_t horizon = 0;  // written before horizons kept their deletes: decimal, never "\x02"
  if (!ParseInt64(encoded, &horizon)) return false;
  if (horizon != KeyMarker::kNothingDeleted) deletes->Add({PreModeMarkerDot(), horizon});
  return true;
}

std::string PerKeyRowName(std::string_view prefix, int db, std::string_view key) {
  return std::string(prefix) + std::to_string(db) + ":" + std::string(key);
}

std::string KeyMarkerRowName(int db, std::string_view key) {
  return PerKeyRowName(kKeyMarkerRowPrefix, db, key);
}

std::string HorizonRowName(int db) { return std::string(kHorizonRowPrefix) + std::to_string(db); }

namespace {

// The decimal database number that is `text` up to `end` (npos: all of it).
bool ParseDbNumber(std::string_view text, size_t end, int* db) {
  const std::string_view digits = text.substr(0, end);
  if (digits.empty() || digits.size() > 5) return false;
  int64_t value = 0;
  if (!ParseInt64(digits, &value) || value < 0) return false;
  *db = static_cast<int>(value);
  return true;
}

}  // namespace

bool ParsePerKeyRowName(std::string_view prefix, std::string_view name, int* db,
                        std::string_view* key) {
  if (!name.starts_with(prefix)) return false;
  name.remove_prefix(prefix.size());
  const size_t colon = name.find(':');
  if (colon == std::string_view::npos || !ParseDbNumber(name, colon, db)) return false;
  *key = name.substr(colon + 1);
  return true;
}

bool ParseKeyMarkerRowName(std::string_view name, int* db, std::string_view* key) {
  return ParsePerKeyRowName(kKeyMarkerRowPrefix, name, db, key);
}

bool ParseHorizonRowName(std::string_view name, int* db) {
  if (!name.starts_with(kHorizonRowPrefix)) return false;
  name.remove_prefix(kHorizonRowPrefix.size());
  return ParseDbNumber(name, std::string_view::npos, db);
}

storage::Status WholeKeyMarkers::Load() {
  storage::Status s = CountRows();
  if (!s.ok()) return s;
  any_ = rows_held_ > 0;
  return s;
}

storage::Status WholeKeyMarkers::CountRows() {
  uint64_t rows = 0;
  entry_tops_ = types::OrContext();
  for (std::string_view prefix : {kKeyMarkerRowPrefix, kHorizonRowPrefix}) {
    const bool horizons = prefix == kHorizonRowPrefix;
    uint64_t found = 0;
    const storage::Status s =
        keyspace_.ForEachSystemRow(prefix, [&](std::string_view, std::string_view value) {
          found++;
          KeyMarker marker;
          const bool decoded =
              horizons ? DecodeHorizon(value, &marker.deletes) : DecodeKeyMarker(value, &marker);
          if (!decoded) {
            return storage::Status::Corruption(horizons ? "active-active horizon"
                                                        : "active-active key marker");
          }
          for (const MarkerEntry& entry : marker.deletes.entries()) RaiseEntryTop(entry.dot);
          return storage::Status::OK();
        });
    if (!s.ok()) return s;
    if (horizons && found > 0) any_horizon_ = true;
    rows += found;
  }
  rows_held_ = rows;
  recount_ = false;
  return storage::Status::OK();
}

void WholeKeyMarkers::RaiseEntryTop(const types::Dot& dot) {
  // The pre-mode dot is never collected, and DEBUG PEER-APPLY's offset 0 names no delta.
  if (dot.origin == types::kPreModeOrigin || dot.offset == 0) return;
  entry_tops_.Raise(dot.origin, dot.offset);
}

storage::Status WholeKeyMarkers::Recount() {
  return recount_ ? CountRows() : storage::Status::OK();
}

void WholeKeyMarkers::DiscardBatch() {
  keyspace_.DiscardBatch();
  horizons_.assign(horizons_.size(), std::nullopt);
  recount_ = true;
}

storage::Status WholeKeyMarkers::PutRow(const std::string& name, const std::string& value,
                                        bool new_row) {
  any_ = true;
  if (new_row) rows_held_++;
  return keyspace_.db().Put(keyspace_.WriteOptions(), types::Keyspace::SystemRowKey(name), value);
}

storage::Status WholeKeyMarkers::ReadHorizon(int db, const Horizon** horizon) {
  if (!horizons_[db]) {
    MarkerEntries deletes;
    storage::Status s = ReadHorizonRow(db, &deletes);
    if (!s.ok()) return s;
    const int64_t greatest = deletes.Greatest();
    horizons_[db] = Horizon{std::move(deletes), greatest};
  }
  *horizon = &*horizons_[db];
  return storage::Status::OK();
}

storage::Status WholeKeyMarkers::NarrowToView(int db, const types::OrContext& view,
                                              KeyMarker* marker) {
  marker->deleted_up_to = marker->deletes.GreatestBeyond(view);
  if (!any_horizon_) return storage::Status::OK();
  const Horizon* horizon = nullptr;
  storage::Status s = ReadHorizon(db, &horizon);
  if (s.ok()) {
    marker->deleted_up_to = std::max(marker->deleted_up_to, horizon->deletes.GreatestBeyond(view));
  }
  return s;
}

storage::Status WholeKeyMarkers::ReadHorizonRow(int db, MarkerEntries* deletes) {
  *deletes = MarkerEntries();
  storage::Row row;
  storage::Status s = keyspace_.db().Get(keyspace_.ReadOptions(),
                                         types::Keyspace::SystemRowKey(HorizonRowName(db)), &row);
  if (s.IsNotFound()) return storage::Status::OK();
  if (s.ok() && !DecodeHorizon(row.value, deletes)) {
    return storage::Status::Corruption("active-active horizon");
  }
  return s;
}

storage::Status WholeKeyMarkers::ReadRow(int db, std::string_view key, KeyMarker* marker,
                                         bool* found) {
  *marker = KeyMarker();
  *found = false;
  if (!any_) return storage::Status::OK();
  storage::Row row;
  storage::Status s = keyspace_.db().Get(
      keyspace_.ReadOptions(), types::Keyspace::SystemRowKey(KeyMarkerRowName(db, key)), &row);
  if (s.IsNotFound()) return storage::Status::OK();
  if (!s.ok()) return s;
  if (!DecodeKeyMarker(row.value, marker)) {
    return storage::Status::Corruption("active-active key marker");
  }
  *found = true;
  return s;
}

storage::Status WholeKeyMarkers::Marker(int db, std::string_view key, KeyMarker* marker,
                                        bool* has_row, const types::OrContext* view) {
  storage::Status s = ReadRow(db, key, marker, has_row);
  if (s.ok() && view != nullptr) return NarrowToView(db, *view, marker);
  if (!s.ok() || !any_horizon_) return s;
  const Horizon* horizon = nullptr;
  s = ReadHorizon(db, &horizon);
  if (s.ok()) marker->deleted_up_to = std::max(marker->deleted_up_to, horizon->greatest);
  return s;
}

namespace {
// A TLOG entry's or TREG pair's timestamp above INT64_MAX counts as INT64_MAX (ClampToSigned), as
// it does when a delete meets it held (DeleteContent): a delete at INT64_MAX covers it in either
// order of arrival.
bool marker_covers(const KeyMarker& marker, __int128 ts) {
  return marker.deleted_up_to != KeyMarker::kNothingDeleted &&
         std::min<__int128>(ts, std::numeric_limits<int64_t>::max()) <= marker.deleted_up_to;
}
}  // namespace

storage::Status WholeKeyMarkers::Judge(int db, std::vector<std::string>* delta,
                                       Admission* admission, const types::OrContext* view) {
  *admission = Admission();
  const std::vector<std::string>& args = *delta;
  // The form's name, judged once here as a view (a std::string against a literal is an
  // out-of-line compare); the expiry rewrite below may move the strings.
  const std::string_view op = args[0];
  const bool string_write = IsStringDelta(op);
  const bool put = SameBytes(op, "put");
  const bool reduced_put = SameBytes(op, kPutExpired);
  const bool tlog = SameBytes(op, "tlog");
  const bool treg = SameBytes(op, "treg");
  const bool trimat = tlog && SameBytes(args[1], "trimat");
  admission->precedence = string_write ? 0 : treg ? 1 : 2;
  if (args.size() < (string_write ? 4u : 5u - trimat)) {
    return storage::Status::InvalidArgument("bad delta");
  }
  // Views *delta: read only before the expiry rewrite below, which may move the strings.
  const std::string_view key = string_write ? args[1] : args[2];
  // A log under a retention window goes when the window passes it, by each node's clock: its
  // type must stay the key's floor (the header's "type floor").
  const bool windowed_log = tlog && keyspace_.PolicyWindow(key).has_value();
  // The delta's timestamp: a string version's; TREG SET / TLOG INS key v ts; TLOG TRIMAT key
  // cutoff stands for cutoff - 1 (it removes what lies below it). A TLOG or TREG timestamp that
  // does not parse makes the delta malformed whether or not this node holds markers: every node
  // must skip the same deltas (a string version was parsed whole before it came here).
  __int128 ts = 0;
  if (!string_write && !ParseUnsigned(args.back(), &ts)) {
    return storage::Status::InvalidArgument("bad delta timestamp");
  }
  if (!any_) {
    admission->raise_floor = windowed_log;
    return storage::Status::OK();
  }
  StringDelta string_delta;  // views *delta until the expiry rewrite below
  if (string_write && !ParseStringDelta(args, &string_delta)) {
    return storage::Status::InvalidArgument("bad delta timestamp");
  }
  if (string_write) ts = string_delta.version.ts;
  if (trimat) ts -= 1;
  KeyMarker marker;
  bool has_row = false;
  storage::Status s = Marker(db, key, &marker, &has_row, view);
  if (!s.ok()) return s;
  admission->settle_expiry = !string_write && marker.expiry.has_value();
  if (treg && admission->settle_expiry && !marker_covers(marker, ts)) {
    // A register may have expired the pair by this node's clock and not by another's: the held
    // pair counts either way, as for strings.
    types::KeyMetaRow held;
    bool found = false;
    s = ReadTreg(db, key, &held, &found);
    if (!s.ok()) return s;
    std::string_view value;
    uint64_t held_ts = 0;
    if (found && types::DecodeTregPayload(held.payload, &value, &held_ts) &&
        !types::TregWins(args[3], static_cast<uint64_t>(ts), value, held_ts)) {
      admission->loses = true;
      return s;
    }
  }
  if ((put || reduced_put) && marker.expiry && ts <= marker.expiry->ts) {
    // At or before the key's expiry register: the register's expiry replaces the write's (a
    // reduced version's too, so that it keeps the rank the whole version has here); a CTX stays
    // last.
    std::optional<std::string> context;
    if (string_delta.context) context = std::string(*string_delta.context);
    admission->expiry_rewritten = true;
    delta->resize(reduced_put ? 6 : 5);
    if (marker.expiry->expire_at) {
      delta->push_back("PXAT");
      delta->push_back(std::to_string(*marker.expiry->expire_at));
    } else {
      delta->push_back("NOTTL");
    }
    if (context) {
      delta->emplace_back(kContextTag);
      delta->push_back(std::move(*context));
    }
  }
  if (marker_covers(marker, ts)) {
    admission->covered = true;
    return s;
  }
  if (admission->precedence < marker.floor) {
    admission->below_floor = true;
    return s;
  }
  // Content the key's expiry register may make go raises the floor however the two arrive: held
  // when the register comes (SetExpiry), or written after it (here).
  admission->raise_floor =
      (windowed_log || marker.expiry.has_value()) && marker.floor < admission->precedence;
  if (marker.deleted_up_to == KeyMarker::kNothingDeleted) return s;
  if (tlog && args[1] == "ins" && marker.deleted_up_to >= 0) {
    const uint64_t min_cutoff = static_cast<uint64_t>(marker.deleted_up_to) + 1;
    auto cutoff = types::Tlog(keyspace_, db).Cutoff(args[2]);
    if (cutoff.status() == types::OpStatus::kEngineError) return cutoff.engine_status();
    // Another type: the gate wipes it before the insert, which then makes a new log.
    if (!cutoff.ok() || *cutoff < min_cutoff) admission->tlog_min_cutoff = min_cutoff;
  }
  return s;
}

storage::Status WholeKeyMarkers::ReadNewest(int db, std::string_view key, types::KeyMetaRow* row,
                                            bool* found, types::KeyType expired_type) {
  return ReadNewestOf(db, key, row, found, {expired_type});
}

storage::Status WholeKeyMarkers::ReadNewestOf(int db, std::string_view key, types::KeyMetaRow* row,
                                              bool* found,
                                              std::initializer_list<types::KeyType> expired_types) {
  std::optional<storage::DeadVersion> dead;
  storage::Status s = keyspace_.GetMeta(db, key, row, kNewestVersion, &dead);
  *found = s.ok();
  if (!s.IsNotFound()) return s;
  if (!dead || dead->kind != storage::RowKind::kValue) return storage::Status::OK();
  std::string_view payload;
  types::KeyType type;
  if (!types::DecodeMetaValue(dead->value, &type, &payload, &row->raw_string) ||
      std::ranges::find(expired_types, type) == expired_types.end()) {
    return storage::Status::OK();  // an expired log (or register): its key is gone
  }
  row->type = type;
  row->payload = std::string(payload);
  row->meta = dead->meta;
  *found = true;
  return storage::Status::OK();
}

storage::Status WholeKeyMarkers::ReadTreg(int db, std::string_view key, types::KeyMetaRow* row,
                                          bool* found) {
  storage::Status s = ReadNewest(db, key, row, found, types::KeyType::kTreg);
  *found = *found && row->type == types::KeyType::kTreg;
  return s;
}

storage::Status WholeKeyMarkers::WipeNewest(int db, std::string_view key) {
  // Keyspace::Delete wipes a key that holds any version a read could take at some grace, an
  // expired one included.
  auto wiped = keyspace_.Delete(db, key);
  return wiped.ok() ? storage::Status::OK() : wiped.engine_status();
}

storage::Status WholeKeyMarkers::RaiseFloor(int db, std::string_view key, int precedence) {
  KeyMarker marker;
  bool has_row = false;
  storage::Status s = Marker(db, key, &marker, &has_row);
  if (!s.ok() || precedence <= marker.floor) return s;
  types::KeyMetaRow row;
  bool found = false;
  s = ReadNewest(db, key, &row, &found);
  if (!s.ok()) return s;
  if (found && TypePrecedence(row.type) < precedence) {
    s = WipeNewest(db, key);
    if (!s.ok()) return s;
  }
  // Keep the row's own deletes (the horizon may have raised `marker`'s deleted_up_to).
  KeyMarker stored;
  s = ReadRow(db, key, &stored, &has_row);
  if (!s.ok()) return s;
  stored.floor = precedence;
  s = PutRow(KeyMarkerRowName(db, key), EncodeKeyMarker(stored), !has_row);
  return s.ok() ? SettleCounter(db, key) : s;  // a counter is a string: the floor ends it
}

storage::Status WholeKeyMarkers::EnsureTlogCutoff(int db, std::string_view key, uint64_t cutoff) {
  types::Tlog log(keyspace_, db);
  auto held = log.Cutoff(key);
  if (held.status() == types::OpStatus::kEngineError) return held.engine_status();
  if (held.ok() && *held >= cutoff) return storage::Status::OK();
  auto trimmed = log.TrimAt(key, cutoff);
  if (trimmed.status() == types::OpStatus::kEngineError) return trimmed.engine_status();
  return storage::Status::OK();
}

storage::Status WholeKeyMarkers::RaiseToNewest(int db, std::string_view key, int64_t* ts,
                                               bool* existed) {
  // What the key holds whether or not it has expired by this node's clock (ReadNewest,
  // Tlog::Extent): a delete covers it, so no later register can bring it back.
  types::KeyMetaRow row;
  bool found = false;
  storage::Status s = ReadNewestWhole(db, key, &row, &found);
  if (!s.ok()) return s;
  *existed = found;
  int64_t newest = KeyMarker::kNothingDeleted;
  if (found && row.type == types::KeyType::kString) {
    newest = row.meta.timestamp_or_zero();
  } else if (found && row.type == types::KeyType::kTreg) {
    std::string_view value;
    uint64_t pair_ts = 0;
    if (!types::DecodeTregPayload(row.payload, &value, &pair_ts)) {
      return storage::Status::Corruption("TREG payload");
    }
    newest = ClampToSigned(pair_ts);
  } else if (found && row.type == types::KeyType::kSeries) {
    return RaiseToSeriesNewest(keyspace_, db, key, ts, existed);  // series_state.h
  } else {
    // A log, live or expired by its register; the entries the register hides count.
    types::Tlog log(keyspace_, db);
    auto extent = log.Extent(key);
    if (extent.status() == types::OpStatus::kEngineError) return extent.engine_status();
    if (extent.ok() && extent->has_value()) {
      const types::TlogExtent& held = **extent;
      *existed = true;
      if (held.newest) newest = ClampToSigned(*held.newest);
      if (held.cutoff > 0) newest = std::max(newest, ClampToSigned(held.cutoff - 1));
    }
  }
  *ts = std::max(*ts, newest);
  return storage::Status::OK();
}

storage::Status WholeKeyMarkers::DeleteContent(int db, std::string_view key, int64_t ts,
                                               int* precedence) {
  *precedence = -1;
  // A log, live or expired by its expiry register (which a later register may bring back).
  bool is_log = false;
  storage::Status s = DeleteFromLog(db, key, ts, &is_log);
  if (!s.ok() || is_log) {
    if (is_log) *precedence = TypePrecedence(types::KeyType::kTlog);
    return s;
  }
  // A string under the observed-remove rule: the slots at or before ts go, siblings included.
  bool extended = false;
  s = DeleteFromOrString(db, key, ts, precedence, &extended);
  if (!s.ok() || extended) return s;
  types::KeyMetaRow row;
  bool found = false;
  // Also a TREG or a series its expiry register expired (a later register may bring it back).
  s = ReadNewestWhole(db, key, &row, &found);
  if (!s.ok() || !found) return s;
  *precedence = TypePrecedence(row.type);
  if (row.type == types::KeyType::kSeries) {
    s = DeleteSeriesUpTo(keyspace_, db, key, ts);
    // What a rule computes from the key, or into it, follows what is left (series_rules_state.h).
    return s.ok() ? SettleSeriesRules(keyspace_, db, key, true) : s;
  }
  bool wipe = false;
  if (row.type == types::KeyType::kString) {
    wipe = row.meta.timestamp_or_zero() <= ts;
  } else {
    int64_t newest = KeyMarker::kNothingDeleted;
    bool existed = false;
    s = RaiseToNewest(db, key, &newest, &existed);
    if (!s.ok()) return s;
    wipe = newest <= ts;
  }
  if (!wipe) return storage::Status::OK();
  return WipeNewest(db, key);
}

storage::Status WholeKeyMarkers::DeleteFromOrString(int db, std::string_view key, int64_t ts,
                                                    int* precedence, bool* extended) {
  // Only an extended row is changed here; one in today's forms keeps the timestamp rule.
  types::OrStringRows rows;
  storage::Status s = types::LoadOrString(keyspace_, db, key, &rows);
  *extended = rows.extended;
  if (!s.ok() || !rows.extended) return s;
  if (!rows.state.slots.empty()) *precedence = TypePrecedence(types::KeyType::kString);
  const types::OrApplied applied = types::ApplyOrDeleteUpTo(&rows, ts);
  return types::StoreOrString(keyspace_, db, key, rows, applied);
}

storage::Status WholeKeyMarkers::DeleteFromLog(int db, std::string_view key, int64_t ts,
                                               bool* is_log) {
  types::Tlog log(keyspace_, db);
  auto extent = log.Extent(key);
  *is_log = extent.ok() && extent->has_value();
  if (extent.status() == types::OpStatus::kEngineError) return extent.engine_status();
  if (!*is_log || ts < 0) return storage::Status::OK();  // entries are never below 0
  const uint64_t min_cutoff = static_cast<uint64_t>(ts) + 1;
  const types::TlogExtent& held = **extent;
  // An entry above INT64_MAX counts as INT64_MAX (ClampToSigned), and so does a cutoff c, which
  // stands for c - 1 (what it removes lies below it): a delete at INT64_MAX covers both.
  const bool newer_entry = held.newest && ClampToSigned(*held.newest) > ts;
  const bool newer_cutoff = held.cutoff > 0 && ClampToSigned(held.cutoff - 1) > ts;
  if (!newer_entry && !newer_cutoff) {
    auto wiped = keyspace_.Delete(db, key);
    return wiped.ok() ? storage::Status::OK() : wiped.engine_status();
  }
  if (held.cutoff >= min_cutoff) return storage::Status::OK();
  auto trimmed = log.TrimAt(key, min_cutoff);
  return trimmed.ok() ? storage::Status::OK() : trimmed.engine_status();
}

storage::Status WholeKeyMarkers::DeleteKeys(int db, const MarkerEntry& del,
                                            std::span<const std::string> keys) {
  for (const std::string& key : keys) {
    KeyMarker marker;
    bool found = false;
    storage::Status s = ReadRow(db, key, &marker, &found);
    if (!s.ok()) return s;
    if (!marker.AddDelete(del)) continue;  // held already
    RaiseEntryTop(del.dot);
    int precedence = -1;
    s = DeleteContent(db, key, del.value, &precedence);
    if (!s.ok()) return s;
    marker.floor = std::max(marker.floor, precedence);
    s = PutRow(KeyMarkerRowName(db, key), EncodeKeyMarker(marker), !found);
    if (s.ok()) s = SettleCounter(db, key, del.value);
    if (!s.ok()) return s;
  }
  return storage::Status::OK();
}

storage::Status WholeKeyMarkers::FlushDb(int db, const MarkerEntry& del) {
  const int64_t ts = del.value;
  MarkerEntries deletes;
  storage::Status s = ReadHorizonRow(db, &deletes);
  if (!s.ok()) return s;
  const bool had_row = !deletes.empty();
  if (!deletes.Add(del)) return s;  // held already
  RaiseEntryTop(del.dot);
  any_horizon_ = true;
  s = PutRow(HorizonRowName(db), EncodeHorizon(deletes), !had_row);
  const int64_t greatest = deletes.Greatest();
  horizons_[db] = Horizon{std::move(deletes), greatest};
  if (!s.ok()) return s;
  // Every key holding a version, live or not: a string key that reads as absent (its winner a
  // tombstone or expired) may still hold a live sibling (types/or_string_rows.h).
  auto keys = keyspace_.KeysWithDead(db);
  if (!keys.ok()) return keys.engine_status();
  for (const std::string& key : *keys) {
    int precedence = -1;
    s = DeleteContent(db, key, ts, &precedence);
    if (!s.ok()) return s;
    // A string is the lowest floor: the horizon alone covers it. A log or a register leaves its
    // type as the key's floor.
    if (precedence > 0) s = RaiseFloor(db, key, precedence);
    if (!s.ok()) return s;
  }
  if (counters_ == nullptr) return storage::Status::OK();
  return counters_->ForEachKey(db,
                               [&](std::string_view key) { return SettleCounter(db, key, ts); });
}

}  // namespace ebb::server
