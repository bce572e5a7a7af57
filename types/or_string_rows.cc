#include "types/or_string_rows.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "storage/iterator.h"
#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/or_string_ext.h"
#include "types/string_rank.h"

namespace ebb::types {
namespace {

using storage::RowKind;
using storage::Status;

Status BadRow(std::string_view what) {
  return Status::Corruption("bad observed-remove string " + std::string(what));
}

// The key's version a grace-0 read takes, live or dead (kind, value, meta) into *row; *found
// false when there is none or it is a wipe.
Status ReadNewest(Keyspace& keyspace, std::string_view engine_key, OrSlotRow* row, bool* found) {
  storage::ReadOptions options = keyspace.ReadOptions();
  options.retrieval_grace_ms = 0;
  std::optional<storage::DeadVersion> dead;
  options.dead_version = &dead;
  storage::Row live;
  Status s = keyspace.db().Get(options, engine_key, &live);
  *found = false;
  if (s.ok()) {
    *row = OrSlotRow::Value(std::move(live.value), live.meta);
    *found = true;
  } else if (s.IsNotFound() && dead && dead->kind != RowKind::kWipe) {
    *row = {dead->kind, std::move(dead->value), dead->meta};
    *found = true;
  }
  return s.IsNotFound() ? Status::OK() : s;
}

// Inserts `slot` (ascending by origin; R canonical) with its row.
void AddSlot(OrStringRows* rows, OrSlot slot, OrSlotRow row) {
  auto& slots = rows->state.slots;
  auto it = std::lower_bound(slots.begin(), slots.end(), slot.dot.origin,
                             [](const OrSlot& s, std::string_view o) { return s.dot.origin < o; });
  rows->state.removed.Erase(slot.dot.origin);
  rows->slot_rows[slot.dot.origin] = std::move(row);
  slots.insert(it, std::move(slot));
}

// A row `0x05 ext inner` as a slot's row: its ext and the row without the extension.
bool SplitTagged(const OrSlotRow& tagged, OrStringExt* ext, OrSlotRow* row) {
  std::string_view inner;
  if (!DecodeOrStringRow(tagged.inner, ext, &inner)) return false;
  *row = {tagged.kind, std::string(inner), tagged.meta};
  return true;
}

Status LoadSiblings(Keyspace& keyspace, int db, std::string_view key, OrStringRows* rows) {
  const std::string prefix = Keyspace::SystemRowKey(SiblingRowPrefix(db, key));
  storage::ReadOptions options = keyspace.ReadOptions();
  options.include_dead = true;
  options.lower_bound = prefix;
  options.upper_bound = prefix + std::string(kOriginIdSize, '\xff') + '\xff';
  std::vector<std::string> names;
  {
    std::unique_ptr<storage::Iterator> it = keyspace.db().NewIterator(options);
    for (it->Seek(prefix); it->Valid(); it->Next()) names.emplace_back(it->key());
    if (!it->status().ok()) return it->status();
  }
  for (const std::string& name : names) {
    if (name.size() != prefix.size() + kOriginIdSize) return BadRow("sibling row name");
    OrSlotRow tagged;
    bool found = false;
    Status s = ReadNewest(keyspace, name, &tagged, &found);
    if (!s.ok()) return s;
    if (!found) continue;
    OrStringExt ext;
    OrSlotRow row;
    OrSlot slot;
    if (!SplitTagged(tagged, &ext, &row) || !ext.dot || ext.siblings_live || !ext.removed.empty() ||
        ext.dot->origin != std::string_view(name).substr(prefix.size()) ||
        !OrSlotOfRow(*ext.dot, row, &slot)) {
      return BadRow("sibling row");
    }
    rows->held_siblings[ext.dot->origin] = *ext.dot;
    AddSlot(rows, std::move(slot), std::move(row));
  }
  return Status::OK();
}

// A data row in today's forms: a string's, one slot at the pre-mode dot; another type's, its
// type (held_type) and no slot.
void LoadPlain(OrSlotRow held, OrStringRows* rows) {
  if (held.kind == RowKind::kValue) {
    KeyType type;
    std::string_view payload;
    if (!DecodeMetaValue(held.inner, &type, &payload)) return;
    if (type != KeyType::kString) {
      rows->other_type = type;
      return;
    }
  } else {
    std::string digest;
    int64_t expire_at = 0;
    if (!DecodeReducedString(held.inner, &digest, &expire_at)) held.inner.clear();
  }
  const Dot dot{kPreModeOrigin, 1};
  OrSlot slot;
  if (OrSlotOfRow(dot, held, &slot)) AddSlot(rows, std::move(slot), std::move(held));
}

void AddPut(storage::WriteBatch* batch, const Keyspace& keyspace, const std::string& engine_key,
            const OrSlotRow& row, const OrStringExt& ext) {
  std::string value;
  EncodeOrStringRow(ext, row.inner, &value);
  storage::WriteOptions options = keyspace.WriteOptions();
  options.timestamp_ms = row.meta.timestamp_or_zero();
  if (row.kind == RowKind::kValue) {
    options.expire_at_ms = row.meta.expire_at_ms;
    batch->Put(options, engine_key, value, keyspace.NowMs());
  } else {
    batch->Delete(options, engine_key, value);
  }
}

void AddWipe(storage::WriteBatch* batch, const Keyspace& keyspace, const std::string& engine_key) {
  storage::WriteOptions options = keyspace.WriteOptions();
  options.timestamp_ms = keyspace.NowMs();
  batch->Wipe(options, engine_key);
}

// The data row: the winner, or a DEL's tombstone carrying R.
void AddDataRow(storage::WriteBatch* batch, const Keyspace& keyspace, const std::string& data_key,
                const OrStringRows& rows) {
  const OrStringState& state = rows.state;
  if (const OrSlot* winner = OrWinner(state)) {
    const OrSlotRow& row = rows.slot_rows.find(winner->dot.origin)->second;
    if (rows.data_ts && row.meta.timestamp_or_zero() < *rows.data_ts) {
      AddWipe(batch, keyspace, data_key);
    }
    const OrStringExt ext{
        .siblings_live = state.slots.size() > 1, .dot = winner->dot, .removed = state.removed};
    AddPut(batch, keyspace, data_key, row, ext);
    return;
  }
  if (state.removed.empty()) return;
  // The greatest timestamp the DEL removed: the held row's, or a slot's that went (0 when it
  // removed nothing held here).
  std::optional<int64_t> ts = rows.data_ts;
  for (const auto& [origin, row] : rows.slot_rows) {
    ts = std::max(ts.value_or(row.meta.timestamp_or_zero()), row.meta.timestamp_or_zero());
  }
  AddPut(batch, keyspace, data_key, OrSlotRow::Tombstone(ts.value_or(0)),
         {.removed = state.removed});
}

// The system row key of `origin`'s sibling row, under the key's SiblingRowPrefix.
std::string SiblingRowKey(std::string_view prefix, const OriginId& origin) {
  std::string name(prefix);
  name.append(origin.view());
  return Keyspace::SystemRowKey(name);
}

}  // namespace

bool OrSlotOfRow(Dot dot, const OrSlotRow& row, OrSlot* slot) {
  StringVersion version;
  version.ts = row.meta.timestamp_or_zero();
  if (row.kind == RowKind::kValue) {
    KeyType type;
    std::string_view payload;
    if (!DecodeMetaValue(row.inner, &type, &payload) || type != KeyType::kString) return false;
    version.value = payload;
    version.expire_at = row.meta.expire_at_ms.value_or(version.expire_at);
  } else if (row.kind == RowKind::kTombstone && !row.inner.empty()) {
    std::string digest;
    if (!DecodeReducedString(row.inner, &digest, &version.expire_at)) return false;
    version.digest = std::move(digest);
  } else if (row.kind == RowKind::kTombstone) {
    version.tombstone = true;
  } else {
    return false;
  }
  *slot = MakeOrSlot(std::move(dot), std::move(version));
  return true;
}

Status LoadOrString(Keyspace& keyspace, int db, std::string_view key, OrStringRows* rows) {
  *rows = OrStringRows();
  OrSlotRow held;
  bool found = false;
  Status s = ReadNewest(keyspace, MetaKey(keyspace.layout(), db, key), &held, &found);
  if (!s.ok() || !found) return s;
  rows->data_ts = held.meta.timestamp_or_zero();
  if (held.inner.empty() || static_cast<uint8_t>(held.inner[0]) != kOrStringTag) {
    LoadPlain(std::move(held), rows);
    return Status::OK();
  }
  rows->extended = true;
  OrStringExt ext;
  OrSlotRow row;
  if (!SplitTagged(held, &ext, &row)) return BadRow("row");
  rows->state.removed = std::move(ext.removed);
  if (!ext.dot) {
    // A DEL's tombstone: R alone.
    if (row.kind != RowKind::kTombstone || !row.inner.empty()) return BadRow("row");
    return Status::OK();
  }
  OrSlot slot;
  if (!OrSlotOfRow(*ext.dot, row, &slot)) return BadRow("row");
  AddSlot(rows, std::move(slot), std::move(row));
  return ext.siblings_live ? LoadSiblings(keyspace, db, key, rows) : Status::OK();
}

OrApplied ApplyOrWrite(OrStringRows* rows, const OrContext& context, Dot dot, OrSlotRow row) {
  OrSlot slot;
  OrSlotOfRow(dot, row, &slot);
  const OriginId origin = dot.origin;
  OrApplied applied = ApplyOrDelta(&rows->state, {.context = context, .write = std::move(slot)});
  if (!applied.written) return applied;
  rows->slot_rows[origin] = std::move(row);
  // A greater version at a dot a sibling row holds: that row changes with its dot kept.
  auto held = rows->held_siblings.find(origin);
  if (held != rows->held_siblings.end() && held->second == dot) rows->rewritten.insert(origin);
  return applied;
}

OrApplied ApplyOrDelete(OrStringRows* rows, const OrContext& context) {
  return ApplyOrDelta(&rows->state, {.context = context});
}

OrApplied ApplyOrDeleteUpTo(OrStringRows* rows, int64_t ts) {
  OrContext covered;
  for (const OrSlot& slot : rows->state.slots) {
    if (slot.version.ts <= ts) covered.Raise(slot.dot.origin, slot.dot.offset);
  }
  if (covered.empty()) return {};
  return ApplyOrDelete(rows, covered);
}

OrApplied ApplyOrExpiry(OrStringRows* rows, int64_t up_to, std::optional<int64_t> expire_at) {
  OrApplied applied;
  for (OrSlot& slot : rows->state.slots) {
    OrSlotRow& row = rows->slot_rows.find(slot.dot.origin)->second;
    const int64_t ts = slot.version.ts;
    if (row.kind != RowKind::kValue || ts > up_to || row.meta.expire_at_ms == expire_at) {
      continue;
    }
    row.meta.expire_at_ms = expire_at;
    OrSlotOfRow(slot.dot, row, &slot);  // the same value: its rank with the new expiry
    rows->rewritten.insert(slot.dot.origin);
    applied.written = true;
  }
  return applied;
}

Status StoreOrString(Keyspace& keyspace, int db, std::string_view key, const OrStringRows& rows,
                     const OrApplied& applied) {
  if (!applied.changed()) return Status::OK();
  storage::WriteBatch batch;
  AddDataRow(&batch, keyspace, MetaKey(keyspace.layout(), db, key), rows);
  const OrSlot* winner = OrWinner(rows.state);
  const std::string prefix = SiblingRowPrefix(db, key);
  for (const OrSlot& slot : rows.state.slots) {
    if (&slot == winner) continue;
    auto held = rows.held_siblings.find(slot.dot.origin);
    if (held != rows.held_siblings.end() && held->second == slot.dot &&
        !rows.rewritten.contains(slot.dot.origin)) {
      continue;
    }
    AddPut(&batch, keyspace, SiblingRowKey(prefix, slot.dot.origin),
           rows.slot_rows.find(slot.dot.origin)->second, {.dot = slot.dot});
  }
  for (const auto& [origin, dot] : rows.held_siblings) {
    auto it =
        std::lower_bound(rows.state.slots.begin(), rows.state.slots.end(), origin,
                         [](const OrSlot& s, std::string_view o) { return s.dot.origin < o; });
    const bool still_sibling =
        it != rows.state.slots.end() && it->dot.origin == origin && &*it != winner;
    if (!still_sibling) AddWipe(&batch, keyspace, SiblingRowKey(prefix, origin));
  }
  return keyspace.db().Write(keyspace.WriteOptions(), batch);
}

}  // namespace ebb::types
