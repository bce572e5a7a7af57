// The origin log (system rows aa-log:<offset>, mirrored in log_) and the stream of it to peers
// (docs/active-active.md, "The origin log", "Links", "Snapshots"). The log's contract is in
// active_active.h; the deltas are logged by FinishLocalWrite (local_write.cc).
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/collect.h"
#include "server/active_active/peer_snapshot.h"
#include "server/active_active/series_purge.h"
#include "server/active_active/series_state.h"
#include "server/core/client.h"
#include "server/core/errors.h"
#include "server/replication/replication_id.h"
#include "server/services/server_context.h"
#include "storage/expired_retention.h"
#include "storage/write_batch.h"
#include "types/keyspace.h"
#include "types/tlog.h"

namespace ebb::server {
namespace {

// The value `name` has in a name/value list (PEER SYNC's SETTINGS, SyncSettings()); nullopt when
// no name of the list is `name` (a value equal to it does not count).
template <typename Text>
std::optional<std::string_view> SettingIn(std::span<const Text> settings, std::string_view name) {
  for (size_t i = 0; i + 1 < settings.size(); i += 2) {
    if (settings[i] == name) return std::string_view(settings[i + 1]);
  }
  return std::nullopt;
}

// The offset a log row's name gives (the digits after the prefix); 0 when they do not parse.
uint64_t LogRowOffset(std::string_view digits) {
  uint64_t offset = 0;
  return ParseDigits(digits, &offset) ? offset : 0;
}

}  // namespace

// Log rows sort by offset: the offset is written as 20 decimal digits.
std::string ActiveActive::LogRowName(uint64_t offset) {
  // The offset as 20 decimal digits, zero-padded (2^64 has 20), so names sort by offset.
  std::array<char, 20> digits;
  const size_t n = static_cast<size_t>(
      std::to_chars(digits.data(), digits.data() + digits.size(), offset).ptr - digits.data());
  std::string name(kLogRowPrefix.size() + digits.size(), '0');
  std::memcpy(name.data(), kLogRowPrefix.data(), kLogRowPrefix.size());
  std::memcpy(name.data() + name.size() - n, digits.data(), n);
  return name;
}

ActiveActive::LogRowKey::LogRowKey(uint64_t offset) {
  constexpr std::string_view kKeyPrefix = types::Keyspace::kSystemRowKeyPrefix;
  bytes_.fill('0');
  std::memcpy(bytes_.data(), kKeyPrefix.data(), kKeyPrefix.size());
  std::memcpy(bytes_.data() + kKeyPrefix.size(), kLogRowPrefix.data(), kLogRowPrefix.size());
  std::array<char, 20> digits;
  const size_t n = static_cast<size_t>(
      std::to_chars(digits.data(), digits.data() + digits.size(), offset).ptr - digits.data());
  std::memcpy(bytes_.data() + bytes_.size() - n, digits.data(), n);
}

storage::Status ActiveActive::LoadLog() {
  storage::DB& db = context_->keyspace().db();
  auto it = db.NewIterator(storage::ReadOptions());
  const std::string log_prefix = types::Keyspace::SystemRowKey(kLogRowPrefix);
  // Rows older than a gap, or beyond the backlog, cannot be streamed (a peer asking for them
  // gets a snapshot): only the newest gap-free run, at most peer-backlog-size long, is kept, so
  // the walk starts peer-backlog-size rows before the newest (rows TrimLogRows had yet to
  // delete lie before it).
  const uint64_t capacity = LogCapacity();
  std::optional<uint64_t> first_on_disk;
  uint64_t walk_from = 0;
  it->Seek(log_prefix);
  if (it->Valid() && it->key().starts_with(log_prefix)) {
    first_on_disk = LogRowOffset(it->key().substr(log_prefix.size()));
    it->SeekForPrev(LogRowKey(std::numeric_limits<uint64_t>::max()).view());
    const uint64_t last = it->Valid() && it->key().starts_with(log_prefix)
                              ? LogRowOffset(it->key().substr(log_prefix.size()))
                              : 0;
    walk_from = last >= capacity ? last - capacity + 1 : 0;
  }
  if (!it->status().ok()) return it->status();
  size_t dropped = 0;
  for (it->Seek(LogRowKey(walk_from).view()); it->Valid() && it->key().starts_with(log_prefix);
       it->Next()) {
    PeerDelta delta;
    std::string first_digest;
    if (!DecodeLogRow(it->value(), &delta, &first_digest)) {
      return storage::Status::Corruption("active-active log row " + std::string(it->key()));
    }
    if (!log_.empty() && delta.offset != log_.back().offset + 1)
      dropped += DropLogFront(log_.size());
    wire_scratch_.clear();
    AppendDeltaFrame(&wire_scratch_, EncodePeerDelta(delta));
    end_bytes_ += wire_scratch_.size();
    log_.Append(delta.offset, wire_scratch_);
    end_offset_ = delta.offset;
    if (!first_digest.empty()) first_digests_[delta.offset] = std::move(first_digest);
    NoteExpiringDelta(delta, /*loading=*/true);
  }
  if (!it->status().ok()) return it->status();
  if (log_.size() > capacity) dropped += DropLogFront(log_.size() - capacity);
  if (first_on_disk && *first_on_disk < LogFirst()) {
    storage::Status s = DeleteLogRowsBeforeFront();
    if (!s.ok()) return s;
    spdlog::info(
        "Deleted the origin log rows before offset {}: older than a gap ({} rows) or beyond "
        "peer-backlog-size ({})",
        LogFirst(), dropped, capacity);
  }
  disk_log_first_ = LogFirst();
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
  types::Keyspace& ks = context_->keyspace();
  s = ks.ForEachSystemRow(kAppliedRowPrefix, [&](std::string_view name, std::string_view value) {
    AppliedPosition position;
    if (!DecodeAppliedRow(value, &position)) {
      return storage::Status::Corruption("active-active vector row " + std::string(name));
    }
    std::lock_guard lock(applied_mu_);
    applied_[std::string(name.substr(kAppliedRowPrefix.size()))] = std::move(position);
    return storage::Status::OK();
  });
  if (!s.ok()) return s;
  const std::string known_prefix = KnownRowName("");
  OriginVector known;
  s = ks.ForEachSystemRow(known_prefix, [&](std::string_view name, std::string_view value) {
    uint64_t offset = 0;
    if (!ParseUint64(value, &offset)) {
      return storage::Status::Corruption("active-active observed row " + std::string(name));
    }
    known[std::string(name.substr(known_prefix.size()))] = offset;
    return storage::Status::OK();
  });
  if (s.ok()) NoteKnown(known);
  return s;
}

uint64_t ActiveActive::LogCapacity() const {
  return std::max<uint64_t>(1, context_->config().peer_backlog_size);
}

size_t ActiveActive::DropLogFront(size_t count) {
  for (size_t i = 0; i < count; i++) log_.PopFront();
  first_digests_.erase(first_digests_.begin(), first_digests_.lower_bound(LogFirst()));
  return count;
}

namespace {

// value_rows_'s key: a hash of the database and the key. Keys that share one only make a register
// change send each other's rows to the next pass, which puts back the rows it does not reduce.
uint64_t ValueRowsKey(int db, std::string_view key) {
  return std::hash<std::string_view>{}(key) + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(db);
}

// When a TLOG entry at `ts` leaves a log whose retention window is `window_ms` (nullopt: never,
// or beyond the int64 range).
std::optional<int64_t> EntryWindowExpiry(__int128 ts, uint64_t window_ms) {
  const __int128 at = ts + window_ms;
  if (window_ms == 0 || at > std::numeric_limits<int64_t>::max()) return std::nullopt;
  return static_cast<int64_t>(at);
}

}  // namespace

void ActiveActive::NoteExpiringDelta(const PeerDelta& delta, bool loading,
                                     const StringDelta* string_delta) {
  if (delta.args.size() > 2 && delta.args[0] == kExpiryAt) {
    NoteRegisterChange(delta.db, delta.args[2]);
    return;
  }
  if (!delta.args.empty() && delta.args[0] == kSeriesDelta) {
    // Its samples can be purged half a deadline after they were hidden at the earliest: judged
    // then, or (loading) by the next pass.
    expiring_.emplace(
        loading ? std::numeric_limits<int64_t>::min() : context_->keyspace().db().ExpiryNowMs(),
        delta.offset);
    SweepExpiryIndexes();
    return;
  }
  const std::optional<LoggedValue> logged =
      string_delta != nullptr ? LoggedPutOf(delta.args, *string_delta) : LoggedValueOf(delta);
  if (!logged) return;
  // Every value row: a register made later, here or on a peer, may expire its value.
  // REQUIRES (callers): the delta is log_'s newest.
  uint64_t& head = value_row_heads_[ValueRowsKey(delta.db, logged->key)];
  log_.back().prev_value_row = head;
  head = delta.offset;
  std::optional<int64_t> expire_at = logged->own_expiry;
  if (logged->kind == LoggedValue::Kind::kTlogIns) {
    const std::optional<uint64_t> window = context_->keyspace().PolicyWindow(logged->key);
    if (window) expire_at = EntryWindowExpiry(logged->ts, *window);
  }
  // Loading, a register written before the restart may already cover it: judged by a pass soon.
  if (!expire_at && loading && whole_key_->any()) expire_at = std::numeric_limits<int64_t>::min();
  if (expire_at) expiring_.emplace(*expire_at, delta.offset);
  SweepExpiryIndexes();
}

void ActiveActive::NoteRegisterChange(int db, std::string_view key) {
  // The key's rows are judged again by the next pass, which puts back those it does not reduce.
  const uint64_t hash = ValueRowsKey(db, key);
  const uint64_t first = LogFirst();
  if (auto head = value_row_heads_.find(hash); head != value_row_heads_.end()) {
    // Each link points to an older row: the walk ends at 0 or at a row that left the log.
    for (uint64_t offset = head->second; offset >= first && offset - first < log_.size();
         offset = log_[offset - first].prev_value_row) {
      expiring_.emplace(std::numeric_limits<int64_t>::min(), offset);
    }
    value_row_heads_.erase(head);
  }
  auto rows = value_rows_put_back_.find(hash);
  if (rows == value_rows_put_back_.end()) return;
  for (const uint64_t offset : rows->second) {
    if (offset >= first) expiring_.emplace(std::numeric_limits<int64_t>::min(), offset);
  }
  value_rows_put_back_count_ -= rows->second.size();
  value_rows_put_back_.erase(rows);
}

void ActiveActive::SweepExpiryIndexes() {
  // Entries of deltas that left the log are swept once they are as many as the log, so each
  // index stays within twice the log's length (a row noted twice counts once after a sweep).
  const size_t bound = 2 * log_.size() + 16;
  const uint64_t first = LogFirst();
  if (expiring_.size() > bound) {
    std::erase_if(expiring_, [first](const auto& entry) { return entry.second < first; });
    std::map<uint64_t, int64_t> earliest;
    for (const auto& [expire_at, offset] : expiring_) earliest.emplace(offset, expire_at);
    if (earliest.size() < expiring_.size()) {
      expiring_.clear();
      for (const auto& [offset, expire_at] : earliest) expiring_.emplace(expire_at, offset);
    }
  }
  if (value_row_heads_.size() > bound) {
    boost::unordered::erase_if(value_row_heads_,
                               [first](const auto& head) { return head.second < first; });
  }
  if (value_rows_put_back_count_ > bound) {
    value_rows_put_back_count_ = 0;
    for (auto it = value_rows_put_back_.begin(); it != value_rows_put_back_.end();) {
      std::vector<uint64_t>& offsets = it->second;
      std::sort(offsets.begin(), offsets.end());
      offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
      std::erase_if(offsets, [first](uint64_t offset) { return offset < first; });
      value_rows_put_back_count_ += offsets.size();
      it = offsets.empty() ? value_rows_put_back_.erase(it) : std::next(it);
    }
  }
}

namespace {

constexpr size_t kMaxRewrittenRows = 4096;       // log rows one pass rewrites
constexpr size_t kMaxRewrittenBytes = 16 << 20;  // and their bytes (past it, the pass ends)
constexpr size_t kMaxSeriesRewrites = 8;         // of one `ts-merge` row (ReduceSeriesRow)

}  // namespace

std::optional<int64_t> ActiveActive::LoggedValueExpiry(int db, const LoggedValue& logged) {
  constexpr int64_t kNotNow = std::numeric_limits<int64_t>::max();
  std::optional<int64_t> own = logged.own_expiry;
  std::optional<types::TlogExtent> log;
  if (logged.kind == LoggedValue::Kind::kTlogIns) {
    auto extent = types::Tlog(context_->keyspace(), db).Extent(logged.key);
    if (extent.status() == types::OpStatus::kEngineError) {
      spdlog::warn("Cannot read a logged log: {}", extent.engine_status().ToString());
      return kNotNow;
    }
    // A log no longer held (its window passed it, or a delete): the window its policy gives.
    if (extent.ok()) log = *extent;
    const std::optional<uint64_t> window = log ? std::optional<uint64_t>(log->window_ms)
                                               : context_->keyspace().PolicyWindow(logged.key);
    if (window) own = EntryWindowExpiry(logged.ts, *window);
  }
  KeyMarker marker;
  bool has_row = false;
  const storage::Status s = whole_key_->Marker(db, logged.key, &marker, &has_row);
  if (!s.ok()) {
    spdlog::warn("Cannot read the marker of a logged key: {}", s.ToString());
    return kNotNow;
  }
  if (!marker.expiry || logged.ts > marker.expiry->ts) return own;
  const std::optional<int64_t> by_register = marker.expiry->expire_at;
  if (logged.kind != LoggedValue::Kind::kTlogIns) return by_register;  // it replaces a put's
  // A register never extends a window, and its hidden entries stay stored while the log holds
  // something after its T: it drops their bytes only with a log it expires whole.
  const int64_t t = marker.expiry->ts;
  const bool whole = !log || ((!log->newest || *log->newest <= static_cast<uint64_t>(t)) &&
                              log->cutoff <= static_cast<uint64_t>(t) + 1);
  if (!by_register || !whole) return own;
  return own ? std::min(*own, *by_register) : by_register;
}

std::map<uint64_t, int64_t> ActiveActive::TakeDueExpiring(int64_t due_at_or_before) {
  std::map<uint64_t, int64_t> due;
  while (!expiring_.empty() && expiring_.begin()->first <= due_at_or_before) {
    const auto [expire_at, offset] = *expiring_.begin();
    expiring_.erase(expiring_.begin());
    if (offset >= LogFirst() && offset <= end_offset_) due.emplace(offset, expire_at);
  }
  return due;
}

void ActiveActive::ReduceExpiredLogRows(int64_t now_ms) {
  if (expiring_.empty() || now_ms < next_reduce_ms_) return;
  const int64_t deadline = context_->config().expiry_purge_deadline_ms;
  next_reduce_ms_ = now_ms + LogPassIntervalMs();
  types::Keyspace& ks = context_->keyspace();
  if (!ks.db().CheckWriteStall().ok()) return;  // the next pass (the event loop must not wait)
  const int64_t retention = storage::KeptExpiredRetentionMs(deadline);
  const int64_t expiry_now = ks.db().ExpiryNowMs();
  // A value is reduced once expire_at + retention <= expiry_now, as compaction reduces the rows.
  const int64_t due_at_or_before = expiry_now < std::numeric_limits<int64_t>::min() + retention
                                       ? std::numeric_limits<int64_t>::min()
                                       : expiry_now - retention;
  std::map<uint64_t, int64_t> due = TakeDueExpiring(due_at_or_before);
  if (due.empty()) return;
  ReducedRun run;
  auto pending = ReadReducedRun(due, due_at_or_before, &run);
  // Due rows this pass did not reach wait for the next, soon.
  if (pending != due.end()) next_reduce_ms_ = now_ms + 100;
  for (; pending != due.end(); ++pending) expiring_.emplace(pending->second, pending->first);
  if (run.reduced.empty()) return;
  // The rows' older versions, which hold the values, are range-deleted, so that compaction
  // drops their bytes (the deletion freezes the memtable; its flush leaves them out); the
  // rewritten rows come after the deletion in the same write.
  storage::WriteBatch batch;
  const storage::WriteOptions options = ks.WriteOptions();
  const int64_t now = ks.NowMs();
  const uint64_t first = due.begin()->first;
  batch.DeleteRange({types::Keyspace::SystemRowKey(LogRowName(first)),
                     types::Keyspace::SystemRowKey(LogRowName(first + run.rows.size()))});
  for (const auto& [key, row] : run.rows) batch.Put(options, key, row, now);
  const storage::Status s = ks.db().Write(options, batch);
  if (!s.ok()) {
    spdlog::warn("Could not reduce {} expired values in the origin log: {}", run.reduced.size(),
                 s.ToString());
    for (const auto& [delta, expire_at, digest] : run.reduced) {
      expiring_.emplace(expire_at, delta.offset);
    }
    return;
  }
  for (auto& [delta, expire_at, digest] : run.reduced) {
    wire_scratch_.clear();
    AppendDeltaFrame(&wire_scratch_, EncodePeerDelta(delta));
    log_.Rewrite(static_cast<size_t>(delta.offset - LogFirst()), wire_scratch_);
    first_digests_[delta.offset] = std::move(digest);
  }
}

std::map<uint64_t, int64_t>::const_iterator ActiveActive::ReadReducedRun(
    const std::map<uint64_t, int64_t>& due, int64_t due_at_or_before, ReducedRun* run) {
  const uint64_t first = due.begin()->first;
  size_t rows_to_write = 0;  // up to the last reduced row
  size_t bytes = 0;
  auto pending = due.begin();
  auto it = context_->keyspace().db().NewIterator(storage::ReadOptions());
  for (it->Seek(types::Keyspace::SystemRowKey(LogRowName(first)));
       it->Valid() && pending != due.end() && run->rows.size() < kMaxRewrittenRows &&
       bytes < kMaxRewrittenBytes;
       it->Next()) {
    const uint64_t offset = first + run->rows.size();
    if (it->key() != LogRowKey(offset).view()) break;
    std::string row(it->value());
    PeerDelta delta;
    std::string digest;
    std::optional<LoggedValue> value;
    const bool decoded = offset == pending->first && DecodeLogRow(row, &delta, &digest);
    std::optional<PeerDelta> series;
    if (decoded && ReduceSeriesRow(delta, digest, due_at_or_before, &series)) {
      const std::string_view logged = log_[offset - LogFirst()].wire();
      // Every earlier form's digest: a peer may have applied any of them.
      run->reduced.push_back({std::move(*series), pending->second, digest + WireDigest(logged)});
      row = EncodeLogRow(run->reduced.back().delta, run->reduced.back().first_digest);
      rows_to_write = run->rows.size() + 1;
    } else if (decoded && (value = LoggedValueOf(delta))) {
      const std::optional<int64_t> expiry = LoggedValueExpiry(delta.db, *value);
      if (expiry && *expiry <= due_at_or_before) {
        const std::string_view logged = log_[offset - LogFirst()].wire();
        run->reduced.push_back({ReducedValueDelta(delta), pending->second, WireDigest(logged)});
        row = EncodeLogRow(run->reduced.back().delta, run->reduced.back().first_digest);
        rows_to_write = run->rows.size() + 1;
      } else {
        // Not yet (an expiry register moved it later), or not at all until a register changes.
        if (expiry) expiring_.emplace(*expiry, offset);
        value_rows_put_back_[ValueRowsKey(delta.db, value->key)].push_back(offset);
        value_rows_put_back_count_++;
      }
    }
    if (offset == pending->first) ++pending;
    bytes += row.size();
    run->rows.emplace_back(std::string(it->key()), std::move(row));
  }
  if (!it->status().ok()) {
    spdlog::warn("Cannot read the origin log: {}", it->status().ToString());
    *run = ReducedRun();
    return due.begin();
  }
  run->rows.resize(rows_to_write);
  return pending;
}

bool ActiveActive::ReduceSeriesRow(const PeerDelta& delta, std::string_view first_digest,
                                   int64_t due_at_or_before, std::optional<PeerDelta>* reduced) {
  bool more = false;
  reduced->reset();
  // Each rewrite adds a digest to the row ("A node behind what it streamed": a peer's vector may
  // name any earlier form); a row rewritten kMaxSeriesRewrites times keeps what it holds.
  const size_t rewrites = first_digest.size() / kDeltaDigestSize;
  if (rewrites >= kMaxSeriesRewrites ||
      !ReducedSeriesDelta(context_->keyspace(), delta, reduced, &more)) {
    return false;
  }
  // Samples the floor has not passed yet (or not for half a deadline): judged again a quarter
  // of that later, while the row may still be rewritten.
  const int64_t half = storage::KeptExpiredRetentionMs(context_->config().expiry_purge_deadline_ms);
  if (more && (!*reduced || rewrites + 1 < kMaxSeriesRewrites)) {
    expiring_.emplace(due_at_or_before + std::max<int64_t>(1, half / 4), delta.offset);
  }
  return reduced->has_value();
}

storage::Status ActiveActive::DeleteLogRowsBeforeFront() {
  // Every dropped row is older than the kept run: one range deletion takes them all.
  storage::Status s = context_->keyspace().db().DeleteRange(
      {{types::Keyspace::SystemRowKey(kLogRowPrefix),
        types::Keyspace::SystemRowKey(LogRowName(log_.front().offset))}});
  if (s.ok()) {
    disk_log_first_ = log_.front().offset;
    log_rows_left_since_ms_ = 0;
  }
  return s;
}

int64_t ActiveActive::LogPassIntervalMs() const {
  const int64_t deadline = context_->config().expiry_purge_deadline_ms;
  return deadline < 0 ? 60'000 : std::clamp<int64_t>(deadline / 8, 100, 60'000);
}

void ActiveActive::TrimLogRows(int64_t now_ms) {
  if (log_.empty() || LogFirst() <= disk_log_first_) return;
  if (log_rows_left_since_ms_ == 0) log_rows_left_since_ms_ = now_ms;
  const uint64_t left = LogFirst() - disk_log_first_;
  if (left < std::max(LogCapacity(), kMinLogRowsTrimmed) &&
      now_ms - log_rows_left_since_ms_ < LogPassIntervalMs()) {
    return;
  }
  if (!context_->keyspace().db().CheckWriteStall().ok()) return;  // the next Cron
  if (storage::Status s = DeleteLogRowsBeforeFront(); !s.ok()) {
    spdlog::warn("Could not delete {} origin log rows before offset {}: {}", left, LogFirst(),
                 s.ToString());
  }
}

uint64_t ActiveActive::LogFirst() const {
  return log_.empty() ? end_offset_ + 1 : log_.front().offset;
}

std::optional<size_t> ActiveActive::LogIndex(uint64_t from) const {
  const uint64_t first = LogFirst();
  if (from < first || from - first > log_.size()) return std::nullopt;
  const size_t index = static_cast<size_t>(from - first);
  // Streamable: a delta the log holds, or the one after its end when that end is end_offset_.
  const bool held = index < log_.size() ? log_[index].offset == from : from == end_offset_ + 1;
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
  const WireLog::Entry& logged = log_[static_cast<size_t>(last - LogFirst())];
  if (logged.offset != last || WireDigest(logged.wire()) == digest) return false;
  // A delta reduced after its value expired is still the one a peer applied in full.
  auto first = first_digests_.find(logged.offset);
  return first == first_digests_.end() || !NamesDigest(first->second, digest);
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
  // A log that ended at 0 (the node lost every delta it had streamed) still has content to stand
  // for: offset 1 then, as for a node entering the mode with data, so that a peer asking for
  // offset 1 receives it as a snapshot rather than an empty stream.
  const uint64_t content_end = std::max(end_offset_, kEntryContentOffset);
  storage::WriteBatch batch;
  const storage::WriteOptions options = ks.WriteOptions();
  const int64_t now = ks.NowMs();
  batch.Put(options, types::Keyspace::SystemRowKey(kNodeIdRow), new_id, now);
  batch.Put(options, types::Keyspace::SystemRowKey(kResyncRow), "1", now);
  // The old id retired: every tick lists it, so peers stop counting it (stable_vector.h).
  RetiredIds retired = RetiredWith(old_id);
  batch.Put(options, types::Keyspace::SystemRowKey(kRetiredRow),
            fmt::format("{}", fmt::join(retired, " ")), now);
  batch.Put(options, types::Keyspace::SystemRowKey(kEntryContentRow), std::to_string(content_end),
            now);
  // What the forgotten vector had observed stays observed (kKnownRowPrefix): the data still
  // reflects it, and a version it covers that the node no longer holds was removed here.
  OriginVector observed = AppliedVector();
  {
    std::lock_guard lock(applied_mu_);
    for (const auto& [origin, position] : applied_) {
      batch.Delete(options, types::Keyspace::SystemRowKey(AppliedRowName(origin)));
    }
  }
  for (const auto& [origin, offset] : observed) {
    if (!RaisesKnown(origin, offset)) continue;
    batch.Put(options, types::Keyspace::SystemRowKey(KnownRowName(origin)), std::to_string(offset),
              now);
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
  OriginOfNodeId(node_id_, &own_origin_);
  end_offset_ = content_end;
  retired_ids_ = std::move(retired);
  own_collect_ = types::OrContext();  // the new id has announced nothing yet
  synced_vector_.Reset();             // the forgotten vector: the next Cron notes the new one
  NoteKnown(observed);
  {
    std::lock_guard lock(applied_mu_);
    applied_.clear();
  }
  resync_ = true;
  log_.Clear();
  disk_log_first_ = end_offset_ + 1;
  log_rows_left_since_ms_ = 0;
  expiring_.clear();
  value_row_heads_.clear();
  value_rows_put_back_.clear();
  value_rows_put_back_count_ = 0;
  first_digests_.clear();
  // Streams under the old id end; each peer reconnects, learns the new id and asks from 1.
  streams_.CloseAll();
  for (const auto& sender : snapshots_) {
    if (Client* client = context_->clients().Find(sender->client_id())) client->RequestClose();
  }
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
    const std::string_view here =
        SettingIn(std::span<const std::string>(own), peer_settings[i]).value_or("(none)");
    if (here == peer_settings[i + 1]) continue;
    spdlog::warn("Peer {} ({}) refused: its {} is '{}', this node's '{}'", client.addr(), peer_id,
                 peer_settings[i], peer_settings[i + 1], here);
    return reply.Error(PeerSettingsDiffer(peer_settings[i], peer_settings[i + 1], here));
  }
  // A peer that sends settings sends every one of them: one that leaves out a setting of this
  // node's is of another version (peer-stream-version: it could not read this stream).
  for (size_t i = 0; !peer_settings.empty() && i + 1 < own.size(); i += 2) {
    if (SettingIn(peer_settings, own[i])) continue;
    spdlog::warn("Peer {} ({}) refused: it names no {}, this node's is '{}'", client.addr(),
                 peer_id, own[i], own[i + 1]);
    return reply.Error(PeerSettingsDiffer(own[i], "(none)", own[i + 1]));
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
  streams_.Detach(client.id());
  std::erase_if(snapshots_, [&](const auto& sender) { return sender->client_id() == client.id(); });
  streams_.Flush();  // the deltas logged so far go to the other streams
  if (const std::optional<size_t> index = LogIndex(from)) {
    return StreamFrom(client, &reply, peer_id, *index);
  }
  // The peer lacks deltas the log no longer holds: this node's content first, as of now.
  types::OrContext known;
  if (const storage::Status s = KnownCollects(&known); !s.ok()) {
    return reply.Error(EngineError(s.ToString()));
  }
  reply.SimpleString("SNAPSHOT " + std::to_string(end_offset_) + " " + std::to_string(end_bytes_));
  spdlog::info(
      "Peer {} ({}) asked for origin offset {}, before this node's log ({}): sending a "
      "snapshot at offset {}",
      client.addr(), peer_id, from, first, end_offset_);
  std::vector<std::vector<std::string>> collect_pieces;
  if (!own_collect_.empty()) collect_pieces.push_back(CollectPieceArgs(own_collect_, own_origin_));
  // No collect known judges as every delete does: nothing to send.
  if (!known.empty()) collect_pieces.push_back(KnownCollectsPieceArgs(known, own_origin_));
  snapshots_sent_++;
  snapshots_.push_back(std::make_unique<SnapshotSender>(
      context_, io_, client.id(), std::string(peer_id), node_id_, end_offset_, end_bytes_,
      ObservedVector(), std::move(collect_pieces),
      [this](SnapshotSender* sender, bool complete) { SnapshotDone(sender, complete); }));
  snapshots_.back()->Start();
}

void ActiveActive::StreamFrom(Client& client, protocol::ReplyWriter* reply,
                              std::string_view peer_id, size_t index) {
  // log_ holds the queued deltas: they go to the other streams now, and to this one from log_.
  streams_.Flush();
  const uint64_t from = index < log_.size() ? log_[index].offset : end_offset_ + 1;
  const size_t pending_before = client.PendingOutput();
  std::string bytes;
  uint64_t streamed = 0;
  for (size_t i = index; i < log_.size(); ++i) streamed += log_[i].wire().size();
  if (reply != nullptr) {
    // The byte position before `from`: the receiver counts its lag in bytes from it.
    reply->SimpleString("CONTINUE " + std::to_string(end_offset_) + " " +
                        std::to_string(end_bytes_ - streamed));
  }
  for (size_t i = index; i < log_.size(); ++i) {
    bytes += log_[i].wire();
    if (bytes.size() > (1 << 20)) {
      client.Push(bytes);
      bytes.clear();
    }
  }
  if (!bytes.empty()) client.Push(bytes);
  streams_.Attach(client, peer_id, pending_before);
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

}  // namespace ebb::server
