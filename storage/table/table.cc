#include "storage/table/table.h"

#include <algorithm>

#include "storage/disk_read_latency.h"
#include "storage/format/internal_key.h"
#include "storage/table/block.h"
#include "storage/table/block_cache.h"
#include "storage/table/block_fetch.h"
#include "storage/table/bloom.h"
#include "storage/table/format.h"
#include "storage/table/readahead.h"
#include "storage/table/table_layout.h"

namespace ebb::storage {

struct Table::Rep {
  TableOptions options;
  std::unique_ptr<RandomAccessFile> file;
  uint64_t file_size = 0;
  uint64_t file_number = 0;
  BlockCache* cache = nullptr;
  std::string name;
  std::shared_ptr<const Block> index_block;
  std::string filter;  // empty: no filter
  TableProperties props;
  uint64_t data_end = 0;  // where the data blocks end (first meta block)

  // Reads and verifies the block at `handle`, which must lie inside the file (handles in the
  // footer are not checksummed, so a damaged one must not cause a huge read).
  Status ReadContents(const BlockHandle& handle, std::string* contents) const {
    Status s = CheckHandle(handle);
    if (!s.ok()) return s;
    return ReadBlockContents(*file, name, handle, contents);
  }

  // Corruption unless the block at `handle` and its trailer lie inside the file.
  Status CheckHandle(const BlockHandle& handle) const {
    if (handle.offset > file_size || handle.size > file_size - handle.offset ||
        file_size - handle.offset - handle.size < kBlockTrailerSize) {
      return Status::Corruption(name + ": block handle past the end of the file at offset " +
                                std::to_string(handle.offset));
    }
    return Status::OK();
  }

  Status ReadBlock(const BlockHandle& handle, std::shared_ptr<const Block>* block) const {
    std::string contents;
    Status s = ReadContents(handle, &contents);
    if (!s.ok()) return s;
    auto b = std::make_shared<const Block>(std::move(contents));
    if (b->malformed()) {
      return Status::Corruption(name + ": malformed block at offset " +
                                std::to_string(handle.offset));
    }
    *block = std::move(b);
    return Status::OK();
  }
};

namespace {

// The Corruption status for damage `what` in table `table`'s data block at `handle_encoding`
// (its index entry), or in its index block.
Status DataBlockCorruption(const std::string& table, std::string_view handle_encoding,
                           std::string_view what) {
  BlockHandle handle;
  handle.DecodeFrom(&handle_encoding);
  return Status::Corruption(table + ": " + std::string(what) + " at offset " +
                            std::to_string(handle.offset));
}
Status IndexBlockCorruption(const std::string& table, std::string_view what) {
  return Status::Corruption(table + ": index block: " + std::string(what));
}

// Index -> data block iteration. Stops (not Valid, status() not OK) at the first unreadable
// or corrupt block rather than skipping it.
class TwoLevelIterator final : public InternalIterator {
 public:
  TwoLevelIterator(const Table* table, std::unique_ptr<InternalIterator> index_iter,
                   bool fill_cache, BlockFetch* const* fetch, const std::string* name)
      : table_(table),
        index_(std::move(index_iter)),
        fill_cache_(fill_cache),
        fetch_(fetch),
        name_(name),
        readahead_(fill_cache ? kScanReadahead : kBulkReadahead) {}

  bool Valid() const override { return status_.ok() && data_ != nullptr && data_->Valid(); }
  std::string_view key() const override { return data_->key(); }
  std::string_view value() const override { return data_->value(); }
  Status status() const override { return status_; }

  void Seek(std::string_view target) override {
    status_ = Status::OK();
    readahead_.Reset();
    blocks_ahead_ = 1;
    index_->Seek(target);
    InitDataBlock();
    if (data_ != nullptr) data_->Seek(target);
    SkipEmptyDataBlocksForward();
  }
  void SeekToFirst() override {
    status_ = Status::OK();
    readahead_.Reset();
    blocks_ahead_ = 1;
    index_->SeekToFirst();
    InitDataBlock();
    if (data_ != nullptr) data_->SeekToFirst();
    SkipEmptyDataBlocksForward();
  }
  void SeekToLast() override {
    status_ = Status::OK();
    readahead_.Reset();
    index_->SeekToLast();
    InitDataBlock();
    if (data_ != nullptr) data_->SeekToLast();
    SkipEmptyDataBlocksBackward();
  }
  void Next() override {
    data_->Next();
    SkipEmptyDataBlocksForward();
  }
  void Prev() override {
    data_->Prev();
    SkipEmptyDataBlocksBackward();
  }

 private:
  // False (and status_ set) if the data or index iterator failed.
  bool CheckErrors() {
    if (!status_.ok()) return false;
    if (data_ != nullptr && !data_->status().ok()) {
      status_ = DataBlockCorruption(*name_, data_handle_, data_->status().message());
    } else if (!index_->status().ok()) {
      status_ = IndexBlockCorruption(*name_, index_->status().message());
    }
    if (status_.ok()) return true;
    data_.reset();
    return false;
  }

  void SkipEmptyDataBlocksForward() {
    while (CheckErrors() && (data_ == nullptr || !data_->Valid())) {
      if (!index_->Valid()) {
        data_.reset();
        return;
      }
      index_->Next();
      InitDataBlock();
      if (status_.IsIncomplete()) WantBlocksAhead();
      if (data_ != nullptr) data_->SeekToFirst();
    }
  }

  // A forward scan reached a block that is not in memory (a cache-only read: block_fetch.h):
  // want the blocks after it too — 1, then 2, 4, ... up to kMaxBlocksAhead at each such step —
  // so a scan waits for the disk a few times, not once per block.
  void WantBlocksAhead() {
    BlockFetch* fetch = fetch_ != nullptr ? *fetch_ : nullptr;
    if (fetch == nullptr || !index_->Valid()) return;
    table_->WantBlocksAfter(index_->key(), blocks_ahead_, fill_cache_, fetch);
    blocks_ahead_ = std::min(blocks_ahead_ * 2, kMaxBlocksAhead);
  }

  void SkipEmptyDataBlocksBackward() {
    while (CheckErrors() && (data_ == nullptr || !data_->Valid())) {
      if (!index_->Valid()) {
        data_.reset();
        return;
      }
      index_->Prev();
      InitDataBlock();
      if (data_ != nullptr) data_->SeekToLast();
    }
  }

  void InitDataBlock() {
    if (!index_->Valid()) {
      data_.reset();
      return;
    }
    const std::string_view handle = index_->value();
    if (data_ != nullptr && handle == data_handle_) return;  // already there
    std::shared_ptr<const Block> block;
    Status s = table_->ReadDataBlock(handle, fill_cache_, &block,
                                     fetch_ != nullptr ? *fetch_ : nullptr, &readahead_);
    if (!s.ok()) {
      status_ = s;
      data_.reset();
      return;
    }
    data_handle_.assign(handle);
    data_ = Block::NewIterator(std::move(block), CompareInternalKeys);
  }

  // How far sequential reads of a direct-I/O file read ahead: scans that fill the cache as
  // RocksDB's automatic readahead, bulk scans (compaction) as its compaction readahead.
  static constexpr size_t kScanReadahead = 256 << 10;
  static constexpr size_t kBulkReadahead = 2 << 20;
  static constexpr size_t kMaxBlocksAhead = 16;

  const Table* const table_;
  const std::unique_ptr<InternalIterator> index_;
  const bool fill_cache_;
  BlockFetch* const* const fetch_;
  const std::string* const name_;
  Readahead readahead_;
  size_t blocks_ahead_ = 1;  // WantBlocksAhead's next count
  std::unique_ptr<InternalIterator> data_;
  std::string data_handle_;
  Status status_;
};

}  // namespace

Table::Table(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

Table::~Table() = default;

Status Table::Open(const TableOptions& options, std::unique_ptr<RandomAccessFile> file,
                   uint64_t file_size, uint64_t file_number, BlockCache* cache,
                   std::string name_for_errors, std::unique_ptr<Table>* table) {
  auto rep = std::make_unique<Rep>();
  rep->options = options;
  rep->file = std::move(file);
  rep->file_size = file_size;
  rep->file_number = file_number;
  rep->cache = cache;
  rep->name = std::move(name_for_errors);
  const std::string& name = rep->name;

  if (file_size < Footer::kEncodedLength) {
    return Status::Corruption(name + ": file too short to be an SST (" + std::to_string(file_size) +
                              " bytes)");
  }
  char footer_space[Footer::kEncodedLength];
  std::string_view footer_input;
  Status s = rep->file->Read(file_size - Footer::kEncodedLength, Footer::kEncodedLength,
                             &footer_input, footer_space);
  if (!s.ok()) return s;
  Footer footer;
  s = footer.DecodeFrom(footer_input, name);
  if (!s.ok()) return s;

  s = rep->ReadBlock(footer.index_handle, &rep->index_block);
  if (!s.ok()) return s;
  std::shared_ptr<const Block> metaindex;
  s = rep->ReadBlock(footer.metaindex_handle, &metaindex);
  if (!s.ok()) return s;

  rep->data_end = footer.metaindex_handle.offset;
  bool have_props = false;
  auto it = Block::NewIterator(metaindex, CompareUserKeys);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view in = it->value();
    BlockHandle handle;
    if (!handle.DecodeFrom(&in)) {
      return Status::Corruption(name + ": bad handle in metaindex for " + std::string(it->key()));
    }
    std::string contents;
    if (it->key() == kBloomFilterBlockName) {
      s = rep->ReadContents(handle, &rep->filter);
    } else if (it->key() == kPropertiesBlockName) {
      s = rep->ReadContents(handle, &contents);
      if (s.ok()) {
        s = rep->props.DecodeFrom(contents);
        if (!s.ok()) s = Status::Corruption(name + ": " + s.message());
      }
      have_props = true;
    } else {
      continue;  // a meta block from a newer writer
    }
    if (!s.ok()) return s;
    rep->data_end = std::min(rep->data_end, handle.offset);
  }
  if (!it->status().ok()) return Status::Corruption(name + ": malformed metaindex");
  if (!have_props) return Status::Corruption(name + ": no properties block");
  table->reset(new Table(std::move(rep)));
  return Status::OK();
}

Status Table::ReadDataBlock(std::string_view handle_encoding, bool fill_cache,
                            std::shared_ptr<const Block>* block, BlockFetch* fetch,
                            Readahead* readahead) const {
  BlockHandle handle;
  std::string_view in = handle_encoding;
  if (!handle.DecodeFrom(&in)) {
    return Status::Corruption(rep_->name + ": bad block handle in index");
  }
  return ReadData(handle, fill_cache, fetch, readahead, block);
}

Status Table::ReadData(const BlockHandle& handle, bool fill_cache, BlockFetch* fetch,
                       Readahead* readahead, std::shared_ptr<const Block>* block) const {
  if (fetch != nullptr) {
    Status error;
    if (fetch->FindPinned(rep_->file_number, handle.offset, block, &error)) return error;
  }
  if (rep_->cache != nullptr) {
    *block = rep_->cache->Lookup(rep_->file_number, handle.offset);
    if (*block != nullptr) return Status::OK();
  }
  Status s = rep_->CheckHandle(handle);
  if (!s.ok()) return s;
  if (fetch != nullptr) {
    if (fetch->cache_only()) {
      if (std::shared_ptr<const Table> self = weak_from_this().lock()) {
        fetch->AddWant(std::move(self), handle, fill_cache);
        // The want names the block. A message short enough to need no allocation: every GET
        // of a key on disk passes here, and the status is copied on its way up.
        return Status::Incomplete("not in memory");
      }
    }
    fetch->CountInlineRead();
  }
  std::string_view data;
  if (readahead != nullptr && readahead->Read(*rep_->file, handle, &data, &s)) {
    if (s.ok()) s = InstallBlock(handle, data, fill_cache, block);
    return s;
  }
  {
    DiskReadTimer timer(rep_->options.read_latency);
    s = rep_->ReadBlock(handle, block);
  }
  if (s.ok() && rep_->cache != nullptr && fill_cache) {
    rep_->cache->Insert(rep_->file_number, handle.offset, *block);
  }
  return s;
}

void Table::WantBlocksAfter(std::string_view index_key, size_t n, bool fill_cache,
                            BlockFetch* fetch) const {
  BlockCursor index(*rep_->index_block, CompareInternalKeys);
  index.Seek(index_key);
  for (size_t i = 0; i < n && index.Valid(); ++i) {
    index.Next();
    if (!index.Valid()) break;
    BlockHandle handle;
    std::string_view in = index.value();
    if (!handle.DecodeFrom(&in)) break;
    std::shared_ptr<const Block> block;
    ReadData(handle, fill_cache, fetch, nullptr, &block);  // wanted unless in memory
  }
}

Status Table::InstallBlock(const BlockHandle& handle, std::string_view data, bool fill_cache,
                           std::shared_ptr<const Block>* block) const {
  std::string contents;
  Status s = DecodeBlockContents(data, rep_->name, handle, &contents);
  if (!s.ok()) return s;
  auto b = std::make_shared<const Block>(std::move(contents));
  if (b->malformed()) {
    return Status::Corruption(rep_->name + ": malformed block at offset " +
                              std::to_string(handle.offset));
  }
  if (rep_->cache != nullptr && fill_cache)
    rep_->cache->Insert(rep_->file_number, handle.offset, b);
  *block = std::move(b);
  return Status::OK();
}

namespace {

enum class VisitEnd { kDone, kNextBlock, kCorrupt };

// Offers `visitor` the entries of user_key from `data`'s position on. kDone: a different user key
// came, or the visitor stopped; kNextBlock: the block ended, the key's versions may go on in the
// next one; kCorrupt: a malformed entry.
VisitEnd VisitVersions(BlockCursor* data, std::string_view user_key, const EntryVisitor& visitor) {
  for (; data->Valid(); data->Next()) {
    const std::string_view key = data->key();
    if (key.size() < kInternalKeyTrailer) return VisitEnd::kCorrupt;
    if (CompareUserKeys(ExtractUserKey(key), user_key) != 0) return VisitEnd::kDone;
    if (!visitor(key, data->value())) return VisitEnd::kDone;
  }
  return data->corrupted() ? VisitEnd::kCorrupt : VisitEnd::kNextBlock;
}

}  // namespace

Status Table::Get(std::string_view lookup_key, bool fill_cache, EntryVisitor visitor,
                  BlockFetch* fetch) const {
  if (lookup_key.size() < kInternalKeyTrailer) {
    return Status::InvalidArgument("table get: lookup key shorter than its trailer");
  }
  const std::string_view user_key = ExtractUserKey(lookup_key);
  BlockCursor index(*rep_->index_block, CompareInternalKeys);
  bool first_block = true;  // the block the index leads to: seek in it
  uint64_t hinted_offset = 0;
  std::shared_ptr<const Block> hinted =
      fetch != nullptr ? fetch->PinnedBlockFor(rep_->file_number, user_key, &hinted_offset)
                       : nullptr;
  if (hinted != nullptr) {
    // A rerun (block_fetch.h, "Seek hints"): the filter admitted the key before. The block is
    // the one the index leads to if its first key is at or before lookup_key: the blocks before
    // it hold only keys before that one. The index is searched only if the key's versions may
    // go on past it.
    BlockCursor data(*hinted, CompareInternalKeys);
    data.SeekToFirst();
    if (data.Valid() && CompareInternalKeys(data.key(), lookup_key) <= 0) {
      data.Seek(lookup_key);
      const VisitEnd end = VisitVersions(&data, user_key, visitor);
      if (end == VisitEnd::kDone) return Status::OK();
      index.Seek(lookup_key);
      if (end == VisitEnd::kCorrupt) {
        return Status::Corruption(rep_->name + ": bad entry in block at offset " +
                                  std::to_string(hinted_offset));
      }
      // The index leads to the hinted block, unless no key of it is at or after lookup_key.
      BlockHandle handle;
      std::string_view in = index.Valid() ? index.value() : std::string_view();
      if (index.Valid() && handle.DecodeFrom(&in) && handle.offset == hinted_offset) {
        index.Next();
        first_block = false;
      }
    } else {
      hinted = nullptr;  // not the key's block: search as without a hint
    }
  }
  if (hinted == nullptr) {
    if (!KeyMayMatch(user_key)) return Status::OK();
    index.Seek(lookup_key);
  }
  for (; index.Valid(); index.Next(), first_block = false) {
    BlockHandle handle;
    std::string_view in = index.value();
    if (!handle.DecodeFrom(&in)) {
      return Status::Corruption(rep_->name + ": bad block handle in index");
    }
    std::shared_ptr<const Block> block;
    Status s = ReadData(handle, fill_cache, fetch, nullptr, &block);
    if (!s.ok()) {
      if (s.IsIncomplete() && first_block) {
        fetch->NoteBlockFor(rep_->file_number, user_key, handle.offset);
      }
      return s;
    }
    BlockCursor data(*block, CompareInternalKeys);
    if (first_block) {
      data.Seek(lookup_key);
    } else {
      data.SeekToFirst();  // the key's versions continue into this block
    }
    switch (VisitVersions(&data, user_key, visitor)) {
      case VisitEnd::kDone:
        return Status::OK();
      case VisitEnd::kCorrupt:
        return DataBlockCorruption(rep_->name, index.value(), "bad entry in block");
      case VisitEnd::kNextBlock:
        break;
    }
  }
  if (index.corrupted()) return IndexBlockCorruption(rep_->name, "bad entry in block");
  return Status::OK();
}

Status Table::Salvage(EntryVisitor visitor, std::vector<Status>* damage) const {
  BlockCursor index(*rep_->index_block, CompareInternalKeys);
  for (index.SeekToFirst(); index.Valid(); index.Next()) {
    std::shared_ptr<const Block> block;
    Status s = ReadDataBlock(index.value(), /*fill_cache=*/false, &block);
    if (!s.ok()) {
      damage->push_back(s);
      continue;
    }
    BlockCursor data(*block, CompareInternalKeys);
    for (data.SeekToFirst(); data.Valid(); data.Next()) visitor(data.key(), data.value());
    if (data.corrupted()) {
      damage->push_back(DataBlockCorruption(rep_->name, index.value(), "bad entry in block"));
    }
  }
  if (index.corrupted()) return IndexBlockCorruption(rep_->name, "bad entry in block");
  return Status::OK();
}

std::unique_ptr<InternalIterator> Table::NewIterator(bool fill_cache,
                                                     BlockFetch* const* fetch) const {
  return std::make_unique<TwoLevelIterator>(
      this, Block::NewIterator(rep_->index_block, CompareInternalKeys), fill_cache, fetch,
      &rep_->name);
}

uint64_t Table::file_number() const { return rep_->file_number; }
const RandomAccessFile& Table::file() const { return *rep_->file; }
const std::string& Table::name() const { return rep_->name; }
size_t Table::index_bytes() const { return rep_->index_block->size(); }
size_t Table::filter_bytes() const { return rep_->filter.size(); }

bool Table::KeyMayMatch(std::string_view user_key) const {
  if (rep_->filter.empty()) return true;
  return BloomKeyMayMatch(rep_->filter, user_key);
}

const TableProperties& Table::properties() const { return rep_->props; }

uint64_t Table::DataSize() const { return rep_->data_end; }

uint64_t Table::ApproximateOffsetOf(std::string_view internal_key) const {
  auto it = Block::NewIterator(rep_->index_block, CompareInternalKeys);
  it->Seek(internal_key);
  if (it->Valid()) {
    BlockHandle handle;
    std::string_view in = it->value();
    if (handle.DecodeFrom(&in)) return handle.offset;
  }
  return rep_->data_end;
}

}  // namespace ebb::storage
