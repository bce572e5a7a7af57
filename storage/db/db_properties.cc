// DBImpl's statistics and estimates: GetStats and EstimateKeys (db.h).
#include <algorithm>

#include "storage/db/compaction.h"
#include "storage/db/db_impl.h"
#include "storage/db/table_cache.h"
#include "storage/table/block_cache.h"

namespace ebb::storage {

Stats DBImpl::GetStats() {
  std::lock_guard lock(mu_);
  Stats stats = stats_;
  const auto version = versions_.current();
  stats.levels.resize(kNumLevels);
  for (int level = 0; level < kNumLevels; level++) {
    stats.levels[level].files = static_cast<int>(version->files[level].size());
    stats.levels[level].bytes = version->LevelBytes(level);
    for (const auto& f : version->files[level]) {
      stats.levels[level].entries += f->props.entries;
      stats.dead_rows_in_tables += f->props.tombstones;
    }
  }
  stats.memtable_bytes = mem_->ApproximateMemoryUsage();
  for (const auto& imm : imms_) stats.memtable_bytes += imm.mem->ApproximateMemoryUsage();
  stats.block_cache_capacity = block_cache_->capacity();
  stats.block_cache_bytes = block_cache_->usage();
  const TableCache::Usage tables = table_cache_->GetUsage();
  stats.open_tables = tables.tables;
  stats.open_tables_direct = tables.direct_tables;
  stats.table_index_bytes = tables.index_bytes;
  stats.table_filter_bytes = tables.filter_bytes;
  stats.block_cache_hits = block_cache_->hits();
  stats.block_cache_misses = block_cache_->misses();
  stats.last_sequence = versions_.last_sequence();
  stats.range_deletions_pending = version->range_deletions.size();
  stats.purge_hints_pending = version->purge_hints.size();
  stats.compaction_error = compaction_error_.ok() ? "" : compaction_error_.ToString();
  for (const auto& [number, what] : damaged_tables_) stats.damaged_tables.push_back(what);
  // Files holding rows the expiry clock has passed, from the manifest's time facts.
  const int64_t expiry_now = ExpiryNow();
  int64_t oldest_expiry = INT64_MAX;
  for (const auto& level : version->files) {
    for (const auto& f : level) {
      if (f->props.min_expire_at > expiry_now) continue;
      stats.expired_pending_bytes += f->file_size;
      oldest_expiry = std::min(oldest_expiry, f->props.min_expire_at);
    }
  }
  stats.oldest_expired_age_ms = oldest_expiry == INT64_MAX ? 0 : expiry_now - oldest_expiry;
  stats.purge_deadline_ms = purge_deadline_ms_.load();
  PickParams params;  // the targets RunOneCompaction picks by
  params.l0_compaction_trigger =
      std::min(options_.l0_compaction_trigger, options_.l0_stop_writes_trigger);
  params.level1_max_bytes = options_.level1_max_bytes;
  params.level_size_multiplier = options_.level_size_multiplier;
  params.regions = &regions_;
  stats.compaction_pending_bytes = PendingCompactionBytes(*version, params);
  stats.disk_read_latency = disk_read_latency_->Snapshot();
  return stats;
}

uint64_t DBImpl::EstimateKeys(std::string_view lower, std::string_view upper) {
  uint64_t sequence;
  std::optional<int64_t> expiry_now;
  const std::shared_ptr<const ReadState> state = GetReadState(nullptr, &sequence, &expiry_now);
  // The newest range deletion covering all of [lower, upper): what is older counts nothing.
  uint64_t deleted_below = 0;
  for (const RangeDeletion& d : state->version->range_deletions) {
    if (CompareUserKeys(d.range.begin, lower) <= 0 && !upper.empty() &&
        CompareUserKeys(upper, d.range.end) <= 0) {
      deleted_below = std::max(deleted_below, d.sequence);
    }
  }
  // A memtable holds only versions older than a range deletion or only newer ones (DeleteRange
  // freezes it first).
  const auto count_memtable = [&](const MemTable& mem) -> int64_t {
    return mem.min_sequence() < deleted_below ? 0 : mem.EstimateKeys(lower, upper);
  };
  int64_t keys = count_memtable(*state->mem);
  for (const auto& imm : state->imms) keys += count_memtable(*imm);
  double table_keys = 0;
  for (int level = 0; level < kNumLevels; level++) {
    for (const auto& file : state->version->files[level]) {
      if (file->props.max_sequence < deleted_below) continue;
      const std::string_view smallest = ExtractUserKey(file->smallest);
      const std::string_view largest = ExtractUserKey(file->largest);
      if (CompareUserKeys(largest, lower) < 0) continue;
      if (!upper.empty() && CompareUserKeys(smallest, upper) >= 0) continue;
      const double rows = static_cast<double>(file->props.entries) -
                          2.0 * static_cast<double>(file->props.tombstones);
      if (rows <= 0) continue;
      double share = 1.0;
      const bool inside = CompareUserKeys(smallest, lower) >= 0 &&
                          (upper.empty() || CompareUserKeys(largest, upper) < 0);
      if (!inside && !table_cache_->ApproximateShare(*file, lower, upper, &share).ok()) continue;
      table_keys += rows * share;
    }
  }
  keys += static_cast<int64_t>(table_keys + 0.5);
  return keys > 0 ? static_cast<uint64_t>(keys) : 0;
}

}  // namespace ebb::storage
