// Options::separate_file_prefixes: the keys under a separate prefix are flushed and compacted
// into table files of their own, which move down the levels unread and leave whole when a range
// deletion covers them, while every read answers as before.
#include <cstdio>
#include <filesystem>

#include "storage/db/db_impl.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

class SeparateFilesTest : public DBTest {
 protected:
  SeparateFilesTest() {
    options_.separate_file_prefixes = {"log:"};
    options_.memtable_size = 1 << 20;  // a flush only when the test asks
    options_.l0_compaction_trigger = 100;
    options_.l0_stop_writes_trigger = 100;
  }
  DBImpl* impl() { return static_cast<DBImpl*>(db_.get()); }
  static std::string LogKey(int offset) {
    char name[16];
    std::snprintf(name, sizeof name, "log:%06d", offset);
    return name;
  }
  // Writes log rows [first, first + count) and flushes them with `others`' keys.
  void FlushLogRows(int first, int count, const std::vector<std::string>& others) {
    for (const std::string& key : others) Put(key, "v" + std::to_string(first));
    for (int i = first; i < first + count; i++) Put(LogKey(i), "delta" + std::to_string(i));
    ASSERT_TRUE(db_->FlushMemtable().ok());
    Settle();
  }
  void Settle() {
    for (int i = 0; i < 20 && impl()->RunBackgroundCycle(); i++) {
    }
  }
  // "files at level 0/1/.../6", e.g. "2/0/0/0/0/0/1".
  std::string FilesPerLevel() {
    std::string out;
    for (const LevelStats& level : db_->GetStats().levels) {
      out += (out.empty() ? "" : "/") + std::to_string(level.files);
    }
    return out;
  }
};

TEST_F(SeparateFilesTest, AFlushWritesThePrefixsKeysToFilesOfTheirOwnThatMoveDownUnread) {
  Open();
  FlushLogRows(0, 100, {"a", "z"});
  // "a" and "z" lie on either side of the log's range: one file each, and the log's own.
  EXPECT_EQ(FilesPerLevel(), "2/0/0/0/0/0/1");
  EXPECT_EQ(db_->GetStats().files_moved, 1u);
  FlushLogRows(100, 100, {"a", "z"});
  EXPECT_EQ(FilesPerLevel(), "4/0/0/0/0/0/2");
  const Stats stats = db_->GetStats();
  EXPECT_EQ(stats.files_moved, 2u);
  EXPECT_EQ(stats.compaction_bytes_read, 0u);
  EXPECT_EQ(Get("a"), "v100");
  EXPECT_EQ(Get(LogKey(0)), "delta0");
  EXPECT_EQ(Get(LogKey(199)), "delta199");
  EXPECT_EQ(Scan().substr(0, 20), "a=v100,log:000000=de");
  Reopen();
  EXPECT_EQ(FilesPerLevel(), "4/0/0/0/0/0/2");
  EXPECT_EQ(Get(LogKey(150)), "delta150");
  // Without the option nothing is cut or moved: one file a flush, at level 0.
  options_.separate_file_prefixes.clear();
  Reopen();
  FlushLogRows(200, 100, {"a", "z"});
  EXPECT_EQ(FilesPerLevel(), "5/0/0/0/0/0/2");
  EXPECT_EQ(db_->GetStats().files_moved, 0u);
}

TEST_F(SeparateFilesTest, ThePrefixsFilesHaveNoBloomFilterAndStillAnswerPointReads) {
  Open();
  FlushLogRows(0, 1000, {});
  ASSERT_EQ(FilesPerLevel(), "0/0/0/0/0/0/1");
  EXPECT_EQ(Get(LogKey(0)), "delta0");
  EXPECT_EQ(Get(LogKey(999)), "delta999");
  EXPECT_EQ(Get(LogKey(1000)), "NOT_FOUND");
  // The table is open, and only its index is kept in memory: its keys are scanned, not looked
  // up one by one.
  Stats stats = db_->GetStats();
  EXPECT_EQ(stats.open_tables, 1u);
  EXPECT_GT(stats.table_index_bytes, 0u);
  EXPECT_EQ(stats.table_filter_bytes, 0u);
  // The other keys' files keep theirs.
  FlushLogRows(1000, 10, {"a"});
  EXPECT_EQ(Get("a"), "v1000");
  EXPECT_GT(db_->GetStats().table_filter_bytes, 0u);
  // So does a table of the prefix's keys written without the option.
  options_.separate_file_prefixes.clear();
  db_.reset();
  std::filesystem::remove_all(dir_);
  Open();
  FlushLogRows(0, 1000, {});
  EXPECT_EQ(Get(LogKey(0)), "delta0");
  EXPECT_GT(db_->GetStats().table_filter_bytes, 0u);
}

TEST_F(SeparateFilesTest, ANewerVersionOfAMovedKeyStaysAboveIt) {
  Open();
  FlushLogRows(0, 100, {"a"});
  ASSERT_EQ(FilesPerLevel(), "1/0/0/0/0/0/1");
  Put(LogKey(50), "reduced");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Settle();
  // It overlaps the bottom's file, so it goes to the level just above it.
  EXPECT_EQ(FilesPerLevel(), "1/0/0/0/0/1/1");
  EXPECT_EQ(Get(LogKey(50)), "reduced");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get(LogKey(50)), "reduced");
  EXPECT_EQ(Get(LogKey(51)), "delta51");
}

TEST_F(SeparateFilesTest, ARangeDeletionOfTheOldestKeysDropsTheirFilesWhole) {
  Open();
  for (int first = 0; first < 300; first += 100) FlushLogRows(first, 100, {"a", "z"});
  ASSERT_EQ(FilesPerLevel(), "6/0/0/0/0/0/3");
  ASSERT_TRUE(db_->DeleteRange({{LogKey(0), LogKey(200)}}).ok());
  Settle();
  const Stats stats = db_->GetStats();
  EXPECT_EQ(stats.files_deleted_by_range, 2u);
  EXPECT_EQ(stats.compaction_bytes_read, 0u);  // none read, none rewritten
  EXPECT_EQ(stats.range_deletions_pending, 0u);
  EXPECT_EQ(Get(LogKey(199)), "NOT_FOUND");
  EXPECT_EQ(Get(LogKey(200)), "delta200");
  EXPECT_EQ(Get("z"), "v200");
}

TEST_F(SeparateFilesTest, ACompactionCutsItsOutputsAtThePrefixsEdges) {
  // A file written without the option spans the log's range; a compaction with it splits it.
  options_.separate_file_prefixes.clear();
  Open();
  FlushLogRows(0, 100, {"a", "z"});
  ASSERT_EQ(FilesPerLevel(), "1/0/0/0/0/0/0");
  options_.separate_file_prefixes = {"log:"};
  Reopen();
  // The new log file lies over the older level-0 file: it stays at level 0.
  FlushLogRows(100, 100, {"a", "z"});
  EXPECT_EQ(FilesPerLevel(), "4/0/0/0/0/0/0");
  EXPECT_EQ(db_->GetStats().files_moved, 0u);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(FilesPerLevel(), "0/3/0/0/0/0/0");  // a, the log, z
  // The next log file overlaps nothing: it goes to the bottom past level 1's.
  FlushLogRows(200, 100, {});
  EXPECT_EQ(FilesPerLevel(), "0/3/0/0/0/0/1");
  EXPECT_EQ(Get(LogKey(0)), "delta0");
  EXPECT_EQ(Get(LogKey(250)), "delta250");
  EXPECT_EQ(Get("a"), "v100");
}

}  // namespace
}  // namespace ebb::storage
