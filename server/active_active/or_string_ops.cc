// ActiveActive's observed-remove string deltas applied from peers (docs/active-active.md,
// "Status", "observed-remove deletes of string keys"): a string delta that carries `CTX
// <context>`, the string keys of a `del-or` and a snapshot's `or-string` piece, applied by the rule
// of types/or_string.h to the key's rows (types/or_string_rows.h) — no command handler runs for
// them. A string delta without a context keeps the last-writer-wins path (apply_deltas.cc).
//
// A delta's write becomes the slot (origin, the delta's offset); the key's markers judge it first
// as any string delta (a whole-key delete's horizon covers it, a type floor above strings makes it
// lose, an expiry register rewrites its PXAT), and a key that holds another type keeps it. A write
// a delete covers is removed as it arrives: its context and its own dot join the key's R, as the
// delete took its slot on a node it reached first (whole_key.h), so R does not depend on the
// order of arrival.
#include <spdlog/spdlog.h>

#include <limits>
#include <utility>

#include "server/active_active/active_active.h"
#include "server/active_active/marker_piece.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/peer_snapshot.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/merge_rule.h"
#include "types/or_string_rows.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

// A snapshot slot's version as the string delta that would have written it (no CTX).
std::vector<std::string> SlotDeltaArgs(const std::string& key, const types::OrSlot& slot,
                                       const std::optional<std::string>& value) {
  StringDelta write;
  write.key = key;
  write.version = slot.version;
  write.nottl = slot.version.expire_at == std::numeric_limits<int64_t>::max();
  if (value) {
    write.version.value = *value;
  } else {
    write.kind =
        slot.version.tombstone ? StringDelta::Kind::kDelete : StringDelta::Kind::kPutExpired;
  }
  return StringDeltaArgs(write);
}

// `more` added to *applied.
void MergeApplied(types::OrApplied* applied, const types::OrApplied& more) {
  applied->dropped.insert(applied->dropped.end(), more.dropped.begin(), more.dropped.end());
  applied->written = applied->written || more.written;
  applied->removed_grew = applied->removed_grew || more.removed_grew;
}

}  // namespace

types::OrSlotRow ActiveActive::SlotRowOf(const StringDelta& delta) {
  const int64_t ts = delta.version.ts;
  switch (delta.kind) {
    case StringDelta::Kind::kPut: {
      std::optional<int64_t> expire_at;
      if (!delta.nottl) expire_at = delta.version.expire_at;
      return types::OrSlotRow::Value(
          types::EncodeMetaValue(types::KeyType::kString, delta.version.value), {ts, expire_at});
    }
    case StringDelta::Kind::kDelete:
      return types::OrSlotRow::Tombstone(ts);
    case StringDelta::Kind::kPutExpired:
      break;
  }
  return {storage::RowKind::kTombstone,
          types::EncodeReducedString(*delta.version.digest, delta.version.expire_at),
          {ts, {}}};
}

storage::Status ActiveActive::OrStringHolds(int db, const std::string& key,
                                            const types::OrStringRows& rows, bool* holds) {
  *holds = false;
  // Another type has precedence over a string (merge_rule.h): the key keeps it.
  if (rows.other_type) return storage::Status::OK();
  KeyMarker marker;
  bool has_row = false;
  storage::Status s = whole_key_->Marker(db, key, &marker, &has_row);
  // A floor above strings: every string write loses (whole_key.h, "type floor").
  *holds = s.ok() && marker.floor == 0;
  return s;
}

storage::Status ActiveActive::ApplyOrToKey(int db, const std::string& key,
                                           const OrKeyChange& change) {
  // One read of the key: its rows say what type it holds too.
  types::Keyspace& ks = context_->keyspace();
  types::OrStringRows rows;
  storage::Status s = types::LoadOrString(ks, db, key, &rows);
  bool holds = false;
  if (s.ok()) s = OrStringHolds(db, key, rows, &holds);
  if (!s.ok() || !holds) return s;
  const types::OrApplied applied = change(&rows);
  if (!applied.changed()) return s;
  s = types::StoreOrString(ks, db, key, rows, applied);
  // As a handler's write from a peer: WATCH, tracking and the `expired` index, no event.
  if (s.ok()) NoteKeyChange(*context_, db, key);
  return s;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyOrString(const std::string& origin_id,
                                                       const PeerDelta& delta,
                                                       types::OrContext context, StringDelta parsed,
                                                       std::vector<std::string>* args) {
  WholeKeyMarkers::Admission admission;
  storage::Status s = whole_key_->Judge(delta.db, args, &admission);
  types::OriginId origin;
  // An expiry register may have rewritten its PXAT: parsed again from the new words.
  if (s.IsInvalidArgument() || delta.offset == 0 ||
      (admission.expiry_rewritten && !ParseStringDelta(*args, &parsed)) ||
      !OriginOfNodeId(origin_id, &origin)) {
    spdlog::warn("Peer {}: delta {} is malformed: skipped", origin_id, delta.offset);
    return ApplyOutcome::kMalformed;
  }
  const std::string key(parsed.key);
  bool written = false;
  if (s.ok() && admission.covered) {
    s = whole_key_->RaiseFloor(delta.db, key, admission.precedence);
    // Removed as it arrives: its context and its own dot, as the delete removed its slot on a
    // node it reached first (whole_key.h, DeleteFromOrString), so both hold the same R.
    context.Raise(origin, delta.offset);
    if (s.ok()) {
      s = ApplyOrToKey(delta.db, key, [&](types::OrStringRows* rows) {
        return types::ApplyOrDelete(rows, context);
      });
    }
  } else if (s.ok() && !admission.below_floor) {
    const types::Dot dot{origin, delta.offset};
    s = ApplyOrToKey(delta.db, key, [&](types::OrStringRows* rows) {
      types::OrApplied applied = types::ApplyOrWrite(rows, context, dot, SlotRowOf(parsed));
      written = applied.written;
      return applied;
    });
  }
  // A put whose expiry had passed when it was written, counted as the handler's write counts it
  // (INFO stats dead_on_arrival_own_expiry).
  if (s.ok() && written && ArrivesDead(parsed, context_->clock().NowMs())) {
    ++context_->stats().dead_on_arrival_own_expiry;
  }
  if (!s.ok()) {
    spdlog::warn("Peer {}: delta {} not applied: {}", origin_id, delta.offset, s.ToString());
    return ApplyOutcome::kEngineError;
  }
  return ApplyOutcome::kApplied;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyDelOr(const std::string& origin_id,
                                                    const PeerDelta& delta,
                                                    const std::vector<std::string>& args) {
  DelOr del;
  if (!ParseDelOr(args, origin_id, &del)) {
    spdlog::warn("Peer {}: delta {} is malformed: skipped", origin_id, delta.offset);
    return ApplyOutcome::kMalformed;
  }
  const storage::Status s = DeleteByDelOr(delta.db, del);
  if (!s.ok()) {
    spdlog::warn("Peer {}: delta {} not applied: {}", origin_id, delta.offset, s.ToString());
    return ApplyOutcome::kEngineError;
  }
  return ApplyOutcome::kApplied;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyOrStringPiece(const std::string& origin_id,
                                                            const PeerDelta& delta,
                                                            const std::vector<std::string>& args) {
  OrStringPiece piece;
  if (!ParseOrStringPiece(args, origin_id, &piece)) {
    spdlog::warn("Peer {}: snapshot piece is malformed: skipped", origin_id);
    return ApplyOutcome::kMalformed;
  }
  // Each slot judged by the key's markers as the delta that wrote it (its expiry rewritten by a
  // register); the ones they admit join with the sender's R (types/or_string.h: JoinOrState).
  // A slot a delete covers is removed as it arrives, its dot joined into R (as ApplyOrString).
  std::vector<std::pair<const types::OrSlot*, std::vector<std::string>>> admitted;
  types::OrContext removed = piece.state.removed;
  storage::Status s;
  for (size_t i = 0; i < piece.state.slots.size() && s.ok(); i++) {
    const types::OrSlot& slot = piece.state.slots[i];
    std::vector<std::string> form = SlotDeltaArgs(piece.key, slot, piece.values[i]);
    WholeKeyMarkers::Admission admission;
    s = whole_key_->Judge(delta.db, &form, &admission);
    if (s.ok() && admission.covered) removed.Raise(slot.dot.origin, slot.dot.offset);
    if (s.ok() && !admission.covered && !admission.below_floor) {
      admitted.emplace_back(&slot, std::move(form));
    }
  }
  if (s.ok()) {
    s = ApplyOrToKey(delta.db, piece.key, [&](types::OrStringRows* rows) {
      types::OrApplied applied = types::ApplyOrDelete(rows, removed);
      for (const auto& [slot, form] : admitted) {
        StringDelta parsed;
        if (!ParseStringDelta(form, &parsed)) continue;  // made by StringDeltaArgs: never
        MergeApplied(&applied, types::ApplyOrWrite(rows, {}, slot->dot, SlotRowOf(parsed)));
      }
      return applied;
    });
  }
  if (!s.ok()) {
    spdlog::warn("Peer {}: snapshot piece of {} not applied: {}", origin_id, piece.key,
                 s.ToString());
    return ApplyOutcome::kEngineError;
  }
  return ApplyOutcome::kApplied;
}

}  // namespace ebb::server
