#include "server/active_active/active_active.h"

#include <spdlog/spdlog.h>

#include <array>

#include "common/strings.h"
#include "common/units.h"
#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/active_active/entry_content.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/peer_link.h"
#include "server/active_active/peer_snapshot.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/replication/master.h"
#include "server/replication/replication_id.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/tlog.h"

namespace ebb::server {
namespace {

// The unsent bytes below which a subscriber still gets ticks (so at most this much of its
// pending output is ticks).
constexpr size_t kTickSlack = 64 * 1024;

std::string RefusedError(std::string_view name) { return ActiveActiveRefusedError(name); }

// Requests that may write without the kCmdWrite flag, and WATCH, whose promise (EXEC fails if
// the key changed) no node can keep for writes made on another.
bool RefusedWithoutWriteFlag(std::string_view name) {
  for (std::string_view refused : {"multi", "exec", "watch", "eval", "evalsha", "fcall"}) {
    if (name == refused) return true;
  }
  return false;
}

std::vector<std::string_view> Views(const std::vector<std::string>& args) {
  return std::vector<std::string_view>(args.begin(), args.end());
}

}  // namespace

std::string ActiveActive::AppliedRowName(std::string_view origin) {
  return std::string(kAppliedRowPrefix) + std::string(origin);
}

ActiveActive::ActiveActive(ServerContext* context, boost::asio::io_context& io)
    : context_(context), io_(io), dispatcher_(context) {}

ActiveActive::~ActiveActive() { Stop(); }

storage::Status ActiveActive::Open() {
  applier_ = std::make_unique<Client>(context_->clients().NextId(), "peer", "", -1, WallMs(),
                                      /*local=*/true);
  applier_->set_user(&context_->acl().default_user());
  applier_->set_applies_peer_deltas(true);
  whole_key_ =
      std::make_unique<WholeKeyMarkers>(context_->keyspace(), context_->config().databases);
  std::string mode;
  storage::Status s = context_->keyspace().GetSystemRow(kModeRow, &mode);
  if (s.IsNotFound()) return storage::Status::OK();  // never in the mode: nothing more to read
  if (!s.ok()) {
    // A damaged table must not keep a server that has no peers from starting.
    if (!context_->config().peers.empty()) return s;
    spdlog::warn("The active-active mode row is unreadable ({}): starting outside the mode",
                 s.ToString());
    return storage::Status::OK();
  }
  enabled_ = true;
  KeepNewestDeadVersions();
  s = LoadNodeId();
  if (s.ok()) s = whole_key_->Load();
  if (!s.ok()) return s;
  return LoadLog();
}

storage::Status ActiveActive::LoadNodeId() {
  types::Keyspace& ks = context_->keyspace();
  storage::Status s = ks.GetSystemRow(kNodeIdRow, &node_id_);
  if (s.IsNotFound()) {
    node_id_ = ReplicationIds::NewId();
    s = ks.PutSystemRow(kNodeIdRow, node_id_);
  }
  return s;
}

storage::Status ActiveActive::EnterMode() {
  if (enabled_) return storage::Status::OK();
  types::Keyspace& ks = context_->keyspace();
  storage::Status s = LoadNodeId();
  uint64_t keys = 0;
  if (s.ok()) {
    s = PrepareEntryContent(ks, *whole_key_, context_->config().databases, node_id_, &keys);
  }
  if (!s.ok()) return s;
  // The mode, and for a node with data origin offset 1 standing for that data (no delta row:
  // every peer asks for offset 1 and receives it as a snapshot), in the batch of the
  // preparation.
  const storage::WriteOptions options = ks.WriteOptions();
  s = ks.db().Put(options, types::Keyspace::SystemRowKey(kModeRow), "1");
  if (s.ok() && keys > 0) {
    s = ks.db().Put(options, types::Keyspace::SystemRowKey(kEntryContentRow),
                    std::to_string(kEntryContentOffset));
  }
  if (!s.ok()) {
    ks.DiscardBatch();
    whole_key_->ForgetCachedHorizons();
    return s;
  }
  s = ks.CommitBatch();
  if (s.ok()) s = ks.db().SyncWal();
  if (!s.ok()) return s;
  enabled_ = true;
  KeepNewestDeadVersions();
  if (keys > 0) {
    end_offset_ = kEntryContentOffset;
    spdlog::info(
        "Entered active-active mode holding {} keys: origin offset {} is that content, which "
        "peers receive as a snapshot",
        keys, kEntryContentOffset);
  }
  return storage::Status::OK();
}

void ActiveActive::KeepNewestDeadVersions() {
  // A key's newest dead version hides a peer's write with an older timestamp that may still
  // arrive: compaction keeps it (docs/active-active.md, "Dead versions").
  context_->keyspace().compaction_filter().SetKeepNewestDead(true);
}

bool ActiveActive::Start(std::string* error) {
  const Config& config = context_->config();
  if (config.peers.empty()) return true;
  if (config.cluster_enabled) {
    *error = "active-active peers are not available in cluster mode (peer and cluster-enabled)";
    return false;
  }
  if (!config.replicaof_host.empty()) {
    *error = "a replica cannot have active-active peers (replicaof and peer)";
    return false;
  }
  storage::Status s = EnterMode();
  if (!s.ok()) {
    *error = s.message();
    return false;
  }
  for (const auto& [host, port] : config.peers) StartLink(host, port);
  return true;
}

void ActiveActive::Stop() {
  for (auto& link : links_) link->Stop();
  links_.clear();
  snapshots_.clear();  // each holds an engine snapshot: released before the engine closes
}

void ActiveActive::RefreshSyncSettings() {
  std::vector<std::string> settings;
  for (std::string_view name : kSyncSettingNames) {
    for (auto& [option, value] : context_->config_registry().Get(name)) {
      if (option != name) continue;
      settings.push_back(std::move(option));
      settings.push_back(std::move(value));
    }
  }
  std::lock_guard lock(applied_mu_);
  sync_settings_ = std::move(settings);
}

std::vector<std::string> ActiveActive::SyncSettings() const {
  std::lock_guard lock(applied_mu_);
  return sync_settings_;
}

void ActiveActive::StartLink(const std::string& host, int port) {
  RefreshSyncSettings();
  const Config& config = context_->config();
  links_.push_back(std::make_unique<PeerLink>(this, io_, host, port, node_id_, config.masteruser,
                                              config.masterauth, peer_tls_));
  links_.back()->Start();
}

std::optional<std::string> ActiveActive::AddPeer(const std::string& host, int port) {
  for (const auto& link : links_) {
    if (EqualsIgnoreCase(link->host(), host) && link->port() == port) {
      return PeerLinkedError(host, port);
    }
  }
  if (context_->is_replica()) return std::string(kPeersOfReplica);
  if (ReplicationMaster* master = context_->replication_master();
      master != nullptr && !master->replicas().empty()) {
    return std::string(kPeersOfNodeWithReplicas);
  }
  if (context_->config().cluster_enabled) {
    return std::string(kPeersInCluster);
  }
  storage::Status s = EnterMode();
  if (!s.ok()) return GenericError(s.message());
  StartLink(host, port);
  RecordPeers();
  return std::nullopt;
}

bool ActiveActive::RemovePeer(const std::string& host, int port) {
  for (auto it = links_.begin(); it != links_.end(); ++it) {
    if (EqualsIgnoreCase((*it)->host(), host) && (*it)->port() == port) {
      (*it)->Stop();
      links_.erase(it);
      RecordPeers();
      return true;
    }
  }
  return false;
}

void ActiveActive::RestartLinks() {
  std::vector<std::pair<std::pair<std::string, int>, bool>> peers;
  for (const auto& link : links_) {
    peers.push_back({{link->host(), link->port()}, link->paused()});
    link->Stop();
  }
  links_.clear();
  for (const auto& [peer, paused] : peers) {
    StartLink(peer.first, peer.second);
    if (paused) links_.back()->SetPaused(true);
  }
}

void ActiveActive::RecordPeers() {
  std::vector<std::pair<std::string, int>> peers;
  for (const auto& link : links_) peers.emplace_back(link->host(), link->port());
  context_->config_registry().SetPeers(std::move(peers));
}

bool ActiveActive::SetLinkPaused(const std::string& host, int port, bool paused) {
  for (auto& link : links_) {
    if (EqualsIgnoreCase(link->host(), host) && link->port() == port) {
      link->SetPaused(paused);
      return true;
    }
  }
  return false;
}

std::vector<ActiveActive::PeerInfo> ActiveActive::Peers() const {
  std::vector<PeerInfo> out;
  const int64_t now = WallMs();
  for (const auto& link : links_) {
    const PeerLink::Status st = link->status();
    PeerInfo info;
    info.host = link->host();
    info.port = link->port();
    info.state = st.state;
    info.peer_id = st.peer_id;
    info.applied = st.peer_id.empty() ? 0 : applied_offset(st.peer_id);
    info.remote_end = st.remote_end;
    if (info.remote_end > info.applied) {
      info.lag_deltas = info.remote_end - info.applied;
      if (st.remote_end_bytes > st.applied_bytes) {
        info.lag_bytes = st.remote_end_bytes - st.applied_bytes;
      }
    }
    info.lag_ms = st.behind_since_ms == 0 ? 0 : now - st.behind_since_ms;
    info.clock_skew_ms = st.clock_skew_ms;
    info.last_io_ms = st.last_io_ms;
    out.push_back(std::move(info));
  }
  return out;
}

bool ActiveActive::wants_snapshot(const std::string& origin_id) const {
  if (!resync_) return false;
  std::lock_guard lock(applied_mu_);
  return !applied_.contains(origin_id);
}

ActiveActive::AppliedPosition ActiveActive::applied_position(const std::string& origin_id) const {
  std::lock_guard lock(applied_mu_);
  auto it = applied_.find(origin_id);
  return it == applied_.end() ? AppliedPosition{} : it->second;
}

// ---- the origin side

bool ActiveActive::SkewRefused(int64_t ts, int64_t now_ms, std::string* error) {
  const Config& config = context_->config();
  if (config.max_clock_skew_ms <= 0) return false;
  if (ts <= now_ms || ts - now_ms <= config.max_clock_skew_ms) return false;
  if (config.max_clock_skew_action == "refuse") {
    *error = ClockSkewError(std::to_string(ts), config.max_clock_skew_ms);
    return true;
  }
  skewed_writes_++;
  return false;
}

ActiveActive::LocalWrite ActiveActive::PlanLocalWrite(const CommandSpec& spec,
                                                      std::span<const std::string_view> args,
                                                      const Client& client) {
  LocalWrite plan;
  if (!enabled_) return plan;
  plan.db = client.db_index();
  if (spec.write_form == nullptr) {
    if ((spec.flags & kCmdWrite) || RefusedWithoutWriteFlag(spec.full_name)) {
      plan.kind = LocalWrite::Kind::kRefuse;
      plan.error = RefusedError(spec.full_name);
    }
    return plan;
  }
  types::Keyspace& ks = context_->keyspace();
  const int64_t now = ks.NowMs();
  const size_t first_arg = spec.full_name.find('|') == std::string::npos ? 1 : 2;
  PlanForm(spec.write_form(args, first_arg, {now, ks}), now, &plan);
  return plan;
}

void ActiveActive::PlanForm(WriteForm form, int64_t now_ms, LocalWrite* plan) {
  using Kind = LocalWrite::Kind;
  if (form.kind == WriteForm::Kind::kInvalid) {
    plan->kind = Kind::kValidate;  // the handler replies the request's error
    return;
  }
  if (form.client_ts && SkewRefused(*form.client_ts, now_ms, &plan->error)) {
    plan->kind = Kind::kRefuse;
    return;
  }
  if (form.kind == WriteForm::Kind::kRefused) {
    plan->kind = Kind::kRefuse;
    plan->error = std::move(form.error);
    return;
  }
  const std::string& op = form.args[0];
  if (op == kDelAt || op == kFlushDbAt || op == kFlushAllAt) {
    return PlanWholeKeyDelete(std::move(form.args), plan);
  }
  if (op == kExpiryAt) {  // RunExpiry judges it against the key and takes its T
    plan->kind = Kind::kRunHere;
    plan->expire_flags = form.expire_flags;
  } else if (op == "tlog" && (form.args[1] == "trim" || form.args[1] == "clr")) {
    plan->kind = Kind::kRun;  // logged as the TRIMAT of the cutoff it leaves
    plan->trim_after = true;
  } else if (JudgeLocal(form.args, plan)) {
    plan->kind = Kind::kRun;
  }
  if (plan->kind != Kind::kRun && plan->kind != Kind::kRunHere) return;
  plan->args = std::move(form.args);
  plan->views = Views(plan->args);
  if (!plan->trim_after) AdmitLocal(plan);
}

bool ActiveActive::JudgeLocal(const std::vector<std::string>& delta, LocalWrite* plan) {
  if (delta[0] == "tlog") return true;  // a log's entries merge by the log's own rule
  MergeVerdict verdict = MergeVerdict::kWrite;
  if (storage::Status s = JudgeDelta(context_->keyspace(), plan->db, delta, &verdict); !s.ok()) {
    plan->kind = LocalWrite::Kind::kRefuse;
    plan->error = EngineError(s.ToString());
    return false;
  }
  if (verdict == MergeVerdict::kOtherTypeWins) {
    plan->kind = LocalWrite::Kind::kRefuse;
    plan->error = std::string(kWrongType);
    return false;
  }
  if (verdict == MergeVerdict::kLoses) {  // a string version not greater than the one held
    plan->kind = LocalWrite::Kind::kReplyOk;
    return false;
  }
  return true;
}

storage::Status ActiveActive::FinishLocalWrite(LocalWrite&& plan, bool succeeded) {
  types::Keyspace& ks = context_->keyspace();
  if (!succeeded) {
    ks.DiscardBatch();
    whole_key_->ForgetCachedHorizons();
    return storage::Status::OK();
  }
  PeerDelta delta;
  delta.offset = end_offset_ + 1;
  delta.origin_ms = ks.NowMs();
  delta.db = plan.db;
  delta.args = std::move(plan.args);
  if (plan.trim_after) {
    // TRIM and CLR are the TRIMAT of the cutoff they left: the same on every node.
    const std::string key = delta.args[2];
    auto cutoff = types::Tlog(ks, plan.db).Cutoff(key);
    if (!cutoff.ok()) {
      ks.DiscardBatch();
      whole_key_->ForgetCachedHorizons();
      return cutoff.status() == types::OpStatus::kEngineError
                 ? cutoff.engine_status()
                 : storage::Status::InvalidArgument("TLOG cutoff unreadable");
    }
    if (cutoff.value() == 0) return ks.CommitBatch();  // nothing changed
    delta.args = {"tlog", "trimat", key, std::to_string(cutoff.value())};
  }
  const storage::WriteOptions options = ks.WriteOptions();
  storage::Status s = ks.db().Put(options, types::Keyspace::SystemRowKey(LogRowName(delta.offset)),
                                  EncodePeerDelta(delta));
  // The rows leaving the log (several once peer-backlog-size shrank) leave the engine in the same
  // batch, oldest first, so the rows on disk stay one gap-free run.
  const uint64_t capacity = LogCapacity();
  const size_t leaving = log_.size() >= capacity ? log_.size() + 1 - capacity : 0;
  for (size_t i = 0; s.ok() && i < leaving; i++) {
    s = ks.db().Delete(options, types::Keyspace::SystemRowKey(LogRowName(log_[i].first)));
  }
  if (!s.ok()) {
    ks.DiscardBatch();
    whole_key_->ForgetCachedHorizons();
    return s;
  }
  s = ks.CommitBatch();
  if (!s.ok()) return s;
  end_offset_ = delta.offset;
  std::string wire;
  AppendDeltaResp(&wire, delta);
  end_bytes_ += wire.size();
  Push(wire);
  log_bytes_ += wire.size();
  log_.emplace_back(delta.offset, std::move(wire));
  DropLogFront(leaving);
  NoteExpiringDelta(delta);
  return storage::Status::OK();
}

void ActiveActive::Cron(int64_t now_ms) {
  if (!links_.empty()) RefreshSyncSettings();
  ReduceExpiredLogRows(now_ms);
  std::erase_if(snapshots_, [](const auto& sender) { return sender->finished(); });
  std::erase_if(subscribers_, [this](const Subscriber& s) {
    Client* client = context_->clients().Find(s.client_id);
    if (client == nullptr) return true;
    // Its unsent output past what waited when the stream began (a snapshot's tail) is deltas
    // and at most kTickSlack bytes of ticks: more than the log holds besides means its oldest
    // unsent delta has left the log — the bounded backlog is spent. (Counting the snapshot's
    // tail would close a slow receiver's stream before the snapshot's end reached it, and the
    // next snapshot the same way.)
    const size_t pending = client->PendingOutput();
    const bool past_log = pending > s.pending_before + log_bytes_ + kTickSlack;
    if (past_log || pending > context_->config().peer_output_limit) {
      spdlog::warn(
          "Peer {} ({}) reads too slowly: {} bytes wait for it, more than {}: closing its "
          "stream (it resumes from its offset, with a snapshot if that left the log)",
          client->addr(), s.peer_id, pending,
          past_log ? "this node's log (peer-backlog-size) holds" : "peer-output-limit");
      client->RequestCloseDiscardingOutput();
      return true;
    }
    return false;
  });
  if (subscribers_.empty() && snapshots_.empty()) return;
  std::string tick;
  AppendTickResp(&tick, context_->keyspace().NowMs(), end_offset_, end_bytes_);
  // Not to a peer that has kTickSlack bytes waiting: it is being sent deltas.
  for (const Subscriber& subscriber : subscribers_) {
    Client* client = context_->clients().Find(subscriber.client_id);
    if (client != nullptr && client->PendingOutput() < kTickSlack) client->Push(tick);
  }
  // A snapshot's receiver hears the ticks too (its link times out after 3 s of silence).
  for (const auto& sender : snapshots_) {
    if (Client* client = context_->clients().Find(sender->client_id())) client->Push(tick);
  }
}

// ---- applying

bool ActiveActive::ApplyDeltas(const std::string& origin_id,
                               std::span<const PeerDelta* const> deltas) {
  types::Keyspace& ks = context_->keyspace();
  const uint64_t applied = applied_offset(origin_id);
  uint64_t last = applied;
  const PeerDelta* last_delta = nullptr;
  bool ok = true;
  ks.BeginBatch();
  for (const PeerDelta* delta : deltas) {
    if (delta->offset <= last) continue;  // already applied
    if (delta->offset != last + 1) {
      spdlog::warn("Peer {}: delta {} after {}: gap, reconnecting", origin_id, delta->offset, last);
      ok = false;
      break;
    }
    const ApplyOutcome outcome = ApplyOne(origin_id, *delta);
    if (outcome == ApplyOutcome::kEngineError) {
      // The failed delta may be half written: none of the group stays.
      ks.DiscardBatch();
      whole_key_->ForgetCachedHorizons();
      return false;
    }
    // A malformed delta is skipped, counted and logged (ApplyOne): the link goes on.
    if (outcome == ApplyOutcome::kMalformed) malformed_deltas_++;
    last = delta->offset;
    last_delta = delta;
  }
  if (last == applied) {
    ks.DiscardBatch();
    whole_key_->ForgetCachedHorizons();
    return ok;
  }
  const storage::Status s =
      CommitApplied(origin_id, AppliedPosition{last, DeltaDigest(*last_delta)});
  if (!s.ok()) {
    spdlog::warn("Peer {}: deltas {}..{} not applied: {}", origin_id, applied + 1, last,
                 s.ToString());
    return false;
  }
  return ok;
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
    ks.DiscardBatch();
    whole_key_->ForgetCachedHorizons();
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

bool ActiveActive::ApplySnapshot(const std::string& origin_id,
                                 std::span<const PeerDelta* const> pieces,
                                 std::optional<uint64_t> end) {
  types::Keyspace& ks = context_->keyspace();
  const uint64_t applied = applied_offset(origin_id);
  ks.BeginBatch();
  for (const PeerDelta* piece : pieces) {
    const ApplyOutcome outcome = ApplyOne(origin_id, *piece);
    if (outcome == ApplyOutcome::kEngineError) {
      ks.DiscardBatch();
      whole_key_->ForgetCachedHorizons();
      return false;
    }
    if (outcome == ApplyOutcome::kMalformed) malformed_deltas_++;
  }
  const bool advance = end.has_value() && *end > applied;
  // A snapshot names no delta: its offset carries no digest.
  const storage::Status s =
      CommitApplied(origin_id, advance ? std::optional<AppliedPosition>(AppliedPosition{*end, ""})
                                       : std::nullopt);
  if (!s.ok()) {
    spdlog::warn("Peer {}: snapshot pieces not applied: {}", origin_id, s.ToString());
    return false;
  }
  if (advance) spdlog::info("Peer {}: snapshot at origin offset {} applied", origin_id, *end);
  return true;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyOne(const std::string& origin_id,
                                                  const PeerDelta& delta) {
  if (delta.db < 0 || delta.db >= context_->config().databases || delta.args.size() < 2) {
    spdlog::warn("Peer {}: delta {} is malformed: skipped", origin_id, delta.offset);
    return ApplyOutcome::kMalformed;
  }
  types::Keyspace& ks = context_->keyspace();
  std::vector<std::string> args = delta.args;
  args[0] = AsciiLower(args[0]);
  if (args[0] == "tlog" || args[0] == "treg") args[1] = AsciiLower(args[1]);
  if (args[0].ends_with("-at")) return ApplyWholeKey(origin_id, delta, args);
  std::vector<std::string_view> views = Views(args);
  uint32_t flags = 0;
  size_t first_arg = 1;
  // An expired string version without its bytes: no command's form, written here (below).
  const bool reduced_put = args[0] == kPutExpired;
  ReducedPut reduced;
  const CommandSpec* spec =
      reduced_put ? nullptr : context_->commands().Resolve(views, &flags, &first_arg);
  const bool string_write = IsStringDelta(args[0]);
  const bool known = reduced_put ? ParseReducedPut(args, &reduced)
                                 : spec != nullptr && spec->handler != nullptr &&
                                       (string_write ? args.size() >= 4
                                                     : (args[0] == "tlog" || args[0] == "treg") &&
                                                           args.size() >= 3);
  if (!known) {
    spdlog::warn("Peer {}: delta {} is not a known operation ({}): skipped", origin_id,
                 delta.offset, args[0]);
    return ApplyOutcome::kMalformed;
  }
  WholeKeyMarkers::Admission admission;
  storage::Status s = whole_key_->Judge(delta.db, &args, &admission);
  if (s.IsInvalidArgument()) {
    spdlog::warn("Peer {}: delta {} is malformed: skipped", origin_id, delta.offset);
    return ApplyOutcome::kMalformed;
  }
  views = Views(args);  // Judge may have rewritten a PUT's expiry
  const std::string& key = string_write ? args[1] : args[2];
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
  if (s.ok()) s = JudgeDelta(ks, delta.db, args, &verdict);
  if (s.ok() && verdict == MergeVerdict::kReplaceFirst) {
    auto deleted = ks.Delete(delta.db, key);
    if (!deleted.ok()) s = deleted.engine_status();
  }
  if (s.ok() && admission.tlog_min_cutoff && verdict != MergeVerdict::kOtherTypeWins) {
    s = whole_key_->EnsureTlogCutoff(delta.db, key, *admission.tlog_min_cutoff);
  }
  if (!s.ok()) {
    spdlog::warn("Peer {}: delta {} not applied: {}", origin_id, delta.offset, s.ToString());
    return ApplyOutcome::kEngineError;
  }
  if (reduced_put && (verdict == MergeVerdict::kWrite || verdict == MergeVerdict::kReplaceFirst)) {
    // Judge may have given it the key's expiry register.
    if (!ParseReducedPut(args, &reduced)) return ApplyOutcome::kMalformed;
    auto written =
        types::Kv(ks, delta.db, 0).PutReduced(key, reduced.ts, reduced.digest, reduced.expire_at);
    if (!written.ok()) {
      spdlog::warn("Peer {}: delta {} not applied: {}", origin_id, delta.offset,
                   written.engine_status().ToString());
      return ApplyOutcome::kEngineError;
    }
    return ApplyOutcome::kApplied;
  }
  if (verdict == MergeVerdict::kWrite || verdict == MergeVerdict::kReplaceFirst) {
    applier_->set_db_index(delta.db);
    std::string out;
    protocol::ReplyWriter reply(&out, 2);
    dispatcher_.Run(*spec, first_arg, views, *applier_, reply, Dispatcher::Caller::kPeer);
    if (!out.empty() && out[0] == '-') {
      spdlog::warn("Peer {}: delta {} ({} {}) answered {}", origin_id, delta.offset, args[0],
                   args[1], out.substr(0, out.find('\r')));
      // A type the gate did not foresee loses, as under kOtherTypeWins; any other error (the
      // engine's) leaves the delta to be applied again.
      if (!out.starts_with("-WRONGTYPE")) return ApplyOutcome::kEngineError;
    }
    if (admission.settle_expiry) s = whole_key_->SettleExpiry(delta.db, key);
    if (!s.ok()) {
      spdlog::warn("Peer {}: delta {} not applied: {}", origin_id, delta.offset, s.ToString());
      return ApplyOutcome::kEngineError;
    }
  }
  return ApplyOutcome::kApplied;
}

// ---- INFO peers

void ActiveActive::AppendInfo(std::string* out) const {
  *out += "# Peers\r\n";
  *out += std::string("active_active:") + (enabled_ ? "yes" : "no") + "\r\n";
  if (!enabled_) return;
  *out += "node_id:" + node_id_ + "\r\n";
  *out += "origin_offset:" + std::to_string(end_offset_) + "\r\n";
  *out += "origin_log_first:" + std::to_string(LogFirst()) + "\r\n";
  *out += "subscribed_peers:" + std::to_string(subscribers_.size()) + "\r\n";
  *out += "skewed_writes:" + std::to_string(skewed_writes_) + "\r\n";
  *out += "snapshots_sent:" + std::to_string(snapshots_sent_) + "\r\n";
  *out += "malformed_deltas:" + std::to_string(malformed_deltas_) + "\r\n";
  const std::vector<PeerInfo> peers = Peers();
  *out += "peers:" + std::to_string(peers.size()) + "\r\n";
  const int64_t now = WallMs();
  for (size_t i = 0; i < peers.size(); i++) {
    const PeerInfo& p = peers[i];
    *out += "peer" + std::to_string(i) + ":host=" + p.host + ",port=" + std::to_string(p.port) +
            ",state=" + p.state + ",id=" + p.peer_id + ",applied=" + std::to_string(p.applied) +
            ",origin_end=" + std::to_string(p.remote_end) +
            ",lag_deltas=" + std::to_string(p.lag_deltas) +
            ",lag_bytes=" + std::to_string(p.lag_bytes) + ",lag_ms=" + std::to_string(p.lag_ms) +
            ",clock_skew_ms=" + std::to_string(p.clock_skew_ms) +
            ",last_io_ms_ago=" + std::to_string(p.last_io_ms == 0 ? -1 : now - p.last_io_ms) +
            "\r\n";
  }
}

}  // namespace ebb::server
