// The series merge between active-active peers (types/series_merge.h): records join in any order
// and any repetition to the same state, each policy resolves from the records, and the rows
// round-trip and refuse hostile bytes.
#include "types/series_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace ebb::types {
namespace {

// Node `origin` contributes `values` in turn (at clocks base_ms, base_ms + 1, ...): every record
// it sends on the way.
std::vector<SampleRecord> Contributions(const std::string& origin, int64_t base_ms,
                                        DuplicatePolicy policy, const std::vector<double>& values) {
  SampleState own;
  std::vector<SampleRecord> sent;
  for (size_t i = 0; i < values.size(); i++) {
    SampleRecord r = NextRecord(own, origin, base_ms + static_cast<int64_t>(i), policy, values[i]);
    MergeRecord(&own, r);
    sent.push_back(r);
  }
  return sent;
}

double Merged(std::vector<SampleRecord> records, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(records.begin(), records.end(), rng);
  SampleState state;
  for (const SampleRecord& r : records) MergeRecord(&state, r);
  for (const SampleRecord& r : records) EXPECT_FALSE(MergeRecord(&state, r));  // idempotent
  return ResolveSample(state);
}

TEST(SeriesMergeTest, EveryPolicyResolvesAlikeInAnyOrder) {
  struct Case {
    DuplicatePolicy policy;
    double want;
  };
  // a: 4 then 1 at ms 100, 101; b: 7 at ms 50; c: 2 at ms 200.
  for (const Case& c : {Case{DuplicatePolicy::kLast, 2}, Case{DuplicatePolicy::kFirst, 7},
                        Case{DuplicatePolicy::kBlock, 7}, Case{DuplicatePolicy::kMin, 1},
                        Case{DuplicatePolicy::kMax, 7}, Case{DuplicatePolicy::kSum, 14}}) {
    std::vector<SampleRecord> all = Contributions("a", 100, c.policy, {4, 1});
    for (const SampleRecord& r : Contributions("b", 50, c.policy, {7})) all.push_back(r);
    for (const SampleRecord& r : Contributions("c", 200, c.policy, {2})) all.push_back(r);
    for (uint64_t seed = 1; seed <= 20; seed++) {
      EXPECT_EQ(Merged(all, seed), c.want) << static_cast<int>(c.policy) << " seed " << seed;
    }
  }
}

TEST(SeriesMergeTest, TheLastContributionsPolicyDecides) {
  std::vector<SampleRecord> all = Contributions("a", 100, DuplicatePolicy::kMin, {5});
  for (const SampleRecord& r : Contributions("b", 300, DuplicatePolicy::kLast, {9})) {
    all.push_back(r);
  }
  EXPECT_EQ(Merged(all, 3), 9);
  EXPECT_EQ(GreatestStampMs(SampleState{{all[0], all[1]}}), 300);
}

TEST(SeriesMergeTest, AdoptedRecordsOfEqualSeqMergeByTheirBytes) {
  SampleState one;
  SampleState two;
  MergeRecord(&one, AdoptedRecord(1));
  MergeRecord(&one, AdoptedRecord(2));
  MergeRecord(&two, AdoptedRecord(2));
  MergeRecord(&two, AdoptedRecord(1));
  EXPECT_EQ(one, two);
  EXPECT_EQ(ResolveSample(one), ResolveSample(two));
}

TEST(SeriesMergeTest, RowsRoundTripAndRefuseHostileBytes) {
  SampleState state;
  for (const SampleRecord& r : Contributions("n1", 10, DuplicatePolicy::kSum, {1.5, -2})) {
    MergeRecord(&state, r);
  }
  MergeRecord(&state, AdoptedRecord(3));
  SampleState back;
  ASSERT_TRUE(DecodeSampleState(EncodeSampleState(state), &back));
  EXPECT_EQ(back, state);
  SeriesRegister reg{.ms = 7, .origin = "n2", .settings = {}};
  reg.settings.retention_ms = 60;
  reg.settings.duplicate_policy = DuplicatePolicy::kMax;
  reg.settings.labels = {{"a", "b"}};
  SeriesRegister reg_back;
  ASSERT_TRUE(DecodeSeriesRegister(EncodeSeriesRegister(reg), &reg_back));
  EXPECT_TRUE(SameSeriesSettings(reg.settings, reg_back.settings));
  EXPECT_EQ(reg_back.ms, 7);
  EXPECT_EQ(reg_back.origin, "n2");
  // Every truncation, and a byte too many, is refused; so is a policy out of range.
  const std::string bytes = EncodeSampleState(state);
  for (size_t n = 0; n < bytes.size(); n++) {
    EXPECT_FALSE(DecodeSampleState(bytes.substr(0, n), &back)) << n;
  }
  EXPECT_FALSE(DecodeSampleState(bytes + "x", &back));
  const std::string reg_bytes = EncodeSeriesRegister(reg);
  for (size_t n = 0; n < reg_bytes.size(); n++) {
    EXPECT_FALSE(DecodeSeriesRegister(reg_bytes.substr(0, n), &reg_back)) << n;
  }
  reg.settings.chunk_size = 7;  // below the least block bound
  EXPECT_FALSE(DecodeSeriesRegister(EncodeSeriesRegister(reg), &reg_back));
}

}  // namespace
}  // namespace ebb::types
