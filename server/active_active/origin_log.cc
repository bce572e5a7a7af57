// The origin log (system rows aa-log:<offset>, mirrored in log_) and the stream of it to peers
// (docs/active-active.md, "The origin log", "Links", "Snapshots"). The rest of ActiveActive is in
// active_active.cc.
#include <spdlog/spdlog.h>

#include <array>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/peer_snapshot.h"
#include "server/core/client.h"
#include "server/core/errors.h"
#include "server/replication/replication_id.h"
#include "server/services/server_context.h"
#include "storage/write_batch.h"
#include "types/keyspace.h"

namespace ebb::server {

// Log rows sort by offset: the offset is written as 20 decimal digits.
std::string ActiveActive::LogRowName(uint64_t offset) {
  // The offset as 20 decimal digits, zero-padded (2^64 has 20), so names sort by offset.
  std::array<char, 20> digits;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it, offset /= 10) {
    *it = static_cast<char>('0' + offset % 10);
  }
  std::string name;
  name.reserve(kLogRowPrefix.size() + digits.size());
  name += kLogRowPrefix;
  name.append(digits.data(), digits.size());
  return name;
}

storage::Status ActiveActive::LoadLog() {
  storage::DB& db = context_->keyspace().db();
  auto it = db.NewIterator(storage::ReadOptions());
  const std::string log_prefix = types::Keyspace::SystemRowKey(kLogRowPrefix);
  // Rows older than a gap, or beyond the backlog, cannot be streamed (a peer asking for them
  // gets a snapshot): only the newest gap-free run, at most peer-backlog-size long, is kept.
  size_t dropped = 0;
  for (it->Seek(log_prefix); it->Valid() && it->key().starts_with(log_prefix); it->Next()) {
    PeerDelta delta;
    if (!DecodePeerDelta(it->value(), &delta)) {
      return storage::Status::Corruption("active-active log row " + std::string(it->key()));
    }
    if (!log_.empty() && delta.offset != log_.back().first + 1)
      dropped += DropLogFront(log_.size());
    std::string wire;
    AppendDeltaResp(&wire, delta);
    end_bytes_ += wire.size();
    log_bytes_ += wire.size();
    log_.emplace_back(delta.offset, std::move(wire));
    end_offset_ = delta.offset;
  }
  if (!it->status().ok()) return it->status();
  const uint64_t capacity = LogCapacity();
  if (log_.size() > capacity) dropped += DropLogFront(log_.size() - capacity);
  if (dropped > 0) {
    storage::Status s = DeleteLogRowsBeforeFront();
    if (!s.ok()) return s;
    spdlog::info("Dropped {} origin log rows older than a gap or beyond peer-backlog-size ({})",
                 dropped, capacity);
  }
  std::string entry_content;
  storage::Status s = context_->keyspace().GetSystemRow(kEntryContentRow, &entry_content);
  if (s.ok()) {
    int64_t offset = 0;
    if (!ParseInt64(entry_content, &offset) || offset < 0) {
      return storage::Status::Corruption("active-active row " + std::string(kEntryContentRow));
    }
    end_offset_ = std::max(end_offset_, static_cast<uint64_t>(offset));
  } else if (!s.IsNotFound()) {
    return s;
  }
  std::string resync;
  s = context_->keyspace().GetSystemRow(kResyncRow, &resync);
  if (!s.ok() && !s.IsNotFound()) return s;
  resync_ = s.ok();
  const std::string applied_prefix = types::Keyspace::SystemRowKey(kAppliedRowPrefix);
  for (it->Seek(applied_prefix); it->Valid() && it->key().starts_with(applied_prefix); it->Next()) {
    AppliedPosition position;
    if (!DecodeAppliedRow(it->value(), &position)) {
      return storage::Status::Corruption("active-active vector row " + std::string(it->key()));
    }
    std::lock_guard lock(applied_mu_);
    applied_[std::string(it->key().substr(applied_prefix.size()))] = std::move(position);
  }
  return it->status();
}

uint64_t ActiveActive::LogCapacity() const {
  return std::max<uint64_t>(1, context_->config().peer_backlog_size);
}

size_t ActiveActive::DropLogFront(size_t count) {
  for (size_t i = 0; i < count; i++) {
    log_bytes_ -= log_.front().second.size();
    log_.pop_front();
  }
  return count;
}

storage::Status ActiveActive::DeleteLogRowsBeforeFront() {
  // Every dropped row is older than the kept run: one range deletion takes them all.
  return context_->keyspace().db().DeleteRange(
      {{types::Keyspace::SystemRowKey(kLogRowPrefix),
        types::Keyspace::SystemRowKey(LogRowName(log_.front().first))}});
}

uint64_t ActiveActive::LogFirst() const {
  return log_.empty() ? end_offset_ + 1 : log_.front().first;
}

std::optional<size_t> ActiveActive::LogIndex(uint64_t from) const {
  const uint64_t first = LogFirst();
  if (from < first || from - first > log_.size()) return std::nullopt;
  const size_t index = static_cast<size_t>(from - first);
  // Streamable: a delta the log holds, or the one after its end when that end is end_offset_.
  const bool held = index < log_.size() ? log_[index].first == from : from == end_offset_ + 1;
  return held ? std::optional<size_t>(index) : std::nullopt;
}

// ---- the stream

std::string ActiveActive::EncodeAppliedRow(const AppliedPosition& position) {
  std::string row = std::to_string(position.offset);
  if (!position.digest.empty()) row += " " + position.digest;
  return row;
}

bool ActiveActive::DecodeAppliedRow(std::string_view row, AppliedPosition* position) {
  const size_t space = row.find(' ');
  int64_t offset = 0;
  if (!ParseInt64(row.substr(0, space), &offset) || offset < 0) return false;
  position->offset = static_cast<uint64_t>(offset);
  position->digest = space == std::string_view::npos ? "" : std::string(row.substr(space + 1));
  return true;
}

bool ActiveActive::PeerAppliedOtherDeltas(uint64_t from, std::string_view digest) const {
  if (from == 0) return false;  // a snapshot: the peer claims nothing
  if (from > end_offset_ + 1) return true;
  // The last delta the peer applied, when the log still holds it and the peer knows its digest.
  const uint64_t last = from - 1;
  if (digest.empty() || last < LogFirst() || last > end_offset_) return false;
  const auto& [offset, wire] = log_[static_cast<size_t>(last - LogFirst())];
  return offset == last && WireDigest(wire) != digest;
}

void ActiveActive::TakeNewIncarnation(std::string_view why) {
  types::Keyspace& ks = context_->keyspace();
  const std::string old_id = node_id_;
  const std::string new_id = ReplicationIds::NewId();
  // One engine write, durable when it returns (it holds a range deletion): the new id, the
  // resync mark, the forgotten vector, and the log emptied with its end offset kept as content
  // that no row carries (as a node with data entering the mode: kEntryContentRow). A crash
  // before it keeps the old id, and the next peer to connect finds the same contradiction.
  // The old deltas leave the log so that no peer ever receives them under the new id: a peer
  // asking for the new id gets this node's content as a snapshot, its merge state as it is.
  storage::WriteBatch batch;
  const storage::WriteOptions options = ks.WriteOptions();
  const int64_t now = ks.NowMs();
  batch.Put(options, types::Keyspace::SystemRowKey(kNodeIdRow), new_id, now);
  batch.Put(options, types::Keyspace::SystemRowKey(kResyncRow), "1", now);
  batch.Put(options, types::Keyspace::SystemRowKey(kEntryContentRow), std::to_string(end_offset_),
            now);
  {
    std::lock_guard lock(applied_mu_);
    for (const auto& [origin, position] : applied_) {
      batch.Delete(options, types::Keyspace::SystemRowKey(AppliedRowName(origin)));
    }
  }
  batch.DeleteRange({types::Keyspace::SystemRowKey(kLogRowPrefix),
                     types::Keyspace::SystemRowKey(LogRowName(end_offset_ + 1))});
  const storage::Status s = ks.db().Write(options, batch);
  if (!s.ok()) {
    spdlog::warn("Could not take a new active-active incarnation ({}): {}", why, s.ToString());
    return;
  }
  spdlog::warn(
      "This node's origin log lost deltas it had streamed ({}): node {} is now node {}; every "
      "peer sends it a snapshot",
      why, old_id, new_id);
  node_id_ = new_id;
  {
    std::lock_guard lock(applied_mu_);
    applied_.clear();
  }
  resync_ = true;
  log_.clear();
  log_bytes_ = 0;
  // Streams under the old id end; each peer reconnects, learns the new id and asks from 1.
  for (const Subscriber& subscriber : subscribers_) {
    if (Client* client = context_->clients().Find(subscriber.client_id)) client->RequestClose();
  }
  for (const auto& sender : snapshots_) {
    if (Client* client = context_->clients().Find(sender->client_id())) client->RequestClose();
  }
  subscribers_.clear();
  snapshots_.clear();
  RestartLinks();
}

void ActiveActive::Subscribe(Client& client, protocol::ReplyWriter& reply,
                             const SyncRequest& request) {
  const std::string_view peer_id = request.peer_id;
  const uint64_t from = request.from;
  const std::span<const std::string_view> peer_settings = request.settings;
  if (!enabled_) return reply.Error(kNotInActiveActiveMode);
  RefreshSyncSettings();
  const std::vector<std::string> own = SyncSettings();
  for (size_t i = 0; i + 1 < peer_settings.size(); i += 2) {
    auto mine = std::find(own.begin(), own.end(), peer_settings[i]);
    const std::string_view here = mine != own.end() && std::next(mine) != own.end()
                                      ? std::string_view(*std::next(mine))
                                      : std::string_view("(none)");
    if (here == peer_settings[i + 1]) continue;
    spdlog::warn("Peer {} ({}) refused: its {} is '{}', this node's '{}'", client.addr(), peer_id,
                 peer_settings[i], peer_settings[i + 1], here);
    return reply.Error(PeerSettingsDiffer(peer_settings[i], peer_settings[i + 1], here));
  }
  if (!request.origin.empty() && request.origin != node_id_) {
    return reply.Error(OriginIdChanged(node_id_));
  }
  const uint64_t first = LogFirst();
  if (PeerAppliedOtherDeltas(from, request.digest)) {
    TakeNewIncarnation(fmt::format("peer {} applied up to offset {}; the log ends at {}", peer_id,
                                   from - 1, end_offset_));
    return reply.Error(OriginLogBehindStreamed(from - 1, node_id_));
  }
  std::erase_if(subscribers_, [&](const Subscriber& s) { return s.client_id == client.id(); });
  std::erase_if(snapshots_, [&](const auto& sender) { return sender->client_id() == client.id(); });
  if (const std::optional<size_t> index = LogIndex(from)) {
    return StreamFrom(client, &reply, peer_id, *index);
  }
  // The peer lacks deltas the log no longer holds: this node's content first, as of now.
  reply.SimpleString("SNAPSHOT " + std::to_string(end_offset_) + " " + std::to_string(end_bytes_));
  spdlog::info(
      "Peer {} ({}) asked for origin offset {}, before this node's log ({}): sending a "
      "snapshot at offset {}",
      client.addr(), peer_id, from, first, end_offset_);
  snapshots_sent_++;
  snapshots_.push_back(std::make_unique<SnapshotSender>(
      context_, io_, client.id(), std::string(peer_id), end_offset_, end_bytes_,
      [this](SnapshotSender* sender, bool complete) { SnapshotDone(sender, complete); }));
  snapshots_.back()->Start();
}

void ActiveActive::StreamFrom(Client& client, protocol::ReplyWriter* reply,
                              std::string_view peer_id, size_t index) {
  const uint64_t from = index < log_.size() ? log_[index].first : end_offset_ + 1;
  const size_t pending_before = client.PendingOutput();
  std::string bytes;
  uint64_t streamed = 0;
  const auto begin = log_.begin() + static_cast<ptrdiff_t>(index);
  for (auto it = begin; it != log_.end(); ++it) streamed += it->second.size();
  if (reply != nullptr) {
    // The byte position before `from`: the receiver counts its lag in bytes from it.
    reply->SimpleString("CONTINUE " + std::to_string(end_offset_) + " " +
                        std::to_string(end_bytes_ - streamed));
  }
  for (auto it = begin; it != log_.end(); ++it) {
    bytes += it->second;
    if (bytes.size() > (1 << 20)) {
      client.Push(bytes);
      bytes.clear();
    }
  }
  if (!bytes.empty()) client.Push(bytes);
  subscribers_.push_back({client.id(), std::string(peer_id), pending_before});
  spdlog::info("Peer {} ({}) streams this node's deltas from offset {}", client.addr(), peer_id,
               from);
}

void ActiveActive::SnapshotDone(SnapshotSender* sender, bool complete) {
  Client* client = context_->clients().Find(sender->client_id());
  if (!complete || client == nullptr) return;  // swept from snapshots_ by the next Cron
  const std::optional<size_t> index = LogIndex(sender->offset() + 1);
  if (!index) {
    // More than peer-backlog-size deltas were written during the transfer: the peer asks again
    // (its vector now says the snapshot's offset) and gets a newer snapshot.
    spdlog::warn(
        "Peer {} ({}): the log moved past the snapshot's offset {} during the transfer: "
        "closing the stream",
        client->addr(), sender->peer_id(), sender->offset());
    client->RequestClose();
    return;
  }
  StreamFrom(*client, nullptr, sender->peer_id(), *index);
}

void ActiveActive::Push(const std::string& wire) {
  for (const Subscriber& subscriber : subscribers_) {
    if (Client* client = context_->clients().Find(subscriber.client_id)) client->Push(wire);
  }
}

}  // namespace ebb::server
