#include "storage/db/compaction.h"

#include <algorithm>
#include <limits>

namespace ebb::storage {
namespace {

using Inputs = std::vector<std::pair<int, std::shared_ptr<const FileMetaData>>>;

void RangeOf(const Inputs& inputs, std::string* smallest, std::string* largest) {
  bool first = true;
  for (const auto& [level, f] : inputs) {
    const std::string_view s = ExtractUserKey(f->smallest), l = ExtractUserKey(f->largest);
    if (first || CompareUserKeys(s, *smallest) < 0) smallest->assign(s);
    if (first || CompareUserKeys(l, *largest) > 0) largest->assign(l);
    first = false;
  }
}

bool Contains(const Inputs& inputs, uint64_t number) {
  return std::any_of(inputs.begin(), inputs.end(),
                     [&](const auto& in) { return in.second->number == number; });
}

// Adds every file of levels (from, to] overlapping the inputs' range, until the range is stable.
void ExpandDown(const Version& v, int from, int to, Inputs* inputs) {
  for (bool grew = true; grew;) {
    grew = false;
    std::string smallest, largest;
    RangeOf(*inputs, &smallest, &largest);
    for (int level = from + 1; level <= to; level++) {
      for (const auto& f : v.Overlapping(level, smallest, largest)) {
        if (Contains(*inputs, f->number)) continue;
        inputs->emplace_back(level, f);
        grew = true;
      }
    }
  }
}

bool IsBottommost(const Version& v, const CompactionJob& job) {
  std::string smallest, largest;
  RangeOf(job.inputs, &smallest, &largest);
  for (int level = job.output_level + 1; level < kNumLevels; level++) {
    if (!v.Overlapping(level, smallest, largest).empty()) return false;
  }
  return true;
}

bool PurgeDue(const FileMetaData& f, const PickParams& p) {
  if (f.props.min_expire_at == std::numeric_limits<int64_t>::max()) return false;
  return static_cast<__int128>(f.props.min_expire_at) + p.purge_deadline_ms <= p.now_ms;
}

// A purge compaction: `f` (all of L0 if it is there) and everything under it, down to the
// deepest level its key range reaches, so expired rows can be dropped, not just shadowed.
std::unique_ptr<CompactionJob> PickPurge(const Version& v, int level,
                                         const std::shared_ptr<const FileMetaData>& f) {
  auto job = std::make_unique<CompactionJob>();
  job->reason = "purge-deadline";
  if (level == 0) {
    for (const auto& g : v.files[0]) job->inputs.emplace_back(0, g);
  } else {
    job->inputs.emplace_back(level, f);
  }
  ExpandDown(v, level, kNumLevels - 1, &job->inputs);
  job->output_level = std::min(level + 1, kNumLevels - 1);
  for (const auto& in : job->inputs) job->output_level = std::max(job->output_level, in.first);
  job->bottommost = IsBottommost(v, *job);  // true: every deeper overlapping file is an input
  return job;
}

}  // namespace

std::unique_ptr<CompactionJob> PickCompaction(const Version& v, const PickParams& p,
                                              size_t next_file[kNumLevels]) {
  if (p.manual_all) {
    const int deepest = v.DeepestNonEmptyLevel();
    if (deepest < 0) return nullptr;
    auto job = std::make_unique<CompactionJob>();
    job->reason = "manual";
    job->output_level = std::max(1, deepest);
    for (int level = 0; level < kNumLevels; level++) {
      for (const auto& f : v.files[level]) job->inputs.emplace_back(level, f);
    }
    job->bottommost = true;
    return job;
  }
  if (p.purge_enabled) {
    for (int level = 0; level < kNumLevels; level++) {
      for (const auto& f : v.files[level]) {
        if (PurgeDue(*f, p)) return PickPurge(v, level, f);
      }
    }
  }
  if (static_cast<int>(v.files[0].size()) >= p.l0_compaction_trigger) {
    auto job = std::make_unique<CompactionJob>();
    job->reason = "l0-files";
    for (const auto& f : v.files[0]) job->inputs.emplace_back(0, f);
    job->output_level = 1;
    ExpandDown(v, 0, 1, &job->inputs);
    job->bottommost = IsBottommost(v, *job);
    return job;
  }
  int best_level = -1;
  double best_score = 1.0;
  double max_bytes = static_cast<double>(p.level1_max_bytes);
  for (int level = 1; level < kNumLevels - 1; level++) {
    const double score = static_cast<double>(v.LevelBytes(level)) / std::max(max_bytes, 1.0);
    if (score >= best_score) {
      best_score = score;
      best_level = level;
    }
    max_bytes *= std::max(p.level_size_multiplier, 2);
  }
  if (best_level < 0) return nullptr;
  const auto& files = v.files[best_level];
  auto job = std::make_unique<CompactionJob>();
  job->reason = "level-size";
  job->inputs.emplace_back(best_level, files[next_file[best_level]++ % files.size()]);
  job->output_level = best_level + 1;
  ExpandDown(v, best_level, best_level + 1, &job->inputs);
  job->bottommost = IsBottommost(v, *job);
  return job;
}

std::vector<KeyVersion> ReduceVersions(std::string_view user_key, std::vector<KeyVersion> versions,
                                       const std::vector<uint64_t>& snapshots, bool drop_dead,
                                       bool expiration_enabled, int64_t now_ms,
                                       const CompactionFilter* filter, ReduceStats* stats) {
  // Survivors of each snapshot stripe, newest stripe first. A version belongs to the stripe of
  // the oldest snapshot that can see it (or to "no snapshot" if it is newer than all).
  std::vector<KeyVersion> survivors;
  size_t current_stripe = std::numeric_limits<size_t>::max();
  for (auto& version : versions) {
    const size_t stripe =
        std::lower_bound(snapshots.begin(), snapshots.end(), version.sequence) - snapshots.begin();
    if (survivors.empty() || stripe != current_stripe) {
      current_stripe = stripe;
      survivors.push_back(std::move(version));
      continue;
    }
    // Same stripe, older version: it wins only with a strictly greater timestamp.
    if (version.meta.timestamp_or_zero() > survivors.back().meta.timestamp_or_zero()) {
      survivors.back() = std::move(version);
    }
  }
  std::vector<KeyVersion> out;
  bool something_beneath = !drop_dead;
  for (auto it = survivors.rbegin(); it != survivors.rend(); ++it) {
    KeyVersion& v = *it;
    // Newer survivors (of newer stripes) with a smaller timestamp need this one to stay visible.
    const bool newer_all_later = std::all_of(survivors.begin(), it.base() - 1, [&](const auto& n) {
      return n.meta.timestamp_or_zero() >= v.meta.timestamp_or_zero();
    });
    bool dead = v.kind == RowKind::kTombstone;
    if (!dead && expiration_enabled && v.meta.ExpiredAt(now_ms)) {
      dead = true;
      stats->expired++;
    }
    if (!dead && filter != nullptr) {
      std::string new_value;
      switch (filter->Filter(user_key, v.meta, v.value, now_ms, &new_value)) {
        case CompactionFilter::Decision::kKeep:
          break;
        case CompactionFilter::Decision::kDrop:
          dead = true;
          stats->filtered++;
          break;
        case CompactionFilter::Decision::kChangeValue:
          v.value = std::move(new_value);
          break;
      }
    }
    if (dead) {
      if (!something_beneath && newer_all_later) continue;  // nothing to hide: gone
      v.kind = RowKind::kTombstone;
      v.meta.expire_at_ms.reset();
      v.value.clear();
    }
    out.push_back(std::move(v));
    something_beneath = true;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<KeyVersion> ReduceForFlush(std::vector<KeyVersion> versions) {
  if (versions.size() <= 2) return versions;
  const int64_t newest_ts = versions[0].meta.timestamp_or_zero();
  size_t least = 1;
  for (size_t i = 1; i < versions.size(); i++) {
    const int64_t ts = versions[i].meta.timestamp_or_zero();
    if (ts > newest_ts) return versions;  // an older version may win a grace read: keep all
    if (ts < versions[least].meta.timestamp_or_zero()) least = i;
  }
  std::vector<KeyVersion> kept;
  kept.push_back(std::move(versions[0]));
  kept.push_back(std::move(versions[least]));
  return kept;
}

Status ReduceInput(InternalIterator* input, const KeyReducer& reduce, const EntryEmitter& emit,
                   const std::function<Status()>& after_key) {
  std::string user_key;
  std::vector<KeyVersion> versions;
  std::string internal_key, row;  // one survivor's entry, reused
  for (;;) {
    const bool at_end = !input->Valid();
    ParsedInternalKey ikey;
    if (!at_end && !ParseInternalKey(input->key(), &ikey)) {
      return Status::Corruption("compaction: malformed internal key");
    }
    if (at_end || (!versions.empty() && CompareUserKeys(ikey.user_key, user_key) != 0)) {
      // One user key complete: reduce it and hand on the survivors.
      if (!versions.empty()) {
        for (const auto& v : reduce(user_key, std::move(versions))) {
          internal_key.clear();
          row.clear();
          AppendInternalKey(&internal_key, user_key, v.sequence, v.kind);
          AppendEncodedRow(&row, v.meta, v.value);
          Status s = emit(internal_key, row);
          if (!s.ok()) return s;
        }
        versions.clear();
        Status s = after_key();
        if (!s.ok()) return s;
      }
      if (at_end) return input->status();
    }
    KeyVersion v;
    std::string_view value;
    if (!DecodeRow(input->value(), &v.meta, &value)) {
      return Status::Corruption("compaction: malformed row");
    }
    if (versions.empty()) user_key.assign(ikey.user_key);
    v.sequence = ikey.sequence;
    v.kind = ikey.kind;
    v.value.assign(value);
    versions.push_back(std::move(v));
    input->Next();
  }
}

}  // namespace ebb::storage
