// Series samples in SampleBlock blocks: the block row codec and its size bound, out-of-order adds
// that split blocks, scans from any timestamp both ways, deletes across block edges, retention
// dropping whole blocks, a malformed block refused as corruption, and the bytes a slowly
// changing reading takes on disk.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/types/series_fixture.h"
#include "types/key_encoding.h"
#include "types/sample_block.h"
#include "types/series.h"
#include "types/series_codec.h"

namespace ebb::types {
namespace {

std::vector<Sample> Ramp(int64_t n, int64_t step) {
  std::vector<Sample> out;
  for (int64_t i = 0; i < n; ++i) out.push_back({i * step, static_cast<double>(i % 7) * 1.5});
  return out;
}

TEST(SeriesBlockCodecTest, PacksWithinTheBoundAndRoundTrips) {
  const std::vector<Sample> samples = Ramp(3000, 1000);
  for (uint64_t bound : {48u, 200u, 4096u}) {
    const std::vector<SeriesBlock> blocks = PackSeriesBlocks(samples, bound);
    ASSERT_FALSE(blocks.empty());
    std::vector<Sample> back;
    std::vector<Sample> block;
    for (const SeriesBlock& b : blocks) {
      EXPECT_LE(b.bytes.size(), bound);
      ASSERT_TRUE(DecodeSeriesBlock(b.first_ts, b.bytes, &block));
      EXPECT_LE(block.size(), kMaxSeriesBlockSamples);
      EXPECT_EQ(block.front().ts, b.first_ts);
      back.insert(back.end(), block.begin(), block.end());
    }
    ASSERT_EQ(back.size(), samples.size()) << bound;
    for (size_t i = 0; i < samples.size(); ++i) {
      EXPECT_EQ(back[i].ts, samples[i].ts);
      EXPECT_EQ(back[i].value, samples[i].value);
    }
  }
  // A sample that alone exceeds the bound still makes a block.
  const std::vector<SeriesBlock> lone = PackSeriesBlocks({{kMaxSeriesTimestamp, std::nan("7")}}, 1);
  ASSERT_EQ(lone.size(), 1u);
  EXPECT_TRUE(PackSeriesBlocks({}, 4096).empty());
  EXPECT_EQ(SeriesBlockBound(0), kMinSeriesBlockBytes);
  EXPECT_EQ(SeriesBlockBound(UINT64_MAX), kMaxSeriesBlockBytes);
}

TEST(SeriesBlockCodecTest, RefusesMalformedBlocks) {
  std::vector<Sample> out;
  SampleBlockWriter writer;
  writer.Add(10, 1);
  writer.Add(20, 2);
  const std::string good = writer.Finish();
  ASSERT_TRUE(DecodeSeriesBlock(10, good, &out));
  EXPECT_FALSE(DecodeSeriesBlock(11, good, &out));  // not the key's first timestamp
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_FALSE(DecodeSeriesBlock(10, good.substr(0, cut), &out)) << cut;
  }
  EXPECT_FALSE(DecodeSeriesBlock(10, good + "x", &out));
  EXPECT_FALSE(DecodeSeriesBlock(0, SampleBlockWriter().Finish(), &out));  // no sample
  for (const std::vector<Sample>& bad : std::vector<std::vector<Sample>>{
           {{10, 1}, {10, 2}}, {{10, 1}, {5, 2}}, {{-1, 1}}, {{10, 1}, {-3, 1}}}) {
    SampleBlockWriter w;
    for (const Sample& s : bad) w.Add(s.ts, s.value);
    EXPECT_FALSE(DecodeSeriesBlock(bad.front().ts, w.Finish(), &out));
  }
  std::string huge_count = "\xff\xff\xff\xff\x0f";  // claims 2^32-1 samples, holds none
  EXPECT_FALSE(DecodeSeriesBlock(0, huge_count + std::string(4, '\0'), &out));
}

class SeriesBlocksTest : public SeriesTypesTest {
 protected:
  std::string Prefix(std::string_view key) {
    return SubRowPrefix(ks_->layout(), 0, key, Value(series().Meta(key)).version);
  }
  // The stored block rows of `key` (its tail rows left out): their value sizes.
  std::vector<size_t> BlockSizes(std::string_view key) {
    const std::string prefix = Prefix(key);
    storage::ReadOptions options;
    options.lower_bound = prefix;
    options.upper_bound = prefix + kSeriesTailTag;
    std::unique_ptr<storage::Iterator> it = ks_->db().NewIterator(options);
    std::vector<size_t> sizes;
    for (it->Seek(prefix); it->Valid(); it->Next()) sizes.push_back(it->value().size());
    return sizes;
  }
  // The model's samples with from <= ts <= to, in the scan's order.
  static std::vector<Sample> Expected(const std::map<int64_t, double>& model, int64_t from,
                                      int64_t to, bool reverse) {
    std::vector<Sample> out;
    for (auto it = model.lower_bound(from); it != model.end() && it->first <= to; ++it) {
      out.push_back({it->first, it->second});
    }
    if (reverse) std::reverse(out.begin(), out.end());
    return out;
  }
  static void ExpectSame(const std::vector<Sample>& got, const std::vector<Sample>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].ts, want[i].ts) << i;
      EXPECT_EQ(got[i].value, want[i].value) << i;
    }
  }
};

// Adds in a scrambled order (duplicates included) into small blocks: every block stays within
// its bound, and scans from any point, both ways, see exactly the model.
TEST_F(SeriesBlocksTest, OutOfOrderAddsSplitBlocksAndScansMatchTheModel) {
  SeriesSettings settings;
  settings.chunk_size = 48;
  settings.duplicate_policy = DuplicatePolicy::kLast;
  std::map<int64_t, double> model;
  uint64_t x = 12345;
  for (int i = 0; i < 1500; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    const int64_t ts = static_cast<int64_t>((x >> 33) % 1000) * 10;
    const double value = static_cast<double>((x >> 20) % 50) / 4;
    ASSERT_EQ(Value(series().Add("s", ts, value, DuplicatePolicy::kUnset, &settings)),
              Series::AddOutcome::kAdded);
    model[ts] = value;
  }
  const std::vector<size_t> sizes = BlockSizes("s");
  EXPECT_GT(sizes.size(), 10u);
  for (size_t size : sizes) EXPECT_LE(size, 48u);
  SeriesInfo info = Value(series().Info("s"));
  // The tail rows (in-order adds not folded yet) count as one chunk.
  EXPECT_EQ(info.block_count, sizes.size() + (Value(series().Meta("s")).tail_count > 0 ? 1 : 0));
  EXPECT_EQ(info.total_samples, model.size());
  EXPECT_EQ(info.first_timestamp, model.begin()->first);
  EXPECT_EQ(Value(series().Latest("s"))->ts, model.rbegin()->first);
  for (int64_t from : {0, 1, 2500, 5005, 9990, 20000}) {
    for (int64_t to : {from, from + 9, from + 3000, kMaxSeriesTimestamp}) {
      ExpectSame(ScanAll("s", from, to, false), Expected(model, from, to, false));
      ExpectSame(ScanAll("s", from, to, true), Expected(model, from, to, true));
    }
  }
  // Neighbors across block edges.
  for (int64_t ts : {0, 5, 2500, 9990, 10000}) {
    auto after = model.upper_bound(ts);
    std::optional<Sample> n = Value(series().Neighbor("s", ts, true));
    ASSERT_EQ(n.has_value(), after != model.end());
    if (n) {
      EXPECT_EQ(n->ts, after->first);
    }
    auto before = model.lower_bound(ts);
    n = Value(series().Neighbor("s", ts, false));
    ASSERT_EQ(n.has_value(), before != model.begin());
    if (n) {
      EXPECT_EQ(n->ts, std::prev(before)->first);
    }
  }
}

// Deletes inside one block, across block edges and of whole blocks (and of the tail) keep the
// rest intact.
TEST_F(SeriesBlocksTest, DeleteRangeRewritesTheEdgeBlocks) {
  SeriesSettings settings;
  settings.chunk_size = 64;
  std::map<int64_t, double> model;
  // A tail's worth folded into blocks (0 to 10230), the rest in the tail.
  for (const Sample& s : Ramp(static_cast<int64_t>(kMaxSeriesBlockSamples) + 600, 10)) {
    ASSERT_EQ(Value(series().Add("s", s.ts, s.value, DuplicatePolicy::kUnset, &settings)),
              Series::AddOutcome::kAdded);
    model[s.ts] = s.value;
  }
  const size_t blocks_before = BlockSizes("s").size();
  ASSERT_GT(blocks_before, 5u);
  auto erase = [&](int64_t from, int64_t to) {
    uint64_t n = 0;
    for (auto it = model.lower_bound(from); it != model.end() && it->first <= to;) {
      it = model.erase(it);
      ++n;
    }
    return n;
  };
  for (auto [from, to] : std::vector<std::pair<int64_t, int64_t>>{
           {15, 25}, {1000, 3005}, {0, 0}, {5990, kMaxSeriesTimestamp}, {4000, 4000}, {3, 4}}) {
    EXPECT_EQ(Value(series().DeleteRange("s", from, to)), erase(from, to)) << from;
    ExpectSame(ScanAll("s", 0, kMaxSeriesTimestamp, false),
               Expected(model, 0, kMaxSeriesTimestamp, false));
    ExpectSame(ScanAll("s", 0, kMaxSeriesTimestamp, true),
               Expected(model, 0, kMaxSeriesTimestamp, true));
    EXPECT_EQ(Value(series().Latest("s"))->ts, model.rbegin()->first);
  }
  for (size_t size : BlockSizes("s")) EXPECT_LE(size, 64u);
  EXPECT_LT(BlockSizes("s").size(), blocks_before);
  // Adds land again among the rewritten blocks.
  ASSERT_EQ(Value(series().Add("s", 2000, 9, DuplicatePolicy::kUnset, nullptr)),
            Series::AddOutcome::kAdded);
  model[2000] = 9;
  ExpectSame(ScanAll("s", 0, kMaxSeriesTimestamp, false),
             Expected(model, 0, kMaxSeriesTimestamp, false));
}

// Retention range-deletes the blocks wholly below the window; the block holding the floor keeps
// its older samples stored but invisible. (Two tails' worth of samples were folded into blocks,
// 0 to 20470; the rest are tail rows.)
TEST_F(SeriesBlocksTest, RetentionDropsWholeBlocks) {
  SeriesSettings settings;
  settings.chunk_size = 48;
  settings.retention_ms = 10000;
  for (int64_t ts = 0; ts <= 30000; ts += 10) {
    ASSERT_EQ(Value(series().Add("s", ts, static_cast<double>(ts % 3), DuplicatePolicy::kUnset,
                                 &settings)),
              Series::AddOutcome::kAdded);
  }
  const std::vector<Sample> visible = ScanAll("s", 0, kMaxSeriesTimestamp, false);
  ASSERT_FALSE(visible.empty());
  EXPECT_EQ(visible.front().ts, 20000);
  EXPECT_EQ(visible.size(), 1001u);
  SeriesInfo info = Value(series().Info("s"));
  EXPECT_EQ(info.total_samples, 1001u);
  EXPECT_EQ(info.first_timestamp, 20000);
  // Stored: the blocks from the one holding the floor (20000) on; those before it went at the
  // last purge (when the newest reached 30000), and its samples below 20000 are invisible.
  std::vector<int64_t> firsts;
  std::vector<Sample> block;
  const std::string prefix = Prefix("s");
  storage::ReadOptions options;
  options.upper_bound = prefix + kSeriesTailTag;  // the blocks
  std::unique_ptr<storage::Iterator> it = ks_->db().NewIterator(options);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    int64_t first = 0;
    ASSERT_TRUE(DecodeSeriesElement(it->key().substr(prefix.size()), &first));
    ASSERT_TRUE(DecodeSeriesBlock(first, it->value(), &block));
    firsts.push_back(first);
  }
  ASSERT_GE(firsts.size(), 2u);
  EXPECT_LE(firsts[0], 20000);
  EXPECT_GT(firsts[1], 20000);
  EXPECT_EQ(info.block_count, firsts.size() + 1);  // the tail counts as one chunk
}

// A malformed block row is corruption for every reader and writer, never a crash.
TEST_F(SeriesBlocksTest, MalformedBlockIsCorruption) {
  SeriesSettings settings;
  for (int64_t ts : {10, 20, 30}) {
    ASSERT_TRUE(series().Add("s", ts, 1, DuplicatePolicy::kUnset, &settings).ok());
  }
  const std::string prefix = Prefix("s");
  for (const std::string& bad : {std::string("\x02\xff"), std::string(), std::string("\x00", 1)}) {
    ASSERT_TRUE(ks_->db().Put(ks_->WriteOptions(), prefix + SeriesElement(10), bad).ok());
    auto engine_error = [](OpStatus status) { return status == OpStatus::kEngineError; };
    EXPECT_TRUE(engine_error(
        series().Scan("s", 0, 100, false, [](const Sample&) { return true; }).status()));
    EXPECT_TRUE(engine_error(
        series().Scan("s", 0, 100, true, [](const Sample&) { return true; }).status()));
    EXPECT_TRUE(engine_error(series().Info("s").status()));
    // (Below the tail, 10 to 30: an add that reads the blocks.)
    EXPECT_TRUE(engine_error(series().Add("s", 5, 1, DuplicatePolicy::kUnset, nullptr).status()));
    EXPECT_TRUE(engine_error(series().DeleteRange("s", 0, 100).status()));
  }
  // A block key that is not a timestamp.
  ASSERT_TRUE(ks_->db().Put(ks_->WriteOptions(), prefix + "xyz", "\x01\x00").ok());
  EXPECT_EQ(series().Info("s").status(), OpStatus::kEngineError);
}

class SeriesBytesTest : public SeriesBlocksTest {
 protected:
  SeriesBytesTest() {
    options_.memtable_size = 4 << 20;
    options_.block_size = 4096;
  }
};

// 100,000 readings a second apart that change slowly (a temperature in tenths of a degree that
// moves a tenth up or down every 10 s) take under 3 bytes a sample on disk once compacted.
TEST_F(SeriesBytesTest, SlowReadingTakesUnderThreeBytesASample) {
  SeriesSettings settings;
  constexpr int64_t kSamples = 100'000;
  const int64_t start = 1'700'000'000'000;
  int64_t tenths = 210;
  uint64_t x = 42;
  for (int64_t i = 0; i < kSamples; ++i) {
    if (i % 10 == 0) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      tenths += (x >> 63) ? 1 : -1;
    }
    const double reading = static_cast<double>(tenths) / 10;
    ASSERT_EQ(
        Value(series().Add("temp", start + i * 1000, reading, DuplicatePolicy::kUnset, &settings)),
        Series::AddOutcome::kAdded);
  }
  ASSERT_TRUE(ks_->db().FlushMemtable().ok());
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  const storage::Stats stats = ks_->db().GetStats();
  uint64_t table_bytes = 0;
  for (const storage::LevelStats& level : stats.levels) table_bytes += level.bytes;
  const double per_sample = static_cast<double>(table_bytes) / kSamples;
  const SeriesInfo info = Value(series().Info("temp"));
  std::cout << "series bytes on disk: " << table_bytes << " (" << per_sample << " a sample); "
            << info.block_count << " blocks, rows of " << info.stored_bytes << " bytes\n";
  EXPECT_GT(table_bytes, 0u);
  EXPECT_LT(per_sample, 3.0);
  EXPECT_EQ(info.total_samples, static_cast<uint64_t>(kSamples));
}

}  // namespace
}  // namespace ebb::types
