// Table::Get (the point-lookup path without iterators) against a std::map model: the versions
// of one user key, newest first, across data blocks; the visitor stopping early; bloom skips;
// block cache use; corruption detection; a real file.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "storage/env/posix_file_system.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_cache.h"
#include "storage/table/table.h"
#include "storage/table/table_builder.h"
#include "tests/unit/storage/table_test_util.h"

namespace ebb::storage {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string Key(std::string_view user_key, uint64_t sequence, RowKind kind = RowKind::kValue) {
  std::string k;
  AppendInternalKey(&k, user_key, sequence, kind);
  return k;
}

std::string StampedRow(int64_t ts, std::string_view value) {
  std::string row;
  AppendEncodedRow(&row, RowMeta{ts, std::nullopt}, value);
  return row;
}

std::string BuildTable(const Model& model, const TableOptions& options) {
  MemFile file;
  TableBuilder builder(options, &file);
  for (const auto& [k, v] : model) builder.Add(k, v);
  EXPECT_TRUE(builder.Finish().ok());
  return file.contents;
}

std::unique_ptr<Table> OpenTable(const std::string& contents, BlockCache* cache = nullptr,
                                 const MemRandomAccessFile** file_out = nullptr) {
  auto file = std::make_unique<MemRandomAccessFile>(contents);
  if (file_out != nullptr) *file_out = file.get();
  std::unique_ptr<Table> table;
  Status s = Table::Open(TableOptions{}, std::move(file), contents.size(), 7, cache,
                         "/db/000007.sst", &table);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return table;
}

// Everything Get offers for (user_key, sequence), with no early stop.
Entries GetAll(const Table& table, std::string_view user_key, uint64_t sequence,
               Status* status = nullptr) {
  Entries got;
  Status s =
      table.Get(LookupKey(user_key, sequence), true, [&](std::string_view k, std::string_view v) {
        got.emplace_back(std::string(k), std::string(v));
        return true;
      });
  if (status != nullptr) {
    *status = s;
  } else {
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return got;
}

// What Get must offer: the model's entries >= the lookup key with the same user key.
Entries Expected(const Model& model, std::string_view user_key, uint64_t sequence) {
  Entries want;
  for (auto it = model.lower_bound(LookupKey(user_key, sequence));
       it != model.end() && ExtractUserKey(it->first) == user_key; ++it) {
    want.emplace_back(it->first, it->second);
  }
  return want;
}

TEST(TableGetTest, OffersExactlyTheKeysVersionsAgainstModel) {
  std::mt19937 rng(11);
  Model model;
  for (int i = 0; i < 3000; ++i) {
    const std::string user_key = "key" + std::to_string(rng() % 300);
    const RowKind kind = rng() % 6 == 0 ? RowKind::kTombstone : RowKind::kValue;
    model[Key(user_key, 1 + rng() % 100000, kind)] =
        StampedRow(static_cast<int64_t>(rng() % 1000), std::string(rng() % 40, 'a' + i % 26));
  }
  for (Compression c : {Compression::kNone, Compression::kLz4, Compression::kZstd}) {
    const std::string contents =
        BuildTable(model, TableOptions{.block_size = 512, .compression = c});
    auto table = OpenTable(contents);
    for (int k = 0; k < 300; ++k) {
      const std::string user_key = "key" + std::to_string(k);
      for (uint64_t seq : {kMaxSequence, uint64_t{50000}, uint64_t{1}}) {
        ASSERT_EQ(GetAll(*table, user_key, seq), Expected(model, user_key, seq))
            << user_key << " @" << seq << " compression " << static_cast<int>(c);
      }
    }
    // Absent keys around and between the present ones offer nothing.
    for (const char* absent : {"", "a", "key", "key10a", "key99x", "zzz"}) {
      EXPECT_TRUE(GetAll(*table, absent, kMaxSequence).empty()) << absent;
    }
  }
}

TEST(TableGetTest, VersionsSpanningManyBlocksAreOfferedNewestFirst) {
  Model model;
  model[Key("a", 5)] = StampedRow(1, "before");
  for (uint64_t seq = 1; seq <= 200; ++seq) {
    model[Key("hot", seq)] = StampedRow(static_cast<int64_t>(seq), std::string(20, 'v'));
  }
  model[Key("z", 5)] = StampedRow(1, "after");
  auto table = OpenTable(BuildTable(model, TableOptions{.block_size = 128}));
  const Entries got = GetAll(*table, "hot", kMaxSequence);
  ASSERT_EQ(got.size(), 200u);
  for (size_t i = 0; i < got.size(); ++i) {
    ParsedInternalKey parsed;
    ASSERT_TRUE(ParseInternalKey(got[i].first, &parsed));
    EXPECT_EQ(parsed.user_key, "hot");
    EXPECT_EQ(parsed.sequence, 200 - i);
  }
  // A snapshot in the middle starts at the newest version it can see.
  const Entries from_100 = GetAll(*table, "hot", 100);
  ASSERT_EQ(from_100.size(), 100u);
  EXPECT_EQ(from_100.front().first, Key("hot", 100));
  EXPECT_EQ(from_100.back().first, Key("hot", 1));
}

TEST(TableGetTest, VisitorReturningFalseStopsTheWalk) {
  Model model;
  for (uint64_t seq = 1; seq <= 50; ++seq) model[Key("k", seq)] = StampedRow(1, "v");
  auto table = OpenTable(BuildTable(model, TableOptions{.block_size = 64}));
  int offered = 0;
  Status s = table->Get(LookupKey("k", kMaxSequence), true,
                        [&](std::string_view, std::string_view) { return ++offered < 3; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(offered, 3);
}

TEST(TableGetTest, BloomFilterSkipsAbsentKeysWithoutReadingBlocks) {
  Model model;
  for (int i = 0; i < 500; ++i) model[Key("key" + std::to_string(i), 9)] = StampedRow(i, "value");
  const MemRandomAccessFile* file = nullptr;
  auto table = OpenTable(BuildTable(model, TableOptions{}), nullptr, &file);
  int false_positives = 0;
  for (int i = 0; i < 500; ++i) {
    const std::string absent = "absent" + std::to_string(i);
    const int before = file->reads;
    EXPECT_TRUE(GetAll(*table, absent, kMaxSequence).empty());
    if (file->reads != before) ++false_positives;
  }
  EXPECT_LT(false_positives, 25);  // 10 bits per key: ~1% expected
  EXPECT_EQ(GetAll(*table, "key42", kMaxSequence).size(), 1u);
}

TEST(TableGetTest, BlockCacheServesRepeatedGets) {
  Model model;
  for (int i = 0; i < 400; ++i) model[Key("key" + std::to_string(i), 9)] = StampedRow(i, "value");
  BlockCache cache(1 << 20);
  const MemRandomAccessFile* file = nullptr;
  auto table = OpenTable(BuildTable(model, TableOptions{}), &cache, &file);
  ASSERT_EQ(GetAll(*table, "key123", kMaxSequence).size(), 1u);
  const int reads = file->reads;
  const uint64_t hits = cache.hits();
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(GetAll(*table, "key123", kMaxSequence).size(), 1u);
  }
  EXPECT_EQ(file->reads, reads);
  EXPECT_EQ(cache.hits(), hits + 3);
  // fill_cache = false reads the block but leaves the cache as it was.
  const size_t usage = cache.usage();
  Status s = table->Get(LookupKey("key390", kMaxSequence), false,
                        [](std::string_view, std::string_view) { return true; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(cache.usage(), usage);
}

TEST(TableGetTest, DamagedDataBlockIsCorruptionNotWrongData) {
  Model model;
  for (int i = 0; i < 100; ++i) {
    model[Key("key" + std::to_string(1000 + i), 9)] = StampedRow(i, "value" + std::to_string(i));
  }
  std::string contents =
      BuildTable(model, TableOptions{.block_size = 256, .compression = Compression::kNone});
  contents[10] ^= 0x20;  // inside the first data block
  auto table = OpenTable(contents);
  Status s;
  const Entries got = GetAll(*table, "key1000", kMaxSequence, &s);
  EXPECT_TRUE(got.empty());
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("/db/000007.sst: block checksum mismatch at offset 0"),
            std::string::npos)
      << s.ToString();
  // Keys in undamaged blocks are still found.
  EXPECT_EQ(GetAll(*table, "key1099", kMaxSequence).size(), 1u);
}

TEST(TableGetTest, RealFileThroughPosixFileSystem) {
  char tmpl[] = "/tmp/ebb_table_get_test_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/000042.sst";
  Model model;
  for (int i = 0; i < 2000; ++i) {
    model[Key("key" + std::to_string(i % 700), 1 + i)] = StampedRow(i, std::string(i % 50, 'x'));
  }
  BlockCache cache(1 << 20);
  std::unique_ptr<Table> table;
  ASSERT_TRUE(WriteAndOpenTableFile(path, TableOptions{.compression = Compression::kNone}, model,
                                    &cache, &table)
                  .ok());
  for (int k = 0; k < 700; k += 7) {
    const std::string user_key = "key" + std::to_string(k);
    ASSERT_EQ(GetAll(*table, user_key, kMaxSequence), Expected(model, user_key, kMaxSequence));
  }
  table.reset();
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace ebb::storage
