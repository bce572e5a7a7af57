// BlockFetch against real tables: a cache-only read wants what it does not find in memory and
// returns Incomplete; filling the wants lets the rerun finish, whatever the cache evicted; a
// failed or damaged block reaches only the fetch that wanted it; wants are deduplicated and
// ranged for direct I/O; reads outside cache-only mode read inline; writes are admitted only
// before an incomplete read.
#include "storage/table/block_fetch.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/format/internal_key.h"
#include "storage/table/block.h"
#include "storage/table/block_cache.h"
#include "storage/table/table.h"
#include "storage/table/table_builder.h"
#include "tests/unit/storage/table_test_util.h"

namespace ebb::storage {
namespace {

std::string Key(std::string_view user_key, uint64_t sequence) {
  std::string k;
  AppendInternalKey(&k, user_key, sequence, RowKind::kValue);
  return k;
}

std::string RowAtTs1(std::string_view value) {
  std::string row;
  AppendEncodedRow(&row, RowMeta{1, std::nullopt}, value);
  return row;
}

std::string UserKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%05d", i);
  return buf;
}

// 400 keys with 40-byte values in 512-byte blocks: about 40 data blocks.
std::string BuildContents() {
  Model model;
  for (int i = 0; i < 400; ++i) model[Key(UserKey(i), 7)] = RowAtTs1(std::string(40, 'a' + i % 26));
  MemFile file;
  TableBuilder builder(TableOptions{.block_size = 512, .compression = Compression::kNone}, &file);
  for (const auto& [k, v] : model) builder.Add(k, v);
  EXPECT_TRUE(builder.Finish().ok());
  return file.contents;
}

class BlockFetchTest : public ::testing::Test {
 protected:
  void Open(size_t cache_bytes, size_t alignment = 1) {
    contents_ = BuildContents();
    cache_ = std::make_unique<BlockCache>(cache_bytes);
    auto file = std::make_unique<MemRandomAccessFile>(contents_, alignment);
    file_ = file.get();
    std::unique_ptr<Table> table;
    ASSERT_TRUE(Table::Open(TableOptions{}, std::move(file), contents_.size(), 9, cache_.get(),
                            "/db/000009.sst", &table)
                    .ok());
    table_ = std::move(table);  // shared: wants keep it open
  }

  // Get of key i through `fetch`: the value offered, or "" when none; *status the result.
  std::string Get(int i, BlockFetch* fetch, Status* status) {
    std::string value;
    *status = table_->Get(
        LookupKey(UserKey(i), kMaxSequence), true,
        [&](std::string_view, std::string_view row) {
          RowMeta meta;
          std::string_view v;
          EXPECT_TRUE(DecodeRow(row, &meta, &v));
          value.assign(v);
          return false;
        },
        fetch);
    return value;
  }

  std::string contents_;
  std::unique_ptr<BlockCache> cache_;
  MemRandomAccessFile* file_ = nullptr;
  std::shared_ptr<Table> table_;
};

TEST_F(BlockFetchTest, CacheOnlyReadWantsTheBlockThenTheRerunFinishes) {
  Open(1 << 20);
  const int opened_reads = file_->reads;
  BlockFetch fetch;
  fetch.BeginPass(/*cache_only=*/true);
  Status s;
  EXPECT_EQ(Get(123, &fetch, &s), "");
  EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
  EXPECT_EQ(file_->reads, opened_reads);  // nothing was read
  ASSERT_EQ(fetch.wants().size(), 1u);
  const BlockFetch::Want& want = fetch.wants()[0];
  EXPECT_EQ(want.table.get(), table_.get());
  EXPECT_EQ(want.read_offset, want.handle.offset);  // not aligned: the exact block and trailer
  EXPECT_EQ(want.read_length, want.handle.size + kBlockTrailerSize);
  EXPECT_EQ(want.fd, -1);

  fetch.ReadAndFillAll();
  EXPECT_GT(fetch.pinned_bytes(), 0u);
  fetch.BeginPass(true);
  EXPECT_EQ(Get(123, &fetch, &s), std::string(40, 'a' + 123 % 26));
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(fetch.rounds(), 1u);
  fetch.Release();
  EXPECT_EQ(fetch.pinned_bytes(), 0u);
  EXPECT_EQ(fetch.rounds(), 0u);

  // The block went to the cache: a new pass finds it there.
  fetch.BeginPass(true);
  EXPECT_EQ(Get(123, &fetch, &s), std::string(40, 'a' + 123 % 26));
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(fetch.inline_reads(), 0u);
}

TEST_F(BlockFetchTest, PinnedBlocksCarryTheRerunWhenTheCacheKeepsNothing) {
  Open(0);  // every insert is dropped: only the pins can make progress
  BlockFetch fetch;
  std::vector<int> keys = {5, 150, 151, 399, 200};
  for (int round = 0; round < 2; ++round) {
    fetch.BeginPass(true);
    for (int k : keys) {
      Status s;
      Get(k, &fetch, &s);
      ASSERT_EQ(s.IsIncomplete(), round == 0) << s.ToString();
    }
    if (round == 0) {
      // One pass asks for every block at once; 150 and 151 share theirs.
      EXPECT_EQ(fetch.wants().size(), 4u);
      fetch.ReadAndFillAll();
    }
  }
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(cache_->usage(), 0u);
  for (int k : keys) {
    Status s;
    EXPECT_EQ(Get(k, &fetch, &s), std::string(40, 'a' + k % 26));
  }
}

// A lookahead pass adds its wants to the incomplete pass before it; one round of reads serves
// both, and its pins outlive the request that waited until Release.
TEST_F(BlockFetchTest, ALookaheadAddsItsWantsAndKeepsItsPinsUntilRelease) {
  Open(0);  // the cache keeps nothing: only pins carry a block from the read to the run
  BlockFetch fetch;
  Status s;
  fetch.BeginPass(true);
  Get(5, &fetch, &s);  // the request that waits
  ASSERT_TRUE(s.IsIncomplete());
  ASSERT_EQ(fetch.wants().size(), 1u);
  const size_t first_bytes = fetch.wanted_bytes();
  EXPECT_GT(first_bytes, 0u);
  fetch.BeginLookahead();  // a read queued behind it
  Get(300, &fetch, &s);
  EXPECT_TRUE(s.IsIncomplete());
  EXPECT_EQ(fetch.wants().size(), 2u);
  EXPECT_GT(fetch.wanted_bytes(), first_bytes);
  EXPECT_FALSE(fetch.AdmitWrite());  // a dry run writes nothing
  fetch.ReadAndFillAll();

  fetch.BeginPass(true);  // the waiting request runs again, then ends
  EXPECT_EQ(Get(5, &fetch, &s), std::string(40, 'a' + 5 % 26));
  EXPECT_TRUE(s.ok()) << s.ToString();
  fetch.EndRequest();
  EXPECT_EQ(fetch.rounds(), 0u);
  const int reads = file_->reads;
  fetch.BeginPass(true);  // the read looked ahead at runs: its block is still pinned
  EXPECT_EQ(Get(300, &fetch, &s), std::string(40, 'a' + 300 % 26));
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(file_->reads, reads);
  fetch.EndRequest();
  EXPECT_GT(fetch.pinned_bytes(), 0u);
  fetch.Release();
  EXPECT_EQ(fetch.pinned_bytes(), 0u);
  fetch.BeginPass(true);
  Get(300, &fetch, &s);
  EXPECT_TRUE(s.IsIncomplete());
  fetch.Release();
}

// A rerun starts at the block its key led to before (a seek hint), after checking that the block
// fits the key: hints that lead a key to a block past its own or before it (as colliding hashes
// would) still find the right rows, without reading more.
TEST_F(BlockFetchTest, ARerunChecksTheNotedBlockFitsTheKey) {
  Open(0);
  uint64_t block5 = 0, block300 = 0;
  {
    BlockFetch probe;  // where keys 5 and 300 are
    probe.BeginPass(true);
    Status s;
    Get(5, &probe, &s);
    Get(300, &probe, &s);
    ASSERT_EQ(probe.wants().size(), 2u);
    block5 = probe.wants()[0].handle.offset;
    block300 = probe.wants()[1].handle.offset;
  }
  BlockFetch fetch;
  fetch.NoteBlockFor(9, UserKey(5), block300);  // looked at first, so these win
  fetch.NoteBlockFor(9, UserKey(300), block5);
  Status s;
  fetch.BeginPass(true);
  Get(5, &fetch, &s);
  EXPECT_TRUE(s.IsIncomplete());
  Get(300, &fetch, &s);
  EXPECT_TRUE(s.IsIncomplete());
  EXPECT_EQ(fetch.wants().size(), 2u);
  fetch.ReadAndFillAll();
  const int reads = file_->reads;
  fetch.BeginPass(true);
  EXPECT_EQ(Get(5, &fetch, &s), std::string(40, 'a' + 5 % 26));
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Get(300, &fetch, &s), std::string(40, 'a' + 300 % 26));
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(file_->reads, reads);
  fetch.Release();
  uint64_t offset = 0;
  EXPECT_EQ(fetch.PinnedBlockFor(9, UserKey(5), &offset), nullptr);  // hints go with the pins
}

// The versions of one key fill more than a block: the rerun that starts at the noted block goes
// on into the next one, and a rerun at a newer snapshot than the first pass (whose key leads to
// an earlier block) gets every version.
TEST(BlockFetchHints, AKeyWhoseVersionsSpanBlocksIsReadWhole) {
  Model model;
  for (uint64_t seq = 1; seq <= 30; ++seq) model[Key("k", seq)] = RowAtTs1(std::string(40, 'v'));
  model[Key("a", 1)] = RowAtTs1("first");
  model[Key("z", 1)] = RowAtTs1("last");
  MemFile out;
  TableBuilder builder(TableOptions{.block_size = 512, .compression = Compression::kNone}, &out);
  for (const auto& [k, v] : model) builder.Add(k, v);
  ASSERT_TRUE(builder.Finish().ok());
  std::unique_ptr<Table> owned;
  ASSERT_TRUE(Table::Open(TableOptions{}, std::make_unique<MemRandomAccessFile>(out.contents),
                          out.contents.size(), 5, nullptr, "t", &owned)
                  .ok());
  std::shared_ptr<Table> table = std::move(owned);
  BlockFetch fetch;
  std::vector<uint64_t> sequences;
  Status s;
  size_t passes = 0;
  for (uint64_t snapshot : {uint64_t{12}, kMaxSequence, kMaxSequence, kMaxSequence, kMaxSequence}) {
    fetch.BeginPass(true);
    sequences.clear();
    ++passes;
    s = table->Get(
        LookupKey("k", snapshot), true,
        [&](std::string_view key, std::string_view) {
          ParsedInternalKey parsed;
          EXPECT_TRUE(ParseInternalKey(key, &parsed));
          sequences.push_back(parsed.sequence);
          return true;
        },
        &fetch);
    if (!s.IsIncomplete()) break;
    fetch.ReadAndFillAll();
  }
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(passes, 3u);  // at least two blocks were read
  ASSERT_EQ(sequences.size(), 30u);
  for (size_t i = 0; i < sequences.size(); ++i) EXPECT_EQ(sequences[i], 30 - i);
}

TEST_F(BlockFetchTest, AFailedReadReachesOnlyTheFetchThatWantedIt) {
  Open(1 << 20);
  BlockFetch failing, other;
  failing.BeginPass(true);
  Status s;
  Get(10, &failing, &s);
  ASSERT_TRUE(s.IsIncomplete());
  file_->fail = true;
  failing.ReadAndFillAll();
  file_->fail = false;
  failing.BeginPass(true);
  Get(10, &failing, &s);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_FALSE(failing.incomplete());

  // Another fetch wants the same block afresh and reads it fine.
  other.BeginPass(true);
  Get(10, &other, &s);
  ASSERT_TRUE(s.IsIncomplete());
  other.ReadAndFillAll();
  other.BeginPass(true);
  EXPECT_EQ(Get(10, &other, &s), std::string(40, 'a' + 10 % 26));
  EXPECT_TRUE(s.ok());
}

TEST_F(BlockFetchTest, ADamagedBlockIsACorruptionNamingFileAndOffset) {
  Open(1 << 20);
  BlockFetch fetch;
  fetch.BeginPass(true);
  Status s;
  Get(0, &fetch, &s);
  ASSERT_EQ(fetch.wants().size(), 1u);
  file_->Damage(fetch.wants()[0].handle.offset + 10);
  fetch.ReadAndFillAll();
  fetch.BeginPass(true);
  Get(0, &fetch, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("/db/000009.sst: block checksum mismatch at offset 0"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(cache_->usage(), 0u);  // damage is never cached
}

TEST_F(BlockFetchTest, WantsOfADirectFileAreAlignedAroundTheBlock) {
  Open(1 << 20, /*alignment=*/4096);
  BlockFetch fetch;
  fetch.BeginPass(true);
  Status s;
  Get(300, &fetch, &s);
  ASSERT_EQ(fetch.wants().size(), 1u);
  const BlockFetch::Want& want = fetch.wants()[0];
  EXPECT_EQ(want.alignment, 4096u);
  EXPECT_EQ(want.read_offset % 4096, 0u);
  EXPECT_EQ(want.read_length % 4096, 0u);
  EXPECT_LE(want.read_offset, want.handle.offset);
  EXPECT_GE(want.read_offset + want.read_length,
            want.handle.offset + want.handle.size + kBlockTrailerSize);
  fetch.ReadAndFillAll();  // the file is shorter than the aligned end: a short read, still whole
  fetch.BeginPass(true);
  EXPECT_EQ(Get(300, &fetch, &s), std::string(40, 'a' + 300 % 26));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(BlockFetchTest, OutsideCacheOnlyBlocksAreReadInlineAndCounted) {
  Open(1 << 20);
  BlockFetch fetch;
  fetch.BeginPass(/*cache_only=*/false);
  Status s;
  EXPECT_EQ(Get(42, &fetch, &s), std::string(40, 'a' + 42 % 26));
  EXPECT_TRUE(s.ok());
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(fetch.inline_reads(), 1u);
}

TEST_F(BlockFetchTest, ATableNotOwnedBySharedPtrReadsInline) {
  const std::string contents = BuildContents();
  BlockCache cache(1 << 20);
  std::unique_ptr<Table> table;
  ASSERT_TRUE(Table::Open(TableOptions{}, std::make_unique<MemRandomAccessFile>(contents),
                          contents.size(), 3, &cache, "t", &table)
                  .ok());
  BlockFetch fetch;
  fetch.BeginPass(true);
  int offered = 0;
  Status s = table->Get(
      LookupKey(UserKey(7), kMaxSequence), true,
      [&](std::string_view, std::string_view) { return ++offered, false; }, &fetch);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(offered, 1);
  EXPECT_EQ(fetch.inline_reads(), 1u);
}

TEST(BlockFetchWrites, AWriteIsAdmittedOnlyBeforeAnIncompleteReadAndEndsCacheOnly) {
  BlockFetch fetch;
  fetch.BeginPass(true);
  EXPECT_TRUE(fetch.AdmitWrite());
  EXPECT_FALSE(fetch.cache_only());  // the pass wrote: its later reads read inline

  const std::string contents = BuildContents();
  std::unique_ptr<Table> owned;
  ASSERT_TRUE(Table::Open(TableOptions{}, std::make_unique<MemRandomAccessFile>(contents),
                          contents.size(), 4, nullptr, "t", &owned)
                  .ok());
  std::shared_ptr<Table> table = std::move(owned);
  fetch.BeginPass(true);
  Status s = table->Get(
      LookupKey(UserKey(1), kMaxSequence), true,
      [](std::string_view, std::string_view) { return false; }, &fetch);
  ASSERT_TRUE(s.IsIncomplete());
  EXPECT_FALSE(fetch.AdmitWrite());
  EXPECT_TRUE(fetch.cache_only());
}

}  // namespace
}  // namespace ebb::storage
