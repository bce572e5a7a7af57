// TableBuilder + Table: iteration against a std::map model, every compression, properties,
// bloom, block cache use, corruption detection.
#include "storage/table/table.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "storage/env/posix_file_system.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_cache.h"
#include "storage/table/format.h"
#include "storage/table/table_builder.h"
#include "tests/unit/storage/table_test_util.h"

namespace ebb::storage {
namespace {

std::string EncodedRow(std::optional<int64_t> ts, std::optional<int64_t> expire_at,
                       std::string_view value) {
  std::string row;
  AppendEncodedRow(&row, RowMeta{ts, expire_at}, value);
  return row;
}

Model RandomModel(uint32_t seed, int entries, int distinct_keys) {
  std::mt19937 rng(seed);
  Model model;
  for (int i = 0; i < entries; ++i) {
    const std::string user_key = "key" + std::to_string(rng() % distinct_keys);
    const bool tombstone = rng() % 5 == 0;
    std::string ikey;
    AppendInternalKey(&ikey, user_key, 1 + rng() % 1000000,
                      tombstone ? RowKind::kTombstone : RowKind::kValue);
    std::optional<int64_t> ts, exp;
    if (rng() % 2) ts = static_cast<int64_t>(rng() % 100000) - 500;
    if (!tombstone && rng() % 3 == 0) exp = 1000 + rng() % 100000;
    model[ikey] = EncodedRow(ts, exp, tombstone ? "" : std::string(rng() % 200, 'a' + i % 26));
  }
  return model;
}

struct Built {
  std::string contents;
  TableProperties props;
};

Built Build(const Model& model, const TableOptions& options) {
  MemFile file;
  TableBuilder builder(options, &file);
  for (const auto& [k, v] : model) builder.Add(k, v);
  EXPECT_TRUE(builder.status().ok());
  EXPECT_TRUE(builder.Finish().ok());
  EXPECT_EQ(builder.NumEntries(), model.size());
  EXPECT_EQ(builder.FileSize(), file.contents.size());
  return {file.contents, builder.properties()};
}

std::unique_ptr<Table> Open(const std::string& contents, BlockCache* cache = nullptr,
                            uint64_t number = 7, Status* status = nullptr) {
  std::unique_ptr<Table> table;
  Status s = Table::Open(TableOptions{}, std::make_unique<MemRandomAccessFile>(contents),
                         contents.size(), number, cache, "/db/000007.sst", &table);
  if (status != nullptr)
    *status = s;
  else
    EXPECT_TRUE(s.ok()) << s.ToString();
  return table;
}

void CheckAgainstModel(const Table& table, const Model& model, uint32_t seed) {
  auto it = table.NewIterator();
  // Forward and backward scans.
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(m, model.end());
    ASSERT_EQ(it->key(), m->first);
    ASSERT_EQ(it->value(), m->second);
  }
  ASSERT_EQ(m, model.end());
  ASSERT_TRUE(it->status().ok());
  auto r = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
    ASSERT_NE(r, model.rend());
    ASSERT_EQ(it->key(), r->first);
  }
  ASSERT_EQ(r, model.rend());
  // Random seeks followed by random steps.
  std::mt19937 rng(seed);
  for (int i = 0; i < 300; ++i) {
    const std::string target =
        LookupKey("key" + std::to_string(rng() % 1200), rng() % 2 ? kMaxSequence : rng() % 1000000);
    it->Seek(target);
    auto pos = model.lower_bound(target);
    for (int step = 0; step < 20; ++step) {
      ASSERT_EQ(it->Valid(), pos != model.end());
      if (!it->Valid()) break;
      ASSERT_EQ(it->key(), pos->first);
      ASSERT_EQ(it->value(), pos->second);
      if (rng() % 2) {
        it->Next();
        ++pos;
      } else {
        it->Prev();
        if (pos == model.begin()) {
          ASSERT_FALSE(it->Valid());
          break;
        }
        --pos;
      }
    }
  }
  ASSERT_TRUE(it->status().ok());
}

TEST(TableTest, ManyVersionsAgainstModelEveryCompression) {
  for (Compression c : {Compression::kNone, Compression::kLz4, Compression::kZstd}) {
    for (uint32_t seed : {1u, 2u}) {
      const Model model = RandomModel(seed, 4000, 1000);
      TableOptions options;
      options.compression = c;
      options.block_size = seed == 1 ? 4096 : 256;
      const Built built = Build(model, options);
      auto table = Open(built.contents);
      ASSERT_NE(table, nullptr);
      SCOPED_TRACE("compression " + std::to_string(static_cast<int>(c)));
      CheckAgainstModel(*table, model, seed);
    }
  }
}

TEST(TableTest, AlignedDataBlocksNeverStraddleAnAlignmentBoundary) {
  for (Compression c : {Compression::kNone, Compression::kLz4}) {
    const Model model = RandomModel(3, 4000, 1000);
    TableOptions options;
    options.compression = c;
    options.block_align = 4096;
    const Built built = Build(model, options);
    auto file = std::make_unique<MemRandomAccessFile>(built.contents);
    MemRandomAccessFile* log = file.get();
    std::unique_ptr<Table> table;
    ASSERT_TRUE(Table::Open(TableOptions{}, std::move(file), built.contents.size(), 7, nullptr,
                            "/db/000007.sst", &table)
                    .ok());
    SCOPED_TRACE("compression " + std::to_string(static_cast<int>(c)));
    CheckAgainstModel(*table, model, 3);
    // Every data block (read with its trailer, one read each) lies within one 4 KiB page.
    log->read_log.clear();
    for (const auto& entry : model) {
      bool found = false;
      ASSERT_TRUE(table
                      ->Get(entry.first, false,
                            [&](std::string_view k, std::string_view v) {
                              found = k == entry.first && v == entry.second;
                              return false;
                            })
                      .ok());
      ASSERT_TRUE(found);
    }
    ASSERT_FALSE(log->read_log.empty());
    for (const auto& [offset, n] : log->read_log) {
      ASSERT_LE(n, 4096u);
      EXPECT_EQ(offset / 4096, (offset + n - 1) / 4096) << offset << " " << n;
    }
  }
  // Rows larger than a page make blocks larger than a page: written unpadded, read as any.
  Model big = RandomModel(4, 500, 300);
  for (int i = 0; i < 20; ++i) {
    std::string key;
    AppendInternalKey(&key, "key" + std::to_string(i * 13), 2000000, RowKind::kValue);
    big[key] = EncodedRow(std::nullopt, std::nullopt, std::string(5000 + i, 'x'));
  }
  const Built built_big = Build(big, TableOptions{.block_align = 4096});
  CheckAgainstModel(*Open(built_big.contents), big, 4);
  // Unaligned, the same rows put blocks across pages.
  const Built plain = Build(RandomModel(3, 4000, 1000), TableOptions{});
  EXPECT_LT(plain.contents.size(),
            Build(RandomModel(3, 4000, 1000), TableOptions{.block_align = 4096}).contents.size());
}

TEST(TableTest, AwkwardUserKeysAgainstModel) {
  // Keys that are prefixes of each other, contain 0x00 / 0xff bytes and share long prefixes:
  // the index separators between blocks must still order correctly.
  std::mt19937 rng(21);
  Model model;
  const std::string prefix(100, 'p');
  const char alphabet[] = {'\x00', '\x01', 'a', 'b', '\xfe', '\xff'};
  for (int i = 0; i < 3000; ++i) {
    std::string user = rng() % 2 ? prefix : "";
    const int len = rng() % 6;
    for (int j = 0; j < len; ++j) user += alphabet[rng() % sizeof(alphabet)];
    std::string k;
    AppendInternalKey(&k, user, rng() % 50, rng() % 4 ? RowKind::kValue : RowKind::kTombstone);
    model[k] = EncodedRow(std::nullopt, std::nullopt, std::to_string(i));
  }
  auto table = Open(Build(model, TableOptions{.block_size = 128}).contents);
  CheckAgainstModel(*table, model, 21);
  auto it = table->NewIterator();
  for (const auto& [k, v] : model) {
    it->Seek(k);
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->key(), k);
    it->Seek(LookupKey(ExtractUserKey(k), kMaxSequence));
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(ExtractUserKey(it->key()), ExtractUserKey(k));
  }
}

TEST(TableTest, CompressionShrinksCompressibleData) {
  Model model;
  for (int i = 0; i < 2000; ++i) {
    std::string k;
    AppendInternalKey(&k, "user:" + std::to_string(100000 + i), 5, RowKind::kValue);
    model[k] = EncodedRow(std::nullopt, std::nullopt, std::string(300, 'v'));
  }
  TableOptions none, lz4, zstd;
  none.compression = Compression::kNone;
  lz4.compression = Compression::kLz4;
  zstd.compression = Compression::kZstd;
  const size_t plain = Build(model, none).contents.size();
  EXPECT_LT(Build(model, lz4).contents.size(), plain / 4);
  EXPECT_LT(Build(model, zstd).contents.size(), plain / 4);
}

TEST(TableTest, IncompressibleBlocksAreStoredUncompressed) {
  std::mt19937 rng(12);
  Model model;
  for (int i = 0; i < 500; ++i) {
    std::string k, v(200, '\0');
    for (char& c : v) c = static_cast<char>(rng());
    AppendInternalKey(&k, "key" + std::to_string(1000 + i), 1, RowKind::kValue);
    model[k] = EncodedRow(std::nullopt, std::nullopt, v);
  }
  TableOptions none, lz4, zstd;
  none.compression = Compression::kNone;
  lz4.compression = Compression::kLz4;
  zstd.compression = Compression::kZstd;
  const Built plain = Build(model, none);
  // Compression never pays 12.5% on random bytes: the files are byte-identical.
  EXPECT_EQ(Build(model, lz4).contents, plain.contents);
  EXPECT_EQ(Build(model, zstd).contents, plain.contents);
}

TEST(TableTest, RealFileThroughPosixFileSystem) {
  char tmpl[] = "/tmp/ebb_table_test_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/000042.sst";
  const Model model = RandomModel(8, 1500, 400);
  BlockCache cache(1 << 20);
  std::unique_ptr<Table> table;
  ASSERT_TRUE(WriteAndOpenTableFile(path, TableOptions{.compression = Compression::kZstd}, model,
                                    &cache, &table)
                  .ok());
  CheckAgainstModel(*table, model, 8);
  table.reset();
  std::filesystem::remove_all(tmpl);
}

TEST(TableTest, EmptyTable) {
  const Built built = Build({}, TableOptions{});
  auto table = Open(built.contents);
  auto it = table->NewIterator();
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->Seek(LookupKey("a", kMaxSequence));
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok());
  EXPECT_EQ(table->properties().entries, 0u);
}

TEST(TableTest, PropertiesDescribeTheRows) {
  Model model;
  auto add = [&](std::string_view key, uint64_t seq, RowKind kind, std::optional<int64_t> ts,
                 std::optional<int64_t> exp) {
    std::string k;
    AppendInternalKey(&k, key, seq, kind);
    model[k] = EncodedRow(ts, exp, kind == RowKind::kValue ? "val" : "");
  };
  add("a", 10, RowKind::kValue, 100, 5000);  // live at now=1000
  add("a", 9, RowKind::kValue, -20, 900);    // expired at write
  add("b", 30, RowKind::kTombstone, 300, std::nullopt);
  add("c", 4, RowKind::kValue, std::nullopt, 1000);  // expire_at == now: expired
  TableOptions options;
  options.expiry_now_ms = 1000;
  const Built built = Build(model, options);
  const TableProperties& p = built.props;
  EXPECT_EQ(p.entries, 4u);
  EXPECT_EQ(p.tombstones, 1u);
  EXPECT_EQ(p.expired_at_write, 2u);
  EXPECT_EQ(p.meta_features, kRowHasTimestamp | kRowHasExpiry);
  EXPECT_EQ(p.min_timestamp, -20);
  EXPECT_EQ(p.max_timestamp, 300);
  EXPECT_EQ(p.min_expire_at, 900);
  EXPECT_EQ(p.max_expire_at, 5000);
  EXPECT_FALSE(p.has_non_expiring);  // a tombstone is no row that never expires
  EXPECT_TRUE(p.has_untimed_rows);   // "c"
  EXPECT_EQ(p.EffectiveMinTimestamp(), -20);
  EXPECT_EQ(p.EffectiveMaxTimestamp(), 300);
  EXPECT_EQ(p.min_sequence, 4u);
  EXPECT_EQ(p.max_sequence, 30u);
  EXPECT_EQ(p.smallest_key, model.begin()->first);
  EXPECT_EQ(p.largest_key, model.rbegin()->first);
  uint64_t key_bytes = 0, value_bytes = 0;
  for (const auto& [k, v] : model) {
    key_bytes += k.size();
    value_bytes += v.size();
  }
  EXPECT_EQ(p.raw_key_bytes, key_bytes);
  EXPECT_EQ(p.raw_value_bytes, value_bytes);
  // The reader sees the same properties.
  EXPECT_EQ(Open(built.contents)->properties(), p);

  options.expiry_now_ms = INT64_MIN;  // nothing expires
  EXPECT_EQ(Build(model, options).props.expired_at_write, 0u);

  // A value row without an expiry sets has_non_expiring; timestamps everywhere clear
  // has_untimed_rows.
  Model plain;
  std::string key;
  AppendInternalKey(&key, "p", 1, RowKind::kValue);
  plain[key] = EncodedRow(7, std::nullopt, "v");
  const TableProperties r = Build(plain, TableOptions{}).props;
  EXPECT_TRUE(r.has_non_expiring);
  EXPECT_FALSE(r.has_untimed_rows);

  // Only expiring value rows: has_non_expiring stays false; no timestamps: feature bit clear.
  Model expiring;
  std::string k;
  AppendInternalKey(&k, "x", 1, RowKind::kValue);
  expiring[k] = EncodedRow(std::nullopt, 42, "v");
  const TableProperties q = Build(expiring, TableOptions{}).props;
  EXPECT_FALSE(q.has_non_expiring);
  EXPECT_EQ(q.meta_features, kRowHasExpiry);
  EXPECT_EQ(q.min_expire_at, 42);
  EXPECT_EQ(q.max_expire_at, 42);
}

TEST(TableTest, BuilderRejectsOutOfOrderAndMalformedInput) {
  MemFile file;
  auto key = [](std::string_view user_key, uint64_t seq) {
    std::string k;
    AppendInternalKey(&k, user_key, seq, RowKind::kValue);
    return k;
  };
  TableBuilder builder(TableOptions{}, &file);
  builder.Add(key("b", 5), EncodedRow(std::nullopt, std::nullopt, "v"));
  EXPECT_TRUE(builder.status().ok());
  builder.Add(key("a", 5), EncodedRow(std::nullopt, std::nullopt, "v"));
  EXPECT_TRUE(builder.status().IsInvalidArgument());
  EXPECT_FALSE(builder.Finish().ok());

  TableBuilder bad_row(TableOptions{}, &file);
  bad_row.Add(key("a", 5), std::string("\x80", 1));
  EXPECT_TRUE(bad_row.status().IsInvalidArgument());
  bad_row.Abandon();

  TableBuilder bad_key(TableOptions{}, &file);
  bad_key.Add(LookupKey("a", 5), EncodedRow(std::nullopt, std::nullopt, "v"));  // kind byte 0xff
  EXPECT_TRUE(bad_key.status().IsInvalidArgument());
  bad_key.Abandon();
}

TEST(TableTest, BloomFilterSkipsAbsentKeys) {
  const Model model = RandomModel(3, 3000, 1000);
  const Built built = Build(model, TableOptions{});
  auto table = Open(built.contents);
  for (const auto& [k, v] : model) ASSERT_TRUE(table->KeyMayMatch(ExtractUserKey(k)));
  int false_positives = 0;
  for (int i = 0; i < 10000; ++i) {
    false_positives += table->KeyMayMatch("absent" + std::to_string(i));
  }
  EXPECT_LT(false_positives, 300);  // ~1% expected at 10 bits per key

  TableOptions no_filter;
  no_filter.bloom_bits_per_key = 0;
  auto unfiltered = Open(Build(model, no_filter).contents);
  EXPECT_TRUE(unfiltered->KeyMayMatch("absent"));
}

TEST(TableTest, BlockCacheServesRepeatedReads) {
  const Model model = RandomModel(4, 2000, 500);
  const Built built = Build(model, TableOptions{});
  BlockCache cache(1 << 20);
  auto table = Open(built.contents, &cache);
  auto scan = [&](bool fill) {
    auto it = table->NewIterator(fill);
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    EXPECT_EQ(n, model.size());
  };
  scan(false);
  EXPECT_EQ(cache.usage(), 0u);  // fill_cache=false does not populate
  const uint64_t misses = cache.misses();
  EXPECT_GT(misses, 1u);
  scan(true);
  EXPECT_GT(cache.usage(), 0u);
  EXPECT_EQ(cache.hits(), 0u);
  scan(true);
  EXPECT_EQ(cache.hits(), misses);  // every block of the second pass came from the cache
  EXPECT_EQ(cache.misses(), 2 * misses);
}

TEST(TableTest, ApproximateOffsetsIncrease) {
  const Model model = RandomModel(5, 3000, 1000);
  const Built built = Build(model, TableOptions{.compression = Compression::kNone});
  auto table = Open(built.contents);
  uint64_t prev = 0;
  for (int i = 0; i < 1000; i += 100) {
    const uint64_t off = table->ApproximateOffsetOf(LookupKey("key" + std::to_string(i), 0));
    EXPECT_GE(off, prev);
    prev = off;
  }
  EXPECT_EQ(table->ApproximateOffsetOf(LookupKey("", kMaxSequence)), 0u);
  const uint64_t end = table->ApproximateOffsetOf(LookupKey("zzz", 0));
  EXPECT_GT(end, built.contents.size() / 2);
  EXPECT_LT(end, built.contents.size());
}

TEST(TableTest, EveryFlippedByteIsDetectedOrHarmless) {
  // Flip each byte of a small table in turn: Open or iteration must report Corruption naming the
  // file, or (for bytes no reader interprets, e.g. footer padding) return exactly the model.
  Model model;
  for (int i = 0; i < 60; ++i) {
    std::string k;
    AppendInternalKey(&k, "key" + std::to_string(i), 100 + i, RowKind::kValue);
    model[k] = EncodedRow(i, std::nullopt, "value" + std::to_string(i));
  }
  const Built built = Build(model, TableOptions{.block_size = 256});
  int detected = 0;
  for (size_t at = 0; at < built.contents.size(); ++at) {
    std::string damaged = built.contents;
    damaged[at] ^= 0x20;
    Status s;
    auto table = Open(damaged, nullptr, 7, &s);
    if (!s.ok()) {
      ASSERT_TRUE(s.IsCorruption() || s.code() == Status::Code::kNotSupported) << s.ToString();
      ASSERT_NE(s.message().find("/db/000007.sst"), std::string::npos) << s.ToString();
      ++detected;
      continue;
    }
    auto it = table->NewIterator();
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model.end());
      ASSERT_EQ(it->key(), m->first) << "flip at " << at;
      ASSERT_EQ(it->value(), m->second) << "flip at " << at;
    }
    if (!it->status().ok()) {
      ASSERT_TRUE(it->status().IsCorruption());
      ASSERT_NE(it->status().message().find("/db/000007.sst: block checksum mismatch at offset"),
                std::string::npos)
          << it->status().ToString();
      ++detected;
    } else {
      ASSERT_EQ(m, model.end()) << "flip at " << at;
    }
  }
  EXPECT_GT(detected, static_cast<int>(built.contents.size()) * 9 / 10);
}

TEST(TableTest, FooterHandlePastEndOfFileIsCorruption) {
  const Built built = Build(RandomModel(6, 100, 50), TableOptions{});
  std::string damaged = built.contents;
  // Make the metaindex handle's size a huge varint (the footer is not checksummed).
  const size_t footer = damaged.size() - Footer::kEncodedLength;
  Footer f;
  ASSERT_TRUE(f.DecodeFrom(std::string_view(damaged).substr(footer), "x").ok());
  f.metaindex_handle.size = 1ull << 40;
  std::string encoded;
  f.EncodeTo(&encoded);
  damaged.replace(footer, Footer::kEncodedLength, encoded);
  Status s;
  Open(damaged, nullptr, 7, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("past the end of the file"), std::string::npos) << s.ToString();
}

TEST(TableTest, TruncatedFileIsCorruption) {
  const Built built = Build(RandomModel(6, 100, 50), TableOptions{});
  for (size_t n : {size_t{0}, size_t{10}, built.contents.size() - 1}) {
    Status s;
    Open(built.contents.substr(0, n), nullptr, 7, &s);
    EXPECT_TRUE(s.IsCorruption()) << n << " " << s.ToString();
  }
}

TEST(TableTest, PropertiesRoundTripAndSkipUnknownTags) {
  TableProperties p;
  p.meta_features = 3;
  p.entries = 1000;
  p.tombstones = 7;
  p.expired_at_write = 2;
  p.min_timestamp = -5;
  p.max_timestamp = std::numeric_limits<int64_t>::max();
  p.min_expire_at = std::numeric_limits<int64_t>::min();
  p.max_expire_at = 99;
  p.has_non_expiring = true;
  p.min_sequence = 1;
  p.max_sequence = kMaxSequence;
  p.smallest_key = std::string("a\0b", 3);
  p.largest_key = "zz";
  p.raw_key_bytes = 123456789;
  p.raw_value_bytes = 1;
  p.has_untimed_rows = false;
  p.per_item_rows = 3;
  p.whole_file_rows = 4;
  p.owner_rows = 5;
  std::string encoded;
  p.EncodeTo(&encoded);
  TableProperties q;
  ASSERT_TRUE(q.DecodeFrom(encoded).ok());
  EXPECT_EQ(q, p);

  // A field from a future writer (tag 200) is skipped; an empty encoding gives the defaults.
  std::string future = encoded;
  future += '\xc8';
  future += '\x01';
  future += '\x02';
  future += "hi";
  ASSERT_TRUE(q.DecodeFrom(future).ok());
  EXPECT_EQ(q, p);
  // Fields absent from an older file keep their defaults, except has_untimed_rows, which
  // assumes the worst.
  ASSERT_TRUE(q.DecodeFrom("").ok());
  TableProperties old_file;
  old_file.has_untimed_rows = true;
  EXPECT_EQ(q, old_file);
  EXPECT_TRUE(q.DecodeFrom(encoded.substr(0, encoded.size() - 1)).IsCorruption());
}

// docs/sst-format.md, "Worked example": one row, no compression, 10 bloom bits per key.
TEST(TableTest, WorkedExampleOfTheFormatDoc) {
  TableOptions options;
  options.compression = Compression::kNone;
  options.bloom_bits_per_key = 10;
  std::string ikey;
  AppendInternalKey(&ikey, "k1", 5, RowKind::kValue);
  const Built built = Build({{ikey, EncodedRow(100, 2000, "hi")}}, options);
  const std::string& f = built.contents;
  ASSERT_EQ(f.size(), 328u);
  auto hex = [&](size_t offset, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out += ' ';
      out += digits[static_cast<uint8_t>(f[offset + i]) >> 4];
      out += digits[static_cast<uint8_t>(f[offset + i]) & 15];
    }
    return out;
  };
  EXPECT_EQ(hex(0, 20), "00 0a 07 6b 31 01 05 00 00 00 00 00 00 03 c8 01 a0 1f 68 69");
  EXPECT_EQ(hex(20, 13), "00 00 00 00 01 00 00 00 00 3c 88 65 fb");
  // The filter: one 64-byte block with k = 6 bits set, k, the cache-local tag; then its trailer.
  EXPECT_EQ(hex(33, 16), "00 00 00 00 00 00 00 00 00 80 01 00 00 00 00 00");
  EXPECT_EQ(hex(49, 16), "00 00 00 00 00 00 00 00 04 00 00 00 00 00 00 00");
  EXPECT_EQ(hex(65, 16), "00 04 10 00 00 00 00 00 00 00 00 00 00 00 00 00");
  EXPECT_EQ(hex(81, 16), "00 00 04 00 00 00 00 00 00 00 00 00 00 00 00 00");
  EXPECT_EQ(hex(97, 7), "06 40 00 0d 5a 5b 1c");
  EXPECT_EQ(hex(104, 23), "01 01 01 02 01 03 03 01 01 04 01 00 05 01 00 06 02 c8 01 07 02 c8 01");
  EXPECT_EQ(hex(174, 12), "11 01 00 12 01 00 13 01 00 14 01 00");  // the last four fields
  EXPECT_EQ(f.substr(194, 16), "ebb.filter.bloom");  // metaindex at 191: shared, non_shared, len
  EXPECT_EQ(hex(210, 2), "21 42");                   // -> (33, 66)
  EXPECT_EQ(hex(248, 5), "00 0a 02 6b 31");          // index
  EXPECT_EQ(hex(276, 6), "bf 01 34 f8 01 17");       // footer: metaindex and index handles
  EXPECT_EQ(hex(316, 4), "01 00 00 00");             // format_version 1
  EXPECT_EQ(f.substr(320), std::string("ebbSST1\0", 8));
}

}  // namespace
}  // namespace ebb::storage
