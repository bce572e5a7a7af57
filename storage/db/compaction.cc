#include "storage/db/compaction.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <span>

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

// No deeper file overlaps an input: nothing older lies under the keys the job writes. Asked of
// each input rather than of their whole range, which may span a separate region's files that
// hold none of the job's keys (file_regions.h).
bool IsBottommost(const Version& v, const CompactionJob& job) {
  for (int level = job.output_level + 1; level < kNumLevels; level++) {
    for (const auto& [input_level, f] : job.inputs) {
      if (!v.Overlapping(level, ExtractUserKey(f->smallest), ExtractUserKey(f->largest)).empty()) {
        return false;
      }
    }
  }
  return true;
}

int Level0FilesOf(const Version& v, const PickParams& p) {
  return p.regions == nullptr ? static_cast<int>(v.files[0].size()) : Level0Files(v, *p.regions);
}

bool PurgeDue(const FileMetaData& f, const PickParams& p) {
  return f.props.min_expire_at <= p.expiry_now_ms &&
         PurgeDueAt(f.props.min_expire_at, p.purge_deadline_ms) <= p.now_ms;
}

// The deepest level among the inputs, at least 1 (and one below `level` when it is the only
// one, as compaction always moves data down).
int OutputLevel(const CompactionJob& job, int level) {
  int out = std::min(level + 1, kNumLevels - 1);
  for (const auto& in : job.inputs) out = std::max(out, in.first);
  return out;
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
  job->output_level = OutputLevel(*job, level);
  job->bottommost = IsBottommost(v, *job);  // true: every deeper overlapping file is an input
  return job;
}

// True if `job` would read a table no compaction may read.
bool ReadsExcluded(const CompactionJob& job, const PickParams& p) {
  if (p.excluded == nullptr || p.excluded->empty()) return false;
  return std::any_of(job.inputs.begin(), job.inputs.end(),
                     [&](const auto& in) { return p.excluded->count(in.second->number) > 0; });
}

// A size-triggered compaction of one file of `level` into the next, the files rotating by
// `next_file`; nullptr if every choice reads an excluded table.
std::unique_ptr<CompactionJob> PickBySize(const Version& v, int level, const PickParams& p,
                                          size_t* next_file) {
  const auto& files = v.files[level];
  for (size_t tried = 0; tried < files.size(); tried++) {
    auto job = std::make_unique<CompactionJob>();
    job->reason = "level-size";
    job->inputs.emplace_back(level, files[(*next_file)++ % files.size()]);
    job->output_level = level + 1;
    ExpandDown(v, level, level + 1, &job->inputs);
    job->bottommost = IsBottommost(v, *job);
    if (!ReadsExcluded(*job, p)) return job;
  }
  return nullptr;
}

// True when `f` may hold a version `d` deletes.
bool MayHoldDeleted(const FileMetaData& f, const RangeDeletion& d) {
  return f.props.min_sequence < d.sequence &&
         d.range.Overlaps(ExtractUserKey(f.smallest), ExtractUserKey(f.largest));
}

bool Touches(const FileMetaData& f, const KeyRange& r) {
  return r.Overlaps(ExtractUserKey(f.smallest), ExtractUserKey(f.largest));
}

// A range job: every file `range` touches, at every level (all of L0 when L0 is touched), and
// every deeper file overlapping them, merged into the deepest level involved; nullptr when no
// file touches the range.
std::unique_ptr<CompactionJob> PickRange(const Version& v, const KeyRange& range) {
  auto job = std::make_unique<CompactionJob>();
  int shallowest = -1;
  for (int level = 0; level < kNumLevels; level++) {
    for (const auto& f : v.files[level]) {
      if (!Touches(*f, range)) continue;
      if (shallowest < 0) shallowest = level;
      if (level == 0) {
        for (const auto& g : v.files[0]) job->inputs.emplace_back(0, g);
        break;
      }
      job->inputs.emplace_back(level, f);
    }
  }
  if (shallowest < 0) return nullptr;
  ExpandDown(v, shallowest, kNumLevels - 1, &job->inputs);
  job->output_level = OutputLevel(*job, shallowest);
  job->bottommost = IsBottommost(v, *job);
  return job;
}

// True when every file of `v` that touches `range` is an input of `job`.
bool JobCovers(const Version& v, const CompactionJob& job, const KeyRange& range) {
  for (const auto& level : v.files) {
    for (const auto& f : level) {
      if (Touches(*f, range) && !Contains(job.inputs, f->number)) return false;
    }
  }
  return true;
}

// The first range deletion to apply (no memtable holds what it deletes) or purge hint due.
std::unique_ptr<CompactionJob> PickRangeJob(const Version& v, const PickParams& p) {
  std::unique_ptr<CompactionJob> job;
  for (const RangeDeletion& d : v.range_deletions) {
    if (p.snapshots || d.sequence > p.memtable_min_sequence) continue;
    if (job = PickRange(v, d.range); job != nullptr) {
      job->reason = "range-deletion";
      break;
    }
  }
  if (job == nullptr) {
    for (const PurgeHint& h : v.purge_hints) {
      if (h.due_ms > p.now_ms) continue;
      if (job = PickRange(v, h.range); job != nullptr) {
        job->reason = "purge-hint";
        break;
      }
    }
  }
  if (job == nullptr || ReadsExcluded(*job, p)) return nullptr;
  job->may_collapse = false;
  // The job retires every fact whose range it covers whole.
  for (const RangeDeletion& d : v.range_deletions) {
    if (!p.snapshots && d.sequence <= p.memtable_min_sequence && JobCovers(v, *job, d.range)) {
      job->retires_deletions.push_back(d);
    }
  }
  for (const PurgeHint& h : v.purge_hints) {
    if (h.due_ms <= p.now_ms && JobCovers(v, *job, h.range)) job->retires_hints.push_back(h);
  }
  return job;
}

}  // namespace

int64_t PurgeDueAt(int64_t min_expire_at, int64_t purge_deadline_ms) {
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  if (purge_deadline_ms < 0 || min_expire_at == kNever) return kNever;
  int64_t due;
  if (__builtin_add_overflow(min_expire_at, purge_deadline_ms / 2, &due)) return kNever;
  return due;
}

void RetirableRangeFacts(const Version& v, const PickParams& p,
                         std::vector<RangeDeletion>* deletions, std::vector<PurgeHint>* hints) {
  for (const RangeDeletion& d : v.range_deletions) {
    if (d.sequence > p.memtable_min_sequence) continue;
    bool needed = false;
    for (const auto& level : v.files) {
      for (const auto& f : level) needed = needed || MayHoldDeleted(*f, d);
    }
    if (!needed) deletions->push_back(d);
  }
  for (const PurgeHint& h : v.purge_hints) {
    if (h.due_ms > p.now_ms) continue;
    bool needed = false;
    for (const auto& level : v.files) {
      for (const auto& f : level) needed = needed || Touches(*f, h.range);
    }
    if (!needed) hints->push_back(h);
  }
}

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
    for (const RangeDeletion& d : v.range_deletions) {
      if (!p.snapshots && d.sequence <= p.memtable_min_sequence) {
        job->retires_deletions.push_back(d);
      }
    }
    for (const PurgeHint& h : v.purge_hints) {
      if (h.due_ms <= p.now_ms) job->retires_hints.push_back(h);
    }
    if (ReadsExcluded(*job, p)) return nullptr;
    return job;
  }
  if (auto job = PickRangeJob(v, p); job != nullptr) return job;
  if (p.purge_enabled) {
    for (int level = 0; level < kNumLevels; level++) {
      for (const auto& f : v.files[level]) {
        if (!PurgeDue(*f, p)) continue;
        auto job = PickPurge(v, level, f);
        if (!ReadsExcluded(*job, p)) return job;
      }
    }
  }
  if (Level0FilesOf(v, p) >= p.l0_compaction_trigger) {
    auto job = std::make_unique<CompactionJob>();
    job->reason = "l0-files";
    for (const auto& f : v.files[0]) job->inputs.emplace_back(0, f);
    job->output_level = 1;
    ExpandDown(v, 0, 1, &job->inputs);
    job->bottommost = IsBottommost(v, *job);
    if (!ReadsExcluded(*job, p)) return job;
  }
  // Levels over their size, the fullest first (on a tie, the deeper one).
  std::vector<std::pair<double, int>> scores;
  double max_bytes = static_cast<double>(p.level1_max_bytes);
  for (int level = 1; level < kNumLevels - 1; level++) {
    const double score = static_cast<double>(v.LevelBytes(level)) / std::max(max_bytes, 1.0);
    if (score >= 1.0) scores.emplace_back(score, level);
    max_bytes *= std::max(p.level_size_multiplier, 2);
  }
  std::sort(scores.begin(), scores.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second > b.second;
  });
  for (const auto& [score, level] : scores) {
    if (auto job = PickBySize(v, level, p, &next_file[level])) return job;
  }
  return nullptr;
}

int Level0Files(const Version& v, const FileRegions& regions) {
  if (regions.empty()) return static_cast<int>(v.files[0].size());
  std::vector<int> per_region(regions.count(), 0);
  for (const auto& f : v.files[0]) {
    const size_t last = regions.RegionOf(ExtractUserKey(f->largest));
    for (size_t r = regions.RegionOf(ExtractUserKey(f->smallest)); r <= last; r++) {
      per_region[r]++;
    }
  }
  return *std::max_element(per_region.begin(), per_region.end());
}

std::vector<FileMove> PickFileMoves(const Version& v, const FileRegions& regions,
                                    const std::set<uint64_t>* excluded) {
  std::vector<FileMove> moves;
  if (regions.empty() || v.files[0].empty()) return moves;
  Version after = v;  // the tree as the moves decided so far leave it
  // Level 0 is newest first: walk it oldest first, so an older file's move frees a newer one.
  for (auto it = v.files[0].rbegin(); it != v.files[0].rend(); ++it) {
    const auto& f = *it;
    const std::string_view smallest = ExtractUserKey(f->smallest);
    const std::string_view largest = ExtractUserKey(f->largest);
    if (!regions.InsidePrefix(smallest, largest)) continue;
    if (excluded != nullptr && excluded->count(f->number) > 0) continue;
    const bool older_overlaps =
        std::any_of(after.files[0].begin(), after.files[0].end(), [&](const auto& g) {
          return g->number < f->number &&
                 CompareUserKeys(ExtractUserKey(g->largest), smallest) >= 0 &&
                 CompareUserKeys(ExtractUserKey(g->smallest), largest) <= 0;
        });
    if (older_overlaps) continue;
    int to = 0;
    while (to + 1 < kNumLevels && after.Overlapping(to + 1, smallest, largest).empty()) to++;
    if (to == 0) continue;
    moves.push_back(FileMove{f, to});
    std::erase_if(after.files[0], [&](const auto& g) { return g->number == f->number; });
    auto& level = after.files[to];
    level.insert(std::upper_bound(level.begin(), level.end(), f,
                                  [](const auto& a, const auto& b) {
                                    return CompareUserKeys(ExtractUserKey(a->smallest),
                                                           ExtractUserKey(b->smallest)) < 0;
                                  }),
                 f);
  }
  return moves;
}

uint64_t PendingCompactionBytes(const Version& v, const PickParams& p) {
  uint64_t pending = 0;
  uint64_t carried = 0;  // bytes the levels above must move into the next one
  if (Level0FilesOf(v, p) >= p.l0_compaction_trigger) {
    carried = v.LevelBytes(0);
    pending += carried;
  }
  // The same targets as PickCompaction's size scores.
  double max_bytes = static_cast<double>(p.level1_max_bytes);
  for (int level = 1; level < kNumLevels - 1; level++) {
    const uint64_t bytes = v.LevelBytes(level) + carried;
    const auto target = static_cast<uint64_t>(std::max(max_bytes, 1.0));
    carried = bytes > target ? bytes - target : 0;
    pending += carried;
    max_bytes *= std::max(p.level_size_multiplier, 2);
  }
  return pending;
}

namespace {

// True when a range deletion removes `v` for every reader: it covers the key, was written after
// `v`, and no snapshot lies between them.
bool DeletedByRange(std::string_view user_key, const KeyVersion& v, const ReduceContext& ctx) {
  if (ctx.range_deletions == nullptr) return false;
  for (const RangeDeletion& d : *ctx.range_deletions) {
    if (d.sequence <= v.sequence || !d.range.Contains(user_key)) continue;
    const auto snap = std::lower_bound(ctx.snapshots.begin(), ctx.snapshots.end(), v.sequence);
    if (snap == ctx.snapshots.end() || *snap >= d.sequence) return true;
  }
  return false;
}

// Keeps the versions at `indexes` (ascending) of `versions` at its front, in order; returns how
// many.
size_t KeepOnly(std::span<KeyVersion> versions, std::initializer_list<size_t> indexes) {
  size_t kept = 0;
  for (const size_t i : indexes) {
    if (i != kept) versions[kept] = std::move(versions[i]);
    kept++;
  }
  return kept;
}

// Reduces one snapshot stripe (versions no snapshot tells apart), most recently written first,
// in place: its survivors are moved to its front, in the same order, and their number returned.
// A wipe hides the older versions of the stripe. Moved, each survivor keeps its value's room.
size_t ReduceStripe(std::span<KeyVersion> stripe, bool collapse, ReduceStats* stats) {
  size_t end = stripe.size();  // versions before the first wipe, then the wipe
  for (size_t i = 0; i < stripe.size(); i++) {
    if (stripe[i].kind == RowKind::kWipe) {
      end = i;
      break;
    }
  }
  const bool has_wipe = end < stripe.size();
  stats->deleted += has_wipe ? stripe.size() - end - 1 : 0;
  // A version with the timestamp of the one written just after it (EXPIRE and PERSIST rewrite a
  // version that way) is never taken — ties go to the more recently written — and never ends a
  // read's walk that the newer one did not end, so it goes: its bytes with it.
  size_t kept = std::min<size_t>(end, 1);
  for (size_t i = 1; i < end; i++) {
    if (stripe[i].meta.timestamp_or_zero() == stripe[kept - 1].meta.timestamp_or_zero()) continue;
    if (kept != i) stripe[kept] = std::move(stripe[i]);
    kept++;
  }
  if (kept < end) {
    if (has_wipe) stripe[kept] = std::move(stripe[end]);
    end = kept;
  }
  if (collapse) {
    // The full-grace choice: the greatest timestamp, ties to the most recently written; the
    // wipe if nothing was written after it.
    size_t best = 0;
    for (size_t i = 1; i < end; i++) {
      if (stripe[i].meta.timestamp_or_zero() > stripe[best].meta.timestamp_or_zero()) best = i;
    }
    return KeepOnly(stripe, {best});
  }
  if (end > 2) {
    const int64_t newest_ts = stripe[0].meta.timestamp_or_zero();
    size_t least = 1;
    bool in_order = true;
    for (size_t i = 1; i < end && in_order; i++) {
      const int64_t ts = stripe[i].meta.timestamp_or_zero();
      if (ts > newest_ts) in_order = false;
      if (ts < stripe[least].meta.timestamp_or_zero()) least = i;
    }
    if (in_order)
      return has_wipe ? KeepOnly(stripe, {0, least, end}) : KeepOnly(stripe, {0, least});
  }
  return end + (has_wipe ? 1 : 0);  // the versions under the wipe go
}

// The stripe of a version at `sequence`: the oldest snapshot that can see it (snapshots.size()
// when it is newer than all).
size_t StripeOf(uint64_t sequence, const ReduceContext& ctx) {
  return std::lower_bound(ctx.snapshots.begin(), ctx.snapshots.end(), sequence) -
         ctx.snapshots.begin();
}

}  // namespace

// In place, with no heap block of its own: each step moves its survivors down the vector.
std::vector<KeyVersion> ReduceVersions(std::string_view user_key, std::vector<KeyVersion> versions,
                                       const ReduceContext& ctx, ReduceStats* stats) {
  // The versions a range deletion removes go; the rest keep their order.
  stats->deleted += std::erase_if(
      versions, [&](const KeyVersion& v) { return DeletedByRange(user_key, v, ctx); });
  // Survivors, most recently written first, stripe by stripe, gathered at the front.
  const bool collapse = ctx.whole_history && ctx.snapshots.empty();
  size_t survivors = 0;
  for (size_t begin = 0; begin < versions.size();) {
    const size_t id = StripeOf(versions[begin].sequence, ctx);
    size_t end = begin + 1;
    while (end < versions.size() && StripeOf(versions[end].sequence, ctx) == id) end++;
    const size_t kept =
        ReduceStripe(std::span(versions).subspan(begin, end - begin), collapse, stats);
    for (size_t i = 0; i < kept; i++) {
      if (survivors != begin + i) versions[survivors] = std::move(versions[begin + i]);
      survivors++;
    }
    begin = end;
  }
  versions.resize(survivors);

  // Oldest first: whether something older stays under a version decides if a dead one may go.
  // The versions kept are moved to the back, [out, size), in their order.
  size_t out = versions.size();
  bool something_beneath = !ctx.nothing_below;
  // Whether a version beneath may yet vanish without a row of its own saying when: a deeper
  // table's (a range deletion, whole-file expiry) or a dead version's. A live one beneath carries
  // its own expiry, if it has one, for the purge scheduler.
  bool beneath_may_vanish = !ctx.nothing_below;
  for (size_t i = versions.size(); i-- > 0;) {
    KeyVersion& v = versions[i];
    bool dead = v.kind != RowKind::kValue;
    if (!dead && v.meta.ExpiredAt(ctx.expiry_now_ms)) {
      dead = true;
      stats->expired++;
      stats->expired_bytes += user_key.size() + v.value.size();
      if (ctx.filter != nullptr && ctx.expired_ranges != nullptr) {
        ctx.filter->ExpiredRowRanges(user_key, v.value, ctx.expired_ranges);
      }
    }
    if (!dead && ctx.filter != nullptr) {
      std::string new_value;
      switch (ctx.filter->Filter(user_key, v.meta, v.value, ctx.filter_now_ms, &new_value)) {
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
      // With nothing beneath, a read's walk ends at this version whenever it reaches it, and
      // takes it only when every newer version has a smaller timestamp (a wipe: only when it is
      // the first). It may go when no read takes it, or when taking it leaves the key absent
      // anyway because nothing newer exists.
      bool chosen_by_some_read = false;
      if (v.kind != RowKind::kWipe && i > 0) {
        const int64_t ts = v.meta.timestamp_or_zero();
        chosen_by_some_read = true;
        for (size_t j = 0; j < i && chosen_by_some_read; j++) {
          chosen_by_some_read = versions[j].meta.timestamp_or_zero() < ts;
        }
      } else if (v.kind != RowKind::kWipe) {
        // The newest version the input holds: newer ones outside it may all be smaller.
        const bool newer_may_rank_below = ctx.newer_min_timestamp < v.meta.timestamp_or_zero();
        chosen_by_some_read = !ctx.forget_newest_dead || newer_may_rank_below;
        // Kept for a later write it would hide, unless none can come any more.
        if (ctx.forget_newest_dead && !something_beneath && ctx.filter != nullptr &&
            ctx.filter->KeepsNewestDead(user_key)) {
          chosen_by_some_read =
              !ctx.filter->CollectsNewestDead(user_key, v.meta, v.value, newer_may_rank_below);
          if (!chosen_by_some_read) stats->collected++;
        }
      }
      if (!something_beneath && !chosen_by_some_read) continue;  // nothing to hide: gone
      if (v.kind == RowKind::kValue) {
        // A tombstone keeps what ReducedDeadValue gave it, here or in an earlier compaction.
        std::string reduced;
        if (ctx.filter != nullptr)
          ctx.filter->ReducedDeadValue(user_key, v.meta, v.value, &reduced);
        v.kind = RowKind::kTombstone;
        v.value = std::move(reduced);
      } else if (v.kind == RowKind::kWipe) {
        v.value.clear();
      }
      // A dead version keeps its expiry while what lies beneath it may yet vanish, so purge
      // scheduling finds it again; otherwise it stays only to hide what it hides, and an expiry
      // already passed would make its table due for a purge again at once, for good.
      if (!beneath_may_vanish && ctx.forget_newest_dead) v.meta.expire_at_ms.reset();
      beneath_may_vanish = true;
    }
    if (--out != i) versions[out] = std::move(v);  // out >= i: that slot was moved on or dropped
    something_beneath = true;
  }
  versions.erase(versions.begin(), versions.begin() + static_cast<ptrdiff_t>(out));
  return versions;
}

void ReduceForFlush(std::vector<KeyVersion>* versions, uint64_t floor_sequence) {
  size_t kept = versions->size();
  for (size_t i = 0; i < versions->size(); i++) {
    if ((*versions)[i].sequence < floor_sequence) {
      kept = i;
      break;
    }
  }
  versions->resize(kept);
  if (versions->empty()) return;
  ReduceStats unused;
  versions->resize(ReduceStripe(*versions, /*collapse=*/false, &unused));
}

Status ReduceInput(InternalIterator* input, const KeyReducer& reduce, const KeyEmitter& emit) {
  std::string user_key;
  // The current key's versions are the first `count`; each slot's value keeps its room for the
  // next key's, so a run of keys with one version each copies values and allocates nothing.
  std::vector<KeyVersion> versions;
  size_t count = 0;
  for (;;) {
    const bool at_end = !input->Valid();
    ParsedInternalKey ikey;
    if (!at_end && !ParseInternalKey(input->key(), &ikey)) {
      return Status::Corruption("compaction: malformed internal key");
    }
    if (at_end || (count > 0 && CompareUserKeys(ikey.user_key, user_key) != 0)) {
      // One user key complete: reduce it and hand on the survivors.
      if (count > 0) {
        versions.resize(count);
        reduce(user_key, &versions);
        Status s = emit(user_key, versions);
        if (!s.ok()) return s;
        count = 0;
      }
      if (at_end) return input->status();
    }
    if (count == versions.size()) versions.emplace_back();
    KeyVersion& v = versions[count];
    std::string_view value;
    if (!DecodeRow(input->value(), &v.meta, &value)) {
      return Status::Corruption("compaction: malformed row");
    }
    if (count == 0) user_key.assign(ikey.user_key);
    v.sequence = ikey.sequence;
    v.kind = ikey.kind;
    v.value.assign(value);
    count++;
    input->Next();
  }
}

Status EmitEntries(std::string_view user_key, const std::vector<KeyVersion>& survivors,
                   const EntryEmitter& add, std::string* internal_key, std::string* row) {
  for (const KeyVersion& v : survivors) {
    internal_key->clear();
    row->clear();
    AppendInternalKey(internal_key, user_key, v.sequence, v.kind);
    AppendEncodedRow(row, v.meta, v.value);
    Status s = add(*internal_key, *row);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace ebb::storage
