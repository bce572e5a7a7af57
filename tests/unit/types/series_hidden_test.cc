// Active-active mode's retention purge bookkeeping (types/series_purge.h): when a series' floor
// reached what (NoteSeriesHidden), the floor compaction may drop below at a clock
// (SeriesPurgeFloor), the hidden extension of the metadata, and purge markers naming a system-row
// prefix (the mode's merge-state rows).
#include <gtest/gtest.h>

#include <string>

#include "types/compaction_filter.h"
#include "types/key_encoding.h"
#include "types/series_codec.h"
#include "types/series_purge.h"

namespace ebb::types {
namespace {

constexpr int64_t kHalf = 2000;  // half the purge deadline: buckets of 500 ms

SeriesMeta WithNewest(int64_t newest, uint64_t retention) {
  SeriesMeta meta;
  meta.settings.retention_ms = retention;
  meta.newest = Sample{newest, 1.0};
  return meta;
}

// A floor is purgeable only once the compaction's clock (half a deadline behind) reaches the
// time it was recorded at; never above the visible floor.
TEST(SeriesHiddenTest, AFloorIsPurgedOnlyFromTheTimeItWasReached) {
  SeriesMeta meta = WithNewest(2000, 1000);
  EXPECT_TRUE(NoteSeriesHidden(&meta, 10'000, kHalf));
  ASSERT_EQ(meta.hidden.size(), 1u);
  EXPECT_EQ(meta.hidden[0], (SeriesHidden{10'000, 1000}));
  EXPECT_EQ(SeriesPurgeFloor(meta, 9'999), 0);
  EXPECT_EQ(SeriesPurgeFloor(meta, 10'000), 1000);
  // The same floor again records nothing.
  EXPECT_FALSE(NoteSeriesHidden(&meta, 10'100, kHalf));
  EXPECT_EQ(meta.hidden.size(), 1u);
  // A raise in the same bucket moves the entry later (never earlier than any hiding it covers).
  meta.newest = Sample{2300, 1.0};
  EXPECT_TRUE(NoteSeriesHidden(&meta, 10'200, kHalf));
  ASSERT_EQ(meta.hidden.size(), 1u);
  EXPECT_EQ(meta.hidden[0], (SeriesHidden{10'200, 1300}));
  EXPECT_EQ(SeriesPurgeFloor(meta, 10'100), 0);
  // A raise in a later bucket adds one: the earlier floor is purgeable first.
  meta.newest = Sample{2600, 1.0};
  EXPECT_TRUE(NoteSeriesHidden(&meta, 10'600, kHalf));
  ASSERT_EQ(meta.hidden.size(), 2u);
  EXPECT_EQ(SeriesPurgeFloor(meta, 10'300), 1300);
  EXPECT_EQ(SeriesPurgeFloor(meta, 10'600), 1600);
}

// A rule's source purges nothing: its destinations' buckets are computed from every sample it
// stores (docs/active-active.md, "Rules"); once it feeds no rule, the recorded floors count.
TEST(SeriesHiddenTest, ARulesSourceKeepsWhatItStores) {
  SeriesMeta meta = WithNewest(2000, 1000);
  EXPECT_TRUE(NoteSeriesHidden(&meta, 10'000, kHalf));
  meta.rules.push_back(SeriesRule{.dest = "d", .aggregator = Aggregator::kSum, .bucket_ms = 100});
  EXPECT_EQ(SeriesPurgeFloor(meta, 20'000), 0);
  meta.rules.clear();
  EXPECT_EQ(SeriesPurgeFloor(meta, 20'000), 1000);
}

// A wider retention shows samples again: no recorded floor stays above the visible one, and a
// later narrowing hides them anew (purged only half a deadline after that).
TEST(SeriesHiddenTest, AWiderRetentionLowersEveryRecordedFloor) {
  SeriesMeta meta = WithNewest(5000, 1000);
  NoteSeriesHidden(&meta, 10'000, kHalf);
  meta.settings.retention_ms = 4500;  // floor 500
  EXPECT_FALSE(NoteSeriesHidden(&meta, 11'000, kHalf));
  ASSERT_EQ(meta.hidden.size(), 1u);
  EXPECT_EQ(meta.hidden[0].floor, 500);
  EXPECT_EQ(SeriesPurgeFloor(meta, 20'000), 500);
  meta.settings.retention_ms = 0;  // nothing hidden
  EXPECT_FALSE(NoteSeriesHidden(&meta, 11'500, kHalf));
  EXPECT_TRUE(meta.hidden.empty());
  EXPECT_EQ(SeriesPurgeFloor(meta, 20'000), 0);
  meta.settings.retention_ms = 1000;
  EXPECT_TRUE(NoteSeriesHidden(&meta, 12'000, kHalf));
  EXPECT_EQ(SeriesPurgeFloor(meta, 11'999), 0);
  EXPECT_EQ(SeriesPurgeFloor(meta, 12'000), 4000);
}

// Entries settled half a deadline ago collapse into one, so a series written without pause keeps
// a handful; the floor compaction drops below never falls.
TEST(SeriesHiddenTest, SettledEntriesCollapseAndTheFloorNeverFalls) {
  SeriesMeta meta = WithNewest(2000, 1000);
  int64_t last_floor = 0;
  for (int64_t now = 10'000; now < 40'000; now += 100) {
    meta.newest = Sample{meta.newest->ts + 10, 1.0};
    NoteSeriesHidden(&meta, now, kHalf);
    EXPECT_LE(meta.hidden.size(), 6u) << now;
    const int64_t floor = SeriesPurgeFloor(meta, now - kHalf);
    EXPECT_GE(floor, last_floor) << now;
    last_floor = floor;
  }
  EXPECT_GT(last_floor, 0);
}

// The hidden extension round-trips after the others; out of order, a floor of 0 or trailing bytes
// are refused.
TEST(SeriesHiddenTest, TheHiddenExtensionRoundTripsAndDamageIsRefused) {
  SeriesMeta meta = WithNewest(2000, 1000);
  meta.version = 9;
  meta.tail_count = 2;
  meta.tail_from = 1999;
  meta.purge_marked_until = 12'000;
  meta.hidden = {{10'000, 500}, {11'000, 1000}};
  const std::string bytes = EncodeSeriesMeta(meta);
  SeriesMeta back;
  ASSERT_TRUE(DecodeSeriesMeta(bytes, &back));
  EXPECT_EQ(back.hidden, meta.hidden);
  EXPECT_EQ(back.purge_marked_until, 12'000);
  EXPECT_FALSE(DecodeSeriesMeta(bytes + "x", &back));
  SeriesMeta only = WithNewest(2000, 1000);
  only.hidden = {{10'000, 500}};
  ASSERT_TRUE(DecodeSeriesMeta(EncodeSeriesMeta(only), &back));
  EXPECT_EQ(back.hidden, only.hidden);
  EXPECT_EQ(back.purge_marked_until, 0);
  SeriesMeta unordered = only;
  unordered.hidden = {{11'000, 1000}, {10'000, 500}};
  EXPECT_FALSE(DecodeSeriesMeta(EncodeSeriesMeta(unordered), &back));
  SeriesMeta zero = only;
  zero.hidden = {{10'000, 0}};
  EXPECT_FALSE(DecodeSeriesMeta(EncodeSeriesMeta(zero), &back));
}

// A marker may name a system-row prefix (the mode's merge-state rows), never one that covers
// purge markers themselves or the whole system range.
TEST(SeriesHiddenTest, MarkersNameASystemRowPrefixButNoMarkers) {
  std::string_view back;
  const std::string state = SystemKey("aa-tss:0:1:s");
  const std::string marker = PurgeMarkerKey(state, 5);  // `back` views into it
  ASSERT_TRUE(ParsePurgeMarkerKey(marker, &back));
  EXPECT_EQ(back, state);
  EXPECT_FALSE(ParsePurgeMarkerKey(PurgeMarkerKey(SystemKey(""), 5), &back));
  EXPECT_FALSE(ParsePurgeMarkerKey(PurgeMarkerKey(SystemKey("purge"), 5), &back));
  EXPECT_FALSE(ParsePurgeMarkerKey(PurgeMarkerKey(SystemKey("purge-marker:x"), 5), &back));
}

}  // namespace
}  // namespace ebb::types
