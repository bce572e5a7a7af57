// MemTable and its skiplist: ordering of versions, iteration both ways, concurrent readers.
#include "storage/db/memtable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <thread>

namespace ebb::storage {
namespace {

// a + b, spelled so GCC 12's -Wrestrict false positive on "literal" + std::string stays quiet.
std::string Cat(std::string_view a, const std::string& b) {
  std::string s(a);
  s.append(b);
  return s;
}

std::string Row(std::string_view value) {
  std::string row;
  AppendEncodedRow(&row, RowMeta{}, value);
  return row;
}

TEST(MemTableTest, VersionsOrderNewestFirstWithinAKey) {
  auto mem = std::make_shared<MemTable>();
  mem->Add(1, RowKind::kValue, "b", Row("b1"));
  mem->Add(2, RowKind::kValue, "a", Row("a2"));
  mem->Add(3, RowKind::kTombstone, "b", Row(""));
  mem->Add(4, RowKind::kValue, "b", Row("b4"));
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
    mem->Add(seq, RowKind::kValue, key, Row(Cat("v", std::to_string(seq))));
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
      mem->Add(seq, kind, key, Row(Cat("v", std::to_string(seq))));
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
  mem->Add(1, RowKind::kValue, "a", Row("a1"));
  mem->Add(2, RowKind::kValue, "b", Row("b2"));
  mem->Add(3, RowKind::kTombstone, "b", Row(""));
  mem->Add(4, RowKind::kValue, "b", Row("b4"));
  mem->Add(5, RowKind::kValue, "c", Row("c5"));
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

TEST(MemTableTest, PointLookupsStayExactWhenHashBucketsOverflow) {
  auto mem = std::make_shared<MemTable>(0);  // the fewest buckets: long chains
  uint64_t seq = 1;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 3000; i++) {
      mem->Add(seq++, RowKind::kValue, Cat("key:", std::to_string(i)), Row(std::to_string(round)));
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
    mem->Add(seq, RowKind::kValue, key, Row("v"));
    std::string ikey;
    AppendInternalKey(&ikey, key, seq, RowKind::kValue);
    ikeys.push_back(ikey);
    seq++;
  }
  std::sort(ikeys.begin(), ikeys.end(),
            [](const auto& a, const auto& b) { return CompareInternalKeys(a, b) < 0; });
  auto it = MemTable::NewIterator(mem);
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

}  // namespace
}  // namespace ebb::storage
