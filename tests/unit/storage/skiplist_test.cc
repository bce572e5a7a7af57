// SkipList (storage/db/skiplist.h): whatever order entries arrive in — ascending (Insert's
// shortcut after the last insert), descending, random, or runs of ascending keys started at
// random places — the list holds them in order, and Seek finds each one and each gap.
#include "storage/db/skiplist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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

struct KeyComparator {
  int operator()(const Key* a, const Key* b) const { return (*this)(a, b->value); }
  int operator()(const Key* a, uint64_t b) const {
    return a->value < b ? -1 : (a->value > b ? 1 : 0);
  }
};

using List = SkipList<Key, KeyComparator>;

void Add(List* list, uint64_t value) {
  const List::NewNode node = list->Allocate(sizeof(Key));
  const Key* key = new (node.entry) Key{value};
  list->Insert(key, node.height);
}

// The list holds exactly `want`, in order, and Seek(v) lands on the least key >= v.
void ExpectHolds(const List& list, const std::set<uint64_t>& want) {
  std::vector<uint64_t> held;
  List::Iterator it(&list);
  for (it.SeekToFirst(); it.Valid(); it.Next()) held.push_back(it.entry()->value);
  ASSERT_EQ(held, std::vector<uint64_t>(want.begin(), want.end()));
  for (uint64_t v : want) {
    for (uint64_t probe : {v, v + 1}) {
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
  return keys;
}

TEST(SkipListTest, HoldsEntriesInOrderWhateverOrderTheyArrive) {
  for (const char* how : {"ascending", "descending", "random", "runs"}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(how);
      Arena arena;
      List list(KeyComparator(), &arena);
      std::set<uint64_t> want;
      ExpectHolds(list, want);
      size_t added = 0;
      for (uint64_t v : Order(how, 3000, seed)) {
        Add(&list, v);
        want.insert(v);
        if (++added % 500 == 0) ExpectHolds(list, want);
      }
      ExpectHolds(list, want);
    }
  }
}

TEST(SkipListTest, AKeyBetweenTheLastInsertAndItsSuccessorGoesBetweenThem) {
  Arena arena;
  List list(KeyComparator(), &arena);
  std::set<uint64_t> want;
  // 250 follows 200 (the last insert) and comes before its successor 300, as 270 follows 260:
  // both take Insert's shortcut; every other key is found by a search.
  for (uint64_t v : {100, 300, 200, 250, 50, 400, 260, 270, 60}) {
    Add(&list, v);
    want.insert(v);
    ExpectHolds(list, want);
  }
}

}  // namespace
}  // namespace ebb::storage
