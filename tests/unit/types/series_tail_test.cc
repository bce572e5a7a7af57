// Series tail rows: in-order adds written as one small row each and folded into blocks when the
// tail fills, every reader seeing blocks and tail as one series — scans both ways, neighbours,
// TS.INFO's counts, TS.GET — through the folds; duplicates into the tail under every policy; adds
// below the tail; deletes over the tail, the blocks or both; retention's floor inside the tail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
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

class SeriesTailTest : public SeriesTypesTest {
 protected:
  SeriesMeta Meta(std::string_view key) { return Value(series().Meta(key)); }
  // The stored rows of `key`: its blocks decoded (checked against their bound) and its tail.
  struct Rows {
    std::vector<SeriesBlock> blocks;
    std::vector<Sample> block_samples;
    std::vector<Sample> tail;
  };
  Rows StoredRows(std::string_view key) {
    const SeriesMeta meta = Meta(key);
    const std::string prefix = SubRowPrefix(ks_->layout(), 0, key, meta.version);
    storage::ReadOptions options;
    options.lower_bound = prefix;
    options.upper_bound = PrefixUpperBound(prefix);
    std::unique_ptr<storage::Iterator> it = ks_->db().NewIterator(options);
    Rows rows;
    std::vector<Sample> block;
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      const std::string_view element = it->key().substr(prefix.size());
      int64_t ts = 0;
      if (DecodeSeriesTailElement(element, &ts)) {
        double value = 0;
        EXPECT_TRUE(DecodeSampleValue(it->value(), &value));
        rows.tail.push_back({ts, value});
        continue;
      }
      EXPECT_TRUE(rows.tail.empty()) << "a block after a tail row";
      EXPECT_TRUE(DecodeSeriesElement(element, &ts));
      EXPECT_TRUE(DecodeSeriesBlock(ts, it->value(), &block));
      EXPECT_LE(block.size(), kMaxSeriesBlockSamples);
      if (block.size() > 1) {
        EXPECT_LE(it->value().size(), SeriesBlockBound(meta.settings.chunk_size));
      }
      rows.blocks.push_back({ts, std::string(it->value())});
      rows.block_samples.insert(rows.block_samples.end(), block.begin(), block.end());
    }
    EXPECT_TRUE(it->status().ok());
    // tail_count is the rows the adds stored; compaction may have dropped those below the
    // retention floor since (types/series_purge.h) — ExpectReads checks that no visible one went.
    if (meta.settings.retention_ms == 0) {
      EXPECT_EQ(meta.tail_count, rows.tail.size());
    } else {
      EXPECT_LE(rows.tail.size(), meta.tail_count);
    }
    return rows;
  }
  static void ExpectSame(const std::vector<Sample>& got, const std::vector<Sample>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].ts, want[i].ts) << i;
      EXPECT_EQ(got[i].value, want[i].value) << i;
    }
  }
  // Every read of `key` agrees with `model` (its visible samples).
  void ExpectReads(std::string_view key, const std::map<int64_t, double>& model) {
    auto expected = [&](int64_t from, int64_t to, bool reverse) {
      std::vector<Sample> out;
      for (auto it = model.lower_bound(from); it != model.end() && it->first <= to; ++it) {
        out.push_back({it->first, it->second});
      }
      if (reverse) std::reverse(out.begin(), out.end());
      return out;
    };
    const int64_t last = model.empty() ? 0 : model.rbegin()->first;
    for (int64_t from : {int64_t{0}, last / 3, std::max<int64_t>(0, last - 15), last}) {
      for (int64_t to : {from, from + 25, std::max<int64_t>(0, last - 5), kMaxSeriesTimestamp}) {
        ExpectSame(ScanAll(key, from, to, false), expected(from, to, false));
        ExpectSame(ScanAll(key, from, to, true), expected(from, to, true));
      }
    }
    const SeriesInfo info = Value(series().Info(key, true));
    EXPECT_EQ(info.total_samples, model.size());
    if (!model.empty()) {
      EXPECT_EQ(info.first_timestamp, model.begin()->first);
    }
    EXPECT_EQ(info.block_count, info.blocks.size());
    const std::optional<Sample> latest = Value(series().Latest(key));
    ASSERT_EQ(latest.has_value(), !model.empty());
    if (latest) {
      EXPECT_EQ(latest->ts, last);
      EXPECT_EQ(latest->value, model.rbegin()->second);
    }
    for (int64_t ts : {int64_t{0}, last / 2, std::max<int64_t>(0, last - 10), last}) {
      const std::optional<Sample> after = Value(series().Neighbor(key, ts, true));
      auto a = model.upper_bound(ts);
      ASSERT_EQ(after.has_value(), a != model.end()) << ts;
      if (after) {
        EXPECT_EQ(after->ts, a->first);
      }
      const std::optional<Sample> before = Value(series().Neighbor(key, ts, false));
      auto b = model.lower_bound(ts);
      ASSERT_EQ(before.has_value(), b != model.begin()) << ts;
      if (before) {
        EXPECT_EQ(before->ts, std::prev(b)->first);
      }
    }
  }
  // Adds samples ts = first, first + step, ... (count of them) to `key` and `model`.
  void AddInOrder(std::string_view key, const SeriesSettings& settings, int64_t first, int64_t step,
                  int64_t count, std::map<int64_t, double>* model) {
    for (int64_t i = 0; i < count; ++i) {
      const int64_t ts = first + i * step;
      const double value = static_cast<double>((ts / step) % 13) * 0.25;
      ASSERT_EQ(Value(series().Add(key, ts, value, DuplicatePolicy::kUnset, &settings)),
                Series::AddOutcome::kAdded);
      (*model)[ts] = value;
    }
  }
};

constexpr int64_t kFold = static_cast<int64_t>(kMaxSeriesBlockSamples);

// In-order adds: the tail takes them, the add that fills it folds it into blocks — the very
// blocks packing the samples in order gives — and every read sees the series whole at each stage.
TEST_F(SeriesTailTest, InOrderAddsFoldIntoBlocksAndReadsSeeEveryStage) {
  SeriesSettings settings;
  settings.chunk_size = 256;
  std::map<int64_t, double> model;
  int64_t added = 0;
  for (int64_t stage : {int64_t{1}, int64_t{2}, int64_t{500}, kFold - 1, kFold, kFold + 1,
                        2 * kFold - 1, 2 * kFold, 2 * kFold + 300, 3 * kFold}) {
    AddInOrder("s", settings, added * 10, 10, stage - added, &model);
    added = stage;
    const Rows rows = StoredRows("s");
    EXPECT_EQ(rows.tail.size(), static_cast<size_t>(added % kFold)) << added;
    EXPECT_EQ(rows.block_samples.size() + rows.tail.size(), model.size());
    const std::vector<SeriesBlock> packed =
        PackSeriesBlocks(rows.block_samples, SeriesBlockBound(settings.chunk_size));
    ASSERT_EQ(rows.blocks.size(), packed.size()) << added;
    for (size_t i = 0; i < packed.size(); ++i) {
      EXPECT_EQ(rows.blocks[i].first_ts, packed[i].first_ts);
      EXPECT_EQ(rows.blocks[i].bytes, packed[i].bytes);
    }
    ExpectReads("s", model);
    const SeriesInfo info = Value(series().Info("s", true));
    EXPECT_EQ(info.block_count, rows.blocks.size() + (rows.tail.empty() ? 0 : 1));
    if (!rows.tail.empty()) {
      const SeriesInfo::Block& tail = info.blocks.back();
      EXPECT_TRUE(tail.tail);
      EXPECT_EQ(tail.first_ts, rows.tail.front().ts);
      EXPECT_EQ(tail.last_ts, rows.tail.back().ts);
      EXPECT_EQ(tail.samples, rows.tail.size());
      EXPECT_EQ(tail.bytes, 8 * rows.tail.size());
    }
  }
}

// A duplicate inside the tail is resolved in its own row under each policy; an earlier sample
// inside the tail becomes a tail row of its own.
TEST_F(SeriesTailTest, DuplicateIntoTheTailUnderEachPolicy) {
  struct Case {
    DuplicatePolicy policy;
    std::optional<double> at_30;  // nullopt: refused
  };
  for (const Case& c : std::vector<Case>{{DuplicatePolicy::kUnset, std::nullopt},
                                         {DuplicatePolicy::kBlock, std::nullopt},
                                         {DuplicatePolicy::kFirst, 3},
                                         {DuplicatePolicy::kLast, 10},
                                         {DuplicatePolicy::kMin, 3},
                                         {DuplicatePolicy::kMax, 10},
                                         {DuplicatePolicy::kSum, 13}}) {
    const std::string key = "p" + std::to_string(static_cast<int>(c.policy));
    SeriesSettings settings;
    settings.duplicate_policy = c.policy;
    std::map<int64_t, double> model;
    for (int64_t ts : {10, 20, 30, 40, 50}) {
      ASSERT_EQ(Value(series().Add(key, ts, static_cast<double>(ts / 10), DuplicatePolicy::kUnset,
                                   &settings)),
                Series::AddOutcome::kAdded);
      model[ts] = static_cast<double>(ts / 10);
    }
    EXPECT_EQ(Value(series().Add(key, 30, 10, DuplicatePolicy::kUnset, nullptr)),
              c.at_30 ? Series::AddOutcome::kAdded : Series::AddOutcome::kBlocked);
    if (c.at_30) model[30] = *c.at_30;
    // The newest sample's duplicate updates TS.GET too (policy LAST given with the add).
    EXPECT_EQ(Value(series().Add(key, 50, 7, DuplicatePolicy::kLast, nullptr)),
              Series::AddOutcome::kAdded);
    model[50] = 7;
    ASSERT_EQ(Value(series().Add(key, 35, -1, DuplicatePolicy::kUnset, nullptr)),
              Series::AddOutcome::kAdded);
    model[35] = -1;
    EXPECT_EQ(StoredRows(key).tail.size(), 6u);
    EXPECT_TRUE(StoredRows(key).blocks.empty());
    ExpectReads(key, model);
  }
}

// An add below the tail goes to the blocks (a new first block when there is none) and leaves the
// tail as it is; a later fold still leaves every block below every tail row.
TEST_F(SeriesTailTest, AddBelowTheTailGoesToTheBlocks) {
  SeriesSettings settings;
  settings.chunk_size = 64;
  std::map<int64_t, double> model;
  AddInOrder("t", settings, 1000, 10, 20, &model);  // a tail only
  for (int64_t ts : {995, 5, 1001}) {
    ASSERT_EQ(Value(series().Add("t", ts, 9, DuplicatePolicy::kUnset, nullptr)),
              Series::AddOutcome::kAdded);
    model[ts] = 9;
  }
  Rows rows = StoredRows("t");
  EXPECT_EQ(rows.block_samples.size(), 2u);  // 5 and 995; 1001 is inside the tail
  EXPECT_EQ(rows.tail.size(), 21u);
  ExpectReads("t", model);
  AddInOrder("t", settings, 1200, 10, kFold, &model);  // folds, then a tail again
  for (int64_t ts : {6, 1205, 1002}) {
    ASSERT_EQ(Value(series().Add("t", ts, -3, DuplicatePolicy::kUnset, nullptr)),
              Series::AddOutcome::kAdded);
    model[ts] = -3;
  }
  rows = StoredRows("t");
  ASSERT_FALSE(rows.tail.empty());
  EXPECT_LT(rows.block_samples.back().ts, rows.tail.front().ts);
  EXPECT_EQ(rows.block_samples.size() + rows.tail.size(), model.size());
  ExpectReads("t", model);
}

// TS.DEL over only the tail, the tail and blocks, only blocks, the newest sample, everything.
TEST_F(SeriesTailTest, DeleteRangeOverTailAndBlocks) {
  SeriesSettings settings;
  settings.chunk_size = 64;
  std::map<int64_t, double> model;
  AddInOrder("d", settings, 0, 10, kFold + 100, &model);  // blocks to 10230, tail from 10240
  auto erase = [&](int64_t from, int64_t to) {
    uint64_t n = 0;
    for (auto it = model.lower_bound(from); it != model.end() && it->first <= to; ++n) {
      it = model.erase(it);
    }
    return n;
  };
  for (auto [from, to] : std::vector<std::pair<int64_t, int64_t>>{{10500, 10600},
                                                                  {10100, 10300},
                                                                  {100, 305},
                                                                  {10900, kMaxSeriesTimestamp},
                                                                  {10240, 10245}}) {
    EXPECT_EQ(Value(series().DeleteRange("d", from, to)), erase(from, to)) << from;
    const Rows rows = StoredRows("d");
    EXPECT_EQ(rows.block_samples.size() + rows.tail.size(), model.size()) << from;
    ExpectReads("d", model);
  }
  // Adds after the deletes go on from the new newest, and fold.
  AddInOrder("d", settings, 20000, 10, kFold, &model);
  ExpectReads("d", model);
  EXPECT_EQ(Value(series().DeleteRange("d", 0, kMaxSeriesTimestamp)), model.size());
  model.clear();
  ExpectReads("d", model);
  EXPECT_EQ(Meta("d").tail_count, 0u);
  AddInOrder("d", settings, 5, 1, 3, &model);
  ExpectReads("d", model);
}

// Retention's floor inside the tail: the tail rows below it are invisible to every read, the
// blocks wholly below it are purged, and an add below it is refused.
TEST_F(SeriesTailTest, RetentionFloorInsideTheTail) {
  SeriesSettings settings;
  settings.chunk_size = 64;
  settings.retention_ms = 500;
  std::map<int64_t, double> model;
  AddInOrder("r", settings, 0, 10, kFold + 100, &model);  // newest 11230: floor 10730
  const int64_t floor = model.rbegin()->first - 500;
  ASSERT_GT(floor, 10240);  // inside the tail
  model.erase(model.begin(), model.lower_bound(floor));
  ExpectReads("r", model);
  EXPECT_EQ(Value(series().Add("r", floor - 1, 1, DuplicatePolicy::kUnset, nullptr)),
            Series::AddOutcome::kTooOld);
  const Rows rows = StoredRows("r");
  EXPECT_LE(rows.blocks.size(), 2u);  // from the block holding the last purge's floor
  // The tail folds with its invisible rows; reads stay the window.
  AddInOrder("r", settings, model.rbegin()->first + 10, 10, kFold, &model);
  model.erase(model.begin(), model.lower_bound(model.rbegin()->first - 500));
  ExpectReads("r", model);
}

// A tail survives a reopen of the engine as it is, and goes on folding after it.
TEST_F(SeriesTailTest, SurvivesReopen) {
  SeriesSettings settings;
  std::map<int64_t, double> model;
  AddInOrder("s", settings, 0, 1, kFold + 10, &model);
  Open();
  EXPECT_EQ(StoredRows("s").tail.size(), 10u);
  ExpectReads("s", model);
  AddInOrder("s", settings, kFold + 10, 1, kFold, &model);
  ExpectReads("s", model);
}

// A malformed tail row is corruption for every reader and writer, never a crash; a metadata row
// claiming a tail count out of range does not decode.
TEST_F(SeriesTailTest, MalformedTailIsCorruption) {
  SeriesSettings settings;
  std::map<int64_t, double> model;
  AddInOrder("s", settings, 10, 10, 3, &model);
  const std::string prefix = SubRowPrefix(ks_->layout(), 0, "s", Meta("s").version);
  ASSERT_TRUE(ks_->db().Put(ks_->WriteOptions(), prefix + SeriesTailElement(20), "short").ok());
  auto engine_error = [](OpStatus status) { return status == OpStatus::kEngineError; };
  EXPECT_TRUE(
      engine_error(series().Scan("s", 0, 100, false, [](const Sample&) { return true; }).status()));
  EXPECT_TRUE(
      engine_error(series().Scan("s", 0, 100, true, [](const Sample&) { return true; }).status()));
  EXPECT_TRUE(engine_error(series().Info("s").status()));
  EXPECT_TRUE(engine_error(series().Add("s", 20, 1, DuplicatePolicy::kLast, nullptr).status()));
  EXPECT_TRUE(engine_error(series().DeleteRange("s", 0, 100).status()));
  SeriesMeta meta;
  meta.tail_count = kMaxSeriesBlockSamples;
  EXPECT_FALSE(DecodeSeriesMeta(EncodeSeriesMeta(meta), &meta));
  meta.tail_count = 7;
  meta.tail_from = 123;
  meta.rules.push_back({"dest", Aggregator::kSum, 10, 0});
  SeriesMeta back;
  ASSERT_TRUE(DecodeSeriesMeta(EncodeSeriesMeta(meta), &back));
  EXPECT_EQ(back.tail_count, 7u);
  EXPECT_EQ(back.tail_from, 123);
  EXPECT_EQ(back.rules, meta.rules);
  EXPECT_FALSE(DecodeSeriesMeta(EncodeSeriesMeta(meta) + "x", &back));
}

}  // namespace
}  // namespace ebb::types
