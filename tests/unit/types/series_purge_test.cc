// Retention's purge over a real engine (types/series_purge.h): samples RETENTION hides are in no
// table file once the purge deadline has passed since they were hidden, with no write after the
// one that hid them — blocks wholly below the floor and tail rows below it dropped, the block that
// straddles it rewritten — also across a restart, after a TS.ALTER that shrinks the window, and
// for a rule's destination with its own retention; what reads show never changes. The clock is a
// ManualClock and the background work is run by hand (RunBackgroundCycle), each loop bounded.
#include "types/series_purge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "storage/db/db_impl.h"
#include "storage/db/filename.h"
#include "storage/env/posix_file_system.h"
#include "storage/format/internal_key.h"
#include "storage/table/table.h"
#include "tests/unit/types/series_fixture.h"
#include "types/compaction_filter.h"
#include "types/key_encoding.h"
#include "types/series_rules.h"

namespace ebb::types {
namespace {

constexpr int64_t kDeadline = 4000;  // expiry-purge-deadline: a marker lasts 1000 ms

// One sample row version found in a table file.
struct StoredRow {
  bool tail = false;
  int64_t key_ts = 0;           // the element's timestamp
  std::vector<Sample> samples;  // the row's samples (empty for a tombstone)
};

class SeriesPurgeTest : public SeriesTypesTest {
 protected:
  SeriesPurgeTest() {
    options_.purge_deadline_ms = kDeadline;
    // Every write of a test in one memtable, flushed by the test: no compaction meets the hidden
    // samples before the deadline's.
    options_.memtable_size = 16 << 20;
  }

  void AddRange(std::string_view key, int64_t from, int64_t to, const SeriesSettings* create) {
    for (int64_t ts = from; ts <= to; ++ts) {
      ASSERT_EQ(Value(series().Add(key, ts, static_cast<double>(ts) * 0.5, DuplicatePolicy::kUnset,
                                   create)),
                Series::AddOutcome::kAdded);
    }
  }
  std::string Prefix(std::string_view key) {
    return SubRowPrefix(ks_->layout(), 0, key, Value(series().Meta(key)).version);
  }
  int64_t Floor(std::string_view key) { return SeriesVisibleFloor(Value(series().Meta(key))); }

  // Every version of every sample row of `key` in the data directory's table files.
  std::vector<StoredRow> StoredRows(std::string_view key) {
    const std::string prefix = Prefix(key);
    std::vector<StoredRow> rows;
    auto fs = storage::DefaultFileSystem();
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      uint64_t number = 0;
      storage::FileType type;
      if (!storage::ParseFileName(entry.path().filename().string(), &number, &type) ||
          type != storage::FileType::kTable) {
        continue;
      }
      std::unique_ptr<storage::RandomAccessFile> file;
      EXPECT_TRUE(fs->NewRandomAccessFile(entry.path().string(), &file).ok());
      std::unique_ptr<storage::Table> table;
      EXPECT_TRUE(storage::Table::Open(storage::TableOptions{}, std::move(file), entry.file_size(),
                                       number, nullptr, "test", &table)
                      .ok());
      if (!table) continue;
      auto it = table->NewIterator(false);
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        storage::ParsedInternalKey parsed;
        EXPECT_TRUE(storage::ParseInternalKey(it->key(), &parsed));
        if (!parsed.user_key.starts_with(prefix)) continue;
        const std::string_view element = parsed.user_key.substr(prefix.size());
        StoredRow row;
        row.tail = !element.empty() && element[0] == kSeriesTailTag;
        EXPECT_TRUE(row.tail ? DecodeSeriesTailElement(element, &row.key_ts)
                             : DecodeSeriesElement(element, &row.key_ts));
        storage::RowMeta meta;
        std::string_view value;
        EXPECT_TRUE(storage::DecodeRow(it->value(), &meta, &value));
        if (parsed.kind == storage::RowKind::kValue) {
          double v = 0;
          if (row.tail) {
            EXPECT_TRUE(DecodeSampleValue(value, &v));
            row.samples.push_back(Sample{row.key_ts, v});
          } else {
            EXPECT_TRUE(DecodeSeriesBlock(row.key_ts, value, &row.samples));
          }
        }
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }
  // The least sample timestamp stored in a table file for `key` (INT64_MAX: none).
  int64_t LeastStored(std::string_view key) {
    int64_t least = INT64_MAX;
    for (const StoredRow& row : StoredRows(key)) {
      for (const Sample& s : row.samples) least = std::min(least, s.ts);
    }
    return least;
  }
  // What reads show of `key`: every visible sample, and TS.INFO's visible figures.
  std::string Shown(std::string_view key) {
    const SeriesInfo info = Value(series().Info(key));
    std::string out = std::to_string(info.total_samples) + "/" +
                      std::to_string(info.first_timestamp) + "/" +
                      std::to_string(info.meta.newest ? info.meta.newest->ts : -1) + ":";
    for (const Sample& s : ScanAll(key, 0, kMaxSeriesTimestamp, false)) {
      out += std::to_string(s.ts) + "=" + std::to_string(s.value) + ",";
    }
    return out;
  }
  storage::DBImpl* impl() { return static_cast<storage::DBImpl*>(&ks_->db()); }
  // The deadline passes with no write: the memtable goes to a table file (as the engine's purge
  // freeze does), then the background work runs until it has nothing left to do.
  void PassTheDeadline() {
    clock_->Advance(kDeadline);
    ASSERT_TRUE(ks_->db().FlushMemtable().ok());
    for (int i = 0; i < 50 && impl()->RunBackgroundCycle(); i++) {
    }
  }
};

TEST(SeriesPurgeFilterTest, DropsAndRewritesOnlyBelowTheFloor) {
  SeriesMeta meta;
  meta.settings.retention_ms = 100;
  meta.newest = Sample{250, 1};  // floor 150
  std::string out;
  using D = storage::CompactionFilter::Decision;
  EXPECT_EQ(FilterSeriesSampleRow(meta, SeriesTailElement(149), "", &out), D::kDrop);
  EXPECT_EQ(FilterSeriesSampleRow(meta, SeriesTailElement(150), "", &out), D::kKeep);
  const std::vector<SeriesBlock> blocks =
      PackSeriesBlocks({{100, 1}, {120, 2}, {149, 3}, {150, 4}, {170, 5}}, 4096);
  ASSERT_EQ(blocks.size(), 1u);
  ASSERT_EQ(FilterSeriesSampleRow(meta, SeriesElement(100), blocks[0].bytes, &out),
            D::kChangeValue);
  std::vector<Sample> kept;
  ASSERT_TRUE(DecodeSeriesBlock(100, out, &kept));  // under its old key
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].ts, 150);
  EXPECT_EQ(kept[0].value, 4);
  EXPECT_EQ(kept[1].ts, 170);
  const std::vector<SeriesBlock> below = PackSeriesBlocks({{100, 1}, {149, 3}}, 4096);
  EXPECT_EQ(FilterSeriesSampleRow(meta, SeriesElement(100), below[0].bytes, &out), D::kDrop);
  EXPECT_EQ(FilterSeriesSampleRow(meta, SeriesElement(150), "not decoded", &out), D::kKeep);
  EXPECT_EQ(FilterSeriesSampleRow(meta, SeriesElement(10), "damaged", &out), D::kKeep);
  meta.settings.retention_ms = 0;  // no retention: nothing is below any floor
  EXPECT_EQ(FilterSeriesSampleRow(meta, SeriesTailElement(1), "", &out), D::kKeep);
}

// The purge extension round-trips after the rules and tail extensions; damage is refused.
TEST(SeriesPurgeFilterTest, ThePurgeMarkRoundTripsAndDamageIsRefused) {
  SeriesMeta meta;
  meta.version = 5;
  meta.rules.push_back(SeriesRule{"d", Aggregator::kSum, 10, 0});
  meta.tail_count = 3;
  meta.tail_from = 100;
  meta.purge_marked_until = 1'700'000'001'000;
  const std::string bytes = EncodeSeriesMeta(meta);
  SeriesMeta back;
  ASSERT_TRUE(DecodeSeriesMeta(bytes, &back));
  EXPECT_EQ(back.purge_marked_until, meta.purge_marked_until);
  EXPECT_EQ(back.tail_count, 3u);
  EXPECT_EQ(back.rules.size(), 1u);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeSeriesMeta(bytes.substr(0, cut), &back) &&
                 back.purge_marked_until == meta.purge_marked_until)
        << cut;
  }
  EXPECT_FALSE(DecodeSeriesMeta(bytes + "x", &back));
  SeriesMeta none;
  none.purge_marked_until = 7;
  std::string zero = EncodeSeriesMeta(none);
  zero.back() = 0;  // a mark of 0 is never written
  EXPECT_FALSE(DecodeSeriesMeta(zero, &back));
}

TEST(SeriesPurgeFilterTest, MarkerKeysNameASubRowPrefix) {
  const std::string prefix = SubRowPrefix(KeyLayout::kByDatabase, 3, "k", 7);
  std::string_view back;  // views the key it was parsed from
  const std::string marker = PurgeMarkerKey(prefix, 1234);
  ASSERT_TRUE(ParsePurgeMarkerKey(marker, &back));
  EXPECT_EQ(back, prefix);
  EXPECT_LT(PurgeMarkerKey(prefix, 1), PurgeMarkerKey(prefix, 2));
  EXPECT_FALSE(ParsePurgeMarkerKey(SystemKey("purge-marker:"), &back));
  EXPECT_FALSE(ParsePurgeMarkerKey(PurgeMarkerKey("\x01meta", 1), &back));
  EXPECT_FALSE(ParsePurgeMarkerKey(prefix, &back));
}

// The floor in the tail (tail rows below it) and inside a block (the block straddles it); the
// writes stop; by the deadline no stored row holds a hidden sample, and reads never change.
TEST_F(SeriesPurgeTest, HiddenSamplesLeaveByTheDeadlineWithNoWriteAfter) {
  SeriesSettings in_tail;
  in_tail.retention_ms = 300;
  SeriesSettings in_block;
  in_block.retention_ms = 1000;
  AddRange("tail", 0, 1499, &in_tail);
  AddRange("block", 0, 2499, &in_block);
  ASSERT_EQ(Floor("tail"), 1199);
  ASSERT_EQ(Floor("block"), 1499);
  const std::string tail_shown = Shown("tail");
  const std::string block_shown = Shown("block");
  ASSERT_TRUE(ks_->db().FlushMemtable().ok());
  // Before: hidden samples are stored (a whole block and tail rows below the floor; a whole
  // block and the lower half of the next). No write moved a floor a whole window past a block,
  // so no range deletion took any.
  EXPECT_LT(LeastStored("tail"), 1199);
  EXPECT_LT(LeastStored("block"), 1499);
  clock_->Advance(kDeadline / 8);  // not yet due: nothing is purged early
  for (int i = 0; i < 50 && impl()->RunBackgroundCycle(); i++) {
  }
  EXPECT_LT(LeastStored("tail"), 1199);
  PassTheDeadline();
  EXPECT_EQ(LeastStored("tail"), 1199);
  EXPECT_EQ(LeastStored("block"), 1499);
  // The straddling block was rewritten under its key, without its samples below the floor.
  bool straddler = false;
  for (const StoredRow& row : StoredRows("block")) {
    if (!row.tail && !row.samples.empty() && row.key_ts < 1499) {
      straddler = true;
      EXPECT_EQ(row.key_ts, 1024);
      EXPECT_EQ(row.samples.front().ts, 1499);
    }
  }
  EXPECT_TRUE(straddler);
  for (const StoredRow& row : StoredRows("tail")) {
    if (row.tail) {
      EXPECT_GE(row.key_ts, 1199);  // no tail row below the floor, not even dead
    }
  }
  EXPECT_EQ(Shown("tail"), tail_shown);
  EXPECT_EQ(Shown("block"), block_shown);
  EXPECT_EQ(ks_->db().GetStats().purge_hints_pending, 0u);
  // The series goes on: adds, a fold over the purged tail, reads.
  AddRange("tail", 1500, 3100, nullptr);
  AddRange("block", 2500, 2600, nullptr);
  EXPECT_EQ(ScanAll("tail", 0, kMaxSeriesTimestamp, false).size(), 301u);
  EXPECT_EQ(ScanAll("block", 0, kMaxSeriesTimestamp, false).size(), 1001u);
  EXPECT_EQ(ScanAll("block", 1600, 1600, false).size(), 1u);
}

// The marks and the marker live in the engine: a restart between hiding and the deadline still
// purges.
TEST_F(SeriesPurgeTest, ARestartBeforeTheDeadlineStillPurges) {
  SeriesSettings settings;
  settings.retention_ms = 1000;
  AddRange("s", 0, 2499, &settings);
  const std::string shown = Shown("s");
  Open();
  EXPECT_EQ(Shown("s"), shown);
  ASSERT_TRUE(ks_->db().FlushMemtable().ok());
  EXPECT_LT(LeastStored("s"), 1499);
  PassTheDeadline();
  EXPECT_EQ(LeastStored("s"), 1499);
  EXPECT_EQ(Shown("s"), shown);
  Open();
  EXPECT_EQ(Shown("s"), shown);
}

// A TS.ALTER that shrinks the window hides samples at once, and they go by the deadline too; a
// series without retention writes no marker and keeps everything.
TEST_F(SeriesPurgeTest, AlterThatShrinksTheWindowPurgesToo) {
  const SeriesSettings settings;
  AddRange("s", 0, 1999, &settings);
  AddRange("keep", 0, 1999, &settings);
  EXPECT_EQ(Value(series().Meta("s")).purge_marked_until, 0);
  SeriesAlter alter;
  alter.retention_ms = 100;
  ASSERT_TRUE(series().Alter("s", alter).ok());
  EXPECT_GT(Value(series().Meta("s")).purge_marked_until, 0);
  const std::string shown = Shown("s");
  EXPECT_EQ(ScanAll("s", 0, kMaxSeriesTimestamp, false).size(), 101u);
  PassTheDeadline();
  EXPECT_EQ(LeastStored("s"), 1899);
  EXPECT_EQ(Shown("s"), shown);
  EXPECT_EQ(LeastStored("keep"), 0);
  EXPECT_EQ(ScanAll("keep", 0, kMaxSeriesTimestamp, false).size(), 2000u);
}

// A writer without pause writes one marker every quarter deadline, not one an add.
TEST_F(SeriesPurgeTest, OneMarkerAQuarterDeadline) {
  SeriesSettings settings;
  settings.retention_ms = 10;
  AddRange("s", 0, 100, &settings);
  const int64_t first = Value(series().Meta("s")).purge_marked_until;
  EXPECT_EQ(first, clock_->NowMs() + kDeadline / 4);
  clock_->Advance(kDeadline / 4 - 1);
  AddRange("s", 101, 200, nullptr);
  EXPECT_EQ(Value(series().Meta("s")).purge_marked_until, first);
  clock_->Advance(1);
  AddRange("s", 201, 201, nullptr);
  EXPECT_EQ(Value(series().Meta("s")).purge_marked_until, first + kDeadline / 4);
}

// A rule's destination with its own retention is purged like any series.
TEST_F(SeriesPurgeTest, ARuleDestinationWithItsOwnRetentionIsPurged) {
  ASSERT_TRUE(series().Create("src", SeriesSettings()).ok());
  SeriesSettings dest;
  dest.retention_ms = 5000;
  ASSERT_TRUE(series().Create("dst", dest).ok());
  SeriesRules rules(*ks_, 0);
  ASSERT_TRUE(rules.Create("src", SeriesRule{"dst", Aggregator::kSum, 10, 0}).ok());
  for (int64_t ts = 0; ts < 20000; ts += 2) {
    ASSERT_TRUE(series().Add("src", ts, 1, DuplicatePolicy::kUnset, nullptr).ok());
    ASSERT_TRUE(rules.AfterAdd("src", ts).ok());
  }
  const int64_t floor = Floor("dst");
  ASSERT_GT(floor, 0);
  const std::string shown = Shown("dst");
  ASSERT_TRUE(ks_->db().FlushMemtable().ok());
  EXPECT_LT(LeastStored("dst"), floor);
  PassTheDeadline();
  EXPECT_GE(LeastStored("dst"), floor);
  EXPECT_EQ(Shown("dst"), shown);
  EXPECT_EQ(LeastStored("src"), 0);  // no retention: kept
}

}  // namespace
}  // namespace ebb::types
