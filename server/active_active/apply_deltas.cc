// ActiveActive's applying side (active_active.h): a peer's deltas and snapshot pieces through the
// key markers (whole_key.h) and the merge gate (merge_gate.h) into one engine write with the
// applied vector's row. A string version is written by the string type (WriteStringVersion), a
// TLOG or TREG write by its command's handler. The whole-key deltas are applied in
// whole_key_ops.cc; the observed-remove string deltas (a string delta with CTX, del-or, an
// or-string piece) in or_string_ops.cc.
#include <spdlog/spdlog.h>

#include <array>
#include <boost/container/small_vector.hpp>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/collect.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/peer_snapshot.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/kv.h"

namespace ebb::server {
namespace {

// A delta's arguments as the command table and the dispatcher take them: in place for the
// usual few (a delta is resolved and run once each, per applied delta).
using ArgViews = boost::container::small_vector<std::string_view, 12>;
ArgViews Views(const std::vector<std::string>& args) { return ArgViews(args.begin(), args.end()); }
std::span<const std::string_view> AsSpan(const ArgViews& views) {
  return {views.data(), views.size()};
}

}  // namespace

bool ActiveActive::ApplyDeltas(const std::string& origin_id, std::span<PeerDelta* const> deltas) {
  types::Keyspace& ks = context_->keyspace();
  const uint64_t applied = applied_offset(origin_id);
  // Deltas follow a snapshot's end, or a connection that resumed: no snapshot is under way.
  if (!receipts_.empty()) receipts_.erase(origin_id);
  // The vector row names the last delta applied by its digest, taken as its origin sent it:
  // before ApplyOne consumes its args. The offsets alone say which delta that will be.
  // A collect this node's observed vector does not cover stops the stream before it (a barrier).
  const PeerDelta* last_to_apply = nullptr;
  const PeerDelta* barrier = nullptr;
  for (uint64_t expected = applied; const PeerDelta* delta : deltas) {
    if (delta->offset <= expected) continue;
    if (delta->offset != expected + 1) break;
    if (!StreamMayPass(origin_id, *delta)) {
      barrier = delta;
      break;
    }
    expected = delta->offset;
    last_to_apply = delta;
  }
  uint64_t last = applied;
  std::string last_digest;
  bool ok = true;
  // The run's gate reads share one hold of the engine's read state.
  const types::Keyspace::ReadPass read_pass(ks);
  ks.BeginBatch();
  // The deltas' view, their origin's collect row, is read once for the batch (JudgingView).
  struct EndOfBatch {
    std::optional<StreamCollect>* held;
    ~EndOfBatch() { held->reset(); }
  } end_of_batch{&stream_collect_};
  stream_collect_.emplace();
  for (size_t i = 0; i < deltas.size(); ++i) {
    if (i % kHintedDeltas == 0) {
      HintDeltaKeys(deltas.subspan(i, std::min(kHintedDeltas, deltas.size() - i)));
    }
    PeerDelta* delta = deltas[i];
    if (delta->offset <= last) continue;  // already applied
    if (delta->offset != last + 1) {
      spdlog::warn("Peer {}: delta {} after {}: gap, reconnecting", origin_id, delta->offset, last);
      ok = false;
      break;
    }
    if (delta == barrier) {
      spdlog::warn(
          "Peer {}: its collect at offset {} names deltas this node has not observed (its data "
          "went back): asking that peer for a snapshot",
          origin_id, delta->offset);
      collect_barriers_++;
      std::lock_guard lock(applied_mu_);
      snapshot_wanted_.insert(origin_id);
      ok = false;
      break;
    }
    if (delta == last_to_apply) last_digest = DeltaDigest(*delta);
    const ApplyOutcome outcome = ApplyOne(origin_id, *delta, Arrival::kStream);
    if (outcome == ApplyOutcome::kEngineError) {
      // The failed delta may be half written: none of the group stays.
      whole_key_->DiscardBatch();
      return false;
    }
    // A malformed delta is skipped, counted and logged (ApplyOne): the link goes on.
    if (outcome == ApplyOutcome::kMalformed) malformed_deltas_++;
    last = delta->offset;
  }
  if (last == applied) {
    whole_key_->DiscardBatch();
    return ok;
  }
  const storage::Status s = CommitApplied(origin_id, AppliedPosition{last, std::move(last_digest)});
  if (!s.ok()) {
    spdlog::warn("Peer {}: deltas {}..{} not applied: {}", origin_id, applied + 1, last,
                 s.ToString());
    return false;
  }
  return ok;
}

void ActiveActive::HintDeltaKeys(std::span<PeerDelta* const> deltas) {
  hinted_keys_.clear();
  if (!context_->keyspace().PrefetchPays()) return;
  int db = 0;
  for (const PeerDelta* delta : deltas) {
    const std::optional<std::string_view> key = WrittenKeyOf(delta->args);
    if (!key || delta->db < 0 || delta->db >= context_->config().databases) continue;
    if (delta->db != db && !hinted_keys_.empty()) {
      context_->keyspace().PrefetchMeta(db, hinted_keys_);
      hinted_keys_.clear();
    }
    db = delta->db;
    hinted_keys_.push_back(*key);
  }
  if (!hinted_keys_.empty()) context_->keyspace().PrefetchMeta(db, hinted_keys_);
}

storage::Status ActiveActive::CommitApplied(const std::string& origin_id,
                                            std::optional<AppliedPosition> applied) {
  types::Keyspace& ks = context_->keyspace();
  storage::Status s;
  if (applied) {
    s = ks.db().Put(ks.WriteOptions(), types::Keyspace::SystemRowKey(AppliedRowName(origin_id)),
                    EncodeAppliedRow(*applied));
  }
  if (!s.ok()) {
    whole_key_->DiscardBatch();
    return s;
  }
  s = ks.CommitBatch();
  if (s.ok() && ks.defer_sync()) s = ks.db().SyncWal();
  if (s.ok() && applied) {
    std::lock_guard lock(applied_mu_);
    applied_[origin_id] = *applied;
  }
  return s;
}

bool ActiveActive::ApplySnapshot(const std::string& origin_id, std::span<PeerDelta* const> pieces,
                                 std::optional<uint64_t> end, size_t* applied_pieces,
                                 Arrival arrival) {
  types::Keyspace& ks = context_->keyspace();
  const uint64_t applied = applied_offset(origin_id);
  own_vector_.reset();
  auto failed = [&] {
    whole_key_->DiscardBatch();
    return false;
  };
  ks.BeginBatch();
  size_t rows_left = kSweepRows;
  size_t done = 0;
  for (; done < pieces.size(); done++) {
    PeerDelta* piece = pieces[done];
    if (!piece->args.empty() && EqualsIgnoreCase(piece->args[0], kSnapshotVectorPiece)) {
      // Only string keys under the observed-remove rule hold slots for the vector to judge: under
      // the timestamp rule no key is swept, and the vector is only joined into the observed one.
      if (!StartReceipt(origin_id, piece->args, context_->config().observed_remove_strings())) {
        malformed_deltas_++;
      }
      continue;
    }
    auto receipt = receipts_.find(origin_id);
    if (!piece->args.empty() && EqualsIgnoreCase(piece->args[0], kKnownCollectsPiece)) {
      // Judges this snapshot's data pieces; no row joins it (collect.h).
      types::OriginId sender;
      std::optional<types::OrContext> known;
      AsciiLowerInPlace(&piece->args[0]);
      if (OriginOfNodeId(origin_id, &sender)) known = ParseKnownCollects(piece->args, sender);
      if (!known) {
        malformed_deltas_++;
      } else if (receipt != receipts_.end()) {
        receipt->second.sender_collects = std::move(known);
      }
      continue;
    }
    if (receipt != receipts_.end() && receipt->second.Sweeps()) {
      bool reached = false;
      const storage::Status s = SweepBeforePiece(&receipt->second, *piece, &rows_left, &reached);
      if (!s.ok()) {
        spdlog::warn("Peer {}: snapshot pieces not applied: {}", origin_id, s.ToString());
        return failed();
      }
      if (!reached) break;  // the rest in the next call, after a turn of the loop
    }
    const ApplyOutcome outcome = ApplyOne(origin_id, *piece, arrival);
    if (outcome == ApplyOutcome::kEngineError) return failed();
    if (outcome == ApplyOutcome::kMalformed) malformed_deltas_++;
  }
  *applied_pieces = done;
  if (done < pieces.size()) end.reset();
  auto receipt = receipts_.find(origin_id);
  if (end && receipt != receipts_.end()) {
    storage::Status s = SweepRemaining(&receipt->second);
    // What the sender had observed, this node has now: a version at or below it that the
    // snapshot did not leave here was removed where it was observed.
    if (s.ok()) s = RaiseKnown(receipt->second.sender_ids);
    // This node's place in the sender's stream is now the snapshot's end: the sender's collect
    // made before it judges what follows.
    types::OriginId sender;
    if (s.ok() && receipt->second.sender_collect && OriginOfNodeId(origin_id, &sender)) {
      s = JoinCollectRow(sender, *receipt->second.sender_collect);
    }
    if (!s.ok()) {
      spdlog::warn("Peer {}: snapshot end not applied: {}", origin_id, s.ToString());
      return failed();
    }
  }
  const bool advance = end.has_value() && *end > applied;
  // A snapshot names no delta: its offset carries no digest.
  const storage::Status s =
      CommitApplied(origin_id, advance ? std::optional<AppliedPosition>(AppliedPosition{*end, ""})
                                       : std::nullopt);
  if (s.ok() && end && receipt != receipts_.end()) {
    NoteKnown(receipt->second.sender_ids);
    receipts_.erase(receipt);
  }
  if (s.ok() && end) {
    std::lock_guard lock(applied_mu_);
    snapshot_wanted_.erase(origin_id);
  }
  if (!s.ok()) {
    spdlog::warn("Peer {}: snapshot pieces not applied: {}", origin_id, s.ToString());
    return false;
  }
  if (advance) spdlog::info("Peer {}: snapshot at origin offset {} applied", origin_id, *end);
  return true;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyOne(const std::string& origin_id, PeerDelta& delta,
                                                  Arrival arrival) {
  if (delta.db < 0 || delta.db >= context_->config().databases || delta.args.size() < 2) {
    return Malformed(origin_id, delta);
  }
  std::vector<std::string>& args = delta.args;  // consumed where it stands: no copy
  AsciiLowerInPlace(&args[0]);
  if (const std::string_view op = args[0]; op == "tlog" || op == "treg") {
    AsciiLowerInPlace(&args[1]);
  }
  std::optional<StringDelta> string_delta;  // parsed once
  if (IsStringDelta(args[0])) {
    // A string delta with a context goes by the observed-remove rule (or_string_ops.cc); one
    // without, or one reaching a key that holds a counter (counters.h), by last-writer-wins.
    StringDelta parsed;
    std::optional<types::OrContext> context;
    if (!ParseStringDelta(args, &parsed) || !DecodeDeltaContext(parsed, origin_id, &context)) {
      return Malformed(origin_id, delta);
    }
    if (context && !IsCounterWrite(delta.db, args)) {
      return ApplyOrString(origin_id, delta, std::move(*context), std::move(parsed), &args,
                           arrival);
    }
    if (context) {
      StripDeltaContext(origin_id, &args);  // judged whole above
      parsed.context.reset();
    }
    string_delta = std::move(parsed);  // views args' elements, which stay where they are
  }
  if (args[0] == kCollectDelta || args[0] == kCollectPiece) {
    return ApplyCollect(origin_id, delta, args);
  }
  if (args[0] == kDelOr) return ApplyDelOr(origin_id, delta, args);
  if (args[0] == kOrStringPiece) return ApplyOrStringPiece(origin_id, delta, args, arrival);
  if (args[0].ends_with("-at")) {
    const ApplyOutcome outcome = ApplyWholeKey(origin_id, delta, args, arrival);
    // An expiry change (a snapshot's marker carries one) may expire values this node logged.
    if (outcome == ApplyOutcome::kApplied && args.size() > 2 &&
        (args[0] == kExpiryAt || args[0] == kMarkerAt)) {
      NoteRegisterChange(delta.db, args[2]);
    }
    return outcome;
  }
  if (args[0] == kSeriesDelta) return ApplySeries(origin_id, delta, args, arrival);
  if (args[0] == kSeriesRangeDelta) return ApplySeriesRange(origin_id, delta, args, arrival);
  if (args[0] == kSeriesRuleDelta) return ApplySeriesRule(origin_id, delta, args);
  // A counter's delta, or a string version reaching a key that holds a counter (counters.h).
  if (args[0] == kCounterDelta || IsCounterWrite(delta.db, args)) {
    return ApplyCounter(origin_id, delta, std::move(args), arrival);
  }
  std::optional<PeerWrite> write = ResolvePeerWrite(&args);
  if (!write) {
    spdlog::warn("Peer {}: delta {} is not a known operation ({}): skipped", origin_id,
                 delta.offset, args[0]);
    return ApplyOutcome::kMalformed;
  }
  write->string_delta = std::move(string_delta);
  const ApplyOutcome outcome = ApplyPeerWrite(origin_id, delta, &*write, arrival);
  args = std::move(write->args);  // lent for the write: back to the message the link reuses
  return outcome;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyCollect(const std::string& origin_id,
                                                      const PeerDelta& delta,
                                                      const std::vector<std::string>& args) {
  types::OriginId sender;
  std::optional<CollectOf> parsed;
  if (OriginOfNodeId(origin_id, &sender)) parsed = ParseCollect(args, sender);
  if (!parsed) {
    return Malformed(origin_id, delta);
  }
  // A snapshot's copy of another origin's collect is passed over: the row for origin P holds P's
  // last collect before this node's place in P's stream, which only P's stream and P's own
  // snapshots move (a snapshot from another node may carry one made after deltas of P this node
  // has still to apply: collect.h).
  if (parsed->origin != sender) return ApplyOutcome::kApplied;
  if (args[0] == kCollectPiece) {
    if (auto receipt = receipts_.find(origin_id); receipt != receipts_.end()) {
      receipt->second.sender_collect = std::move(parsed->collect);  // joined at the snapshot's end
      return ApplyOutcome::kApplied;
    }
  }
  if (storage::Status s = JoinCollectRow(parsed->origin, parsed->collect); !s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  return ApplyOutcome::kApplied;
}

storage::Status ActiveActive::JoinCollectRow(const types::OriginId& origin,
                                             const types::OrContext& collect) {
  // Joined with the row held, read through the open batch (a collect before it in the batch):
  // a row never goes down.
  types::Keyspace& ks = context_->keyspace();
  types::OrContext held;
  storage::Status s = ReadCollectRow(origin, &held);
  if (s.ok() && held.Join(collect)) {
    s = ks.db().Put(ks.WriteOptions(), types::Keyspace::SystemRowKey(CollectRowName(origin)),
                    EncodeCollectRow(held, origin));
  }
  if (s.ok() && origin == own_origin_) own_collect_.Join(held);
  if (s.ok() && stream_collect_ && stream_collect_->origin == origin) {
    stream_collect_->collect = std::move(held);
  }
  return s;
}

storage::Status ActiveActive::ReadCollectRow(const types::OriginId& origin,
                                             types::OrContext* collect) {
  *collect = types::OrContext();
  types::Keyspace& ks = context_->keyspace();
  const std::string name = CollectRowName(origin);
  storage::Row row;
  storage::Status s = ks.db().Get(ks.ReadOptions(), types::Keyspace::SystemRowKey(name), &row);
  if (s.IsNotFound()) return storage::Status::OK();
  if (s.ok() && !DecodeCollectRow(row.value, origin, collect)) {
    return storage::Status::Corruption("active-active row " + name);
  }
  return s;
}

storage::Status ActiveActive::KnownCollects(types::OrContext* known) {
  *known = types::OrContext();
  return context_->keyspace().ForEachSystemRow(
      kCollectRowPrefix, [&](std::string_view name, std::string_view value) {
        types::OriginId origin;
        types::OrContext collect;
        if (!ParseCollectRowName(name, &origin) || !DecodeCollectRow(value, origin, &collect)) {
          return storage::Status::Corruption("active-active row " + std::string(name));
        }
        known->Join(collect);
        return storage::Status::OK();
      });
}

ActiveActive::ApplyOutcome ActiveActive::NotApplied(const std::string& origin_id,
                                                    const PeerDelta& delta,
                                                    const storage::Status& s) {
  spdlog::warn("Peer {}: delta {} not applied: {}", origin_id, delta.offset, s.ToString());
  return ApplyOutcome::kEngineError;
}

ActiveActive::ApplyOutcome ActiveActive::Malformed(const std::string& origin_id,
                                                   const PeerDelta& delta) {
  spdlog::warn("Peer {}: delta {} is malformed: skipped", origin_id, delta.offset);
  return ApplyOutcome::kMalformed;
}

storage::Status ActiveActive::JudgingView(const std::string& origin_id, Arrival arrival,
                                          DeltaView* view) {
  view->collects = nullptr;
  if (!whole_key_->any()) return storage::Status::OK();  // no delete to judge by
  if (arrival == Arrival::kSnapshot) {
    auto receipt = receipts_.find(origin_id);
    if (receipt != receipts_.end() && receipt->second.sender_collects) {
      view->collects = &*receipt->second.sender_collects;
    }
    return storage::Status::OK();
  }
  types::OriginId origin;
  if (!OriginOfNodeId(origin_id, &origin)) return storage::Status::OK();
  if (stream_collect_) {  // within ApplyDeltas's batch the row is read once
    if (!stream_collect_->origin) {
      storage::Status s = ReadCollectRow(origin, &stream_collect_->collect);
      if (!s.ok()) return s;
      stream_collect_->origin = origin;
    }
    if (stream_collect_->origin == origin) {
      view->collects = &stream_collect_->collect;
      return storage::Status::OK();
    }
  }
  storage::Status s = ReadCollectRow(origin, &view->held);
  if (s.ok()) view->collects = &view->held;
  return s;
}

bool ActiveActive::StreamMayPass(const std::string& origin_id, const PeerDelta& delta) const {
  if (delta.args.size() != 2 || !EqualsIgnoreCase(delta.args[0], kCollectDelta)) return true;
  types::OriginId sender;
  if (!OriginOfNodeId(origin_id, &sender)) return true;
  const std::array<std::string, 2> args = {std::string(kCollectDelta), delta.args[1]};
  const std::optional<CollectOf> parsed = ParseCollect(args, sender);
  if (!parsed) return true;  // malformed: ApplyOne skips and counts it
  types::OrContext observed = OrContextOf(ObservedVector());
  // The sender's deltas before this one are applied, in this batch or before it.
  if (delta.offset > 1) observed.Raise(sender, delta.offset - 1);
  return ObservedCovers(observed, parsed->collect);
}

std::optional<ActiveActive::PeerWrite> ActiveActive::ResolvePeerWrite(
    std::vector<std::string>* args) const {
  PeerWrite write;
  // A put, a delete or an expired string version without its bytes (`put-expired`), parsed whole
  // by ApplyOne, is written by the string type: no command. Its args[1] is a key, whatever its
  // name.
  write.string_write = IsStringDelta((*args)[0]);
  write.reduced_put = (*args)[0] == kPutExpired;
  if (!write.string_write && args->size() > 1 &&
      ((*args)[1] == kInsExpired || (*args)[1] == kSetExpired)) {
    // An expired TLOG entry or TREG pair without its bytes: judged as its whole form, the value
    // never written (WritePeerDelta).
    ReducedEntry reduced;
    if (!ParseReducedEntry(*args, &reduced)) return std::nullopt;
    write.reduced_entry = true;
    write.args = JudgedFormOf(reduced);
    return write;
  }
  if (!write.string_write) {
    const ArgViews views = Views(*args);
    write.row = context_->commands().Resolve(AsSpan(views));
    const bool shaped = ((*args)[0] == "tlog" || (*args)[0] == "treg") && args->size() >= 3;
    if (write.row.spec == nullptr || write.row.spec->handler == nullptr || !shaped) {
      return std::nullopt;
    }
  }
  write.args = std::move(*args);
  return write;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyPeerWrite(const std::string& origin_id,
                                                        const PeerDelta& delta, PeerWrite* write,
                                                        Arrival arrival) {
  if (IsTrimAtZero(write->args)) return ApplyOutcome::kApplied;
  types::Keyspace& ks = context_->keyspace();
  WholeKeyMarkers::Admission admission;
  // A write is judged by the deletes its view does not cover.
  DeltaView view;
  storage::Status s = JudgingView(origin_id, arrival, &view);
  if (s.ok()) s = whole_key_->Judge(delta.db, &write->args, &admission, view.collects);
  // An expiry register's rewrite moved the words the parsed delta viewed: parsed again.
  if (s.IsInvalidArgument() || (s.ok() && write->string_delta && admission.expiry_rewritten &&
                                !ParseStringDelta(write->args, &*write->string_delta))) {
    return Malformed(origin_id, delta);
  }
  // Judge may have rewritten a PUT's expiry.
  const std::string& key = write->string_write ? write->args[1] : write->args[2];
  if (s.ok() && admission.covered) {
    s = whole_key_->RaiseFloor(delta.db, key, admission.precedence);
    if (s.ok()) return ApplyOutcome::kApplied;
  }
  if (s.ok() && (admission.below_floor || admission.loses)) return ApplyOutcome::kApplied;
  // Before the gate: raising the floor wipes a live string or register the log replaces, even
  // when the entry itself is already outside its window and writes nothing.
  if (s.ok() && admission.raise_floor) {
    s = whole_key_->RaiseFloor(delta.db, key, admission.precedence);
  }
  MergeVerdict verdict = MergeVerdict::kWrite;
  if (s.ok()) {
    s = write->string_delta
            ? JudgeStringVersion(ks, delta.db, key, &write->string_delta->version, &verdict)
            : JudgeDelta(ks, delta.db, write->args, &verdict);
  }
  if (s.ok() && verdict == MergeVerdict::kReplaceFirst) {
    auto deleted = ks.Delete(delta.db, key);
    s = deleted.ok() ? counters_->Forget(delta.db, key) : deleted.engine_status();
  }
  if (s.ok() && admission.tlog_min_cutoff && verdict != MergeVerdict::kOtherTypeWins) {
    s = whole_key_->EnsureTlogCutoff(delta.db, key, *admission.tlog_min_cutoff);
  }
  if (!s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  if (verdict != MergeVerdict::kWrite && verdict != MergeVerdict::kReplaceFirst) {
    return ApplyOutcome::kApplied;
  }
  return WritePeerDelta(origin_id, delta, *write, key, admission);
}

ActiveActive::ApplyOutcome ActiveActive::WritePeerDelta(
    const std::string& origin_id, const PeerDelta& delta, const PeerWrite& write,
    const std::string& key, const WholeKeyMarkers::Admission& admission) {
  if (write.reduced_put) {
    // As parsed again when Judge gave it the key's expiry register (ApplyPeerWrite).
    auto written = WriteVersion(delta.db, *write.string_delta);
    if (!written.ok()) {
      return NotApplied(origin_id, delta, written.engine_status());
    }
    return ApplyOutcome::kApplied;
  }
  if (write.reduced_entry) {
    // What a node that applied the whole entry or pair holds once it expired and compaction
    // reduced it: no value, the key's type floor at the type (raising it wipes a lower type's
    // live content, as the whole write replaced it).
    storage::Status s = whole_key_->RaiseFloor(delta.db, key, admission.precedence);
    if (s.ok() && admission.settle_expiry) s = whole_key_->SettleExpiry(delta.db, key);
    if (!s.ok()) {
      return NotApplied(origin_id, delta, s);
    }
    return ApplyOutcome::kApplied;
  }
  if (write.string_delta) return WriteStringVersion(origin_id, delta, *write.string_delta);
  applier_->set_db_index(delta.db);
  std::string out;
  protocol::ReplyWriter reply(&out, 2);
  const ArgViews views = Views(write.args);
  dispatcher_.Run(*write.row.spec, write.row.first_arg, AsSpan(views), *applier_, reply,
                  Dispatcher::Caller::kPeer);
  if (!out.empty() && out[0] == '-') {
    spdlog::warn("Peer {}: delta {} ({} {}) answered {}", origin_id, delta.offset, write.args[0],
                 write.args[1], out.substr(0, out.find('\r')));
    // A type the gate did not foresee loses, as under kOtherTypeWins; any other error (the
    // engine's) leaves the delta to be applied again.
    if (!out.starts_with("-WRONGTYPE")) return ApplyOutcome::kEngineError;
  }
  if (admission.settle_expiry) {
    const storage::Status s = whole_key_->SettleExpiry(delta.db, key);
    if (!s.ok()) {
      return NotApplied(origin_id, delta, s);
    }
  }
  return ApplyOutcome::kApplied;
}

ActiveActive::ApplyOutcome ActiveActive::WriteStringVersion(const std::string& origin_id,
                                                            const PeerDelta& delta,
                                                            const StringDelta& version) {
  const types::OpResult<void> written = WriteVersion(delta.db, version);
  if (!written.ok()) {
    return NotApplied(origin_id, delta, written.engine_status());
  }
  NoteKeyChange(*context_, delta.db, version.key);
  if (ArrivesDead(version, context_->clock())) {
    ++context_->stats().dead_on_arrival_own_expiry;
  }
  return ApplyOutcome::kApplied;
}

types::OpResult<void> ActiveActive::WriteVersion(int db, const StringDelta& version) {
  types::Kv kv(context_->keyspace(), db);
  const types::StringVersion& v = version.version;
  if (version.kind == StringDelta::Kind::kDelete) return kv.Delete(version.key, v.ts);
  if (version.kind == StringDelta::Kind::kPutExpired) {
    return kv.PutReduced(version.key, v.ts, *v.digest, v.expire_at);  // expire_at: INT64_MAX NOTTL
  }
  return kv.Put({.key = version.key,
                 .value = v.value,
                 .ts = v.ts,
                 .expire_at_ms = version.nottl ? std::nullopt : std::optional(v.expire_at)});
}

}  // namespace ebb::server
