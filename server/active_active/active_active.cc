#include "server/active_active/active_active.h"

#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <set>

#include "common/strings.h"
#include "common/units.h"
#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/active_active/collect.h"
#include "server/active_active/entry_content.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/peer_link.h"
#include "server/active_active/peer_snapshot.h"
#include "server/active_active/series_purge.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/replication/master.h"
#include "server/replication/replication_id.h"
#include "server/services/server_context.h"
#include "server/services/wal_commit.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/tlog.h"

namespace ebb::server {

std::string ActiveActive::AppliedRowName(std::string_view origin) {
  return std::string(kAppliedRowPrefix) + std::string(origin);
}

ActiveActive::ActiveActive(ServerContext* context, boost::asio::io_context& io)
    : context_(context), io_(io), streams_(context->clients(), io), dispatcher_(context) {}

ActiveActive::~ActiveActive() { Stop(); }

storage::Status ActiveActive::Open() {
  applier_ = std::make_unique<Client>(context_->clients().NextId(), "peer", "", -1, WallMs(),
                                      /*local=*/true);
  applier_->set_user(&context_->acl().default_user());
  applier_->set_applies_peer_deltas(true);
  whole_key_ =
      std::make_unique<WholeKeyMarkers>(context_->keyspace(), context_->config().databases);
  counters_ = std::make_unique<Counters>(context_->keyspace());
  whole_key_->set_counters(counters_.get());
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
  if (s.ok()) s = LoadRetiredIds();
  if (s.ok()) s = LoadOwnCollect();
  if (s.ok()) s = whole_key_->Load();
  if (s.ok()) s = counters_->Load();
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
  OriginOfNodeId(node_id_, &own_origin_);
  return s;
}

storage::Status ActiveActive::LoadRetiredIds() {
  std::string row;
  storage::Status s = context_->keyspace().GetSystemRow(kRetiredRow, &row);
  if (s.IsNotFound()) return storage::Status::OK();
  if (!s.ok()) return s;
  std::vector<std::string_view> fields;
  for (std::string_view rest = row; !rest.empty();) {
    const size_t space = rest.find(' ');
    fields.push_back(rest.substr(0, space));
    rest = space == std::string_view::npos ? "" : rest.substr(space + 1);
  }
  if (ParseRetiredIds(fields, &retired_ids_) != VectorParse::kOk) {
    return storage::Status::Corruption("active-active row " + std::string(kRetiredRow));
  }
  return storage::Status::OK();
}

storage::Status ActiveActive::LoadOwnCollect() {
  return ReadCollectRow(own_origin_, &own_collect_);
}

void ActiveActive::MaybeLogCollect() {
  types::Keyspace& ks = context_->keyspace();
  const auto now = std::chrono::steady_clock::now();
  if (whole_key_->entry_tops().empty() || ks.in_batch() ||
      now < last_collect_ + std::chrono::milliseconds(kCollectIntervalMs)) {
    return;  // no delete held, or too soon
  }
  const types::OrContext stable = OrContextOf(StabilityNow().stable);
  if (!CollectDue(whole_key_->entry_tops(), stable, own_collect_)) return;
  last_collect_ = now;
  if (const storage::Status s = LogCollect(stable); !s.ok()) {
    spdlog::warn("Cannot log an active-active collect: {}", s.ToString());
  }
}

storage::Status ActiveActive::LogCollect(const types::OrContext& stable) {
  types::Keyspace& ks = context_->keyspace();
  types::OrContext collect = own_collect_;
  const bool grew = collect.Join(stable);
  ks.BeginBatch();
  // The row only when it grows, as every peer that applies the delta writes it (ApplyCollect).
  storage::Status s;
  if (grew) {
    s = ks.db().Put(ks.WriteOptions(), types::Keyspace::SystemRowKey(CollectRowName(own_origin_)),
                    EncodeCollectRow(collect, own_origin_));
  }
  if (s.ok()) {
    s = LogOwnDelta(PeerDelta{.offset = 0,
                              .origin_ms = ks.NowMs(),
                              .db = 0,
                              .args = CollectDeltaArgs(collect, own_origin_)},
                    nullptr);
  } else {
    ks.DiscardBatch();
  }
  if (!s.ok()) return s;
  own_collect_ = std::move(collect);
  // No client's write commits this one (wal_commit.h): uncommitted, a process killed now would
  // lose a collect its peers may have applied (the push only queues a write for later in the
  // turn), and give its offset again.
  if (s = CommitWalNow(*context_); !s.ok()) {
    spdlog::warn("Cannot commit a collect to the WAL: {}", s.ToString());
  }
  return storage::Status::OK();
}

RetiredIds ActiveActive::RetiredWith(const std::string& id) const {
  RetiredIds ids = retired_ids_;
  std::erase(ids, id);
  ids.push_back(id);
  if (ids.size() > kMaxVectorOrigins) {
    ids.erase(ids.begin(), ids.end() - static_cast<ptrdiff_t>(kMaxVectorOrigins));
  }
  return ids;
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
    whole_key_->DiscardBatch();
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
  InstallCounterPurge(context_->keyspace());
  InstallSeriesPurge(context_->keyspace());
}

Result<ActiveActiveCode> ActiveActive::Start() {
  const Config& config = context_->config();
  if (ObservedRemoveRule() && counters_->any()) return ActiveActiveCode::kCountersUnderOrRule;
  if (config.peers.empty()) return {};
  if (config.cluster_enabled) return ActiveActiveCode::kPeerOptionInCluster;
  if (!config.replicaof_host.empty()) return ActiveActiveCode::kPeerOptionOnReplica;
  storage::Status s = EnterMode();
  if (!s.ok()) return {ActiveActiveCode::kStartFailed, s.message()};
  for (const auto& [host, port] : config.peers) StartLink(host, port);
  return {};
}

std::string ActiveActive::ErrorText(const Result<ActiveActiveCode>& result) const {
  switch (result.code()) {
    case ActiveActiveCode::kOk:
      break;
    case ActiveActiveCode::kPeerOptionInCluster:
      return std::string(kPeerOptionInCluster);
    case ActiveActiveCode::kPeerOptionOnReplica:
      return std::string(kPeerOptionOnReplica);
    case ActiveActiveCode::kCountersUnderOrRule:
      return std::string(kCountersUnderOrRule);
    case ActiveActiveCode::kStartFailed:
      return result.detail();
    case ActiveActiveCode::kPeerLinked:
      return PeerLinkedError(result.detail());
    case ActiveActiveCode::kPeersOfReplica:
      return std::string(kPeersOfReplica);
    case ActiveActiveCode::kPeersOfNodeWithReplicas:
      return std::string(kPeersOfNodeWithReplicas);
    case ActiveActiveCode::kPeersInCluster:
      return std::string(kPeersInCluster);
    case ActiveActiveCode::kEngineError:
      return GenericError(result.detail());
    case ActiveActiveCode::kClockSkew:
      return ClockSkewError(result.detail(), context_->config().max_clock_skew_ms);
    case ActiveActiveCode::kNoSuchPeer: {
      const size_t colon = result.detail().rfind(':');
      int64_t port = 0;
      ParseInt64(std::string_view(result.detail()).substr(colon + 1), &port);
      return NoPeerError(std::string_view(result.detail()).substr(0, colon), port);
    }
  }
  return "";
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
  settings.emplace_back(kStreamVersionSetting);
  settings.emplace_back(kStreamVersion);
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

Result<ActiveActiveCode> ActiveActive::AddPeer(const std::string& host, int port) {
  for (const auto& link : links_) {
    if (EqualsIgnoreCase(link->host(), host) && link->port() == port) {
      return {ActiveActiveCode::kPeerLinked, host + ":" + std::to_string(port)};
    }
  }
  if (context_->is_replica()) return ActiveActiveCode::kPeersOfReplica;
  if (ReplicationMaster* master = context_->replication_master();
      master != nullptr && !master->replicas().empty()) {
    return ActiveActiveCode::kPeersOfNodeWithReplicas;
  }
  if (context_->config().cluster_enabled) return ActiveActiveCode::kPeersInCluster;
  storage::Status s = EnterMode();
  if (!s.ok()) return {ActiveActiveCode::kEngineError, s.message()};
  StartLink(host, port);
  RecordPeers();
  return {};
}

Result<ActiveActiveCode> ActiveActive::RemovePeer(const std::string& host, int port) {
  for (auto it = links_.begin(); it != links_.end(); ++it) {
    if (EqualsIgnoreCase((*it)->host(), host) && (*it)->port() == port) {
      (*it)->Stop();
      links_.erase(it);
      RecordPeers();
      return {};
    }
  }
  return {ActiveActiveCode::kNoSuchPeer, host + ":" + std::to_string(port)};
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

Result<ActiveActiveCode> ActiveActive::SetLinkPaused(const std::string& host, int port,
                                                     bool paused) {
  for (auto& link : links_) {
    if (EqualsIgnoreCase(link->host(), host) && link->port() == port) {
      link->SetPaused(paused);
      return {};
    }
  }
  return {ActiveActiveCode::kNoSuchPeer, host + ":" + std::to_string(port)};
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
    if (st.state != "self" && st.vector) {
      info.vector = st.vector;
      info.retired = st.retired;
      auto self = st.vector->find(node_id_);
      if (self != st.vector->end()) info.acked = self->second;
    }
    out.push_back(std::move(info));
  }
  return out;
}

OriginVector ActiveActive::AppliedVector() const {
  OriginVector vector;
  {
    std::lock_guard lock(applied_mu_);
    for (const auto& [origin, position] : applied_) vector.emplace(origin, position.offset);
  }
  vector[node_id_] = end_offset_;
  return vector;
}

OriginVector ActiveActive::ObservedVector() const {
  OriginVector vector = AppliedVector();
  for (const auto& [origin, offset] : known_) {
    uint64_t& entry = vector[origin];
    entry = std::max(entry, offset);
  }
  return vector;
}

std::string ActiveActive::KnownRowName(std::string_view origin) {
  return std::string(kKnownRowPrefix) + std::string(origin);
}

bool ActiveActive::RaisesKnown(const std::string& origin, uint64_t offset) const {
  auto held = known_.find(origin);
  return held == known_.end() || held->second < offset;
}

storage::Status ActiveActive::RaiseKnown(const OriginVector& observed) {
  types::Keyspace& ks = context_->keyspace();
  storage::Status s;
  for (const auto& [origin, offset] : observed) {
    if (!RaisesKnown(origin, offset)) continue;
    s = ks.db().Put(ks.WriteOptions(), types::Keyspace::SystemRowKey(KnownRowName(origin)),
                    std::to_string(offset));
    if (!s.ok()) break;
  }
  return s;
}

void ActiveActive::NoteKnown(const OriginVector& observed) {
  for (const auto& [origin, offset] : observed) {
    uint64_t& entry = known_[origin];
    entry = std::max(entry, offset);
  }
  known_or_ = OrContextOf(known_);
}

OriginVector ActiveActive::ReportedVector() const {
  std::set<std::string, std::less<>> retired(retired_ids_.begin(), retired_ids_.end());
  std::set<std::string, std::less<>> live = {node_id_};
  for (const auto& link : links_) {
    const PeerLink::Status st = link->status();
    if (!st.peer_id.empty()) live.insert(st.peer_id);
    retired.insert(st.retired.begin(), st.retired.end());
  }
  return WithoutRetired(synced_vector_.reported(), retired, live);
}

void ActiveActive::ShareCollectionVector() {
  // Every id the synced vector names, retired ones too: a removal of a retired id's write is as
  // final as any (docs/active-active.md, "Collection of observed-remove deletes").
  if (synced_observed_.reported() == collection_vector_) return;
  collection_vector_ = synced_observed_.reported();
  context_->keyspace().compaction_filter().SetOrCollectionVector(
      std::make_shared<const types::OrContext>(OrContextOf(collection_vector_)));
}

ActiveActive::Stability ActiveActive::StabilityNow() const {
  const std::vector<PeerInfo> peers = Peers();
  std::vector<const OriginVector*> vectors;
  for (size_t i = 0; i < peers.size(); i++) {
    if (peers[i].state == "self") continue;  // this node itself: no peer
    vectors.push_back(peers[i].vector ? &*peers[i].vector : nullptr);
  }
  Stability out;
  out.stable = StableVector(ReportedVector(), vectors);
  out.largest_lag = LargestLag(node_id_, end_offset_, vectors);
  return out;
}

bool ActiveActive::wants_snapshot(const std::string& origin_id) const {
  std::lock_guard lock(applied_mu_);
  return snapshot_wanted_.contains(origin_id) || (resync_ && !applied_.contains(origin_id));
}

ActiveActive::AppliedPosition ActiveActive::applied_position(const std::string& origin_id) const {
  std::lock_guard lock(applied_mu_);
  auto it = applied_.find(origin_id);
  return it == applied_.end() ? AppliedPosition{} : it->second;
}

void ActiveActive::Cron(int64_t now_ms) {
  if (!links_.empty()) RefreshSyncSettings();
  if (enabled_) {
    if (storage::Status s = whole_key_->Recount(); !s.ok()) {
      spdlog::warn("Cannot count the active-active markers: {}", s.ToString());
    }
  }
  ReduceExpiredLogRows(now_ms);
  TrimLogRows(now_ms);
  if (enabled_) {
    // Every write the applied vector counts was made on this thread, so at or below the last
    // sequence; it is reported once the engine has synced that far.
    storage::DB& db = context_->keyspace().db();
    synced_vector_.Note(db.LastSequence(), AppliedVector());
    synced_vector_.Synced(db.SyncedSequence());
    synced_observed_.Note(db.LastSequence(), ObservedVector());
    synced_observed_.Synced(db.SyncedSequence());
    ShareCollectionVector();
    MaybeLogCollect();
  }
  std::erase_if(snapshots_, [](const auto& sender) { return sender->finished(); });
  streams_.Flush();  // before their output is judged and the tick follows the deltas
  streams_.DropSlowReaders(log_.bytes(), context_->config().peer_output_limit);
  if (streams_.empty() && snapshots_.empty()) return;
  std::string tick;
  AppendVectorTickResp(&tick, context_->keyspace().NowMs(), end_offset_, end_bytes_,
                       ReportedVector(), retired_ids_);
  streams_.PushTick(tick);
  // A snapshot's receiver hears the ticks too (its link times out after 3 s of silence).
  for (const auto& sender : snapshots_) {
    if (Client* client = context_->clients().Find(sender->client_id())) client->Push(tick);
  }
}

// ---- INFO peers

void ActiveActive::AppendInfo(std::string* out) const {
  *out += "# Peers\r\n";
  *out += std::string("active_active:") + (enabled_ ? "yes" : "no") + "\r\n";
  if (!enabled_) return;
  *out += "node_id:" + node_id_ + "\r\n";
  *out += "origin_offset:" + std::to_string(end_offset_) + "\r\n";
  *out += "origin_log_first:" + std::to_string(LogFirst()) + "\r\n";
  *out += "subscribed_peers:" + std::to_string(streams_.size()) + "\r\n";
  *out += "skewed_writes:" + std::to_string(skewed_writes_) + "\r\n";
  *out += "snapshots_sent:" + std::to_string(snapshots_sent_) + "\r\n";
  *out += "malformed_deltas:" + std::to_string(malformed_deltas_) + "\r\n";
  const Stability stability = StabilityNow();
  *out += "stable_vector:" + FormatOriginVector(stability.stable) + "\r\n";
  *out += "observed_vector:" + FormatOriginVector(ObservedVector()) + "\r\n";
  *out += "collect_barriers:" + std::to_string(collect_barriers()) + "\r\n";
  *out += "max_peer_lag_deltas:" + std::to_string(stability.largest_lag) + "\r\n";
  *out += "markers_pending:" + std::to_string(markers_pending()) + "\r\n";
  *out += "last_collect:" + FormatOriginVector(last_collect()) + "\r\n";
  const storage::Stats engine = context_->keyspace().db().GetStats();
  *out += "dead_versions_pending:" + std::to_string(engine.dead_rows_in_tables) + "\r\n";
  *out += "dead_versions_collected:" + std::to_string(engine.dead_versions_collected) + "\r\n";
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
            ",acked=" + std::to_string(p.acked) + "\r\n";
  }
}

}  // namespace ebb::server
