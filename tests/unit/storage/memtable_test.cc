// MemTable and its skiplist: ordering of versions, iteration both ways, concurrent readers, the
// flush view.
#include "storage/db/memtable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "storage/db/compaction.h"

namespace ebb::storage {
namespace {

// a + b, spelled so GCC 12's -Wrestrict false positive on "literal" + std::string stays quiet.
std::string Cat(std::string_view a, const std::string& b) {
  std::string s(a);
  s.append(b);
  return s;
}

std::string PlainRow(std::string_view value) {
  std::string row;
  AppendEncodedRow(&row, RowMeta{}, value);
  return row;
}

TEST(MemTableTest, VersionsOrderNewestFirstWithinAKey) {
  auto mem = std::make_shared<MemTable>();
  mem->Add(1, RowKind::kValue, "b", PlainRow("b1"));
  mem->Add(2, RowKind::kValue, "a", PlainRow("a2"));
  mem->Add(3, RowKind::kTombstone, "b", PlainRow(""));
  mem->Add(4, RowKind::kValue, "b", PlainRow("b4"));
  auto it = MemTable::NewIterator(mem);
  std::vector<std::pair<std::string, uint64_t>> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey k;
    ASSERT_TRUE(ParseInternalKey(it->key(), &k));
    seen.emplace_back(std::string(k.user_key), k.sequence);
  }
  const std::vector<std::pair<std::string, uint64_t>> want = {
      {"a", 2}, {"b", 4}, {"b", 3}, {"b", 1}};
  EXPECT_EQ(seen, want);
  it->Seek(LookupKey("b", 3));  // versions of b visible at sequence 3
  ASSERT_TRUE(it->Valid());
  ParsedInternalKey k;
  ASSERT_TRUE(ParseInternalKey(it->key(), &k));
  EXPECT_EQ(k.sequence, 3u);
  EXPECT_EQ(k.kind, RowKind::kTombstone);
  it->Prev();
  ASSERT_TRUE(ParseInternalKey(it->key(), &k));
  EXPECT_EQ(k.sequence, 4u);
  it->SeekToLast();
  ASSERT_TRUE(ParseInternalKey(it->key(), &k));
  EXPECT_EQ(k.sequence, 1u);
  RowMeta meta;
  std::string_view value;
  ASSERT_TRUE(DecodeRow(it->value(), &meta, &value));
  EXPECT_EQ(value, "b1");
  EXPECT_EQ(mem->num_entries(), 4u);
  EXPECT_GT(mem->ApproximateMemoryUsage(), 0u);
}

TEST(MemTableTest, EstimateKeysCountsLiveKeysByTheirFirstTwoBytes) {
  auto mem = std::make_shared<MemTable>();
  mem->Add(1, RowKind::kValue,
           std::string("\x01\x00"
                       "a",
                       3),
           PlainRow("1"));
  mem->Add(2, RowKind::kValue,
           std::string("\x01\x00"
                       "b",
                       3),
           PlainRow("1"));
  mem->Add(3, RowKind::kValue,
           std::string("\x01\x00"
                       "a",
                       3),
           PlainRow("2"));  // an overwrite: still one key
  mem->Add(4, RowKind::kTombstone,
           std::string("\x01\x00"
                       "b",
                       3),
           PlainRow(""));  // deleted here
  mem->Add(5, RowKind::kTombstone,
           std::string("\x01\x00"
                       "c",
                       3),
           PlainRow(""));  // deletes a key of an older table
  mem->Add(6, RowKind::kValue,
           "\x01\x01"
           "a",
           PlainRow("1"));
  mem->Add(7, RowKind::kValue,
           "\x01\x01"
           "b",
           PlainRow("1"));
  mem->Add(8, RowKind::kTombstone,
           "\x01\x01"
           "b",
           PlainRow(""));
  mem->Add(9, RowKind::kValue,
           "\x01\x01"
           "b",
           PlainRow("3"));  // written again
  mem->Add(10, RowKind::kValue, "\x02", PlainRow("1"));
  EXPECT_EQ(mem->EstimateKeys(std::string("\x01\x00", 2), std::string("\x01\x01")), 0);
  EXPECT_EQ(mem->EstimateKeys(std::string("\x01\x01"), std::string("\x01\x02")), 2);
  EXPECT_EQ(mem->EstimateKeys(std::string("\x01\x01"), ""), 3);
  EXPECT_EQ(mem->EstimateKeys("", ""), 3);
}

TEST(MemTableTest, MatchesASortedModelAndToleratesConcurrentReaders) {
  auto mem = std::make_shared<MemTable>();
  std::map<std::string, std::string> model;  // internal key -> value, by CompareInternalKeys
  std::atomic<bool> done{false};
  std::thread reader([&] {
    // Reads while the writer inserts: whatever it sees must be in order.
    for (int round = 0; round < 200 && !done.load(); round++) {
      auto it = MemTable::NewIterator(mem);
      std::string prev;
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        if (!prev.empty()) {
          ASSERT_LT(CompareInternalKeys(prev, it->key()), 0);
        }
        prev.assign(it->key());
      }
    }
  });
  std::mt19937 rng(7);
  std::vector<std::string> ikeys;
  for (uint64_t seq = 1; seq <= 2000; seq++) {
    const std::string key = Cat("k", std::to_string(rng() % 300));
    mem->Add(seq, RowKind::kValue, key, PlainRow(Cat("v", std::to_string(seq))));
    std::string ikey;
    AppendInternalKey(&ikey, key, seq, RowKind::kValue);
    ikeys.push_back(ikey);
  }
  done = true;
  reader.join();
  std::sort(ikeys.begin(), ikeys.end(),
            [](const auto& a, const auto& b) { return CompareInternalKeys(a, b) < 0; });
  auto it = MemTable::NewIterator(mem);
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
    ASSERT_LT(i, ikeys.size());
    EXPECT_EQ(it->key(), ikeys[i]);
  }
  EXPECT_EQ(i, ikeys.size());
  i = ikeys.size();
  for (it->SeekToLast(); it->Valid(); it->Prev()) EXPECT_EQ(it->key(), ikeys[--i]);
  EXPECT_EQ(i, 0u);
}

// Keys under an unindexed prefix (a log's rows, ascending, between other keys; some rewritten, a
// few out of order) stay out of the key index and are found, versions and all, as indexed keys
// are: by FindVersions, by the iterators in order, and while a reader looks them up.
TEST(MemTableTest, KeysUnderAnUnindexedPrefixAreFoundWithoutTheKeyIndex) {
  auto mem = std::make_shared<MemTable>(size_t{64} << 20, nullptr, nullptr,
                                        std::vector<std::string>{"log:", "other-log:"});
  auto key_of = [](int i) {
    std::string digits = std::to_string(i);
    return Cat("log:", std::string(8 - digits.size(), '0') + digits);
  };
  std::atomic<bool> done{false};
  std::atomic<int> logged{0};
  std::thread reader([&] {
    // Every row logged before a lookup began is found.
    for (int round = 0; round < 20'000 && !done.load(); round++) {
      const int known = logged.load();
      if (known == 0) continue;
      const int i = round % known;
      ASSERT_TRUE(mem->FindVersions(key_of(i), UINT64_MAX >> 8).Valid()) << i;
    }
  });
  std::mt19937 rng(5);
  std::map<std::string, std::vector<uint64_t>> model;  // user key -> sequences, newest first
  uint64_t seq = 0;
  auto add = [&](const std::string& key) {
    ++seq;
    mem->Add(seq, RowKind::kValue, key, PlainRow(Cat("v", std::to_string(seq))));
    model[key].insert(model[key].begin(), seq);
  };
  constexpr int kRows = 3'000;
  for (int i = 0; i < kRows; i++) {
    add(Cat("data:", std::to_string(rng() % 50)));  // a write's data row, then its log row
    add(key_of(i));
    logged.store(i + 1);
    if (i % 97 == 0) add(key_of(static_cast<int>(rng() % (i + 1))));        // a row rewritten
    if (i % 89 == 0) add(Cat("other-log:", std::to_string(rng() % 1000)));  // out of order
  }
  done = true;
  reader.join();
  // The index holds the 50 data keys alone: its first array, 16 slots, grew to 128 at most.
  EXPECT_LE(mem->index_slots(), 128u);
  for (const auto& [key, sequences] : model) {
    auto c = mem->FindVersions(key, seq);
    for (uint64_t want : sequences) {
      ASSERT_TRUE(c.Valid()) << key;
      EXPECT_EQ(c.sequence(), want) << key;
      c.Next();
    }
    EXPECT_FALSE(c.Valid()) << key;
  }
  EXPECT_FALSE(mem->FindVersions(key_of(kRows), seq).Valid());
  EXPECT_FALSE(mem->FindVersions("log:", seq).Valid());
  auto it = MemTable::NewIterator(mem);
  it->SeekToFirst();
  for (const auto& [key, sequences] : model) {
    for (uint64_t want : sequences) {
      ASSERT_TRUE(it->Valid()) << key;
      ParsedInternalKey parsed;
      ASSERT_TRUE(ParseInternalKey(it->key(), &parsed));
      EXPECT_EQ(parsed.user_key, key);
      EXPECT_EQ(parsed.sequence, want) << key;
      it->Next();
    }
  }
  EXPECT_FALSE(it->Valid());
}

TEST(MemTableTest, VersionsAddedOutOfSequenceOrderStillSortAndSeek) {
  // WAL replay may hand a key's versions over in any order; each lands in its place.
  auto mem = std::make_shared<MemTable>();
  std::vector<uint64_t> sequences;
  for (uint64_t seq = 10; seq <= 200; seq += 10) sequences.push_back(seq);
  std::shuffle(sequences.begin(), sequences.end(), std::mt19937(3));
  std::vector<std::string> ikeys;
  for (uint64_t seq : sequences) {
    for (const char* key : {"a", "bb", "c"}) {
      const RowKind kind = seq % 30 == 0 ? RowKind::kTombstone : RowKind::kValue;
      mem->Add(seq, kind, key, PlainRow(Cat("v", std::to_string(seq))));
      std::string ikey;
      AppendInternalKey(&ikey, key, seq, kind);
      ikeys.push_back(ikey);
    }
  }
  std::sort(ikeys.begin(), ikeys.end(),
            [](const auto& a, const auto& b) { return CompareInternalKeys(a, b) < 0; });
  auto it = MemTable::NewIterator(mem);
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), i++) EXPECT_EQ(it->key(), ikeys.at(i));
  EXPECT_EQ(i, ikeys.size());
  // A seek to any lookup key lands on the first version at or below its sequence.
  for (const char* key : {"a", "b", "bb", "c", "d"}) {
    for (uint64_t seq = 0; seq <= 210; seq += 5) {
      const std::string target = LookupKey(key, seq);
      const auto want = std::find_if(ikeys.begin(), ikeys.end(), [&](const std::string& k) {
        return CompareInternalKeys(k, target) >= 0;
      });
      it->Seek(target);
      if (want == ikeys.end()) {
        EXPECT_FALSE(it->Valid()) << key << "@" << seq;
      } else {
        ASSERT_TRUE(it->Valid()) << key << "@" << seq;
        EXPECT_EQ(it->key(), *want) << key << "@" << seq;
        if (want != ikeys.begin()) {
          it->Prev();
          ASSERT_TRUE(it->Valid());
          EXPECT_EQ(it->key(), *(want - 1));
        }
      }
    }
  }
}

TEST(MemTableTest, FindVersionsWalksOneKeyNewestFirstUpToASequence) {
  auto mem = std::make_shared<MemTable>(1 << 20);
  mem->Add(1, RowKind::kValue, "a", PlainRow("a1"));
  mem->Add(2, RowKind::kValue, "b", PlainRow("b2"));
  mem->Add(3, RowKind::kTombstone, "b", PlainRow(""));
  mem->Add(4, RowKind::kValue, "b", PlainRow("b4"));
  mem->Add(5, RowKind::kValue, "c", PlainRow("c5"));
  auto walk = [&](std::string_view key, uint64_t sequence) -> std::vector<uint64_t> {
    std::vector<uint64_t> seen;
    for (auto c = mem->FindVersions(key, sequence); c.Valid(); c.Next()) {
      seen.push_back(c.sequence());
      if (c.sequence() == 3) {
        EXPECT_EQ(c.kind(), RowKind::kTombstone);
      } else {
        RowMeta meta;
        std::string_view value;
        EXPECT_TRUE(DecodeRow(c.encoded_row(), &meta, &value));
        EXPECT_EQ(value, Cat(key, std::to_string(c.sequence())));
      }
    }
    return seen;
  };
  EXPECT_EQ(walk("b", 10), (std::vector<uint64_t>{4, 3, 2}));
  EXPECT_EQ(walk("b", 3), (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(walk("b", 1), (std::vector<uint64_t>{}));
  EXPECT_EQ(walk("a", 10), (std::vector<uint64_t>{1}));
  EXPECT_EQ(walk("bb", 10), (std::vector<uint64_t>{}));
  EXPECT_EQ(walk("", 10), (std::vector<uint64_t>{}));
  EXPECT_FALSE(mem->FindVersions("d", 10).Valid());
}

TEST(MemTableTest, PointLookupsStayExactWhateverTheMemtableSize) {
  // The key index starts at the same small size for any memtable size and grows with the keys.
  for (const size_t bytes : {size_t{0}, size_t{100'000}}) {
    SCOPED_TRACE(bytes);
    auto mem = std::make_shared<MemTable>(bytes);
    uint64_t seq = 1;
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 3000; i++) {
        mem->Add(seq++, RowKind::kValue, Cat("key:", std::to_string(i)),
                 PlainRow(std::to_string(round)));
      }
    }
    for (int i = 0; i < 3000; i++) {
      auto c = mem->FindVersions(Cat("key:", std::to_string(i)), seq);
      int versions = 0;
      for (; c.Valid(); c.Next()) versions++;
      ASSERT_EQ(versions, 3) << i;
      auto newest = mem->FindVersions(Cat("key:", std::to_string(i)), seq);
      RowMeta meta;
      std::string_view value;
      ASSERT_TRUE(DecodeRow(newest.encoded_row(), &meta, &value));
      EXPECT_EQ(value, "2");
      EXPECT_FALSE(mem->FindVersions(Cat("absent:", std::to_string(i)), seq).Valid());
    }
    auto it = MemTable::NewIterator(mem);
    uint64_t entries = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) entries++;
    EXPECT_EQ(entries, 9000u);
  }
}

TEST(MemTableTest, KeyIndexGrowsWithItsKeysAndFindsEachOne) {
  auto mem = std::make_shared<MemTable>(size_t{1} << 30);
  const size_t first_slots = mem->index_slots();
  EXPECT_LE(first_slots, 4096u);  // a few KiB, not sized for the full memtable
  constexpr int kKeys = 100'000;  // several doublings of the index
  for (int i = 0; i < kKeys; i++) {
    const std::string key = Cat("key:", std::to_string(i));
    mem->Add(static_cast<uint64_t>(i) + 1, RowKind::kValue, key, PlainRow(key));
    // At most half full, at least a quarter once grown: the index follows the distinct keys.
    ASSERT_LE(2 * static_cast<size_t>(i + 1), mem->index_slots()) << i;
    ASSERT_TRUE(mem->index_slots() == first_slots ||
                mem->index_slots() < 4 * static_cast<size_t>(i + 1))
        << i;
    // While a growth copies the old array's keys a few at a time, keys not yet copied (an
    // older one, the first) are found in the old array.
    ASSERT_TRUE(mem->FindVersions(Cat("key:", std::to_string(i / 2)), i + 1).Valid()) << i;
    ASSERT_TRUE(mem->FindVersions("key:0", i + 1).Valid()) << i;
  }
  EXPECT_GE(mem->index_slots(), 32 * first_slots);
  mem->Add(kKeys + 1, RowKind::kTombstone, "key:7", PlainRow(""));  // a known key adds no slot
  for (int i = 0; i < kKeys; i++) {
    const std::string key = Cat("key:", std::to_string(i));
    auto c = mem->FindVersions(key, kKeys + 1);
    ASSERT_TRUE(c.Valid()) << key;
    RowMeta meta;
    std::string_view value;
    if (i == 7) {
      EXPECT_EQ(c.kind(), RowKind::kTombstone);
      c.Next();
    }
    ASSERT_TRUE(DecodeRow(c.encoded_row(), &meta, &value));
    EXPECT_EQ(value, key);
    c.Next();
    EXPECT_FALSE(c.Valid());
    EXPECT_FALSE(mem->FindVersions(Cat("absent:", std::to_string(i)), kKeys + 1).Valid());
    EXPECT_FALSE(mem->FindVersions(key, static_cast<uint64_t>(i)).Valid());  // older than it
  }
  EXPECT_FALSE(mem->FindVersions("", kKeys + 1).Valid());
  EXPECT_FALSE(mem->FindVersions(std::string(1000, 'k'), kKeys + 1).Valid());
}

TEST(MemTableTest, PrefetchChangesNoLookup) {
  auto mem = std::make_shared<MemTable>(size_t{1} << 30);
  const std::string long_key(1000, 'k');
  mem->Prefetch({});
  // Present keys, absent ones, a long one, the empty key, more than one stage's worth, while the
  // key index grows and copies its slots across.
  for (int i = 0; i < 5'000; i++) {
    std::vector<std::string> keys;
    for (int j = 0; j < 40; j++) keys.push_back(Cat("key:", std::to_string((i * 37 + j) % 6'000)));
    keys.push_back(long_key);
    keys.push_back("");
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    mem->Prefetch(views);
    const std::string key = Cat("key:", std::to_string(i));
    mem->Add(static_cast<uint64_t>(i) + 1, RowKind::kValue, key, PlainRow(key));
    if (i % 100 == 0)
      mem->Add(static_cast<uint64_t>(i) + 1, RowKind::kValue, long_key, PlainRow("l"));
  }
  for (int i = 0; i < 6'000; i++) {
    const std::string key = Cat("key:", std::to_string(i));
    const std::string_view view = key;
    mem->Prefetch({&view, 1});
    auto c = mem->FindVersions(key, 10'000);
    ASSERT_EQ(c.Valid(), i < 5'000) << key;
    if (i >= 5'000) continue;
    RowMeta meta;
    std::string_view value;
    ASSERT_TRUE(DecodeRow(c.encoded_row(), &meta, &value));
    EXPECT_EQ(value, key);
    c.Next();
    EXPECT_FALSE(c.Valid());
  }
  auto c = mem->FindVersions(long_key, 10'000);
  int versions = 0;
  for (; c.Valid(); c.Next()) versions++;
  EXPECT_EQ(versions, 50);
  EXPECT_FALSE(mem->FindVersions("", 10'000).Valid());
}

TEST(MemTableTest, MemoryUsageCountsEveryKeyIndexArray) {
  // The index's arrays count in ApproximateMemoryUsage (the flush decision and the server's
  // memory figures) from the moment each exists, and the old ones keep counting.
  auto mem = std::make_shared<MemTable>();
  size_t slots = mem->index_slots();
  size_t index_bytes = slots * sizeof(uint64_t);
  EXPECT_GE(mem->ApproximateMemoryUsage(), index_bytes);  // an empty memtable has its first
  int growths = 0;
  for (int i = 0; i < 20'000; i++) {
    const size_t before = mem->ApproximateMemoryUsage();
    const std::string key = Cat("key:", std::to_string(i));
    mem->Add(static_cast<uint64_t>(i) + 1, RowKind::kValue, key, PlainRow(key));
    const size_t added = mem->ApproximateMemoryUsage() - before;
    if (mem->index_slots() != slots) {
      slots = mem->index_slots();
      index_bytes += slots * sizeof(uint64_t);
      growths++;
      ASSERT_GE(added, slots * sizeof(uint64_t)) << i;
    } else {
      ASSERT_LT(added, 1024u) << i;  // the key's node and version only
    }
  }
  EXPECT_GE(growths, 10);
  EXPECT_GT(mem->ApproximateMemoryUsage(), index_bytes);
  const size_t before = mem->ApproximateMemoryUsage();
  mem->Add(20'001, RowKind::kValue, "key:3", PlainRow("again"));  // a known key: no index bytes
  EXPECT_LT(mem->ApproximateMemoryUsage() - before, 1024u);
}

TEST(MemTableTest, ReadersFindEveryAddedKeyWhileTheKeyIndexGrows) {
  // One writer adds keys through several doublings of the index; each reader, until the writer
  // is done (or a bounded count), looks up keys the writer has finished adding (`added`), the
  // newest among them and random older ones: every lookup must find its key, whichever array
  // the reader probes.
  auto mem = std::make_shared<MemTable>();
  constexpr int kKeys = 20'000;
  constexpr int kMaxLookupsPerReader = 1'000'000;
  const auto key_of = [](int i) { return Cat("key:", std::to_string(i)); };
  std::atomic<int> added{0};
  std::atomic<int> failures{0};
  const auto read = [&](unsigned seed) {
    std::mt19937 rng(seed);
    for (int n = 0; n < kMaxLookupsPerReader; n++) {
      const int done = added.load(std::memory_order_acquire);
      if (done == kKeys) return;
      if (done == 0) continue;
      const int i = n % 2 == 0 ? done - 1 : static_cast<int>(rng() % static_cast<unsigned>(done));
      const std::string key = key_of(i);
      auto c = mem->FindVersions(key, kKeys);
      RowMeta meta;
      std::string_view value;
      if (!c.Valid() || !DecodeRow(c.encoded_row(), &meta, &value) || value != key) failures++;
      if (mem->FindVersions(Cat("absent:", key), kKeys).Valid()) failures++;
    }
  };
  std::thread reader1(read, 1u);
  std::thread reader2(read, 2u);
  for (int i = 0; i < kKeys; i++) {
    const std::string key = key_of(i);
    mem->Add(static_cast<uint64_t>(i) + 1, RowKind::kValue, key, PlainRow(key));
    added.store(i + 1, std::memory_order_release);
  }
  reader1.join();
  reader2.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GE(mem->index_slots(), size_t{2} * kKeys);
}

// Seek prefix: the key up to and including its first '|'; keys without one have none.
size_t UpToBar(std::string_view key) {
  const size_t bar = key.find('|');
  return bar == std::string_view::npos ? 0 : bar + 1;
}

TEST(MemTableTest, SeeksToAPrefixLandWhereASearchWould) {
  auto mem = std::make_shared<MemTable>(1 << 20, &UpToBar);
  std::vector<std::string> ikeys;
  std::mt19937 rng(11);
  uint64_t seq = 1;
  for (int i = 0; i < 2000; i++) {
    // Prefixes "p0|" .. "p49|", keys without a prefix, and a key equal to its prefix.
    std::string key = Cat("p", std::to_string(rng() % 50));
    if (i % 7 == 0) {
      key += "x";
    } else if (i % 11 == 0) {
      key += "|";
    } else {
      key += Cat("|", std::to_string(rng() % 1000));
    }
    mem->Add(seq, RowKind::kValue, key, PlainRow("v"));
    std::string ikey;
    AppendInternalKey(&ikey, key, seq, RowKind::kValue);
    ikeys.push_back(ikey);
    seq++;
  }
  std::sort(ikeys.begin(), ikeys.end(),
            [](const auto& a, const auto& b) { return CompareInternalKeys(a, b) < 0; });
  auto it = MemTable::NewIterator(mem);
  // Every key went in from where its prefix's keys begin (after the prefix's first): the
  // whole order holds.
  std::vector<std::string> walked;
  for (it->SeekToFirst(); it->Valid(); it->Next()) walked.emplace_back(it->key());
  ASSERT_EQ(walked, ikeys);
  for (int p = 0; p < 60; p++) {  // p50..p59 are absent prefixes
    for (uint64_t at : {seq, seq / 2, uint64_t{0}}) {
      const std::string target = LookupKey(Cat("p", std::to_string(p)) + "|", at);
      const auto want = std::find_if(ikeys.begin(), ikeys.end(), [&](const std::string& k) {
        return CompareInternalKeys(k, target) >= 0;
      });
      it->Seek(target);
      ASSERT_EQ(it->Valid(), want != ikeys.end()) << p << "@" << at;
      if (!it->Valid()) continue;
      EXPECT_EQ(it->key(), *want) << p << "@" << at;
      it->Next();  // and it walks on in order from there
      if (want + 1 != ikeys.end()) {
        ASSERT_TRUE(it->Valid());
        EXPECT_EQ(it->key(), *(want + 1));
      }
    }
  }
}

namespace flush_view {

// Every (user key, versions) of `it`, each key's versions most recently written first.
std::map<std::string, std::vector<KeyVersion>> VersionsByKey(InternalIterator* it) {
  std::map<std::string, std::vector<KeyVersion>> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey k;
    EXPECT_TRUE(ParseInternalKey(it->key(), &k));
    KeyVersion v;
    v.sequence = k.sequence;
    v.kind = k.kind;
    std::string_view value;
    EXPECT_TRUE(DecodeRow(it->value(), &v.meta, &value));
    v.value = std::string(value);
    out[std::string(k.user_key)].push_back(std::move(v));
  }
  return out;
}

std::string Describe(const std::vector<KeyVersion>& versions) {
  std::string s;
  for (const auto& v : versions) {
    s += std::to_string(v.sequence) + "@" + std::to_string(v.meta.timestamp_or_zero()) + " ";
  }
  return s;
}

std::string TimedRow(std::optional<int64_t> ts, std::string_view value) {
  std::string row;
  AppendEncodedRow(&row, RowMeta{ts, std::nullopt}, value);
  return row;
}

}  // namespace flush_view

// The flush view hands ReduceForFlush two versions of a key written in timestamp order and all
// of any other key; either way the flush keeps the same versions.
TEST(MemTableTest, FlushViewKeepsWhatReduceForFlushKeeps) {
  using namespace flush_view;
  auto mem = std::make_shared<MemTable>(1 << 20);
  std::mt19937 rng(5);
  uint64_t seq = 1;
  std::map<std::string, int64_t> last_ts;
  std::map<std::string, bool> in_order;
  // Patterns by key number: 0 rising timestamps, 1 ties and rises, 2 random (out of order),
  // 3 no timestamps, 4 one version, 5 rising with tombstones.
  for (int round = 0; round < 40; round++) {
    for (int k = 0; k < 60; k++) {
      const int pattern = k % 6;
      if (pattern == 4 && round > 0) continue;
      const std::string key = Cat("key", std::to_string(k));
      std::optional<int64_t> ts;
      switch (pattern) {
        case 0:
          ts = round * 10 + static_cast<int64_t>(rng() % 10);
          break;
        case 1:
          ts = round / 7;
          break;
        case 2:
          ts = static_cast<int64_t>(rng() % 50);
          break;
        case 3:
          break;
        default:
          ts = round;
          break;
      }
      const RowKind kind = pattern == 5 && round % 3 == 0 ? RowKind::kTombstone : RowKind::kValue;
      mem->Add(seq++, kind, key, TimedRow(ts, kind == RowKind::kValue ? "v" : ""));
      const int64_t t = ts.value_or(0);
      if (!in_order.count(key)) in_order[key] = true;
      if (last_ts.count(key) && t < last_ts[key]) in_order[key] = false;
      last_ts[key] = t;
    }
  }
  auto all = MemTable::NewIterator(mem);
  auto flush = MemTable::NewFlushIterator(mem);
  const auto full = VersionsByKey(all.get());
  const auto shown = VersionsByKey(flush.get());
  ASSERT_EQ(full.size(), shown.size());
  size_t shortened = 0;
  for (const auto& [key, versions] : full) {
    const auto& view = shown.at(key);
    if (in_order.at(key)) {
      EXPECT_LE(view.size(), 2u) << key;
    } else {
      EXPECT_EQ(view.size(), versions.size()) << key;
    }
    if (view.size() < versions.size()) shortened++;
    auto want = versions;
    ReduceForFlush(&want);
    auto got = view;
    ReduceForFlush(&got);
    EXPECT_EQ(Describe(got), Describe(want)) << key << ": " << Describe(versions);
  }
  EXPECT_EQ(shortened, 40u);  // patterns 0, 1, 3 and 5; never 2 (this seed) or 4

  // The view reads the same backwards and seeks within it.
  std::vector<std::string> forward;
  for (flush->SeekToFirst(); flush->Valid(); flush->Next()) forward.emplace_back(flush->key());
  std::vector<std::string> backward;
  for (flush->SeekToLast(); flush->Valid(); flush->Prev()) backward.emplace_back(flush->key());
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(forward, backward);
  for (size_t i = 0; i < forward.size(); i++) {
    flush->Seek(forward[i]);
    ASSERT_TRUE(flush->Valid());
    EXPECT_EQ(flush->key(), forward[i]);
  }
}

// A version linked below the newest (WAL replay of an older batch) ends the shortcut.
TEST(MemTableTest, FlushViewShowsEveryVersionOfAKeyLinkedOutOfSequence) {
  auto mem = std::make_shared<MemTable>(1 << 20);
  mem->Add(10, RowKind::kValue, "k", flush_view::TimedRow(1, "a"));
  mem->Add(30, RowKind::kValue, "k", flush_view::TimedRow(2, "b"));
  mem->Add(40, RowKind::kValue, "k", flush_view::TimedRow(3, "c"));
  mem->Add(20, RowKind::kValue, "k", flush_view::TimedRow(4, "d"));
  auto flush = MemTable::NewFlushIterator(mem);
  EXPECT_EQ(flush_view::VersionsByKey(flush.get()).at("k").size(), 4u);
}

}  // namespace
}  // namespace ebb::storage
