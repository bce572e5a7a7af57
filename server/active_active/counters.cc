#include "server/active_active/counters.h"

#include <limits>

#include "common/strings.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/whole_key.h"
#include "storage/row.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/merge_rule.h"
#include "types/or_string_ext.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

using types::CounterBase;
using types::CounterRecord;
using types::CounterState;

std::string_view KindName(CounterBase::Kind kind) {
  switch (kind) {
    case CounterBase::Kind::kValue:
      return "value";
    case CounterBase::Kind::kTombstone:
      return "tombstone";
    case CounterBase::Kind::kReduced:
      return "reduced";
  }
  return "value";
}

bool ParseKind(std::string_view name, CounterBase::Kind* kind) {
  if (name == "value") {
    *kind = CounterBase::Kind::kValue;
  } else if (name == "tombstone") {
    *kind = CounterBase::Kind::kTombstone;
  } else if (name == "reduced") {
    *kind = CounterBase::Kind::kReduced;
  } else {
    return false;
  }
  return true;
}

std::string ExpiryArg(int64_t expire_at) {
  return expire_at == CounterBase::kNever ? "NOTTL" : std::to_string(expire_at);
}

bool ParseExpiryArg(std::string_view text, int64_t* expire_at) {
  if (EqualsIgnoreCase(text, "nottl")) {
    *expire_at = CounterBase::kNever;
    return true;
  }
  return ParseInt64(text, expire_at) && *expire_at != CounterBase::kNever;
}

// origin ts seq total ftotal, at args[i..i+4].
template <typename Part>
bool ParsePart(std::span<const std::string> args, size_t i, Part* part) {
  if (i + 5 > args.size() || args[i].empty()) return false;
  part->origin = args[i];
  return ParseInt64(args[i + 1], &part->ts) && part->ts >= 0 &&
         ParseUint64(args[i + 2], &part->seq) && ParseInt64(args[i + 3], &part->total) &&
         types::ParseFloatTotal(args[i + 4], &part->ftotal);
}

}  // namespace

void CoverByRegister(CounterBase* base, const KeyMarker& marker) {
  if (marker.expiry && base->kind != CounterBase::Kind::kTombstone &&
      base->ts <= marker.expiry->ts) {
    base->expire_at = marker.expiry->expire_at.value_or(CounterBase::kNever);
  }
}

std::string CounterRowName(int db, std::string_view key) {
  return PerKeyRowName(kCounterRowPrefix, db, key);
}

bool ParseCounterRowName(std::string_view name, int* db, std::string_view* key) {
  return ParsePerKeyRowName(kCounterRowPrefix, name, db, key);
}

std::vector<std::string> CounterDeltaArgs(const CounterDelta& delta) {
  std::vector<std::string> args = {std::string(kCounterDelta), delta.key};
  if (delta.base) {
    const CounterBase& base = *delta.base;
    args.insert(args.end(), {"BASE", std::string(KindName(base.kind)), std::to_string(base.ts),
                             ExpiryArg(base.expire_at),
                             base.kind == CounterBase::Kind::kReduced ? types::DigestHex(base.value)
                                                                      : base.value,
                             std::to_string(base.observed.size())});
    for (const types::CounterObserved& o : base.observed) {
      args.insert(args.end(), {o.origin, std::to_string(o.ts), std::to_string(o.seq),
                               std::to_string(o.total), types::FloatTotalText(o.ftotal)});
    }
  }
  for (const CounterRecord& r : delta.records) {
    args.insert(args.end(), {"BY", r.origin, std::to_string(r.ts), std::to_string(r.seq),
                             std::to_string(r.total), types::FloatTotalText(r.ftotal)});
  }
  return args;
}

bool ParseCounterDelta(std::span<const std::string> args, CounterDelta* delta) {
  *delta = CounterDelta();
  if (args.size() < 2 || args[0] != kCounterDelta) return false;
  delta->key = args[1];
  size_t i = 2;
  if (i < args.size() && EqualsIgnoreCase(args[i], "base")) {
    CounterBase base;
    uint64_t n = 0;
    if (i + 6 > args.size() || !ParseKind(args[i + 1], &base.kind) ||
        !ParseInt64(args[i + 2], &base.ts) || !ParseExpiryArg(args[i + 3], &base.expire_at) ||
        !ParseUint64(args[i + 5], &n) || n > (args.size() - i) / 5) {
      return false;
    }
    if (base.kind == CounterBase::Kind::kReduced) {
      if (!types::ParseDigestHex(args[i + 4], &base.value)) return false;
    } else if (base.kind == CounterBase::Kind::kTombstone) {
      if (!args[i + 4].empty() || base.expire_at != CounterBase::kNever) return false;
    } else {
      base.value = args[i + 4];
    }
    i += 6;
    for (uint64_t k = 0; k < n; k++, i += 5) {
      types::CounterObserved o;
      if (!ParsePart(args, i, &o)) return false;
      if (!base.observed.empty() && base.observed.back().origin >= o.origin) return false;
      base.observed.push_back(std::move(o));
    }
    delta->base = std::move(base);
  }
  while (i < args.size()) {
    CounterRecord r;
    if (!EqualsIgnoreCase(args[i], "by") || !ParsePart(args, i + 1, &r) || r.seq == 0) {
      return false;
    }
    delta->records.push_back(std::move(r));
    i += 6;
  }
  return delta->base || !delta->records.empty();
}

bool BaseOfStringDelta(std::span<const std::string> args, CounterBase* base) {
  *base = CounterBase();
  StringDelta delta;
  if (!ParseStringDelta(args, &delta)) return false;
  base->ts = delta.version.ts;
  base->expire_at = delta.version.expire_at;
  switch (delta.kind) {
    case StringDelta::Kind::kPut:
      base->kind = CounterBase::Kind::kValue;
      base->value = delta.version.value;
      break;
    case StringDelta::Kind::kDelete:
      base->kind = CounterBase::Kind::kTombstone;
      break;
    case StringDelta::Kind::kPutExpired:
      base->kind = CounterBase::Kind::kReduced;
      base->value = std::move(*delta.version.digest);
      break;
  }
  return true;
}

std::string CounterDigestText(const types::CounterState& state) {
  std::string text;
  if (state.base) {
    const CounterBase& base = *state.base;
    text = "b" + std::to_string(base.ts) + "/";
    if (base.kind == CounterBase::Kind::kTombstone) {
      text += "t";
    } else {
      text += types::DigestHex(
          base.kind == CounterBase::Kind::kReduced ? base.value : types::StringDigest(base.value));
    }
    text += "/" + std::to_string(base.expire_at);
    for (const types::CounterObserved& o : base.observed) {
      text += ",o" + o.origin + "@" + std::to_string(o.ts) + "#" + std::to_string(o.seq) + "=" +
              std::to_string(o.total) + "+" + types::FloatTotalText(o.ftotal);
    }
  }
  for (const CounterRecord& r : state.records) {
    text += ";r" + r.origin + "@" + std::to_string(r.ts) + "#" + std::to_string(r.seq) + "=" +
            std::to_string(r.total) + "+" + types::FloatTotalText(r.ftotal);
  }
  return text;
}

void InstallCounterPurge(types::Keyspace& keyspace) {
  types::TypesCompactionFilter& filter = keyspace.compaction_filter();
  filter.RegisterSystemRowHook(
      std::string(kCounterRowPrefix),
      [](std::string_view, std::string_view value, int64_t now_ms, std::string* new_value) {
        CounterState state;
        if (!types::DecodeCounterState(value, &state) ||
            !types::ReduceExpiredBase(&state, now_ms)) {
          return storage::CompactionFilter::Decision::kKeep;
        }
        *new_value = types::EncodeCounterState(state);
        return storage::CompactionFilter::Decision::kChangeValue;
      });
  filter.SetStringDependents([](int db, std::string_view key, std::vector<std::string>* rows) {
    rows->push_back(types::Keyspace::SystemRowKey(CounterRowName(db, key)));
  });
}

storage::Status ReadCounterState(types::Keyspace& keyspace, int db, std::string_view key,
                                 std::optional<CounterState>* state) {
  state->reset();
  storage::Row row;
  storage::Status s = keyspace.db().Get(
      keyspace.ReadOptions(), types::Keyspace::SystemRowKey(CounterRowName(db, key)), &row);
  if (s.IsNotFound()) return storage::Status::OK();
  if (!s.ok()) return s;
  CounterState decoded;
  if (!types::DecodeCounterState(row.value, &decoded)) {
    return storage::Status::Corruption("active-active counter");
  }
  *state = std::move(decoded);
  return s;
}

storage::Status Counters::Load() {
  const std::unique_ptr<types::RowCursor> rows = keyspace_.SystemRowCursor(kCounterRowPrefix);
  any_ = rows->Valid();
  return rows->status();
}

storage::Status Counters::Read(int db, std::string_view key, std::optional<CounterState>* state) {
  state->reset();
  if (!any_) return storage::Status::OK();
  return ReadCounterState(keyspace_, db, key, state);
}

storage::Status Counters::ReadOrAdopt(int db, std::string_view key, CounterState* state) {
  std::optional<CounterState> held;
  storage::Status s = Read(db, key, &held);
  if (!s.ok()) return s;
  *state = held ? std::move(*held) : CounterState();
  if (!held) {
    // The key's newest string version becomes the base, as on every node that holds it.
    types::KeyMetaRow row;
    std::optional<storage::DeadVersion> dead;
    s = keyspace_.GetMeta(db, key, &row, 0, &dead);
    if (!s.ok() && !s.IsNotFound()) return s;
    CounterBase base;
    bool adopted = false;
    if (s.ok()) {
      adopted = row.type == types::KeyType::kString;
      base.value = row.payload;
      base.ts = row.meta.timestamp_or_zero();
      base.expire_at = row.meta.expire_at_ms.value_or(CounterBase::kNever);
    } else if (dead && dead->kind == storage::RowKind::kTombstone) {
      adopted = true;
      base.ts = dead->meta.timestamp_or_zero();
      // An observed-remove row's rank is the row it wraps (types/or_string_ext.h).
      base.kind =
          types::DecodeReducedString(types::OrInnerRow(dead->value), &base.value, &base.expire_at)
              ? CounterBase::Kind::kReduced
              : CounterBase::Kind::kTombstone;
    } else if (dead && dead->kind == storage::RowKind::kValue) {
      types::KeyType type;
      std::string_view payload;
      adopted =
          types::DecodeMetaValue(dead->value, &type, &payload) && type == types::KeyType::kString;
      base.value = std::string(payload);
      base.ts = dead->meta.timestamp_or_zero();
      base.expire_at = dead->meta.expire_at_ms.value_or(CounterBase::kNever);
    }
    if (adopted) state->base = std::move(base);
  }
  return storage::Status::OK();
}

storage::Status Counters::Write(int db, std::string_view key, CounterState state,
                                const KeyMarker& marker) {
  if (state.base) CoverByRegister(&*state.base, marker);
  const std::string row_key = types::Keyspace::SystemRowKey(CounterRowName(db, key));
  if (state.records.empty() && (!state.base || state.base->observed.empty())) {
    // No increment left: the key is what a plain string write left, on every node alike (one
    // that never had the counter holds that version and no state). Without a base everything
    // was at or before a delete, which removed the row the counter read as.
    storage::Status s =
        any_ ? keyspace_.db().Delete(keyspace_.WriteOptions(), row_key) : storage::Status::OK();
    return s.ok() && state.base ? WritePlain(db, key, *state.base) : s;
  }
  any_ = true;
  storage::Status s =
      keyspace_.db().Put(keyspace_.WriteOptions(), row_key, types::EncodeCounterState(state));
  if (!s.ok()) return s;
  const types::CounterView view = types::ViewOf(state);
  types::Kv kv(keyspace_, db, 0);
  if (!view.present) {
    auto deleted = kv.Delete(key, view.ts);
    return deleted.ok() ? storage::Status::OK() : deleted.engine_status();
  }
  std::optional<int64_t> expire_at = view.expire_at;
  if (marker.expiry && view.ts <= marker.expiry->ts) expire_at = marker.expiry->expire_at;
  auto put = kv.Put({.key = key, .value = view.value, .ts = view.ts, .expire_at_ms = expire_at});
  return put.ok() ? storage::Status::OK() : put.engine_status();
}

storage::Status Counters::WritePlain(int db, std::string_view key, const CounterBase& base) {
  types::Kv kv(keyspace_, db, 0);
  types::OpResult<void> written;
  if (base.kind == CounterBase::Kind::kTombstone) {
    written = kv.Delete(key, base.ts);
  } else if (base.kind == CounterBase::Kind::kReduced) {
    written = kv.PutReduced(key, base.ts, base.value, base.expire_at);
  } else {
    written = kv.Put({.key = key,
                      .value = base.value,
                      .ts = base.ts,
                      .expire_at_ms = base.expire_at == CounterBase::kNever
                                          ? std::nullopt
                                          : std::optional<int64_t>(base.expire_at)});
  }
  return written.ok() ? storage::Status::OK() : written.engine_status();
}

storage::Status Counters::Settle(int db, std::string_view key, const KeyMarker& marker,
                                 std::optional<int64_t> deleted_at) {
  std::optional<CounterState> state;
  storage::Status s = Read(db, key, &state);
  if (!s.ok() || !state) return s;
  if (deleted_at) types::Prune(&*state, *deleted_at);
  return Write(db, key, std::move(*state), marker);
}

storage::Status Counters::ForEachKey(int db,
                                     const std::function<storage::Status(std::string_view)>& fn) {
  if (!any_) return storage::Status::OK();
  const std::string prefix = CounterRowName(db, "");
  std::vector<std::string> keys;
  storage::Status s =
      keyspace_.ForEachSystemRow(prefix, [&](std::string_view name, std::string_view) {
        keys.emplace_back(name.substr(prefix.size()));
        return storage::Status::OK();
      });
  if (!s.ok()) return s;
  for (const std::string& key : keys) {
    s = fn(key);
    if (!s.ok()) return s;
  }
  return storage::Status::OK();
}

// WholeKeyMarkers' side of the counters (whole_key.h): after a delete, a register or a floor.
storage::Status WholeKeyMarkers::SettleCounter(int db, std::string_view key,
                                               std::optional<int64_t> deleted_at) {
  if (counters_ == nullptr || !counters_->any()) return storage::Status::OK();
  std::optional<types::KeyType> held;
  storage::Status s = HeldType(keyspace_, db, key, &held);
  KeyMarker marker;
  bool has_row = false;
  if (s.ok()) s = Marker(db, key, &marker, &has_row);
  if (!s.ok()) return s;
  // A TREG or a log holds the key, now or for good (its floor): no string comes back on it.
  if ((held && *held != types::KeyType::kString) || marker.floor > 0) {
    return counters_->Forget(db, key);
  }
  return counters_->Settle(db, key, marker, deleted_at);
}

storage::Status Counters::Forget(int db, std::string_view key) {
  if (!any_) return storage::Status::OK();
  return keyspace_.db().Delete(keyspace_.WriteOptions(),
                               types::Keyspace::SystemRowKey(CounterRowName(db, key)));
}

}  // namespace ebb::server
