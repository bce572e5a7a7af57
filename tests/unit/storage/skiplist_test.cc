// SkipList (storage/db/skiplist.h): whatever order entries arrive in — ascending (Insert's
// shortcut after the last insert), descending, random, runs of ascending keys started at random
// places, or ascending keys each after another one (the shortcut after the insert before the
// last) — the list holds them in order, and Seek finds each one and each gap, whether
// they go in by a search from the top or from where their range of keys begins; Find and the
// writer's FindBeforeInsert find each entry and no gap, before and after each insert.
#include "storage/db/skiplist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <new>
#include <random>
#include <set>
#include <string_view>
#include <vector>

#include "storage/db/arena.h"

namespace ebb::storage {
namespace {

struct Key {
  uint64_t value;
};

struct TestKeyComparator {
  int operator()(const Key* a, const Key* b) const { return (*this)(a, b->value); }
  int operator()(const Key* a, uint64_t b) const {
    return a->value < b ? -1 : (a->value > b ? 1 : 0);
  }
};

using List = SkipList<Key, TestKeyComparator>;

void Add(List* list, uint64_t value) {
  const List::NewNode node = list->Allocate(sizeof(Key));
  const Key* key = new (node.entry) Key{value};
  list->Insert(key, node.height);
}

// The list holds exactly `want`, in order on every level, and Seek(v) lands on the least key
// >= v.
void ExpectHolds(const List& list, const std::set<uint64_t>& want) {
  ASSERT_TRUE(list.EveryLevelInOrder());
  std::vector<uint64_t> held;
  List::Iterator it(&list);
  for (it.SeekToFirst(); it.Valid(); it.Next()) held.push_back(it.entry()->value);
  ASSERT_EQ(held, std::vector<uint64_t>(want.begin(), want.end()));
  for (uint64_t v : want) {
    for (uint64_t probe : {v, v + 1}) {
      const Key* found = list.Find(probe);
      ASSERT_EQ(found != nullptr, want.contains(probe)) << probe;
      if (found != nullptr) {
        ASSERT_EQ(found->value, probe);
      }
      ASSERT_EQ(list.FindBeforeInsert(probe), found) << probe;
      it.Seek(probe);
      auto expected = want.lower_bound(probe);
      ASSERT_EQ(it.Valid(), expected != want.end()) << probe;
      if (it.Valid()) {
        ASSERT_EQ(it.entry()->value, *expected) << probe;
      }
    }
  }
  it.SeekToLast();
  ASSERT_TRUE(want.empty() ? !it.Valid() : it.entry()->value == *want.rbegin());
}

// Keys are even, so v + 1 probes the gap after each.
std::vector<uint64_t> Order(const char* how, size_t n, uint64_t seed) {
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; i++) keys[i] = 2 * i;
  std::mt19937_64 rng(seed);
  if (std::string_view(how) == "descending") std::reverse(keys.begin(), keys.end());
  if (std::string_view(how) == "random") std::shuffle(keys.begin(), keys.end(), rng);
  if (std::string_view(how) == "runs") {
    // Runs of 1 to 16 ascending keys, the runs in random order: each run's first key follows
    // some other key than the last inserted, the rest follow it.
    std::vector<std::vector<uint64_t>> runs;
    for (size_t i = 0; i < n;) {
      const size_t len = std::min<size_t>(n - i, 1 + rng() % 16);
      runs.emplace_back(keys.begin() + i, keys.begin() + i + len);
      i += len;
    }
    std::shuffle(runs.begin(), runs.end(), rng);
    keys.clear();
    for (const auto& run : runs) keys.insert(keys.end(), run.begin(), run.end());
  }
  if (std::string_view(how) == "interleaved" || std::string_view(how) == "lagging") {
    // Every other key in ascending order, each after one of the rest (a write's data row, then
    // its log row): the rest in random order ("interleaved"), or in ascending order two behind
    // ("lagging": each lands between the last ascending key and the nodes before it on the
    // levels above that key's height, which the next ascending key's shortcut must mend).
    std::vector<uint64_t> ascending;
    std::vector<uint64_t> others;
    for (size_t i = 0; i < n; i++) (i % 2 == 0 ? ascending : others).push_back(keys[i]);
    if (std::string_view(how) == "interleaved") std::shuffle(others.begin(), others.end(), rng);
    const size_t lag = std::string_view(how) == "lagging" ? 2 : 0;
    keys.clear();
    for (size_t i = 0; i < ascending.size() + lag; i++) {
      if (i >= lag && i - lag < others.size()) keys.push_back(others[i - lag]);
      if (i < ascending.size()) keys.push_back(ascending[i]);
    }
  }
  return keys;
}

// Feeds `count` keys in each order with three seeds to a new list through `add(list, value)`,
// `add` made anew for each list by `make_add()`, checking the list against a set every 500 keys
// and at the end.
template <typename MakeAdd>
void ExpectHoldsInEveryOrder(size_t count, MakeAdd make_add) {
  for (const char* how : {"ascending", "descending", "random", "runs", "interleaved", "lagging"}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(how);
      Arena arena;
      List list(TestKeyComparator(), &arena);
      auto add = make_add();
      std::set<uint64_t> want;
      ExpectHolds(list, want);
      size_t added = 0;
      uint64_t previous = 0;
      for (uint64_t v : Order(how, count, seed)) {
        // A new key is not found, by the writer's shortcut or a search; the one before it is.
        ASSERT_EQ(list.FindBeforeInsert(v), nullptr) << v;
        ASSERT_EQ(list.FindBeforeInsert(v + 1), nullptr) << v + 1;
        if (!want.empty()) {
          ASSERT_NE(list.FindBeforeInsert(previous), nullptr) << previous;
        }
        add(&list, v);
        want.insert(v);
        previous = v;
        ASSERT_NE(list.FindBeforeInsert(v), nullptr) << v;
        if (++added % 500 == 0) ExpectHolds(list, want);
      }
      ExpectHolds(list, want);
    }
  }
}

TEST(SkipListTest, HoldsEntriesInOrderWhateverOrderTheyArrive) {
  ExpectHoldsInEveryOrder(3000, [] { return [](List* list, uint64_t v) { Add(list, v); }; });
}

TEST(SkipListTest, AKeyBetweenTheLastInsertAndItsSuccessorGoesBetweenThem) {
  Arena arena;
  List list(TestKeyComparator(), &arena);
  std::set<uint64_t> want;
  // 250 follows 200 (the last insert) and comes before its successor 300, as 270 follows 260:
  // both take Insert's shortcut; every other key is found by a search.
  for (uint64_t v : {100, 300, 200, 250, 50, 400, 260, 270, 60}) {
    Add(&list, v);
    want.insert(v);
    ExpectHolds(list, want);
  }
}

// Ranges of keys for Insert's range form: a thousand values each (v / 1000).
constexpr uint64_t kRangeWidth = 1000;
uint64_t RangeOf(uint64_t v) { return v / kRangeWidth; }

void AddInRange(List* list, uint64_t value, List::RangeStart* range) {
  const List::NewNode node = list->Allocate(sizeof(Key));
  const Key* key = new (node.entry) Key{value};
  const uint64_t r = RangeOf(value);
  list->Insert(key, node.height, range, [r](const Key* k) { return RangeOf(k->value) == r; });
}

TEST(SkipListTest, EntriesOfARangeGoInFromWhereTheRangeBegins) {
  // Six ranges; one in three takes plain inserts, so the nodes before a range keep changing
  // under its record as well. A record's address never moves, so the records live in a map.
  ExpectHoldsInEveryOrder(6000, [] {
    return [ranges = std::map<uint64_t, List::RangeStart>()](List* list, uint64_t v) mutable {
      if (RangeOf(v) % 3 == 0) {
        Add(list, v);
      } else {
        AddInRange(list, v, &ranges[RangeOf(v)]);
      }
    };
  });
}

// A comparator that counts its calls.
struct CountingComparator {
  int operator()(const Key* a, const Key* b) const { return (*this)(a, b->value); }
  int operator()(const Key* a, uint64_t b) const {
    ++*calls;
    return a->value < b ? -1 : (a->value > b ? 1 : 0);
  }
  size_t* calls;
};

TEST(SkipListTest, ASearchFromWhereItsRangeBeginsComparesAboutAsInAListOfTheRangeAlone) {
  // 100,000 keys around a range of 64 slots, then that range's keys inserted newest first (each
  // the least of its range, as a log's entries arrive) and at random places in it; the same
  // keys by a search from the top, into a second list built the same way. The heights drawn are
  // the same in both (each list draws from the same seeded generator in the same order).
  using CountingList = SkipList<Key, CountingComparator>;
  size_t by_range = 0;
  size_t by_search = 0;
  Arena arena_a;
  Arena arena_b;
  CountingList with_range(CountingComparator{&by_range}, &arena_a);
  CountingList without(CountingComparator{&by_search}, &arena_b);
  const auto add = [](CountingList* list, uint64_t value, CountingList::RangeStart* range) {
    const CountingList::NewNode node = list->Allocate(sizeof(Key));
    const Key* key = new (node.entry) Key{value};
    if (range == nullptr) {
      list->Insert(key, node.height);
    } else {
      list->Insert(key, node.height, range,
                   [](const Key* k) { return k->value >= 5000000 && k->value < 5000128; });
    }
  };
  std::vector<uint64_t> around(100000);
  for (size_t i = 0; i < around.size(); i++) around[i] = i < 50000 ? 2 * i : 10000000 + 2 * i;
  std::shuffle(around.begin(), around.end(), std::mt19937_64(7));
  for (uint64_t v : around) {
    add(&with_range, v, nullptr);
    add(&without, v, nullptr);
  }
  std::vector<uint64_t> in_range;
  for (uint64_t v = 5000126; v >= 5000064; v -= 2) in_range.push_back(v);  // newest first
  std::vector<uint64_t> scattered;
  for (uint64_t v = 5000000; v < 5000064; v += 2) scattered.push_back(v);
  std::shuffle(scattered.begin(), scattered.end(), std::mt19937_64(8));
  in_range.insert(in_range.end(), scattered.begin(), scattered.end());
  CountingList::RangeStart range;
  by_range = 0;
  by_search = 0;
  for (uint64_t v : in_range) {
    add(&with_range, v, &range);
    add(&without, v, nullptr);
  }
  // A search from the top takes about 4 comparisons a level over log4(100,000) ~ 8 levels; one
  // from the range's start about as many as in a list of 64 (~3 levels), after the first one.
  EXPECT_LT(by_range * 2, by_search) << by_range << " against " << by_search;
  std::set<uint64_t> want(in_range.begin(), in_range.end());
  std::vector<uint64_t> held;
  CountingList::Iterator it(&with_range);
  for (it.Seek(uint64_t{5000000}); it.Valid() && it.entry()->value < 5000128; it.Next()) {
    held.push_back(it.entry()->value);
  }
  EXPECT_EQ(held, std::vector<uint64_t>(want.begin(), want.end()));
}

TEST(SkipListTest, AnAscendingKeyAfterARandomOneTakesTheShortcutOfTheInsertBeforeTheLast) {
  // 50,000 keys at random, then 2,000 pairs: a key at random, then the next of an ascending run
  // below all of them (a write's data row, then its origin log row, which sorts first). A search
  // from the top takes about 4 comparisons a level over log4(52,000) ~ 8 levels; the shortcut
  // after the insert before the last one two, plus the failed tries of the last insert's shortcut
  // and one comparison with the last insert.
  using CountingList = SkipList<Key, CountingComparator>;
  size_t calls = 0;
  Arena arena;
  CountingList list(CountingComparator{&calls}, &arena);
  const auto add = [&list](uint64_t value) {
    const CountingList::NewNode node = list.Allocate(sizeof(Key));
    list.Insert(new (node.entry) Key{value}, node.height);
  };
  std::mt19937_64 rng(11);
  std::set<uint64_t> want;
  const auto add_random = [&] {
    uint64_t v;
    do {
      v = 1000000 + 2 * (rng() % 10000000);
    } while (!want.insert(v).second);
    add(v);
  };
  for (int i = 0; i < 50000; i++) add_random();
  size_t ascending_calls = 0;
  for (uint64_t i = 0; i < 2000; i++) {
    add_random();
    calls = 0;
    add(2 * i);
    ascending_calls += calls;
    want.insert(2 * i);
  }
  EXPECT_LT(ascending_calls, 2000u * 14) << ascending_calls / 2000.0 << " a key";
  std::vector<uint64_t> held;
  CountingList::Iterator it(&list);
  for (it.SeekToFirst(); it.Valid(); it.Next()) held.push_back(it.entry()->value);
  EXPECT_EQ(held, std::vector<uint64_t>(want.begin(), want.end()));
  EXPECT_TRUE(list.EveryLevelInOrder());
}

}  // namespace
}  // namespace ebb::storage
