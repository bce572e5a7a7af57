// The full-resynchronisation snapshot: a checkpoint read out as an archive and written back in
// pieces of every size is the same DB.
#include "storage/replication_snapshot.h"

#include <gtest/gtest.h>

#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

class ReplicationSnapshotTest : public DBTest {
 protected:
  ~ReplicationSnapshotTest() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_ + ".ckpt", ec);
    std::filesystem::remove_all(dir_ + ".replica", ec);
  }

  // The archive of a checkpoint of db_, read `chunk` bytes at a time.
  std::string Archive(size_t chunk, uint64_t* sequence) {
    std::vector<std::string> files;
    EXPECT_TRUE(db_->Checkpoint(dir_ + ".ckpt", sequence, &files).ok());
    std::unique_ptr<SnapshotSource> source;
    EXPECT_TRUE(
        SnapshotSource::Open(DefaultFileSystem(), dir_ + ".ckpt", *sequence, files, &source).ok());
    std::string archive;
    while (!source->done()) {
      const size_t before = archive.size();
      EXPECT_TRUE(source->Read(chunk, &archive).ok());
      EXPECT_LE(archive.size() - before, chunk);
      if (archive.size() == before) break;
    }
    EXPECT_EQ(archive.size(), source->size());
    return archive;
  }
};

TEST_F(ReplicationSnapshotTest, ArchiveRoundTripsInPiecesOfAnySize) {
  Open();
  for (int i = 0; i < 1'500; i++) Put("key" + std::to_string(i), "value" + std::to_string(i), i);
  ASSERT_TRUE(db_->DeleteRange({{"key1", "key2"}}).ok());
  Put("late", "v");
  const std::string want = Scan();
  uint64_t sequence = 0;
  const std::string archive = Archive(1000, &sequence);
  EXPECT_EQ(archive.substr(0, 8), kSnapshotMagic);
  EXPECT_EQ(sequence, db_->LastSequence());

  for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, archive.size()}) {
    std::filesystem::remove_all(dir_ + ".replica");
    SnapshotSink sink(DefaultFileSystem(), dir_ + ".replica");
    for (size_t at = 0; at < archive.size(); at += piece) {
      ASSERT_TRUE(sink.Feed(std::string_view(archive).substr(at, piece)).ok()) << piece;
      ASSERT_EQ(sink.done(), at + piece >= archive.size());
    }
    EXPECT_EQ(sink.sequence(), sequence);
    std::unique_ptr<DB> replica;
    ASSERT_TRUE(DB::Open(options_, dir_ + ".replica", &replica).ok());
    EXPECT_EQ(replica->LastSequence(), sequence);
    std::string got;
    auto it = replica->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (!got.empty()) got += ",";
      got += std::string(it->key()) + "=" + std::string(it->value());
    }
    EXPECT_EQ(got, want);
    // More bytes after the end are refused.
    EXPECT_TRUE(sink.Feed("x").IsCorruption());
  }
}

TEST_F(ReplicationSnapshotTest, RefusesWhatIsNotAnArchive) {
  SnapshotSink bad_magic(DefaultFileSystem(), dir_ + ".replica");
  EXPECT_TRUE(bad_magic.Feed("REDIS0009 and more bytes").IsCorruption());
  EXPECT_TRUE(bad_magic.Feed("anything").IsCorruption());

  std::string archive(kSnapshotMagic);
  archive.append(std::string("\x05\0\0\0\0\0\0\0\x01\0\0\0", 12));
  archive.append("\x05../xx");
  archive.append(std::string(8, '\0'));  // size 0
  SnapshotSink bad_name(DefaultFileSystem(), dir_ + ".replica");
  EXPECT_TRUE(bad_name.Feed(archive).IsCorruption());
}

}  // namespace
}  // namespace ebb::storage
