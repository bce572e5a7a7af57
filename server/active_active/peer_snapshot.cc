#include "server/active_active/peer_snapshot.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <limits>
#include <utility>

#include "common/strings.h"
#include "server/active_active/counters.h"
#include "server/active_active/marker_piece.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/series_range.h"
#include "server/active_active/series_rules_state.h"
#include "server/active_active/series_state.h"
#include "server/active_active/whole_key.h"
#include "server/core/client.h"
#include "server/core/errors.h"
#include "server/services/server_context.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/or_string_rows.h"
#include "types/string_rank.h"
#include "types/tlog.h"
#include "types/treg.h"

namespace ebb::server {
namespace {

std::vector<std::string> StringPut(std::string_view key, std::string_view value,
                                   const storage::RowMeta& meta) {
  StringDelta put;  // a put by default
  put.key = key;
  put.version.ts = meta.timestamp_or_zero();
  put.version.value = value;
  put.nottl = !meta.expire_at_ms;
  if (meta.expire_at_ms) put.version.expire_at = *meta.expire_at_ms;
  return StringDeltaArgs(put);
}

std::vector<std::string> StringDelete(std::string_view key, const storage::RowMeta& meta) {
  StringDelta tombstone;
  tombstone.kind = StringDelta::Kind::kDelete;
  tombstone.key = key;
  tombstone.version.ts = meta.timestamp_or_zero();
  tombstone.version.tombstone = true;
  return StringDeltaArgs(tombstone);
}

// A log, live or expired by its expiry register, with every entry it holds: those the register
// hides too (the key's marker piece, before the keys, gave them the register).
storage::Status LogPieces(types::Keyspace& keyspace, int db, std::string_view key,
                          std::vector<std::vector<std::string>>* pieces) {
  uint64_t cutoff = 0;
  auto entries = types::Tlog(keyspace, db, nullptr).HeldEntries(key, &cutoff);
  if (!entries.ok()) return types::EngineStatusOf(entries, "unreadable");
  if (cutoff > 0) {
    pieces->push_back({"tlog", "trimat", std::string(key), std::to_string(cutoff)});
  }
  for (const types::TlogEntry& e : entries.value()) {
    pieces->push_back({"tlog", "ins", std::string(key), e.value, std::to_string(e.ts)});
  }
  return storage::Status::OK();
}

// A key that holds a counter: its whole state as one `counter` piece (counters.h) instead of
// the row it reads as. *found: the key holds one.
storage::Status CounterPieces(types::Keyspace& keyspace, int db, std::string_view key,
                              std::vector<std::vector<std::string>>* pieces, bool* found) {
  std::optional<types::CounterState> state;
  storage::Status s = ReadCounterState(keyspace, db, key, &state);
  *found = s.ok() && state.has_value();
  if (*found) {
    pieces->push_back(CounterDeltaArgs(
        CounterDelta{.key = std::string(key), .base = state->base, .records = state->records}));
  }
  return s;
}

// A string key whose data row carries the observed-remove extension, not a counter's: its state
// as one `or-string` piece. *sent: the key was carried so.
storage::Status OrStringPieces(types::Keyspace& keyspace, int db, std::string_view key,
                               std::string_view sender_node_id,
                               std::vector<std::vector<std::string>>* pieces, bool* sent) {
  *sent = false;
  types::OrStringRows rows;
  storage::Status s = types::LoadOrString(keyspace, db, key, &rows);
  if (!s.ok() || !rows.extended) return s;
  s = CounterPieces(keyspace, db, key, pieces, sent);  // a counter keeps its own piece
  if (!s.ok() || *sent) return s;
  OrStringPiece piece{.key = std::string(key), .state = std::move(rows.state), .values = {}};
  for (const types::OrSlot& slot : piece.state.slots) {
    const types::OrSlotRow& row = rows.slot_rows.find(slot.dot.origin)->second;
    types::KeyType type;
    std::string_view value;
    if (row.kind == storage::RowKind::kValue && types::DecodeMetaValue(row.inner, &type, &value)) {
      piece.values.emplace_back(value);
    } else {
      piece.values.emplace_back(std::nullopt);
    }
  }
  pieces->push_back(OrStringPieceArgs(piece, sender_node_id));
  *sent = true;
  return s;
}

}  // namespace

storage::Status SnapshotKey(types::Keyspace& keyspace, int db, std::string_view key,
                            bool observed_remove, std::string_view sender_node_id,
                            std::vector<std::vector<std::string>>* pieces) {
  bool sent = false;
  storage::Status s;
  if (observed_remove) s = OrStringPieces(keyspace, db, key, sender_node_id, pieces, &sent);
  if (!s.ok() || sent) return s;
  types::KeyMetaRow row;
  std::optional<storage::DeadVersion> dead;
  // Grace 0: the most recently written version, which the merge gate keeps the greatest.
  s = keyspace.GetMeta(db, key, &row, 0, &dead);
  if (s.IsNotFound()) {
    if (!dead) return storage::Status::OK();  // never written, or wiped
    bool counter = false;
    types::KeyType dead_type = types::KeyType::kString;
    std::string_view dead_payload;
    if (dead->kind == storage::RowKind::kTombstone ||
        (dead->kind == storage::RowKind::kValue &&
         types::DecodeMetaValue(dead->value, &dead_type, &dead_payload) &&
         dead_type == types::KeyType::kString)) {
      s = CounterPieces(keyspace, db, key, pieces, &counter);
      if (!s.ok() || counter) return s;
    }
    ReducedPut reduced;
    if (dead->kind == storage::RowKind::kTombstone &&
        types::DecodeReducedString(dead->value, &reduced.digest, &reduced.expire_at)) {
      // An expired version compaction reduced: its rank without the bytes.
      reduced.key = std::string(key);
      reduced.ts = dead->meta.timestamp_or_zero();
      pieces->push_back(ReducedPutArgs(reduced));
      return storage::Status::OK();
    }
    if (dead->kind == storage::RowKind::kTombstone) {
      pieces->push_back(StringDelete(key, dead->meta));
      return storage::Status::OK();
    }
    types::KeyType type;
    std::string_view payload;
    if (dead->kind != storage::RowKind::kValue ||
        !types::DecodeMetaValue(dead->value, &type, &payload)) {
      return storage::Status::OK();
    }
    std::string_view value;
    uint64_t ts = 0;
    if (type == types::KeyType::kString) {
      pieces->push_back(StringPut(key, payload, dead->meta));  // expired: hides older versions
    } else if (type == types::KeyType::kTreg && types::DecodeTregPayload(payload, &value, &ts)) {
      // Expired by an expiry register (the marker sent before the keys gave it that expiry): a
      // later register may bring it back, on the receiver as here.
      pieces->push_back({"treg", "set", std::string(key), std::string(value), std::to_string(ts)});
    } else if (type == types::KeyType::kTlog) {
      // The same for a log; one expired by its retention window leaves the key free.
      return LogPieces(keyspace, db, key, pieces);
    } else if (type == types::KeyType::kSeries) {
      return SeriesSnapshotPieces(keyspace, db, key, pieces);  // the same for a series
    }
    return storage::Status::OK();
  }
  if (!s.ok()) return s;
  switch (row.type) {
    case types::KeyType::kString: {
      bool counter = false;
      s = CounterPieces(keyspace, db, key, pieces, &counter);
      if (!s.ok()) return s;
      if (!counter) pieces->push_back(StringPut(key, row.payload, row.meta));
      break;
    }
    case types::KeyType::kTreg: {
      auto reg = types::Treg(keyspace, db).Get(key);
      if (reg.status() == types::OpStatus::kNotFound) break;
      if (!reg.ok()) return types::EngineStatusOf(reg, "unreadable");
      if (!reg.value().present()) break;
      pieces->push_back(
          {"treg", "set", std::string(key), reg.value().value(), std::to_string(reg.value().ts())});
      break;
    }
    case types::KeyType::kTlog:
      return LogPieces(keyspace, db, key, pieces);
    case types::KeyType::kSeries:
      return SeriesSnapshotPieces(keyspace, db, key, pieces);
  }
  return storage::Status::OK();
}

storage::Status SnapshotMarkerRow(std::string_view name, std::string_view value, int* db,
                                  std::vector<std::vector<std::string>>* pieces) {
  std::string_view key;
  if (ParseKeyMarkerRowName(name, db, &key)) {
    KeyMarker marker;
    if (!DecodeKeyMarker(value, &marker)) return storage::Status::Corruption("key marker");
    std::vector<std::string> piece = {std::string(kMarkerAt), std::to_string(marker.deleted_up_to),
                                      std::string(key), std::to_string(marker.floor)};
    if (marker.expiry) {
      piece.push_back(std::to_string(marker.expiry->ts));
      piece.push_back(marker.expiry->expire_at ? std::to_string(*marker.expiry->expire_at)
                                               : "persist");
      piece.push_back(marker.expiry->origin);
      piece.push_back(std::to_string(marker.expiry->offset));
    }
    std::ranges::move(MarkerDeletesArgs(marker.deletes), std::back_inserter(piece));
    pieces->push_back(std::move(piece));
    return storage::Status::OK();
  }
  if (ParsePerKeyRowName(kSeriesRegisterRowPrefix, name, db, &key)) {
    SeriesGroup group{.key = std::string(key), .reg = {}, .samples = {}};
    if (!types::DecodeSeriesRegister(value, &group.reg)) {
      return storage::Status::Corruption("active-active series register");
    }
    pieces->push_back(SeriesDeltaArgs(std::span(&group, 1)));
    return storage::Status::OK();
  }
  if (ParsePerKeyRowName(kSeriesRangeRowPrefix, name, db, &key)) {
    return SeriesRangeSnapshotPieces(key, value, pieces);  // series_range.h
  }
  if (ParsePerKeyRowName(kSeriesRuleRowPrefix, name, db, &key)) {
    types::SeriesRuleRegister reg;
    if (!types::DecodeSeriesRuleRegister(value, key, &reg)) {
      return storage::Status::Corruption("active-active series rule register");
    }
    pieces->push_back(SeriesRuleDeltaArgs(key, reg));
    return storage::Status::OK();
  }
  if (ParseHorizonRowName(name, db)) {
    MarkerEntries deletes;
    if (!DecodeHorizon(value, &deletes)) return storage::Status::Corruption("horizon");
    std::vector<std::string> piece = {std::string(kFlushDbAt), std::to_string(deletes.Greatest())};
    std::ranges::move(MarkerDeletesArgs(deletes), std::back_inserter(piece));
    pieces->push_back(std::move(piece));
  }
  return storage::Status::OK();
}

namespace {

constexpr std::string_view kSlotValue = "value";
constexpr std::string_view kSlotReduced = "reduced";
constexpr std::string_view kSlotTombstone = "tombstone";
constexpr std::string_view kNoExpiry = "NOTTL";
constexpr size_t kSlotArgs = 6;  // origin offset kind ts expire_at bytes

std::string ExpiryArg(int64_t expire_at) {
  return expire_at == std::numeric_limits<int64_t>::max() ? std::string(kNoExpiry)
                                                          : std::to_string(expire_at);
}

bool ParseExpiryArg(std::string_view arg, int64_t* expire_at) {
  if (arg == kNoExpiry) {
    *expire_at = std::numeric_limits<int64_t>::max();
    return true;
  }
  return ParseInt64(arg, expire_at) && *expire_at != std::numeric_limits<int64_t>::max();
}

// The slot at args[0..kSlotArgs): *slot, and *value for a slot of kind `value`.
bool ParseOrSlot(std::span<const std::string> args, types::OrSlot* slot,
                 std::optional<std::string>* value) {
  types::Dot dot;
  types::StringVersion version;
  if (!OriginOfNodeId(args[0], &dot.origin) || NodeIdOfOrigin(dot.origin) != args[0] ||
      !ParseUint64(args[1], &dot.offset) || dot.offset == 0 || !ParseInt64(args[3], &version.ts) ||
      !ParseExpiryArg(args[4], &version.expire_at)) {
    return false;
  }
  const std::string_view kind = args[2];
  const std::string& bytes = args[5];
  value->reset();
  if (kind == kSlotValue) {
    version.value = bytes;
    *value = bytes;
  } else if (kind == kSlotReduced) {
    std::string digest;
    if (!types::ParseDigestHex(bytes, &digest) || types::DigestHex(digest) != bytes) return false;
    version.digest = std::move(digest);
  } else if (kind == kSlotTombstone) {
    version.tombstone = true;
    if (!bytes.empty() || version.expire_at != std::numeric_limits<int64_t>::max()) return false;
  } else {
    return false;
  }
  *slot = types::MakeOrSlot(std::move(dot), std::move(version));
  return true;
}

}  // namespace

std::vector<std::string> OrStringPieceArgs(const OrStringPiece& piece,
                                           std::string_view sender_node_id) {
  types::OriginId sender;
  OriginOfNodeId(sender_node_id, &sender);
  const std::vector<types::OrSlot>& slots = piece.state.slots;
  std::vector<std::string> args;
  args.reserve(4 + kSlotArgs * slots.size());
  args.emplace_back(kOrStringPiece);
  args.push_back(piece.key);
  args.push_back(types::EncodeOrContext(piece.state.removed, sender));
  args.push_back(std::to_string(slots.size()));
  for (size_t i = 0; i < slots.size(); i++) {
    const types::StringVersion& v = slots[i].version;
    args.push_back(NodeIdOfOrigin(slots[i].dot.origin));
    args.push_back(std::to_string(slots[i].dot.offset));
    const std::string_view kind = v.tombstone       ? kSlotTombstone
                                  : piece.values[i] ? kSlotValue
                                                    : kSlotReduced;
    args.emplace_back(kind);
    args.push_back(std::to_string(v.ts));
    args.push_back(ExpiryArg(v.expire_at));
    args.push_back(kind == kSlotValue     ? *piece.values[i]
                   : kind == kSlotReduced ? types::DigestHex(v.digest.value_or(""))
                                          : std::string());
  }
  return args;
}

bool ParseOrStringPiece(std::span<const std::string> args, std::string_view sender_node_id,
                        OrStringPiece* piece) {
  *piece = OrStringPiece();
  types::OriginId sender;
  uint64_t n = 0;
  if (args.size() < 4 || args[0] != kOrStringPiece || !OriginOfNodeId(sender_node_id, &sender) ||
      !types::DecodeOrContext(args[2], sender, &piece->state.removed) ||
      !ParseUint64(args[3], &n) || n > (args.size() - 4) / kSlotArgs ||
      args.size() != 4 + kSlotArgs * n) {
    return false;
  }
  piece->key = args[1];
  for (size_t at = 4; at < args.size(); at += kSlotArgs) {
    types::OrSlot slot;
    std::optional<std::string> value;
    if (!ParseOrSlot(args.subspan(at, kSlotArgs), &slot, &value)) return false;
    // Ascending, one per origin; R names none of them (canonical).
    const std::vector<types::OrSlot>& slots = piece->state.slots;
    if ((!slots.empty() && slots.back().dot.origin >= slot.dot.origin) ||
        piece->state.removed.At(slot.dot.origin) != 0) {
      return false;
    }
    piece->state.slots.push_back(std::move(slot));
    piece->values.push_back(std::move(value));
  }
  return true;
}

std::optional<std::string_view> SnapshotPieceKey(std::span<const std::string> args) {
  if (args.size() < 2) return std::nullopt;
  const std::string kind = AsciiLower(args[0]);
  // `tlog trimat|ins key ...`, `treg set key ...`, `marker-at <deleted_up_to> key ...`.
  if (kind == "tlog" || kind == "treg" || kind == kMarkerAt) {
    if (args.size() < 3) return std::nullopt;
    return args[2];
  }
  if (kind == kOrStringPiece || kind == kCounterDelta || kind == kSeriesDelta ||
      kind == kSeriesRangeDelta || kind == kSeriesRuleDelta || IsStringDelta(kind)) {
    return args[1];
  }
  return std::nullopt;
}

std::vector<std::string> SnapshotVectorPieceArgs(const OriginVector& observed) {
  std::vector<std::string> args;
  args.reserve(1 + 2 * observed.size());
  args.emplace_back(kSnapshotVectorPiece);
  for (const auto& [id, offset] : observed) {
    args.push_back(id);
    args.push_back(std::to_string(offset));
  }
  return args;
}

void AppendSnapshotPieceResp(std::string* out, int db, const std::vector<std::string>& args) {
  *out += '*';
  *out += std::to_string(2 + args.size());
  *out += "\r\n";
  AppendRespBulk(out, "snap");
  AppendRespBulk(out, std::to_string(db));
  for (const std::string& arg : args) AppendRespBulk(out, arg);
}

void AppendSnapshotEndResp(std::string* out, uint64_t offset, uint64_t byte_position) {
  *out += "*3\r\n";
  AppendRespBulk(out, "snapend");
  AppendRespBulk(out, std::to_string(offset));
  AppendRespBulk(out, std::to_string(byte_position));
}

SnapshotSender::SnapshotSender(ServerContext* context, boost::asio::io_context& io,
                               uint64_t client_id, std::string peer_id, std::string sender_node_id,
                               uint64_t offset, uint64_t byte_position, OriginVector observed,
                               std::vector<std::vector<std::string>> collect_pieces, Done done)
    : context_(context),
      timer_(io),
      client_id_(client_id),
      peer_id_(std::move(peer_id)),
      sender_node_id_(std::move(sender_node_id)),
      offset_(offset),
      byte_position_(byte_position),
      observed_(std::move(observed)),
      collect_pieces_(std::move(collect_pieces)),
      done_(std::move(done)),
      snapshot_(context->keyspace().db().GetSnapshot()),
      phases_(PhasesInOrder(context->config().databases)) {}

SnapshotSender::~SnapshotSender() {
  *alive_ = false;
  timer_.cancel();
  cursor_.reset();
  if (snapshot_ != nullptr) context_->keyspace().db().ReleaseSnapshot(snapshot_);
}

void SnapshotSender::Start() {
  OpenPhase();
  Schedule(0);
}

void SnapshotSender::Schedule(int delay_ms) {
  timer_.expires_after(std::chrono::milliseconds(delay_ms));
  timer_.async_wait([this, alive = alive_](const boost::system::error_code& error) {
    if (error || !*alive) return;
    Step();
  });
}

// The key markers and the horizons before every key: each delete a snapshot carries removes
// what the receiver held before the keys' content arrives, which is judged then as the deltas
// that made it were. After the keys, the series' registers (a deleted series leaves its own),
// then the series' range deletes, then the rule registers (after every series, so that a rule
// links series the receiver holds).
std::vector<SnapshotSender::Phase> SnapshotSender::PhasesInOrder(int databases) {
  std::vector<Phase> phases;
  for (std::string_view prefix : {kKeyMarkerRowPrefix, kHorizonRowPrefix}) {
    phases.push_back({.system_prefix = prefix});
  }
  for (int db = 0; db < databases; db++) phases.push_back({.db = db});
  for (std::string_view prefix :
       {kSeriesRegisterRowPrefix, kSeriesRangeRowPrefix, kSeriesRuleRowPrefix}) {
    phases.push_back({.system_prefix = prefix});
  }
  return phases;
}

bool SnapshotSender::DatabasePhase() const {
  return phase_ < phases_.size() && phases_[phase_].db >= 0;
}

void SnapshotSender::OpenPhase() {
  cursor_.reset();
  if (phase_ >= phases_.size()) return;
  const Phase& phase = phases_[phase_];
  types::Keyspace& ks = context_->keyspace();
  cursor_ = phase.db >= 0 ? ks.KeyCursor(phase.db, ks.FirstKeyPosition(phase.db),
                                         ks.EndKeyPosition(phase.db), snapshot_)
                          : ks.SystemRowCursor(phase.system_prefix, snapshot_);
}

storage::Status SnapshotSender::PiecesOfRow(int* db,
                                            std::vector<std::vector<std::string>>* pieces) {
  if (DatabasePhase()) {
    *db = phases_[phase_].db;
    return SnapshotKey(context_->keyspace(), *db, cursor_->name(),
                       context_->config().observed_remove_strings(), sender_node_id_, pieces);
  }
  return SnapshotMarkerRow(cursor_->name(), cursor_->value(), db, pieces);
}

void SnapshotSender::Step() {
  Client* client = context_->clients().Find(client_id_);
  if (client == nullptr) return Finish(false);
  if (client->PendingOutput() > kMaxPendingOutput) return Schedule(kWaitMs);
  std::string out;
  if (!vector_sent_) {
    AppendSnapshotPieceResp(&out, 0, SnapshotVectorPieceArgs(observed_));
    observed_.clear();
    for (const std::vector<std::string>& piece : collect_pieces_) {
      AppendSnapshotPieceResp(&out, 0, piece);
    }
    collect_pieces_.clear();
    vector_sent_ = true;
  }
  std::vector<std::vector<std::string>> pieces;
  while (out.size() < kStepBytes) {
    if (cursor_ == nullptr) {
      AppendSnapshotEndResp(&out, offset_, byte_position_);
      client->Push(out);
      spdlog::info("Peer {} ({}): snapshot at origin offset {} sent ({} keys)", client->addr(),
                   peer_id_, offset_, keys_sent_);
      return Finish(true);
    }
    if (!cursor_->Valid()) {
      if (!cursor_->status().ok()) {
        spdlog::warn("Peer {}: snapshot stopped: {}", peer_id_, cursor_->status().ToString());
        client->RequestClose();
        return Finish(false);
      }
      phase_++;
      OpenPhase();
      continue;
    }
    int db = 0;
    pieces.clear();
    storage::Status s = PiecesOfRow(&db, &pieces);
    if (!s.ok()) {
      spdlog::warn("Peer {}: snapshot stopped: {}", peer_id_, s.ToString());
      client->RequestClose();
      return Finish(false);
    }
    for (const std::vector<std::string>& piece : pieces) AppendSnapshotPieceResp(&out, db, piece);
    keys_sent_ += pieces.empty() ? 0 : 1;
    cursor_->Next();
  }
  client->Push(out);
  Schedule(0);
}

void SnapshotSender::Finish(bool complete) {
  finished_ = true;
  cursor_.reset();
  if (done_) done_(this, complete);
}

}  // namespace ebb::server
