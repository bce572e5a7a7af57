// ActiveActive's whole-key operations: DEL, UNLINK, FLUSHDB, FLUSHALL, the EXPIRE family and
// PERSIST settled on the origin (from their rows' write forms) and applied from peers (the rules
// and the marker rows: WholeKeyMarkers, whole_key.h).
//
// Deltas: `del-at <T> key [key ...]`, `flushdb-at <T>` (the delta's database),
// `flushall-at <T>`, `expiry-at <T> key <expire_at ms>|persist [<cutoff> | del <D>]` (the cutoff:
// a TLOG TRIMAT applied first, which cuts the entries the key's earlier register hid on the
// origin; `del <D>`: a delete of the key at D applied first, which cuts the samples of a series
// the earlier register, at D, hid there). On
// the origin T is the greatest timestamp the named keys (the database, every database; the key's
// version) hold — never the clock, whose readings mean nothing to timestamps the user chose — so
// the operation covers everything its origin sees and no write with a greater timestamp. A delete
// that finds nothing to cover logs nothing. Each delete is kept in the marker (the horizon) with
// its delta's dot (marker_entries.h). Snapshots (peer_snapshot.h) carry a key marker whole as
// `marker-at <deleted_up_to> key <floor> [<register ts> <expire_at ms>|persist <register origin>]
// [deletes ...]` and a horizon as `flushdb-at <T> [deletes ...]` (marker_piece.h).
#include <spdlog/spdlog.h>

#include <set>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/marker_piece.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/peer_delta.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series.h"
#include "types/series_purge.h"
#include "types/tlog.h"

namespace ebb::server {
namespace {

// When the series `key` holds live has samples its expiry register hides now: that register's T
// (a delete at it cuts them).
storage::Status HiddenSeriesCut(types::Keyspace& ks, int db, std::string_view key,
                                std::optional<int64_t>* cut) {
  cut->reset();
  auto meta = types::Series(ks, db).Meta(key);
  if (!meta.ok()) {
    return meta.status() == types::OpStatus::kEngineError ? meta.engine_status()
                                                          : storage::Status::OK();
  }
  if (types::SeriesRegisterFloor(*meta, ks.db().ExpiryNowMs()) > 0) {
    *cut = meta->expiry_register->ts;
  }
  return storage::Status::OK();
}

// Raises *ts to the greatest timestamp any key of `db` holds, live or expired by this node's
// clock.
storage::Status RaiseToNewestInDb(types::Keyspace& ks, WholeKeyMarkers& whole_key, int db,
                                  int64_t* ts) {
  auto keys = ks.KeysWithDead(db);
  if (!keys.ok()) return keys.engine_status();
  for (const std::string& key : *keys) {
    bool existed = false;
    storage::Status s = whole_key.RaiseToNewest(db, key, ts, &existed);
    if (!s.ok()) return s;
  }
  return storage::Status::OK();
}

// A delete whose keys (database) held nothing, not even a dead version: nothing here for it to
// cover, so nothing is logged, and writes made elsewhere meanwhile stay (they are concurrent).
bool AnswerEmptyDelete(std::string_view op, protocol::ReplyWriter& reply) {
  if (op == kDelAt) {
    reply.Integer(0);
  } else {
    reply.Ok();
  }
  return false;
}

// Unless `s` failed: `key` added to *existed when it is live (DEL's reply counts it).
storage::Status NoteExisted(types::Keyspace& ks, int db, std::string_view key, storage::Status s,
                            std::vector<std::string_view>* existed) {
  if (!s.ok()) return s;
  auto exists = ks.Exists(db, key);
  if (!exists.ok()) return exists.engine_status();
  if (*exists) existed->push_back(key);
  return s;
}

}  // namespace

void ActiveActive::PlanWholeKeyDelete(std::vector<std::string> form, LocalWrite* plan) {
  types::Keyspace& ks = context_->keyspace();
  int64_t ts = KeyMarker::kNothingDeleted;
  storage::Status s;
  if (form[0] == kDelAt) {
    // Each string key by the observed-remove rule, with the context of its slots here; the other
    // keys under T. Keys that hold nothing here, not even a dead version, have nothing to cover:
    // they leave the delta, so its T (the greatest over the keys that stay) covers nothing on
    // them.
    DelOr del;
    for (size_t i = 2; i < form.size() && s.ok(); i++) {
      std::optional<types::OrContext> context;
      if (ObservedRemoveRule()) s = OrDeleteContext(plan->db, form[i], &context);
      if (s.ok() && context) {
        // A key whose slots are all removed holds nothing to remove: it leaves the delta.
        if (!context->empty()) del.string_keys.push_back({std::move(form[i]), std::move(*context)});
        continue;
      }
      bool existed = false;
      if (s.ok()) s = whole_key_->RaiseToNewest(plan->db, form[i], &ts, &existed);
      if (existed) del.keys.push_back(std::move(form[i]));
    }
    del.ts = ts;
    if (!del.string_keys.empty()) {
      form = DelOrArgs(del, node_id_);
    } else {
      form.resize(2);
      form.insert(form.end(), del.keys.begin(), del.keys.end());
    }
  } else {
    const bool flushdb = form[0] == kFlushDbAt;
    const int first = flushdb ? plan->db : 0;
    const int last = flushdb ? plan->db : context_->config().databases - 1;
    for (int db = first; db <= last && s.ok(); db++) {
      s = RaiseToNewestInDb(ks, *whole_key_, db, &ts);
    }
  }
  if (!s.ok()) {
    plan->kind = LocalWrite::Kind::kRefuse;
    plan->error = EngineError(s.ToString());
    return;
  }
  if (form[0] != kDelOr) form[1] = std::to_string(ts);
  plan->kind = LocalWrite::Kind::kRunHere;
  plan->args = std::move(form);
  plan->views.assign(plan->args.begin(), plan->args.end());
}

storage::Status ActiveActive::OrDeleteContext(int db, const std::string& key,
                                              std::optional<types::OrContext>* context) {
  context->reset();
  // A counter keeps its own rule (counters.h): a DEL deletes it under T.
  if (counters_->any()) {
    std::optional<types::CounterState> counter;
    storage::Status s = counters_->Read(db, key, &counter);
    if (!s.ok() || counter) return s;
  }
  types::OrStringRows rows;
  storage::Status s = types::LoadOrString(context_->keyspace(), db, key, &rows);
  if (s.ok() && !rows.other_type && (rows.extended || !rows.state.slots.empty())) {
    *context = types::OrLocalDeleteContext(rows.state);
  }
  return s;
}

storage::Status ActiveActive::DeleteByDelOr(int db, const DelOr& del, const types::Dot& dot) {
  // The keys of other types: as del-at's, under T.
  storage::Status s;
  if (!del.keys.empty()) s = whole_key_->DeleteKeys(db, {dot, del.ts}, del.keys);
  for (size_t i = 0; i < del.keys.size() && s.ok(); i++) {
    NoteKeyChange(*context_, db, del.keys[i]);
  }
  // Each string key: the slots its origin had observed go; its deleted_up_to stays.
  for (size_t i = 0; i < del.string_keys.size() && s.ok(); i++) {
    const DelOr::StringKey& named = del.string_keys[i];
    s = ApplyOrToKey(db, named.key, [&](types::OrStringRows* rows) {
      return types::ApplyOrDelete(rows, named.context);
    });
  }
  return s;
}

void ActiveActive::AdmitLocal(LocalWrite* plan) {
  if (plan->kind != LocalWrite::Kind::kRun) return;
  // Without markers only a log's retention window asks anything of them (raise_floor_to).
  if (!whole_key_->any() && plan->args[0] != "tlog") return;
  WholeKeyMarkers::Admission admission;
  // A write is judged by the deletes this node's last collect does not cover, as
  // every peer judges it (docs/active-active.md, "Status", marker collection's step 3).
  storage::Status s = whole_key_->Judge(plan->db, &plan->args, &admission, &own_collect_);
  plan->views.assign(plan->args.begin(), plan->args.end());  // a PUT's expiry may be rewritten
  if (s.IsInvalidArgument()) return;  // a timestamp the command's handler refuses with its error
  // The rewritten PXAT is the version's expiry: parsed again (a form the plan made always parses).
  if (s.ok() && admission.expiry_rewritten && plan->string_delta) {
    ParseStringDelta(plan->args, &*plan->string_delta);
  }
  if (!s.ok()) {
    plan->kind = LocalWrite::Kind::kRefuse;
    plan->error = EngineError(s.ToString());
  } else if (admission.covered || admission.loses) {
    plan->kind = LocalWrite::Kind::kReplyOk;  // the delete wins: nothing to write or log
  } else if (admission.below_floor) {
    plan->kind = LocalWrite::Kind::kRefuse;
    plan->error = std::string(kWrongType);
  } else if (admission.tlog_min_cutoff || admission.settle_expiry || admission.raise_floor) {
    plan->kind = LocalWrite::Kind::kRunHere;
    plan->tlog_min_cutoff = admission.tlog_min_cutoff;
    plan->settle_expiry = admission.settle_expiry;
    if (admission.raise_floor) plan->raise_floor_to = admission.precedence;
  }
}

bool ActiveActive::RunHere(LocalWrite* planned, Client& client, protocol::ReplyWriter& reply) {
  const LocalWrite& plan = *planned;
  types::Keyspace& ks = context_->keyspace();
  const std::string& op = plan.args[0];
  if (plan.counter) return RunCounter(planned, reply);
  if (plan.series) return RunSeries(planned, reply);
  if (plan.or_string) return RunOrString(planned, reply);
  if (plan.string_version) return RunStringVersion(planned, reply);
  if (op == kExpiryAt) return RunExpiry(planned, reply);
  storage::Status s;
  if (op == kDelAt || op == kDelOr || op == kFlushDbAt || op == kFlushAllAt) {
    int64_t ts = 0;
    ParseInt64(plan.args[1], &ts);  // written by PlanWholeKeyDelete
    if (op != kDelOr && ts == KeyMarker::kNothingDeleted) return AnswerEmptyDelete(op, reply);
    std::vector<std::string_view> existed;  // DEL's reply and its `del` events
    DelOr del;
    if (op == kDelOr) {
      ParseDelOr(plan.args, node_id_, &del);  // written by PlanWholeKeyDelete
    } else if (op == kDelAt) {
      del.ts = ts;
      del.keys.assign(plan.args.begin() + 2, plan.args.end());
    }
    if (op == kDelAt || op == kDelOr) {
      for (const std::string& key : del.keys) s = NoteExisted(ks, plan.db, key, s, &existed);
      for (const DelOr::StringKey& named : del.string_keys) {
        s = NoteExisted(ks, plan.db, named.key, s, &existed);
      }
      if (s.ok()) s = DeleteByDelOr(plan.db, del, NextOwnDot());
    } else {
      const bool all = op == kFlushAllAt;
      SignalFlush(*context_, all ? -1 : plan.db);  // as FLUSHDB / FLUSHALL: no event, as in Redis
      for (int db = all ? 0 : plan.db; db <= (all ? context_->config().databases - 1 : plan.db);
           db++) {
        if (s.ok()) s = whole_key_->FlushDb(db, {NextOwnDot(), ts});
      }
    }
    if (!s.ok()) {
      reply.Error(EngineError(s.ToString()));
    } else if (op == kDelAt || op == kDelOr) {
      for (std::string_view key : existed) {
        SignalKeyChange(*context_, plan.db, key, kNotifyGeneric, "del");
      }
      reply.Integer(static_cast<int64_t>(existed.size()));
    } else {
      reply.Ok();
    }
    return true;
  }
  if (plan.tlog_min_cutoff) {
    s = whole_key_->EnsureTlogCutoff(plan.db, plan.args[2], *plan.tlog_min_cutoff);
    if (!s.ok()) {
      reply.Error(EngineError(s.ToString()));
      return false;
    }
  }
  const ResolvedCommand row = context_->commands().Resolve(plan.views);
  const size_t start = reply.size();
  dispatcher_.Run(*row.spec, row.first_arg, plan.views, client, reply,
                  Dispatcher::Caller::kPlanned);
  if (reply.Since(start).starts_with('-')) return true;
  // On the origin after the write (a peer raises it first): a write on a key of another type
  // answers -WRONGTYPE here, as on one node, and leaves the floor as it was.
  if (plan.raise_floor_to) s = whole_key_->RaiseFloor(plan.db, plan.args[2], *plan.raise_floor_to);
  if (s.ok() && plan.settle_expiry) s = whole_key_->SettleExpiry(plan.db, plan.args[2]);
  if (!s.ok()) {
    reply.Truncate(start);
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  return true;
}

types::Dot ActiveActive::DotOfDelta(std::string_view origin_id, const PeerDelta& delta) {
  types::Dot dot{.origin = {}, .offset = delta.offset};
  if (!OriginOfNodeId(origin_id, &dot.origin)) dot.origin = types::kPreModeOrigin;
  return dot;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyWholeKey(const std::string& origin_id,
                                                       const PeerDelta& delta,
                                                       const std::vector<std::string>& args,
                                                       Arrival arrival) {
  WholeKeyPiece piece;
  if (!ParseWholeKeyPiece(args, &piece)) {
    spdlog::warn("Peer {}: delta {} is not a known operation ({}): skipped", origin_id,
                 delta.offset, args[0]);
    return ApplyOutcome::kMalformed;
  }
  const int64_t ts = piece.ts;
  const types::Dot dot = DotOfDelta(origin_id, delta);
  storage::Status s;
  if (args[0] == kMarkerAt) {
    // The sender's marker, merged as the operations that made it: its deletes, each at its own
    // dot (from a sender whose markers kept no dots, its T at the pre-mode dot), its floor, its
    // register (with the register's own origin, which orders it).
    if (piece.deletes.empty() && ts != KeyMarker::kNothingDeleted) {
      piece.deletes.Add({PreModeMarkerDot(), ts});
    }
    const std::string& key = args[2];
    for (const MarkerEntry& del : piece.deletes.entries()) {
      if (s.ok()) s = whole_key_->DeleteKeys(delta.db, del, std::span<const std::string>(&key, 1));
    }
    if (s.ok() && piece.floor > 0) {
      s = whole_key_->RaiseFloor(delta.db, key, static_cast<int>(piece.floor));
    }
    if (s.ok() && piece.has_register) {
      ExpiryRegister reg{
          .ts = piece.register_ts, .origin = args[6], .offset = piece.register_offset};
      if (args[5] != kPersist) reg.expire_at = piece.expire_at;
      s = whole_key_->SetExpiry(delta.db, key, reg);
    }
    if (s.ok()) NoteKeyChange(*context_, delta.db, key);
  } else if (args[0] == kDelAt) {
    s = whole_key_->DeleteKeys(delta.db, {dot, ts}, std::span<const std::string>(args).subspan(2));
    for (size_t i = 2; i < args.size() && s.ok(); i++) NoteKeyChange(*context_, delta.db, args[i]);
  } else if (args[0] == kExpiryAt) {
    if (args.size() == 5) {
      // The TRIMAT of a log's hidden entries made with it: applied as that delta is.
      PeerDelta trimat = delta;
      trimat.args = {"tlog", "trimat", args[2], args[4]};
      const ApplyOutcome outcome = ApplyOne(origin_id, trimat, arrival);
      if (outcome != ApplyOutcome::kApplied) return outcome;
    } else if (args.size() == 6) {
      s = whole_key_->DeleteKeys(delta.db, {dot, piece.cut_at},
                                 std::span<const std::string>(&args[2], 1));
    }
    ExpiryRegister reg{.ts = ts, .origin = origin_id, .offset = delta.offset};
    if (args[3] != kPersist) reg.expire_at = piece.expire_at;
    if (s.ok()) s = whole_key_->SetExpiry(delta.db, args[2], reg);
    if (s.ok()) NoteKeyChange(*context_, delta.db, args[2]);
  } else if (args[0] == kFlushDbAt) {
    SignalFlush(*context_, delta.db);
    if (piece.deletes.empty()) piece.deletes.Add({dot, ts});
    for (const MarkerEntry& del : piece.deletes.entries()) {
      if (s.ok()) s = whole_key_->FlushDb(delta.db, del);
    }
  } else {
    SignalFlush(*context_, -1);
    for (int db = 0; db < context_->config().databases && s.ok(); db++) {
      s = whole_key_->FlushDb(db, {dot, ts});
    }
  }
  if (!s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  return ApplyOutcome::kApplied;
}

storage::Status ActiveActive::JudgeOwnCut(int db, const std::string& key,
                                          std::optional<uint64_t>* cut) {
  std::vector<std::string> trimat = {"tlog", "trimat", key, std::to_string(**cut)};
  WholeKeyMarkers::Admission admission;
  storage::Status s = whole_key_->Judge(db, &trimat, &admission, &own_collect_);
  if (s.ok() && admission.covered) cut->reset();
  return s;
}

bool ActiveActive::RunExpiry(LocalWrite* plan, protocol::ReplyWriter& reply) {
  types::Keyspace& ks = context_->keyspace();
  const std::string key = plan->args[2];  // a copy: a cutoff may be appended to plan->args
  types::KeyMetaRow row;
  storage::Status s = ks.GetMeta(plan->db, key, &row);
  if (s.IsNotFound()) {
    reply.Integer(0);
    return false;
  }
  // The register must cover what the key holds: a string's version, a TREG pair, every entry
  // of a log and its cutoff, every sample of a series and its settings register.
  int64_t version_ts = KeyMarker::kNothingDeleted;
  bool existed = false;
  if (s.ok()) s = whole_key_->RaiseToNewest(plan->db, key, &version_ts, &existed);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  ExpiryRegister reg{
      .ts = std::max(ks.NowMs(), version_ts), .origin = node_id_, .offset = NextOwnDot().offset};
  s = whole_key_->RaiseAboveRegister(plan->db, key, &reg.ts);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  const std::optional<int64_t>& current = row.meta.expire_at_ms;
  const uint32_t flags = plan->expire_flags;
  bool applies = true;
  if (plan->args[3] == kPersist) {
    applies = current.has_value();
  } else {
    int64_t when = 0;
    ParseInt64(plan->args[3], &when);  // written by the row's write form
    reg.expire_at = when;
    // Redis's conditions; a persistent key has an infinite TTL: never "greater", always "less".
    if ((flags & types::kExpireNx) && current) applies = false;
    if ((flags & types::kExpireXx) && !current) applies = false;
    if ((flags & types::kExpireGt) && (!current || when <= *current)) applies = false;
    if ((flags & types::kExpireLt) && current && when >= *current) applies = false;
  }
  if (!applies) {
    reply.Integer(0);
    return false;
  }
  // Entries of a log that the key's earlier register has hidden here stay gone, as the client
  // saw: they are cut (a TRIMAT in the same delta) before the new register could bring them back.
  std::optional<uint64_t> cut;
  if (row.type == types::KeyType::kTlog) {
    types::Tlog log(ks, plan->db);
    auto hidden = log.HiddenCutoff(key);
    if (!hidden.ok()) {
      s = hidden.status() == types::OpStatus::kEngineError
              ? hidden.engine_status()
              : storage::Status::Corruption("TLOG metadata");
    } else if ((cut = *hidden)) {
      s = JudgeOwnCut(plan->db, key, &cut);
    }
    if (s.ok() && cut) {
      auto trimmed = log.TrimAt(key, *cut);
      if (!trimmed.ok()) s = trimmed.engine_status();
    }
  }
  // The same for a series: the samples its register hides here go by a delete at its T.
  std::optional<int64_t> series_cut;
  if (s.ok() && row.type == types::KeyType::kSeries) {
    s = HiddenSeriesCut(ks, plan->db, key, &series_cut);
    if (s.ok() && series_cut) {
      s = whole_key_->DeleteKeys(plan->db, {NextOwnDot(), *series_cut},
                                 std::span<const std::string>(&key, 1));
    }
  }
  if (s.ok()) s = whole_key_->SetExpiry(plan->db, key, reg);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  plan->args[1] = std::to_string(reg.ts);
  if (cut) plan->args.push_back(std::to_string(*cut));
  if (series_cut)
    plan->args.insert(plan->args.end(), {std::string(kExpiryCut), std::to_string(*series_cut)});
  plan->views.assign(plan->args.begin(), plan->args.end());
  // Redis's events: an expiry already passed deletes the key.
  const char* event = !reg.expire_at ? "persist" : *reg.expire_at <= ks.NowMs() ? "del" : "expire";
  SignalKeyChange(*context_, plan->db, key, kNotifyGeneric, event);
  reply.Integer(1);
  return true;
}

}  // namespace ebb::server
