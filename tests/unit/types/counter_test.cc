// The counter CRDT (types/counter.h): the merge is a join (any order, any repetition of the same
// bases and records gives the same state), the value observes what a base's origin saw, a delete
// prunes whole records, and the state row round-trips.
#include "types/counter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "types/string_rank.h"

namespace ebb::types {
namespace {

CounterRecord Rec(std::string origin, int64_t ts, uint64_t seq, int64_t total) {
  return {std::move(origin), ts, seq, total};
}

CounterBase Value(int64_t ts, std::string value, std::vector<CounterObserved> observed = {}) {
  CounterBase base;
  base.ts = ts;
  base.value = std::move(value);
  base.observed = std::move(observed);
  return base;
}

using Update = std::variant<CounterBase, CounterRecord>;

CounterState ApplyAll(const std::vector<Update>& updates, int64_t deleted_up_to) {
  CounterState state;
  for (const Update& u : updates) {
    if (const auto* base = std::get_if<CounterBase>(&u)) {
      MergeBase(&state, *base);
    } else {
      MergeRecord(&state, std::get<CounterRecord>(u));
    }
    Prune(&state, deleted_up_to);
  }
  return state;
}

TEST(CounterTest, EveryOrderAndRepetitionMergesAlike) {
  // Three origins' records as they grew (each later one supersedes the earlier), a restart of
  // "b" after a delete at 10 (ts 11), and two SETs that observed different records.
  const std::vector<Update> updates = {
      Rec("a", 0, 1, 5),
      Rec("a", 0, 2, 8),
      Rec("b", 0, 1, -3),
      Rec("b", 11, 1, 4),
      Rec("c", 11, 1, 1),
      Rec("c", 11, 2, 7),
      Value(20, "100", {{"a", 0, 1, 5}, {"c", 11, 1, 1}}),
      Value(15, "50"),
  };
  const CounterState expected = ApplyAll(updates, 10);
  std::mt19937_64 rng(1);
  for (int round = 0; round < 200; round++) {
    std::vector<Update> shuffled = updates;
    // Some updates arrive twice (by the stream and again in a snapshot).
    for (size_t i = 0; i < 3; i++) shuffled.push_back(updates[rng() % updates.size()]);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_EQ(ApplyAll(shuffled, 10), expected) << "round " << round;
  }
  // The delete at 10 removed a's and b's records at ts 0; the SET at 20 saw c's first 1.
  const CounterView view = ViewOf(expected);
  EXPECT_TRUE(view.present);
  EXPECT_EQ(view.value, std::to_string(100 + 4 + (7 - 1)));
  EXPECT_EQ(view.ts, 20);
}

TEST(CounterTest, TwoTotalsAtOnePositionMergeAlikeInEitherOrder) {
  // An origin never writes two totals at one (ts, seq); a damaged delta can carry one. Every
  // node must still keep the same record and the same observed entry, whichever came first.
  CounterRecord genuine = Rec("a", 0, 1, 0);
  genuine.ftotal = 0.5L;
  CounterRecord damaged = genuine;
  damaged.total = 1;
  CounterState forwards;
  CounterState backwards;
  MergeRecord(&forwards, genuine);
  MergeRecord(&forwards, damaged);
  MergeRecord(&backwards, damaged);
  MergeRecord(&backwards, genuine);
  EXPECT_EQ(forwards, backwards);
  const CounterObserved saw_genuine{"a", 0, 1, 0, 0.5L};
  const CounterObserved saw_damaged{"a", 0, 1, 1, 0.5L};
  MergeBase(&forwards, Value(5, "a", {saw_genuine}));
  MergeBase(&forwards, Value(5, "a", {saw_damaged}));
  MergeBase(&backwards, Value(5, "a", {saw_damaged}));
  MergeBase(&backwards, Value(5, "a", {saw_genuine}));
  EXPECT_EQ(forwards, backwards);
}

TEST(CounterTest, EqualBasesObserveWhatEitherObserved) {
  // Two origins reset the counter to "0" at the same timestamp, one having seen b's first
  // increment and the other nothing: in either order the base observes b's first increment.
  const CounterBase saw_b = Value(4, "0", {{"b", 0, 1, 1}});
  const CounterBase saw_nothing = Value(4, "0");
  CounterState forwards, backwards;
  for (CounterState* state : {&forwards, &backwards}) {
    MergeRecord(state, Rec("a", 0, 1, 49));
    MergeRecord(state, Rec("b", 0, 2, 2));
  }
  EXPECT_TRUE(MergeBase(&forwards, saw_b));
  EXPECT_FALSE(MergeBase(&forwards, saw_nothing));
  EXPECT_TRUE(MergeBase(&backwards, saw_nothing));
  EXPECT_TRUE(MergeBase(&backwards, saw_b));
  EXPECT_EQ(forwards, backwards);
  EXPECT_EQ(ViewOf(forwards).value, std::to_string(0 + 49 + (2 - 1)));
  // Of one origin, the later position observed.
  EXPECT_TRUE(MergeBase(&forwards, Value(4, "0", {{"b", 0, 2, 2}})));
  EXPECT_FALSE(MergeBase(&forwards, saw_b));
  EXPECT_EQ(ViewOf(forwards).value, "49");
}

TEST(CounterTest, ABaseObservesOnlyWhatItsOriginSaw) {
  CounterState state;
  MergeRecord(&state, Rec("a", 0, 2, 12));
  MergeRecord(&state, Rec("b", 0, 1, 7));
  MergeBase(&state, Value(100, "1", ObservedOf(state)));
  EXPECT_EQ(ViewOf(state).value, "1");
  MergeRecord(&state, Rec("b", 0, 2, 10));  // an increment the SET did not see
  MergeRecord(&state, Rec("c", 0, 1, -4));
  EXPECT_EQ(ViewOf(state).value, std::to_string(1 + 3 - 4));
  // A record behind what the base observed (it arrived later) adds nothing.
  CounterState behind;
  MergeBase(&behind, Value(100, "1", {{"a", 0, 2, 12}}));
  MergeRecord(&behind, Rec("a", 0, 1, 5));
  EXPECT_EQ(ViewOf(behind).value, "1");
  // A tombstone base with every record observed reads as absent.
  CounterState deleted;
  MergeRecord(&deleted, Rec("a", 0, 1, 5));
  CounterBase tombstone;
  tombstone.kind = CounterBase::Kind::kTombstone;
  tombstone.ts = 50;
  tombstone.observed = ObservedOf(deleted);
  MergeBase(&deleted, tombstone);
  EXPECT_FALSE(ViewOf(deleted).present);
  MergeRecord(&deleted, Rec("a", 0, 2, 6));
  EXPECT_TRUE(ViewOf(deleted).present);
  EXPECT_EQ(ViewOf(deleted).value, "1");
}

TEST(CounterTest, BasesRankAsStringVersions) {
  CounterState state;
  EXPECT_TRUE(MergeBase(&state, Value(10, "5")));
  EXPECT_FALSE(MergeBase(&state, Value(9, "7")));   // older
  EXPECT_FALSE(MergeBase(&state, Value(10, "5")));  // the same version
  CounterBase tombstone;
  tombstone.kind = CounterBase::Kind::kTombstone;
  tombstone.ts = 10;
  EXPECT_TRUE(MergeBase(&state, tombstone));  // a DELETE beats a value at the same ts
  EXPECT_TRUE(MergeBase(&state, Value(11, "1")));
  // A value that is no integer reads as itself; the increments wait for a SET that is one.
  MergeRecord(&state, Rec("a", 0, 1, 3));
  EXPECT_EQ(ViewOf(state).value, "4");
  MergeBase(&state, Value(12, "abc"));
  EXPECT_EQ(ViewOf(state).value, "abc");
}

// An expired base keeps its rank without its bytes; a live, persisted or non-value base stays.
TEST(CounterTest, AnExpiredBaseIsReducedToItsDigest) {
  CounterState state;
  state.base =
      CounterBase{.kind = CounterBase::Kind::kValue, .ts = 5, .expire_at = 100, .value = "42"};
  CounterState live = state;
  EXPECT_FALSE(ReduceExpiredBase(&live, 99));
  EXPECT_EQ(live, state);
  ASSERT_TRUE(ReduceExpiredBase(&state, 100));
  EXPECT_EQ(state.base->kind, CounterBase::Kind::kReduced);
  EXPECT_EQ(state.base->value, StringDigest("42"));
  EXPECT_EQ(state.base->expire_at, 100);
  EXPECT_FALSE(ReduceExpiredBase(&state, 200));  // once
  CounterState persisted;
  persisted.base = CounterBase{.value = "7"};  // expire_at: never
  EXPECT_FALSE(ReduceExpiredBase(&persisted, std::numeric_limits<int64_t>::max() - 1));
  CounterState none;
  EXPECT_FALSE(ReduceExpiredBase(&none, 200));
}

TEST(CounterTest, ADeletePrunesWholeRecords) {
  CounterState state;
  MergeBase(&state, Value(100, "10"));
  MergeRecord(&state, Rec("a", 0, 3, 9));
  MergeRecord(&state, Rec("b", 101, 1, 2));
  Prune(&state, 100);
  ASSERT_EQ(state.records.size(), 1u);
  EXPECT_FALSE(state.base.has_value());
  EXPECT_EQ(ViewOf(state).value, "2");
  // The origin's next increment after the delete starts a new record, which supersedes.
  EXPECT_EQ(RecordTsFor(100), 101);
  EXPECT_EQ(RecordTsFor(std::numeric_limits<int64_t>::min()), 0);
  const auto next = NextRecord(state, "b", RecordTsFor(100), 5);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(*next, Rec("b", 101, 2, 7));
  const auto restarted = NextRecord(state, "b", RecordTsFor(200), 5);
  ASSERT_TRUE(restarted.has_value());
  EXPECT_EQ(*restarted, Rec("b", 201, 1, 5));
  CounterState newer = state;
  MergeRecord(&newer, *restarted);
  EXPECT_EQ(newer.RecordOf("b")->ts, 201);
  MergeRecord(&newer, Rec("b", 101, 9, 100));  // an older epoch never comes back
  EXPECT_EQ(newer.RecordOf("b")->ts, 201);
  // A total that would overflow.
  MergeRecord(&state, Rec("c", 101, 1, std::numeric_limits<int64_t>::max()));
  EXPECT_FALSE(NextRecord(state, "c", 101, 1).has_value());
}

TEST(CounterTest, ASumBeyondInt64ReadsAsItsDecimal) {
  CounterState state;
  MergeRecord(&state, Rec("a", 0, 1, std::numeric_limits<int64_t>::max()));
  MergeRecord(&state, Rec("b", 0, 1, std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(ViewOf(state).value, "18446744073709551614");
  MergeRecord(&state, Rec("c", 0, 1, std::numeric_limits<int64_t>::min()));
  MergeRecord(&state, Rec("d", 0, 1, std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(ViewOf(state).value, "-2");
}

TEST(CounterTest, FloatTotalsSumInAFixedOrder) {
  CounterState state;
  MergeBase(&state, Value(10, "10.5"));
  EXPECT_EQ(ViewOf(state).value, "10.5");
  MergeRecord(&state, Rec("a", 0, 1, 2));
  const auto b = NextFloatRecord(state, "b", 0, 0.25L);
  ASSERT_TRUE(b.has_value());
  MergeRecord(&state, *b);
  EXPECT_EQ(ViewOf(state).value, "12.75");
  // A float total cancelled back to 0 leaves an integer counter exact again.
  CounterState integer;
  MergeBase(&integer, Value(10, "9223372036854775807"));
  MergeRecord(&integer, Rec("a", 0, 1, 1));
  EXPECT_EQ(ViewOf(integer).value, "9223372036854775808");
  auto f = NextFloatRecord(integer, "b", 0, 0.5L);
  MergeRecord(&integer, *f);
  f = NextFloatRecord(integer, "b", 0, -0.5L);
  MergeRecord(&integer, *f);
  EXPECT_EQ(ViewOf(integer).value, "9223372036854775808");
  EXPECT_FALSE(NextFloatRecord(integer, "b", 0, std::numeric_limits<long double>::infinity()));
  // The text of a float total parses back to the same value, in one spelling only.
  for (long double v : {0.1L, -3.75L, 1e300L, 123456789.123456789L}) {
    long double back = 0;
    ASSERT_TRUE(ParseFloatTotal(FloatTotalText(v), &back));
    EXPECT_EQ(back, v);
  }
  long double back = 0;
  EXPECT_FALSE(ParseFloatTotal("0.5", &back));
  EXPECT_FALSE(ParseFloatTotal("", &back));
}

TEST(CounterTest, TheStateRowRoundTrips) {
  CounterState state;
  CounterBase base = Value(1700000000000, "42", {{"a", 0, 3, 9}, {"b", 7, 1, -2}});
  base.expire_at = 1700000060000;
  MergeBase(&state, base);
  MergeRecord(&state, Rec("a", 0, 4, 10));
  MergeRecord(&state, Rec("z", 7, 2, -20));
  MergeRecord(&state, CounterRecord{"f", 7, 3, 1, -0.1L});
  CounterState decoded;
  ASSERT_TRUE(DecodeCounterState(EncodeCounterState(state), &decoded));
  EXPECT_EQ(decoded, state);
  const std::string encoded = EncodeCounterState(state);
  for (size_t cut = 0; cut < encoded.size(); cut++) {
    EXPECT_FALSE(DecodeCounterState(encoded.substr(0, cut), &decoded)) << cut;
  }
  EXPECT_FALSE(DecodeCounterState(encoded + "x", &decoded));
  ASSERT_TRUE(DecodeCounterState(EncodeCounterState(CounterState()), &decoded));
  EXPECT_TRUE(decoded.empty());
}

}  // namespace
}  // namespace ebb::types
