// MemTable and its skiplist: ordering of versions, iteration both ways, concurrent readers.
#include "storage/db/memtable.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ebb::storage
