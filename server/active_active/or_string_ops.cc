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

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "common/strings.h"
#include "server/active_active/active_active.h"
#include "server/active_active/marker_piece.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/peer_snapshot.h"
#include "server/active_active/stable_vector.h"
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
                                                       std::vector<std::string>* args,
                                                       Arrival arrival) {
  WholeKeyMarkers::Admission admission;
  DeltaView view;
  storage::Status s = JudgingView(origin_id, arrival, &view);
  if (!s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  s = whole_key_->Judge(delta.db, args, &admission, view.collects);
  types::OriginId origin;
  // An expiry register may have rewritten its PXAT: parsed again from the new words.
  if (s.IsInvalidArgument() || delta.offset == 0 ||
      (admission.expiry_rewritten && !ParseStringDelta(*args, &parsed)) ||
      !OriginOfNodeId(origin_id, &origin)) {
    return Malformed(origin_id, delta);
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
      // A snapshot this node joined, or one whose pieces have passed the key, came from a node
      // that had observed this write and no longer held it: only its context applies
      // (docs/active-active.md, "Collection of observed-remove deletes").
      types::OrContext room;
      if (types::OrRemovedHere(rows->state, dot, StreamObserved(delta.db, key, &room))) {
        return types::ApplyOrDelete(rows, context);
      }
      types::OrApplied applied = types::ApplyOrWrite(rows, context, dot, SlotRowOf(parsed));
      written = applied.written;
      return applied;
    });
  }
  // A put whose expiry had passed when it was written, counted as the handler's write counts it
  // (INFO stats dead_on_arrival_own_expiry).
  if (s.ok() && written && ArrivesDead(parsed, context_->clock())) {
    ++context_->stats().dead_on_arrival_own_expiry;
  }
  if (!s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  return ApplyOutcome::kApplied;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyDelOr(const std::string& origin_id,
                                                    const PeerDelta& delta,
                                                    const std::vector<std::string>& args) {
  DelOr del;
  if (!ParseDelOr(args, origin_id, &del)) {
    return Malformed(origin_id, delta);
  }
  const storage::Status s = DeleteByDelOr(delta.db, del, DotOfDelta(origin_id, delta));
  if (!s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  return ApplyOutcome::kApplied;
}

const types::OrContext& ActiveActive::OwnVectorForSnapshot() {
  if (!own_vector_) own_vector_ = OrContextOf(ObservedVector());
  return *own_vector_;
}

bool ActiveActive::StartReceipt(const std::string& origin_id, const std::vector<std::string>& args,
                                bool sweeps) {
  receipts_.erase(origin_id);
  std::vector<std::string_view> fields(args.begin() + 1, args.end());
  OriginVector vector;
  const VectorParse parsed = ParseOriginVector(fields, &vector);
  if (parsed != VectorParse::kOk) {
    spdlog::warn("Peer {}: snapshot vector is malformed ({}): joined without it", origin_id,
                 VectorParseText(parsed));
    return false;
  }
  SnapshotReceipt& receipt = receipts_[origin_id];
  if (sweeps) receipt.sender_vector = OrContextOf(vector);
  receipt.sender_ids = std::move(vector);
  return true;
}

storage::Status ActiveActive::SweepBeforePiece(SnapshotReceipt* receipt, const PeerDelta& piece,
                                               size_t* rows_left, bool* reached) {
  *reached = true;
  if (piece.args.size() < 2 || piece.db < 0 || piece.db >= context_->config().databases) {
    return storage::Status::OK();
  }
  // A key marker comes before every key (peer_snapshot.h): the sweep passes no key for it.
  if (EqualsIgnoreCase(piece.args[0], kMarkerAt)) return storage::Status::OK();
  const std::optional<std::string_view> key = SnapshotPieceKey(piece.args);
  if (!key) return storage::Status::OK();
  std::string from = FirstUnswept(*receipt, piece.db);
  const std::string piece_position = context_->keyspace().KeyPosition(piece.db, *key);
  if (piece_position < from) return storage::Status::OK();  // passed already
  const std::string past_piece = types::Keyspace::PositionAfter(piece_position);
  // The piece's key too unless the piece carries its slots.
  const std::string& upper =
      EqualsIgnoreCase(piece.args[0], kOrStringPiece) ? piece_position : past_piece;
  storage::Status s;
  while (s.ok() && *rows_left > 0 && from < upper) {
    s = SweepOrRun(piece.db, from, upper, receipt->sender_vector, &from, rows_left);
  }
  if (!s.ok()) return s;
  *reached = from >= upper;
  // The piece is applied next, in the same engine write: passed once it is.
  receipt->sweep_from[piece.db] = *reached ? past_piece : from;
  return s;
}

std::string ActiveActive::FirstUnswept(const SnapshotReceipt& receipt, int db) const {
  auto from = receipt.sweep_from.find(db);
  return from == receipt.sweep_from.end() ? context_->keyspace().FirstKeyPosition(db)
                                          : from->second;
}

storage::Status ActiveActive::SweepTailRun(SnapshotReceipt* receipt, bool* done) {
  *done = !receipt->Sweeps();
  if (*done) return storage::Status::OK();
  size_t rows_left = kSweepRows;
  for (int db = 0; db < context_->config().databases; db++) {
    const std::string lower = FirstUnswept(*receipt, db);
    const std::string upper = context_->keyspace().EndKeyPosition(db);
    if (lower >= upper) continue;
    std::string next;
    storage::Status s = SweepOrRun(db, lower, upper, receipt->sender_vector, &next, &rows_left);
    if (!s.ok()) return s;
    receipt->sweep_from[db] = next;
    if (next < upper) return s;  // the rows ran out
  }
  *done = true;
  return storage::Status::OK();
}

storage::Status ActiveActive::SweepRemaining(SnapshotReceipt* receipt) {
  bool done = false;
  storage::Status s;
  while (s.ok() && !done) s = SweepTailRun(receipt, &done);
  return s;
}

bool ActiveActive::SweepSnapshotTail(const std::string& origin_id, bool* done) {
  *done = true;
  auto receipt = receipts_.find(origin_id);
  if (receipt == receipts_.end() || !receipt->second.Sweeps()) return true;
  types::Keyspace& ks = context_->keyspace();
  ks.BeginBatch();
  storage::Status s = SweepTailRun(&receipt->second, done);
  if (s.ok()) {
    s = ks.CommitBatch();
  } else {
    ks.DiscardBatch();
  }
  if (s.ok() && ks.defer_sync()) s = ks.db().SyncWal();
  if (!s.ok()) {
    spdlog::warn("Peer {}: snapshot sweep not applied: {}", origin_id, s.ToString());
    return false;
  }
  return true;
}

const types::OrContext& ActiveActive::StreamObserved(int db, std::string_view key,
                                                     types::OrContext* room) const {
  if (receipts_.empty()) return known_or_;
  const std::string position = context_->keyspace().KeyPosition(db, key);
  const types::OrContext* observed = &known_or_;
  for (const auto& [sender, receipt] : receipts_) {
    // The snapshot has not passed it (a receipt that sweeps nothing passes nothing).
    if (!receipt.Sweeps() || position >= FirstUnswept(receipt, db)) continue;
    if (observed != room) *room = known_or_;
    room->Join(receipt.sender_vector);
    observed = room;
  }
  return *observed;
}

storage::Status ActiveActive::SweepOrRun(int db, const std::string& lower, const std::string& upper,
                                         const types::OrContext& sender_vector, std::string* next,
                                         size_t* rows_left) {
  if (sender_vector.empty()) {
    *next = upper;
    return storage::Status::OK();
  }
  // Read first, changed after the cursor is gone: the batch the changes go into is part of what
  // the cursor reads. A tombstone slot is a slot: the cursor shows dead keys too.
  std::vector<std::string> keys;
  std::string from = lower;
  std::unique_ptr<types::RowCursor> cursor = context_->keyspace().KeyCursor(db, lower, upper);
  for (; cursor->Valid() && keys.size() < kSweepKeys && *rows_left > 0;
       cursor->Next(), --*rows_left) {
    types::OrStringExt ext;
    std::string_view inner;
    // Only a row whose extension names a dot holds slots (types/or_string_ext.h).
    if (types::DecodeOrStringRow(cursor->value(), &ext, &inner) && ext.dot) {
      keys.emplace_back(cursor->name());
    }
    from = types::Keyspace::PositionAfter(cursor->position());
  }
  if (!cursor->Valid()) from = upper;  // the range is done (or the cursor failed: below)
  if (storage::Status s = cursor->status(); !s.ok()) return s;
  cursor.reset();
  for (const std::string& key : keys) {
    storage::Status s = ApplyOrToKey(db, key, [&](types::OrStringRows* rows) {
      return types::ApplyOrDelete(rows, types::OrRemovedBySender(rows->state, {}, sender_vector));
    });
    if (!s.ok()) return s;
  }
  *next = std::move(from);
  return storage::Status::OK();
}

ActiveActive::ApplyOutcome ActiveActive::ApplyOrStringPiece(const std::string& origin_id,
                                                            const PeerDelta& delta,
                                                            const std::vector<std::string>& args,
                                                            Arrival arrival) {
  OrStringPiece piece;
  if (!ParseOrStringPiece(args, origin_id, &piece)) {
    spdlog::warn("Peer {}: snapshot piece is malformed: skipped", origin_id);
    return ApplyOutcome::kMalformed;
  }
  auto receipt = receipts_.find(origin_id);
  const types::OrContext* sender_vector =
      receipt == receipts_.end() ? nullptr : &receipt->second.sender_vector;
  const types::OrContext& own_vector = OwnVectorForSnapshot();
  // Each slot judged by the key's markers as the delta that wrote it (its expiry rewritten by a
  // register); the ones they admit join with the sender's R (types/or_string.h: JoinOrState).
  // A slot a delete covers is removed as it arrives, its dot joined into R (as ApplyOrString).
  std::vector<std::pair<const types::OrSlot*, std::vector<std::string>>> admitted;
  types::OrContext removed = piece.state.removed;
  DeltaView view;
  storage::Status s = JudgingView(origin_id, arrival, &view);
  for (size_t i = 0; i < piece.state.slots.size() && s.ok(); i++) {
    const types::OrSlot& slot = piece.state.slots[i];
    std::vector<std::string> form = SlotDeltaArgs(piece.key, slot, piece.values[i]);
    WholeKeyMarkers::Admission admission;
    s = whole_key_->Judge(delta.db, &form, &admission, view.collects);
    if (s.ok() && admission.covered) removed.Raise(slot.dot.origin, slot.dot.offset);
    if (s.ok() && !admission.covered && !admission.below_floor) {
      admitted.emplace_back(&slot, std::move(form));
    }
  }
  if (s.ok()) {
    s = ApplyOrToKey(delta.db, piece.key, [&](types::OrStringRows* rows) {
      // The two halves of the join with the vectors (types/or_string.h): what this node holds
      // and the sender removed goes, and what the sender holds and this node removed is not
      // taken again.
      types::OrContext gone = removed;
      if (sender_vector != nullptr) {
        gone.Join(types::OrRemovedBySender(rows->state, piece.state, *sender_vector));
      }
      std::erase_if(admitted, [&](const auto& entry) {
        return types::OrRemovedHere(rows->state, entry.first->dot, own_vector);
      });
      types::OrApplied applied = types::ApplyOrDelete(rows, gone);
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
