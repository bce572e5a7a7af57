// Range deletes of a series between active-active peers (types/series_merge.h,
// SeriesRangeMarker): a node that joins records and markers in any order, and any number of
// times, ends with the same records; a record begun after a marker replaces the one it dropped
// wherever that is still held; the marker set's bytes round-trip and refuse hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "types/series_merge.h"

namespace ebb::types {
namespace {

// What one node holds of a series: each sample's records and the key's markers, applied as the
// server does (series_range.h): a record a held marker covers is dropped on arrival, a new
// marker drops the records it covers.
struct Node {
  std::map<int64_t, SampleState> samples;
  std::vector<SeriesRangeMarker> markers;

  void Apply(int64_t ts, const SampleRecord& record) {
    for (const SeriesRangeMarker& m : markers) {
      if (RangeMarkerCovers(m, ts, record)) return;
    }
    MergeRecord(&samples[ts], record);
  }
  void Apply(const SeriesRangeMarker& marker) {
    if (!MergeRangeMarker(&markers, marker)) return;
    for (auto it = samples.begin(); it != samples.end();) {
      DropCoveredRecords(std::span(&marker, 1), it->first, &it->second);
      it = it->second.records.empty() ? samples.erase(it) : std::next(it);
    }
  }
  // ts -> resolved value.
  std::map<int64_t, double> Values() const {
    std::map<int64_t, double> out;
    for (const auto& [ts, state] : samples) out[ts] = ResolveSample(state);
    return out;
  }
};

using Delta = std::variant<std::pair<int64_t, SampleRecord>, SeriesRangeMarker>;

void Apply(Node* node, const Delta& delta) {
  if (const auto* sample = std::get_if<std::pair<int64_t, SampleRecord>>(&delta)) {
    node->Apply(sample->first, sample->second);
  } else {
    node->Apply(std::get<SeriesRangeMarker>(delta));
  }
}

// Every order (20 shuffles, each delta twice) ends where `reference` (in the given order) does.
void ExpectOrderFree(const std::vector<Delta>& deltas, const std::map<int64_t, double>& want) {
  Node reference;
  for (const Delta& d : deltas) Apply(&reference, d);
  EXPECT_EQ(reference.Values(), want);
  for (uint64_t seed = 1; seed <= 20; seed++) {
    std::vector<Delta> twice = deltas;
    twice.insert(twice.end(), deltas.begin(), deltas.end());
    std::mt19937_64 rng(seed);
    std::shuffle(twice.begin(), twice.end(), rng);
    Node node;
    for (const Delta& d : twice) Apply(&node, d);
    EXPECT_EQ(node.Values(), want) << "seed " << seed;
    EXPECT_EQ(node.markers, reference.markers) << "seed " << seed;
    for (const auto& [ts, state] : reference.samples) {
      EXPECT_EQ(node.samples[ts], state) << "seed " << seed << " ts " << ts;
    }
  }
}

// `origin`'s record after one more contribution to `own` (its own view of the sample).
SampleRecord Add(SampleState* own, const std::string& origin, int64_t ms, DuplicatePolicy policy,
                 double value) {
  SampleRecord r = NextRecord(*own, origin, ms, policy, value);
  MergeRecord(own, r);
  return r;
}

// A marker at ms 20 over [100, 200]: adds at or before 20 into the range go, later ones and
// those outside the range stay, under SUM across origins.
TEST(SeriesRangeMarkerTest, DropsTheContributionsAtOrBeforeItsStampInAnyOrder) {
  SampleState a, b, c, d;
  std::vector<Delta> deltas = {
      std::pair<int64_t, SampleRecord>{150, Add(&a, "a", 10, DuplicatePolicy::kSum, 1)},
      std::pair<int64_t, SampleRecord>{150, Add(&b, "b", 20, DuplicatePolicy::kSum, 2)},
      std::pair<int64_t, SampleRecord>{150, Add(&c, "c", 21, DuplicatePolicy::kSum, 4)},
      std::pair<int64_t, SampleRecord>{300, Add(&d, "a", 5, DuplicatePolicy::kSum, 8)},
      SeriesRangeMarker{.from = 100, .to = 200, .ms = 20, .origin = "b"},
  };
  ExpectOrderFree(deltas, {{150, 4}, {300, 8}});
}

// An origin whose record the marker dropped begins a new one after it (seq 1 again, a greater
// first_ms): it replaces the old record on a node that still holds the old one, before or
// after the marker arrives there. A record its origin continued across the marker without
// having seen it is dropped whole.
TEST(SeriesRangeMarkerTest, ARecordBegunAfterTheMarkerReplacesTheDroppedOne) {
  SampleState a;
  const SampleRecord old1 = Add(&a, "a", 10, DuplicatePolicy::kSum, 1);
  const SampleRecord old2 = Add(&a, "a", 11, DuplicatePolicy::kSum, 2);
  const SeriesRangeMarker marker{.from = 0, .to = 500, .ms = 30, .origin = "b"};
  SampleState after;  // a's view once it applied the marker: the record is gone
  const SampleRecord new1 = Add(&after, "a", 31, DuplicatePolicy::kSum, 5);
  const SampleRecord new2 = Add(&after, "a", 32, DuplicatePolicy::kSum, 6);
  EXPECT_EQ(new1.seq, 1u);
  ExpectOrderFree(
      {std::pair<int64_t, SampleRecord>{100, old1}, std::pair<int64_t, SampleRecord>{100, old2},
       marker, std::pair<int64_t, SampleRecord>{100, new1},
       std::pair<int64_t, SampleRecord>{100, new2}},
      {{100, 11}});
  // Continued across the marker unseen: 1 + 2 at 10, 11, then 7 at 40 — one record from 10.
  SampleState unaware = a;
  const SampleRecord mixed = Add(&unaware, "a", 40, DuplicatePolicy::kSum, 7);
  ExpectOrderFree({std::pair<int64_t, SampleRecord>{100, old1},
                   std::pair<int64_t, SampleRecord>{100, mixed}, marker},
                  {});
}

// LAST and FIRST resolve among the records the markers leave.
TEST(SeriesRangeMarkerTest, LastAndFirstResolveAmongTheSurvivors) {
  SampleState a, b, c;
  const std::vector<Delta> deltas = {
      std::pair<int64_t, SampleRecord>{7, Add(&a, "a", 10, DuplicatePolicy::kLast, 1)},
      std::pair<int64_t, SampleRecord>{7, Add(&b, "b", 50, DuplicatePolicy::kLast, 2)},
      std::pair<int64_t, SampleRecord>{7, Add(&c, "c", 60, DuplicatePolicy::kLast, 3)},
      SeriesRangeMarker{.from = 7, .to = 7, .ms = 55, .origin = "x"},
      SeriesRangeMarker{.from = 0, .to = 6, .ms = 99, .origin = "y"},
  };
  ExpectOrderFree(deltas, {{7, 3}});
  // FIRST: g's 9 at 40 would be the first; the marker leaves f's 4 at 56 before h's 5 at 70.
  SampleState f, g, h;
  ExpectOrderFree(
      {std::pair<int64_t, SampleRecord>{7, Add(&g, "g", 40, DuplicatePolicy::kFirst, 9)},
       std::pair<int64_t, SampleRecord>{7, Add(&f, "f", 56, DuplicatePolicy::kFirst, 4)},
       std::pair<int64_t, SampleRecord>{7, Add(&h, "h", 70, DuplicatePolicy::kFirst, 5)},
       SeriesRangeMarker{.from = 7, .to = 7, .ms = 55, .origin = "x"}},
      {{7, 4}});
}

TEST(SeriesRangeMarkerTest, GreatestCoveringMsLooksAtTheRangesHoldingTheTimestamp) {
  const std::vector<SeriesRangeMarker> markers = {
      {0, 10, 50, "a"}, {5, 20, 40, "b"}, {30, 40, 90, "c"}};
  EXPECT_EQ(GreatestCoveringMs(markers, 7), 50);
  EXPECT_EQ(GreatestCoveringMs(markers, 15), 40);
  EXPECT_EQ(GreatestCoveringMs(markers, 25), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(GreatestCoveringMs(markers, 40), 90);
}

TEST(SeriesRangeMarkerTest, TheSetRoundTripsAndRefusesHostileBytes) {
  std::vector<SeriesRangeMarker> markers;
  EXPECT_TRUE(MergeRangeMarker(&markers, {5, 9, 100, "b"}));
  EXPECT_TRUE(MergeRangeMarker(&markers, {0, 3, 200, "a"}));
  EXPECT_FALSE(MergeRangeMarker(&markers, {5, 9, 100, "b"}));  // a set
  EXPECT_TRUE(MergeRangeMarker(&markers, {5, 9, 100, "c"}));
  ASSERT_EQ(markers.size(), 3u);
  EXPECT_EQ(markers[0].from, 0);
  const std::string bytes = EncodeRangeMarkers(markers);
  std::vector<SeriesRangeMarker> decoded;
  ASSERT_TRUE(DecodeRangeMarkers(bytes, &decoded));
  EXPECT_EQ(decoded, markers);
  for (size_t cut = 0; cut < bytes.size(); cut++) {
    EXPECT_FALSE(DecodeRangeMarkers(bytes.substr(0, cut), &decoded)) << cut;
  }
  EXPECT_FALSE(DecodeRangeMarkers(bytes + "x", &decoded));
  std::string version = bytes;
  version[0] = 2;
  EXPECT_FALSE(DecodeRangeMarkers(version, &decoded));
  // Out of order, duplicated, from > to, negative.
  const SeriesRangeMarker m1{0, 3, 200, "a"};
  const SeriesRangeMarker m2{5, 9, 100, "b"};
  EXPECT_FALSE(DecodeRangeMarkers(EncodeRangeMarkers(std::vector{m2, m1}), &decoded));
  EXPECT_FALSE(DecodeRangeMarkers(EncodeRangeMarkers(std::vector{m1, m1}), &decoded));
  EXPECT_FALSE(DecodeRangeMarkers(EncodeRangeMarkers(std::vector{SeriesRangeMarker{9, 5, 1, ""}}),
                                  &decoded));
  EXPECT_FALSE(DecodeRangeMarkers(EncodeRangeMarkers(std::vector{SeriesRangeMarker{-1, 5, 1, ""}}),
                                  &decoded));
  EXPECT_FALSE(DecodeRangeMarkers(EncodeRangeMarkers(std::vector{SeriesRangeMarker{1, 5, -1, ""}}),
                                  &decoded));
  std::string huge = bytes.substr(0, 1) + std::string("\xff\xff\xff\xff\x0f", 5);
  EXPECT_FALSE(DecodeRangeMarkers(huge, &decoded));
}

}  // namespace
}  // namespace ebb::types
