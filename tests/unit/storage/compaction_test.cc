// Compaction's per-key reduction rule (ReduceVersions) and its planner (PickCompaction).
#include "storage/db/compaction.h"

#include <gtest/gtest.h>

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

std::string Show(const std::vector<KeyVersion>& out) {
  std::string s;
  for (const auto& v : out) {
    if (!s.empty()) s += " ";
    s += std::to_string(v.sequence) + (v.kind == RowKind::kTombstone ? "T" : "=" + v.value) + "@" +
         std::to_string(v.meta.timestamp_or_zero());
  }
  return s;
}

std::string Reduce(std::vector<KeyVersion> in, std::vector<uint64_t> snaps = {},
                   bool bottom = false, int64_t now = 0, ReduceStats* stats = nullptr,
                   const CompactionFilter* filter = nullptr) {
  ReduceStats local;
  return Show(
      ReduceVersions("k", std::move(in), snaps, bottom, true, now, filter, stats ? stats : &local));
}

TEST(ReduceVersionsTest, KeepsGreatestTimestampTiesToNewest) {
  // Walk order @100, @50, @150 -> @150 survives.
  EXPECT_EQ(Reduce({V(3, 100, "a"), V(2, 50, "b"), V(1, 150, "c")}), "1=c@150");
  EXPECT_EQ(Reduce({V(3, 100, "new"), V(2, 100, "old")}), "3=new@100");
  EXPECT_EQ(Reduce({V(2, {}, "x"), V(1, {}, "y")}), "2=x@0");
}

TEST(ReduceVersionsTest, TombstoneTakesPartLikeAValue) {
  // A tombstone at ts 50 written after a value at ts 100 loses to it.
  EXPECT_EQ(Reduce({T(2, 50), V(1, 100, "v")}), "1=v@100");
  // A winning tombstone stays above older data, vanishes at the bottom.
  EXPECT_EQ(Reduce({T(2, 200), V(1, 100, "v")}), "2T@200");
  EXPECT_EQ(Reduce({T(2, 200), V(1, 100, "v")}, {}, true), "");
}

TEST(ReduceVersionsTest, ExpiredSurvivorBecomesTombstoneOrVanishes) {
  ReduceStats stats;
  EXPECT_EQ(Reduce({V(2, 110, "b", 150), V(1, 100, "a", 200)}, {}, false, 160, &stats), "2T@110");
  EXPECT_EQ(stats.expired, 1u);
  EXPECT_EQ(Reduce({V(2, 110, "b", 150), V(1, 100, "a", 200)}, {}, true, 160, &stats), "");
  EXPECT_EQ(stats.expired, 2u);
  EXPECT_EQ(Reduce({V(1, 100, "a", 200)}, {}, true, 199), "1=a@100");
}

TEST(ReduceVersionsTest, SnapshotsStripeVersions) {
  // Snapshot at 2 sees versions 1-2; later versions are a separate stripe.
  EXPECT_EQ(Reduce({V(4, 10, "d"), V(3, 5, "c"), V(2, 1, "b"), V(1, 7, "a")}, {2}), "4=d@10 1=a@7");
  // A dead survivor in the oldest stripe at the bottom disappears when newer survivors have
  // later timestamps; with an earlier one it must stay (a full-grace read still sees it win).
  EXPECT_EQ(Reduce({V(3, 11, "c"), T(2, 9)}, {2}, true), "3=c@11");
  EXPECT_EQ(Reduce({V(3, 5, "c"), T(2, 9)}, {2}, true), "3=c@5 2T@9");
  EXPECT_EQ(Reduce({T(3, 9), V(2, 5, "b")}, {2}, true), "3T@9 2=b@5");
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
  const char* Name() const override { return "test"; }
};

TEST(ReduceVersionsTest, FilterDecides) {
  DropOdd filter;
  ReduceStats stats;
  EXPECT_EQ(Reduce({V(1, 5, "drop")}, {}, false, 0, &stats, &filter), "1T@5");
  EXPECT_EQ(Reduce({V(1, 5, "drop")}, {}, true, 0, &stats, &filter), "");
  EXPECT_EQ(stats.filtered, 2u);
  EXPECT_EQ(Reduce({V(1, 5, "change")}, {}, true, 0, &stats, &filter), "1=changed@5");
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
  return f;
}

TEST(ReduceForFlushTest, InOrderOverwritesKeepTheNewestAndTheOneThatEndsAGraceWalk) {
  // Newest first: @400 is the greatest, @100 the least of the rest.
  EXPECT_EQ(Show(ReduceForFlush(
                {V(5, 400, "e"), V(4, 300, "d"), T(3, 100), V(2, 200, "b"), V(1, 150, "a")})),
            "5=e@400 3T@100");
  // Ties with the newest cannot win either.
  EXPECT_EQ(Show(ReduceForFlush({V(3, 100, "c"), V(2, 100, "b"), V(1, 100, "a")})),
            "3=c@100 2=b@100");
}

TEST(ReduceForFlushTest, AnOlderVersionWithAGreaterTimestampKeepsEveryVersion) {
  EXPECT_EQ(Show(ReduceForFlush({V(3, 100, "c"), V(2, 40, "b"), V(1, 200, "a")})),
            "3=c@100 2=b@40 1=a@200");
  EXPECT_EQ(Show(ReduceForFlush({V(2, 100, "b"), V(1, 40, "a")})), "2=b@100 1=a@40");
  EXPECT_EQ(Show(ReduceForFlush({V(1, 7, "a")})), "1=a@7");
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

TEST(PickCompactionTest, PurgeDeadlineGoesToTheBottomOfTheRange) {
  Version v;
  v.files[1] = {File(1, "a", "c", 10, 100), File(2, "m", "p", 10)};
  v.files[3] = {File(3, "b", "d", 10), File(4, "q", "r", 10)};
  PickParams p;
  p.l0_compaction_trigger = 4;
  p.level1_max_bytes = 1000;
  p.purge_deadline_ms = 50;
  p.now_ms = 149;
  size_t next[kNumLevels] = {};
  EXPECT_EQ(PickCompaction(v, p, next), nullptr);
  p.now_ms = 150;
  auto job = PickCompaction(v, p, next);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->output_level, 3);
  EXPECT_EQ(job->inputs.size(), 2u);
  EXPECT_TRUE(job->bottommost);
}

}  // namespace
}  // namespace ebb::storage
