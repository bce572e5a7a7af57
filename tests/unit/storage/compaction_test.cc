// Compaction's per-key reduction rule (ReduceVersions) and its planner (PickCompaction).
#include "storage/db/compaction.h"

#include <gtest/gtest.h>

#include "tests/unit/storage/dead_version_keeper.h"

namespace ebb::storage {
namespace {

KeyVersion V(uint64_t seq, std::optional<int64_t> ts, std::string value,
             std::optional<int64_t> expire_at = {}) {
  KeyVersion v;
  v.sequence = seq;
  v.kind = RowKind::kValue;
  v.meta.timestamp_ms = ts;
  v.meta.expire_at_ms = expire_at;
  v.value = std::move(value);
  return v;
}
KeyVersion T(uint64_t seq, std::optional<int64_t> ts) {
  KeyVersion v = V(seq, ts, "");
  v.kind = RowKind::kTombstone;
  return v;
}
KeyVersion W(uint64_t seq, std::optional<int64_t> ts) {
  KeyVersion v = V(seq, ts, "");
  v.kind = RowKind::kWipe;
  return v;
}

// ReduceForFlush's survivors of `versions`.
std::vector<KeyVersion> Flushed(std::vector<KeyVersion> versions, uint64_t floor_sequence = 0) {
  ReduceForFlush(&versions, floor_sequence);
  return versions;
}

std::string Show(const std::vector<KeyVersion>& out) {
  std::string s;
  for (const auto& v : out) {
    if (!s.empty()) s += " ";
    s += std::to_string(v.sequence) +
         (v.kind == RowKind::kTombstone ? "T"
          : v.kind == RowKind::kWipe    ? "W"
                                        : "=" + v.value) +
         "@" + std::to_string(v.meta.timestamp_or_zero());
    if (v.meta.expire_at_ms) s += "~" + std::to_string(*v.meta.expire_at_ms);
  }
  return s;
}

// What a reduction knows; the defaults: a job in the middle of the tree, nothing expiring.
struct Ctx {
  std::vector<uint64_t> snaps;
  bool whole = false;   // the job holds the key's whole history
  bool bottom = false;  // nothing older below
  int64_t now = INT64_MIN;
  int64_t newer_min = INT64_MAX;
  const CompactionFilter* filter = nullptr;
  std::vector<RangeDeletion> deletions;
  bool forget = true;  // ReduceContext::forget_newest_dead
};

std::string Reduce(std::vector<KeyVersion> in, const Ctx& c = {}, ReduceStats* stats = nullptr,
                   std::vector<KeyRange>* expired_ranges = nullptr) {
  ReduceStats local;
  ReduceContext ctx;
  ctx.snapshots = c.snaps;
  ctx.range_deletions = &c.deletions;
  ctx.whole_history = c.whole;
  ctx.nothing_below = c.bottom || c.whole;
  ctx.newer_min_timestamp = c.newer_min;
  ctx.expiry_now_ms = c.now;
  ctx.filter = c.filter;
  ctx.expired_ranges = expired_ranges;
  ctx.forget_newest_dead = c.forget;
  return Show(ReduceVersions("k", std::move(in), ctx, stats ? stats : &local));
}

TEST(ReduceVersionsTest, AWholeHistoryCollapsesToTheFullGraceChoice) {
  // Walk order @100, @50, @150 -> @150 survives; ties go to the most recently written.
  EXPECT_EQ(Reduce({V(3, 100, "a"), V(2, 50, "b"), V(1, 150, "c")}, {.whole = true}), "1=c@150");
  EXPECT_EQ(Reduce({V(3, 100, "new"), V(2, 100, "old")}, {.whole = true}), "3=new@100");
  EXPECT_EQ(Reduce({V(2, {}, "x"), V(1, {}, "y")}, {.whole = true}), "2=x@0");
}

TEST(ReduceVersionsTest, APartialHistoryKeepsEveryAnswer) {
  // Out of order: an older version may still win some grace read, or end a walk.
  EXPECT_EQ(Reduce({V(3, 100, "a"), V(2, 50, "b"), V(1, 150, "c")}), "3=a@100 2=b@50 1=c@150");
  // In order: the newest wins every read; the least timestamp ends a walk when any would.
  EXPECT_EQ(Reduce({V(4, 400, "d"), V(3, 300, "c"), V(2, 100, "b"), V(1, 200, "a")}),
            "4=d@400 2=b@100");
  EXPECT_EQ(Reduce({V(2, 100, "b"), V(1, 40, "a")}), "2=b@100 1=a@40");
}

TEST(ReduceVersionsTest, TombstoneTakesPartLikeAValue) {
  // A tombstone at ts 50 written after a value at ts 100 loses to it.
  EXPECT_EQ(Reduce({T(2, 50), V(1, 100, "v")}, {.whole = true}), "1=v@100");
  // A winning tombstone stays above older data, vanishes when nothing is under it.
  EXPECT_EQ(Reduce({T(2, 200), V(1, 100, "v")}, {.whole = false}), "2T@200 1=v@100");
  EXPECT_EQ(Reduce({T(2, 200), V(1, 100, "v")}, {.whole = true}), "");
}

TEST(ReduceVersionsTest, AWipeHidesEverythingOlderWhateverItsTimestamp) {
  ReduceStats stats;
  EXPECT_EQ(Reduce({W(3, 10), V(2, 500, "b"), V(1, 900, "a")}, {}, &stats), "3W@10");
  EXPECT_EQ(stats.deleted, 2u);
  // What was written after it stays, reduced as usual; the wipe stays over older data.
  EXPECT_EQ(Reduce({V(5, 30, "c"), V(4, 20, "b"), W(3, 10), V(2, 900, "a")}),
            "5=c@30 4=b@20 3W@10");
  EXPECT_EQ(Reduce({V(5, 30, "c"), V(4, 20, "b"), W(3, 10), V(2, 900, "a")}, {.whole = true}),
            "5=c@30");
  EXPECT_EQ(Reduce({W(3, 10), V(2, 900, "a")}, {.bottom = true}), "");
}

TEST(ReduceVersionsTest, ARangeDeletionDropsWhatItCovers) {
  Ctx c;
  c.deletions = {RangeDeletion{{"a", "z"}, 3}, RangeDeletion{{"x", "y"}, 9}};
  EXPECT_EQ(Reduce({V(4, 1, "new"), V(2, 900, "old"), T(1, 5)}, c), "4=new@1");
  // A snapshot between a version and the deletion keeps the version for its readers.
  c.snaps = {2};
  EXPECT_EQ(Reduce({V(4, 1, "new"), V(2, 900, "old")}, c), "4=new@1 2=old@900");
}

TEST(ReduceVersionsTest, ExpiredSurvivorBecomesTombstoneOrVanishes) {
  ReduceStats stats;
  std::vector<KeyRange> ranges;
  // Above older data, an expired value becomes a tombstone that keeps its expiry (so purge
  // scheduling still finds it).
  EXPECT_EQ(Reduce({V(2, 110, "b", 150), V(1, 100, "a", 200)}, {.now = 160}, &stats),
            "2T@110~150 1=a@100~200");
  EXPECT_EQ(stats.expired, 1u);
  EXPECT_EQ(Reduce({V(2, 110, "b", 150), V(1, 100, "a", 200)}, {.whole = true, .now = 160}, &stats),
            "");
  EXPECT_EQ(stats.expired, 2u);
  EXPECT_EQ(Reduce({V(1, 100, "a", 200)}, {.bottom = true, .now = 199}), "1=a@100~200");
}

TEST(ReduceVersionsTest, ADeadVersionAtTheBottomStaysOnlyToHideNewerOnes) {
  // Newer data outside the job may be older in time: the expired row still hides it from a
  // full-grace read, so it stays — without its expiry, which nothing is left to purge.
  EXPECT_EQ(Reduce({V(1, 100, "a", 200)}, {.bottom = true, .now = 300, .newer_min = 50}), "1T@100");
  EXPECT_EQ(Reduce({V(1, 100, "a", 200)}, {.bottom = true, .now = 300, .newer_min = 100}), "");
  // Inside the job: it goes when a newer version's timestamp is at least its own.
  EXPECT_EQ(Reduce({V(3, 10, "c"), V(2, 500, "b"), T(1, 20)}, {.bottom = true}), "3=c@10 2=b@500");
  EXPECT_EQ(Reduce({V(3, 10, "c"), T(2, 20)}, {.bottom = true}), "3=c@10 2T@20");
}

// A key's newest dead version is what every read takes now; gone, it would no longer hide a
// write that arrives later with an older timestamp. A range job, which runs when a FLUSHDB
// allows rather than when the data says, keeps it (and its expiry, for the purge).
TEST(ReduceVersionsTest, AJobThatMayNotForgetKeepsTheNewestDeadVersion) {
  EXPECT_EQ(Reduce({T(2, 50)}, {.bottom = true}), "");
  EXPECT_EQ(Reduce({T(2, 50)}, {.bottom = true, .forget = false}), "2T@50");
  EXPECT_EQ(Reduce({V(1, 10, "a", 20)}, {.bottom = true, .now = 30, .forget = false}), "1T@10~20");
  // Versions no read takes go all the same.
  EXPECT_EQ(Reduce({V(2, 60, "b"), T(1, 50)}, {.bottom = true, .forget = false}), "2=b@60");
}

TEST(ReduceVersionsTest, SnapshotsStripeVersions) {
  // Snapshot at 2 sees versions 1-2; later versions are a separate stripe.
  EXPECT_EQ(Reduce({V(4, 10, "d"), V(3, 5, "c"), V(2, 1, "b"), V(1, 7, "a")}, {.snaps = {2}}),
            "4=d@10 3=c@5 2=b@1 1=a@7");
  EXPECT_EQ(Reduce({V(3, 11, "c"), T(2, 9)}, {.snaps = {2}, .bottom = true}), "3=c@11");
  EXPECT_EQ(Reduce({V(3, 5, "c"), T(2, 9)}, {.snaps = {2}, .bottom = true}), "3=c@5 2T@9");
  EXPECT_EQ(Reduce({T(3, 9), V(2, 5, "b")}, {.snaps = {2}, .bottom = true}), "3T@9 2=b@5");
}

class DropOdd final : public CompactionFilter {
 public:
  Decision Filter(std::string_view, const RowMeta&, std::string_view value, int64_t,
                  std::string* new_value) const override {
    if (value == "drop") return Decision::kDrop;
    if (value == "change") {
      *new_value = "changed";
      return Decision::kChangeValue;
    }
    return Decision::kKeep;
  }
  void ExpiredRowRanges(std::string_view key, std::string_view value,
                        std::vector<KeyRange>* ranges) const override {
    ranges->push_back({std::string(key) + "/" + std::string(value), std::string(key) + "0"});
  }
  const char* Name() const override { return "test"; }
};

TEST(ReduceVersionsTest, FilterDecides) {
  DropOdd filter;
  ReduceStats stats;
  EXPECT_EQ(Reduce({V(1, 5, "drop")}, {.filter = &filter}, &stats), "1T@5");
  EXPECT_EQ(Reduce({V(1, 5, "drop")}, {.bottom = true, .filter = &filter}, &stats), "");
  EXPECT_EQ(stats.filtered, 2u);
  EXPECT_EQ(Reduce({V(1, 5, "change")}, {.bottom = true, .filter = &filter}, &stats),
            "1=changed@5");
}

TEST(ReduceVersionsTest, AFilterKeepsTheNewestDeadVersionAsATombstone) {
  DeadVersionKeeper filter;
  // With nothing under it, the newest dead version stays (a tombstone of its timestamp, without
  // an expiry and, for an expired value, without its bytes); what it hides still goes.
  EXPECT_EQ(Reduce({T(2, 200), V(1, 100, "v")}, {.whole = true, .filter = &filter}), "2T@200");
  EXPECT_EQ(Reduce({T(1, 200)}, {.bottom = true, .filter = &filter}), "1T@200");
  EXPECT_EQ(Reduce({V(1, 200, "v", 10)}, {.bottom = true, .now = 20, .filter = &filter}), "1T@200");
  // Without the filter both vanish; a dead version under a newer one with a greater timestamp
  // goes either way.
  EXPECT_EQ(Reduce({T(1, 200)}, {.bottom = true}), "");
  EXPECT_EQ(Reduce({V(2, 300, "new"), T(1, 200)}, {.bottom = true, .filter = &filter}),
            "2=new@300");
}

// Keeps dead versions, and reduces a dead value to a tombstone carrying "rank(<value>)".
class RankKeeper final : public DeadVersionKeeper {
 public:
  void ReducedDeadValue(std::string_view, const RowMeta&, std::string_view value,
                        std::string* reduced) const override {
    *reduced = "rank(" + std::string(value) + ")";
  }
  const char* Name() const override { return "test: keeps ranks"; }
};

TEST(ReduceVersionsTest, AKeptDeadValueCarriesWhatTheFilterReducesItTo) {
  RankKeeper filter;
  const std::vector<RangeDeletion> none;
  ReduceContext ctx;
  ctx.range_deletions = &none;
  ctx.nothing_below = true;
  ctx.expiry_now_ms = 20;
  ctx.filter = &filter;
  ReduceStats stats;
  std::vector<KeyVersion> out = ReduceVersions("k", {V(1, 200, "v", 10)}, ctx, &stats);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, RowKind::kTombstone);
  EXPECT_EQ(out[0].value, "rank(v)");
  EXPECT_FALSE(out[0].meta.expire_at_ms);
  // A later compaction keeps it: a tombstone's bytes are not reduced again.
  out = ReduceVersions("k", std::move(out), ctx, &stats);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].value, "rank(v)");
  // A DELETE's tombstone carries nothing.
  out = ReduceVersions("k", {T(1, 200)}, ctx, &stats);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].value, "");
}

// Keeps dead versions, but lets go a newest dead version whose value says "done".
// Collects a tombstone whose value is "done" in a quiet range, and one whose value is "wiped"
// (its key's writers wipe before a lower version) whatever newer data there is.
class DoneCollector final : public DeadVersionKeeper {
 public:
  bool CollectsNewestDead(std::string_view, const RowMeta&, std::string_view value,
                          bool newer_may_rank_below) const override {
    return value == "wiped" || (value == "done" && !newer_may_rank_below);
  }
};

TEST(ReduceVersionsTest, ANewestDeadVersionWithNothingLeftToHideIsCollected) {
  DoneCollector filter;
  KeyVersion done = T(1, 200);
  done.value = "done";
  ReduceStats stats;
  EXPECT_EQ(Reduce({done}, {.bottom = true, .filter = &filter}, &stats), "");
  EXPECT_EQ(stats.collected, 1u);
  // Kept: another tombstone, one with something under it, one newer data outside the input may
  // rank below, and one a reduction whose timing the data does not decide would forget.
  stats = {};
  EXPECT_EQ(Reduce({T(1, 200)}, {.bottom = true, .filter = &filter}, &stats), "1T@200");
  EXPECT_EQ(Reduce({done}, {.filter = &filter}, &stats), "1T@200");
  EXPECT_EQ(Reduce({done}, {.bottom = true, .newer_min = 100, .filter = &filter}, &stats),
            "1T@200");
  EXPECT_EQ(Reduce({done}, {.bottom = true, .filter = &filter, .forget = false}, &stats), "1T@200");
  EXPECT_EQ(stats.collected, 0u);
}

TEST(ReduceVersionsTest, AFilterMayCollectWhileNewerDataMayRankBelow) {
  DoneCollector filter;
  KeyVersion wiped = T(1, 200);
  wiped.value = "wiped";
  ReduceStats stats;
  EXPECT_EQ(Reduce({wiped}, {.bottom = true, .newer_min = 100, .filter = &filter}, &stats), "");
  EXPECT_EQ(stats.collected, 1u);
  // Still kept with something under it, and by a reduction whose timing the data does not decide.
  stats = {};
  EXPECT_EQ(Reduce({wiped}, {.newer_min = 100, .filter = &filter}, &stats), "1T@200");
  EXPECT_EQ(Reduce({wiped}, {.bottom = true, .newer_min = 100, .filter = &filter, .forget = false},
                   &stats),
            "1T@200");
  EXPECT_EQ(stats.collected, 0u);
}

TEST(ReduceVersionsTest, AnExpiredRowNamesTheRangesThatLivedThroughIt) {
  DropOdd filter;
  std::vector<KeyRange> ranges;
  EXPECT_EQ(Reduce({V(1, 5, "log", 10)}, {.bottom = true, .now = 20, .filter = &filter}, nullptr,
                   &ranges),
            "");
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].begin, "k/log");
  EXPECT_EQ(Reduce({V(1, 5, "log", 30)}, {.bottom = true, .now = 20, .filter = &filter}, nullptr,
                   &ranges),
            "1=log@5~30");
  EXPECT_EQ(ranges.size(), 1u);
}

std::shared_ptr<const FileMetaData> File(uint64_t number, const std::string& smallest,
                                         const std::string& largest, uint64_t size,
                                         int64_t min_expire = INT64_MAX) {
  auto f = std::make_shared<FileMetaData>();
  f->number = number;
  f->file_size = size;
  AppendInternalKey(&f->smallest, smallest, 10, RowKind::kValue);
  AppendInternalKey(&f->largest, largest, 1, RowKind::kValue);
  f->props.min_expire_at = min_expire;
  f->props.min_sequence = 1;
  f->props.max_sequence = 10;
  return f;
}

TEST(ReduceVersionsTest, ExpiredBytesCountTheKeyAndValueOfEachExpiredRow) {
  ReduceStats stats;
  // Two expired values ("k" + "abc", "k" + "de"); the live one and the tombstone do not count.
  const Ctx at100{.bottom = true, .now = 100};
  EXPECT_EQ(Reduce({V(1, 10, "abc", 50)}, at100, &stats), "");
  EXPECT_EQ(Reduce({V(2, 20, "de", 60)}, at100, &stats), "");
  EXPECT_EQ(Reduce({V(3, 30, "live", 1000)}, at100, &stats), "3=live@30~1000");
  Reduce({T(4, 40)}, at100, &stats);
  EXPECT_EQ(stats.expired, 2u);
  EXPECT_EQ(stats.expired_bytes, (1u + 3u) + (1u + 2u));
}

TEST(PendingCompactionBytesTest, CountsLevel0AtItsTriggerAndEachLevelsExcessCarriedDown) {
  PickParams p;
  p.l0_compaction_trigger = 2;
  p.level1_max_bytes = 100;
  p.level_size_multiplier = 10;  // L2's target 1000, L3's 10000
  Version v;
  EXPECT_EQ(PendingCompactionBytes(v, p), 0u);
  v.files[0].push_back(File(1, "a", "b", 30));
  v.files[1].push_back(File(2, "a", "z", 90));
  EXPECT_EQ(PendingCompactionBytes(v, p), 0u);  // L0 under its trigger, L1 within 100
  v.files[0].push_back(File(3, "c", "d", 40));
  // L0: 70 to move; L1 then holds 160, 60 over its target; L2 holds 60 of 1000.
  EXPECT_EQ(PendingCompactionBytes(v, p), 70u + 60u);
  v.files[2].push_back(File(4, "a", "z", 990));
  // L2 then holds 1050, 50 over; L3 holds 50.
  EXPECT_EQ(PendingCompactionBytes(v, p), 70u + 60u + 50u);
}

TEST(ReduceForFlushTest, InOrderOverwritesKeepTheNewestAndTheOneThatEndsAGraceWalk) {
  // Newest first: @400 is the greatest, @100 the least of the rest.
  EXPECT_EQ(
      Show(Flushed({V(5, 400, "e"), V(4, 300, "d"), T(3, 100), V(2, 200, "b"), V(1, 150, "a")})),
      "5=e@400 3T@100");
  // Ties with the newest cannot win either, nor end a walk the newest did not end: they go.
  EXPECT_EQ(Show(Flushed({V(3, 100, "c"), V(2, 100, "b"), V(1, 100, "a")})), "3=c@100");
  EXPECT_EQ(Show(Flushed({V(4, 100, "d"), V(3, 100, "c"), V(2, 40, "b"), V(1, 40, "a")})),
            "4=d@100 2=b@40");
  // EXPIRE's rewrite (the same timestamp, now expiring) replaces the version beneath it.
  EXPECT_EQ(Show(Flushed({V(2, 100, "v"), V(1, 100, "v")})), "2=v@100");
}

TEST(ReduceForFlushTest, WipesAndRangeDeletionsHideOlderVersions) {
  EXPECT_EQ(Show(Flushed({V(4, 40, "d"), V(3, 30, "c"), W(2, 5), V(1, 900, "a")})),
            "4=d@40 3=c@30 2W@5");
  EXPECT_EQ(Show(Flushed({V(4, 40, "d"), V(3, 30, "c"), V(1, 900, "a")}, 2)), "4=d@40 3=c@30");
  EXPECT_EQ(Show(Flushed({V(1, 900, "a")}, 2)), "");
}

TEST(ReduceForFlushTest, AnOlderVersionWithAGreaterTimestampKeepsEveryVersion) {
  EXPECT_EQ(Show(Flushed({V(3, 100, "c"), V(2, 40, "b"), V(1, 200, "a")})),
            "3=c@100 2=b@40 1=a@200");
  EXPECT_EQ(Show(Flushed({V(2, 100, "b"), V(1, 40, "a")})), "2=b@100 1=a@40");
  EXPECT_EQ(Show(Flushed({V(1, 7, "a")})), "1=a@7");
}

TEST(FileRegionsTest, EachPrefixIsARegionBetweenTheKeysAroundIt) {
  const FileRegions none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.count(), 1u);
  EXPECT_EQ(none.RegionOf("anything"), 0u);
  EXPECT_FALSE(none.InsidePrefix("a", "a"));
  const FileRegions regions({"log:", "b:"});  // sorted by the constructor
  EXPECT_EQ(regions.count(), 5u);
  EXPECT_EQ(regions.RegionOf("a"), 0u);
  EXPECT_EQ(regions.RegionOf("b:"), 1u);
  EXPECT_EQ(regions.RegionOf("b:zz"), 1u);
  EXPECT_EQ(regions.RegionOf("b;"), 2u);  // just past "b:"
  EXPECT_EQ(regions.RegionOf("log"), 2u);
  EXPECT_EQ(regions.RegionOf("log:0001"), 3u);
  EXPECT_EQ(regions.RegionOf("log;"), 4u);
  EXPECT_EQ(regions.RegionOf("z"), 4u);
  EXPECT_TRUE(regions.InsidePrefix("log:0001", "log:0009"));
  EXPECT_FALSE(regions.InsidePrefix("log:0001", "z"));
  EXPECT_FALSE(regions.InsidePrefix("a", "a"));
}

TEST(Level0FilesTest, CountsTheFilesOfTheFullestRegion) {
  const FileRegions regions({"log:"});
  Version v;
  // Two flushes, each cut into the keys before the log, the log's and the keys after it.
  v.files[0] = {File(6, "m", "z", 10), File(5, "log:0200", "log:0299", 10), File(4, "a", "k", 10),
                File(3, "m", "z", 10), File(2, "log:0100", "log:0199", 10), File(1, "a", "k", 10)};
  EXPECT_EQ(Level0Files(v, regions), 2);
  EXPECT_EQ(Level0Files(v, FileRegions()), 6);  // no regions: every file counts
  // A file written before the regions spans them all, and counts in each.
  v.files[0].push_back(File(0, "a", "z", 10));
  EXPECT_EQ(Level0Files(v, regions), 3);
  PickParams p;
  p.l0_compaction_trigger = 4;
  p.regions = &regions;
  size_t next[kNumLevels] = {};
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
  p.l0_compaction_trigger = 3;
  EXPECT_NE(PickCompaction(v, p, next), nullptr);
}

TEST(PickFileMovesTest, AFileInsideAPrefixMovesToTheDeepestLevelNothingAboveOverlaps) {
  const FileRegions regions({"log:"});
  Version v;
  v.files[0] = {File(9, "log:0300", "log:0399", 10), File(8, "m", "z", 10),
                File(7, "log:0200", "log:0299", 10), File(6, "log:0250", "log:0250", 10)};
  v.files[3] = {File(2, "log:0290", "log:0295", 10)};
  v.files[6] = {File(1, "log:0000", "log:0199", 10)};
  const auto moves = PickFileMoves(v, regions, nullptr);
  // Oldest first: 6 overlaps nothing and reaches the bottom; 7, newer and over 6, stops above
  // level 3's file 2; 9 overlaps nothing. The file outside the prefix stays.
  ASSERT_EQ(moves.size(), 3u);
  EXPECT_EQ(moves[0].file->number, 6u);
  EXPECT_EQ(moves[0].to_level, 6);
  EXPECT_EQ(moves[1].file->number, 7u);
  EXPECT_EQ(moves[1].to_level, 2);
  EXPECT_EQ(moves[2].file->number, 9u);
  EXPECT_EQ(moves[2].to_level, 6);
  EXPECT_TRUE(PickFileMoves(v, FileRegions(), nullptr).empty());  // no regions: no moves
}

TEST(PickFileMovesTest, AFileStaysUnderAnOlderLevel0FileOrALevel1FileItOverlaps) {
  const FileRegions regions({"log:"});
  Version v;
  // Newest first: 5 overlaps the older file 4, which spans the regions (written before them).
  v.files[0] = {File(5, "log:0100", "log:0199", 10), File(4, "a", "z", 10)};
  EXPECT_TRUE(PickFileMoves(v, regions, nullptr).empty());
  v.files[0] = {File(5, "log:0100", "log:0199", 10)};
  v.files[1] = {File(3, "log:0150", "log:0160", 10)};
  EXPECT_TRUE(PickFileMoves(v, regions, nullptr).empty());
  v.files[1].clear();
  const std::set<uint64_t> damaged{5};
  EXPECT_TRUE(PickFileMoves(v, regions, &damaged).empty());
  ASSERT_EQ(PickFileMoves(v, regions, nullptr).size(), 1u);
}

TEST(PickCompactionTest, L0ByCountWithOverlappingL1) {
  Version v;
  v.files[0] = {File(5, "c", "f", 10), File(4, "a", "b", 10)};
  v.files[1] = {File(1, "a", "a", 10), File(2, "e", "g", 10), File(3, "x", "z", 10)};
  v.files[2] = {File(6, "y", "y", 10)};
  PickParams p;
  p.l0_compaction_trigger = 2;
  p.level1_max_bytes = 1000;
  size_t next[kNumLevels] = {};
  auto job = PickCompaction(v, p, next);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->output_level, 1);
  EXPECT_EQ(job->inputs.size(), 4u);  // both L0 + L1 files 1 and 2, not 3
  EXPECT_TRUE(job->bottommost);       // L2's file is outside a..g
  p.l0_compaction_trigger = 3;
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
}

TEST(PickCompactionTest, ABottommostJobLooksUnderEachInputNotUnderTheirWholeRange) {
  Version v;
  // Level 0 on either side of a separate region whose own file lies at the bottom.
  v.files[0] = {File(5, "a", "c", 10), File(4, "x", "z", 10)};
  v.files[6] = {File(1, "log:1", "log:9", 10)};
  PickParams p;
  p.l0_compaction_trigger = 2;
  size_t next[kNumLevels] = {};
  auto job = PickCompaction(v, p, next);
  ASSERT_NE(job, nullptr);
  EXPECT_TRUE(job->bottommost);
  v.files[6].insert(v.files[6].begin(), File(2, "b", "b", 10));  // under an input
  job = PickCompaction(v, p, next);
  ASSERT_NE(job, nullptr);
  EXPECT_FALSE(job->bottommost);
}

TEST(PickCompactionTest, PurgeDeadlineGoesToTheBottomOfTheRange) {
  Version v;
  v.files[1] = {File(1, "a", "c", 10, 100), File(2, "m", "p", 10)};
  v.files[3] = {File(3, "b", "d", 10), File(4, "q", "r", 10)};
  PickParams p;
  p.l0_compaction_trigger = 4;
  p.level1_max_bytes = 1000;
  p.purge_deadline_ms = 100;
  p.now_ms = 149;
  p.expiry_now_ms = 149;
  size_t next[kNumLevels] = {};
  // Due half the deadline after the earliest expiry, so the rewrite ends within it.
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
  p.now_ms = p.expiry_now_ms = 150;
  auto job = PickCompaction(v, p, next);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->output_level, 3);
  EXPECT_EQ(job->inputs.size(), 2u);
  EXPECT_TRUE(job->bottommost);
  // No deadline: never due.
  p.purge_deadline_ms = -1;
  p.now_ms = p.expiry_now_ms = INT64_MAX / 2;
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
  // Expiry frozen before the rows expire: nothing is expired, nothing is due.
  p.purge_deadline_ms = 100;
  p.expiry_now_ms = 99;
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
}

TEST(PickCompactionTest, ARangeDeletionWaitsForTheMemtablesThenTakesEveryFileItTouches) {
  Version v;
  v.files[1] = {File(1, "a", "c", 10), File(2, "m", "p", 10)};
  v.files[3] = {File(3, "b", "d", 10), File(4, "n", "o", 10), File(5, "q", "r", 10)};
  v.range_deletions = {RangeDeletion{{"b", "n"}, 20}};
  PickParams p;
  p.level1_max_bytes = 1000;
  size_t next[kNumLevels] = {};
  p.memtable_min_sequence = 19;  // a memtable still holds a version it deletes
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
  p.memtable_min_sequence = 20;
  auto job = PickCompaction(v, p, next);
  ASSERT_NE(job, nullptr);
  EXPECT_STREQ(job->reason, "range-deletion");
  EXPECT_EQ(job->output_level, 3);
  EXPECT_EQ(job->inputs.size(), 4u);  // 1, 2, 3 and 4 (under 2), not 5
  ASSERT_EQ(job->retires_deletions.size(), 1u);
  // Once no file holds what it deletes, it is retired without a compaction.
  Version after;
  after.files[3] = {File(6, "a", "z", 10)};  // sequences 1..10 in File(), all older
  after.range_deletions = v.range_deletions;
  std::vector<RangeDeletion> deletions;
  std::vector<PurgeHint> hints;
  RetirableRangeFacts(after, p, &deletions, &hints);
  EXPECT_TRUE(deletions.empty());
  after.files[3] = {File(6, "x", "z", 10)};
  deletions.clear();
  RetirableRangeFacts(after, p, &deletions, &hints);
  EXPECT_EQ(deletions.size(), 1u);
}

TEST(PickCompactionTest, APurgeHintIsDueAtItsTime) {
  Version v;
  v.files[2] = {File(1, "a", "c", 10), File(2, "m", "p", 10)};
  v.purge_hints = {PurgeHint{{"n", "o"}, 500}};
  PickParams p;
  p.level1_max_bytes = 1000;
  size_t next[kNumLevels] = {};
  p.now_ms = 499;
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
  p.now_ms = 500;
  auto job = PickCompaction(v, p, next);
  ASSERT_NE(job, nullptr);
  EXPECT_STREQ(job->reason, "purge-hint");
  ASSERT_EQ(job->inputs.size(), 1u);
  EXPECT_EQ(job->inputs[0].second->number, 2u);
  EXPECT_EQ(job->retires_hints.size(), 1u);
}

}  // namespace
}  // namespace ebb::storage
