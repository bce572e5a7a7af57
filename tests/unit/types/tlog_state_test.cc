// TlogState: the TLOG reference model — the documented edge cases (docs/commands.md) and the CRDT
// merge laws.
#include "types/tlog_state.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/support/test_constants.h"

namespace ebb::types {
namespace {

std::vector<TlogEntry> E(std::initializer_list<TlogEntry> entries) { return entries; }

TEST(TlogStateTest, EmptyLogHasNothing) {
  TlogState s;
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.cutoff(), 0u);
  EXPECT_FALSE(s.exists());
  EXPECT_TRUE(s.Get(10).empty());
}

TEST(TlogStateTest, JylisTranscript) {
  TlogState s;
  s.Insert("jemc: hello, world!", 1523258089149);
  s.Insert("world: hey jemc, how you been?", 1523258145906);
  s.Insert("world: must be nice...", 1523258158785);
  s.Insert("jemc: feeling pretty good these days", 1523258152362);
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.Get(test::kMaxTimestamp), E({{"world: must be nice...", 1523258158785},
                                           {"jemc: feeling pretty good these days", 1523258152362},
                                           {"world: hey jemc, how you been?", 1523258145906},
                                           {"jemc: hello, world!", 1523258089149}}));
  EXPECT_EQ(s.Get(1), E({{"world: must be nice...", 1523258158785}}));
  s.Trim(3);
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.cutoff(), 1523258145906u);
  s.TrimAt(1523258152362);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.cutoff(), 1523258152362u);
  s.Clear();
  EXPECT_TRUE(s.Get(test::kMaxTimestamp).empty());
  EXPECT_EQ(s.cutoff(), 1523258158786u);
  EXPECT_TRUE(s.exists());
}

TEST(TlogStateTest, EqualTimestampsOrderedByValueDescending) {
  TlogState s;
  s.Insert("a", 5);
  s.Insert("b", 5);
  s.Insert("ab", 5);
  s.Insert("", 5);
  s.Insert(std::string("\xff", 1), 5);
  s.Insert(std::string("a\0", 2), 5);
  s.Insert("z", 4);
  s.Insert("0", 6);
  // Greater value first; bytes unsigned (0xff is greatest); an extension before its prefix.
  EXPECT_EQ(s.Get(test::kMaxTimestamp), E({{"0", 6},
                                           {std::string("\xff", 1), 5},
                                           {"b", 5},
                                           {"ab", 5},
                                           {std::string("a\0", 2), 5},
                                           {"a", 5},
                                           {"", 5},
                                           {"z", 4}}));
}

TEST(TlogStateTest, DuplicatesAreOneEntryButSameValueAtOtherTsIsNew) {
  TlogState s;
  EXPECT_TRUE(s.Insert("x", 1));
  EXPECT_FALSE(s.Insert("x", 1));
  EXPECT_TRUE(s.Insert("x", 2));
  EXPECT_TRUE(s.Insert("", 1));
  EXPECT_FALSE(s.Insert("", 1));
  EXPECT_EQ(s.size(), 3u);
}

TEST(TlogStateTest, BinaryValuesKeptExactly) {
  TlogState s;
  std::string v("\0\x01\xff\r\n", 5);
  s.Insert(v, 7);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.entries()[0].value, v);
}

TEST(TlogStateTest, TimestampZeroAndMax) {
  TlogState s;
  EXPECT_TRUE(s.Insert("zero", 0));
  EXPECT_TRUE(s.Insert("max", test::kMaxTimestamp));
  EXPECT_EQ(s.Get(test::kMaxTimestamp), E({{"max", test::kMaxTimestamp}, {"zero", 0}}));
  s.TrimAt(0);  // cutoff 0 keeps everything
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.cutoff(), 0u);
  s.TrimAt(test::kMaxTimestamp);
  EXPECT_EQ(s.Get(test::kMaxTimestamp), E({{"max", test::kMaxTimestamp}}));
  EXPECT_EQ(s.cutoff(), test::kMaxTimestamp);
}

TEST(TlogStateTest, InsertBelowCutoffIgnoredAtCutoffAccepted) {
  TlogState s;
  s.TrimAt(10);
  EXPECT_TRUE(s.exists());
  EXPECT_FALSE(s.Insert("old", 9));
  EXPECT_TRUE(s.Insert("at", 10));
  EXPECT_EQ(s.Get(test::kMaxTimestamp), E({{"at", 10}}));
}

TEST(TlogStateTest, TrimAtNeverLowersCutoff) {
  TlogState s;
  s.Insert("a", 5);
  s.TrimAt(5);
  s.TrimAt(3);
  EXPECT_EQ(s.cutoff(), 5u);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_FALSE(s.Insert("b", 4));
}

TEST(TlogStateTest, ClearOnEmptyLogHasNoEffect) {
  TlogState s;
  s.Clear();
  EXPECT_EQ(s.cutoff(), 0u);
  EXPECT_FALSE(s.exists());
  s.TrimAt(7);
  s.Clear();
  EXPECT_EQ(s.cutoff(), 7u);
}

TEST(TlogStateTest, ClearRaisesCutoffPastNewest) {
  TlogState s;
  s.Insert("a", 3);
  s.Insert("b", 9);
  s.Clear();
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.cutoff(), 10u);
  EXPECT_FALSE(s.Insert("c", 9));
  EXPECT_TRUE(s.Insert("c", 10));
}

TEST(TlogStateTest, ClearAtMaxTimestampSaturatesAndEmpties) {
  TlogState s;
  s.Insert("a", test::kMaxTimestamp);
  s.Insert("b", test::kMaxTimestamp);
  s.Insert("c", 1);
  s.Clear();
  EXPECT_EQ(s.cutoff(), test::kMaxTimestamp);  // never wraps to 0
  EXPECT_EQ(s.size(), 0u);                     // CLR empties the log, entries at 2^64-1 included
  EXPECT_TRUE(s.exists());
  EXPECT_FALSE(s.Insert("old", test::kMaxTimestamp - 1));
  EXPECT_TRUE(s.Insert("a", test::kMaxTimestamp));  // not below the cutoff: accepted again
  EXPECT_EQ(s.size(), 1u);
}

TEST(TlogStateTest, TrimZeroIsClear) {
  TlogState s;
  s.Insert("a", 4);
  s.Trim(0);
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.cutoff(), 5u);
}

TEST(TlogStateTest, TrimWithFewerEntriesThanCountChangesNothing) {
  TlogState s;
  s.Insert("a", 4);
  s.Insert("b", 2);
  s.Trim(3);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.cutoff(), 0u);
  s.Trim(2);  // exactly count entries: cutoff = ts of the last one, nothing removed
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.cutoff(), 2u);
}

TEST(TlogStateTest, TrimKeepsEntriesTiedWithTheCutoffEntry) {
  TlogState s;
  s.Insert("a", 9);
  s.Insert("b", 5);
  s.Insert("c", 5);
  s.Insert("d", 5);
  s.Insert("e", 1);
  s.Trim(2);  // entry 1 is (c,5): every entry at ts 5 survives
  EXPECT_EQ(s.cutoff(), 5u);
  EXPECT_EQ(s.Get(test::kMaxTimestamp), E({{"a", 9}, {"d", 5}, {"c", 5}, {"b", 5}}));
}

TEST(TlogStateTest, GetCountLimits) {
  TlogState s;
  for (uint64_t i = 0; i < 5; ++i) s.Insert("v", i);
  EXPECT_TRUE(s.Get(0).empty());
  EXPECT_EQ(s.Get(2), E({{"v", 4}, {"v", 3}}));
  EXPECT_EQ(s.Get(5).size(), 5u);
  EXPECT_EQ(s.Get(test::kMaxTimestamp).size(), 5u);
}

TEST(TlogStateTest, MergeUnionsAndAppliesMaxCutoff) {
  TlogState a, b;
  a.Insert("x", 5);
  a.Insert("y", 3);
  b.Insert("x", 5);
  b.Insert("z", 8);
  b.TrimAt(4);
  a.Merge(b);
  EXPECT_EQ(a.cutoff(), 4u);
  EXPECT_EQ(a.Get(test::kMaxTimestamp), E({{"z", 8}, {"x", 5}}));
}

// Random states built by random operations from a small alphabet, so entries collide often.
TlogState RandomTlogState(std::mt19937_64& rng) {
  TlogState s;
  int ops = static_cast<int>(rng() % 12);
  for (int i = 0; i < ops; ++i) {
    uint64_t ts = rng() % 4 == 0 ? test::kMaxTimestamp - rng() % 2 : rng() % 20;
    std::string value(rng() % 3, 'a');
    for (char& c : value) c = static_cast<char>("a\0\xff"[rng() % 3]);
    switch (rng() % 10) {
      case 0:
        s.TrimAt(rng() % 22);
        break;
      case 1:
        s.Trim(rng() % 5);
        break;
      case 2:
        if (rng() % 4 == 0) s.Clear();
        break;
      default:
        s.Insert(value, ts);
    }
  }
  return s;
}

TlogState Merged(TlogState a, const TlogState& b) {
  a.Merge(b);
  return a;
}

TEST(TlogStateTest, MergeIsCommutativeAssociativeIdempotent) {
  std::mt19937_64 rng(20240601);
  for (int i = 0; i < 3000; ++i) {
    TlogState a = RandomTlogState(rng), b = RandomTlogState(rng), c = RandomTlogState(rng);
    ASSERT_EQ(Merged(a, b), Merged(b, a)) << "iteration " << i;
    ASSERT_EQ(Merged(Merged(a, b), c), Merged(a, Merged(b, c))) << "iteration " << i;
    ASSERT_EQ(Merged(a, a), a) << "iteration " << i;
    // Invariants hold after merging: strictly ordered, nothing below the cutoff.
    TlogState m = Merged(a, b);
    for (size_t k = 0; k < m.entries().size(); ++k) {
      ASSERT_GE(m.entries()[k].ts, m.cutoff());
      if (k > 0) {
        ASSERT_TRUE(EntryBefore(m.entries()[k - 1], m.entries()[k]));
      }
    }
  }
}

TEST(TlogStateTest, InsertIsMergeOfASingletonDelta) {
  std::mt19937_64 rng(77);
  for (int i = 0; i < 2000; ++i) {
    TlogState s = RandomTlogState(rng);
    uint64_t ts = rng() % 22;
    std::string value(1, static_cast<char>('a' + rng() % 3));
    TlogState delta;
    delta.Insert(value, ts);
    TlogState expected = Merged(s, delta);
    s.Insert(value, ts);
    ASSERT_EQ(s, expected) << "iteration " << i;
  }
}

}  // namespace
}  // namespace ebb::types
