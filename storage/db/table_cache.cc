#include "storage/db/table_cache.h"

#include "storage/db/filename.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_cache.h"
#include "storage/table/table.h"

namespace ebb::storage {
namespace {

// Keeps a Table alive for as long as an iterator over it lives.
class PinnedIterator final : public InternalIterator {
 public:
  PinnedIterator(std::shared_ptr<Table> table, std::unique_ptr<InternalIterator> iter)
      : table_(std::move(table)), iter_(std::move(iter)) {}
  ~PinnedIterator() override { iter_.reset(); }
  bool Valid() const override { return iter_->Valid(); }
  void SeekToFirst() override { iter_->SeekToFirst(); }
  void SeekToLast() override { iter_->SeekToLast(); }
  void Seek(std::string_view target) override { iter_->Seek(target); }
  void Next() override { iter_->Next(); }
  void Prev() override { iter_->Prev(); }
  std::string_view key() const override { return iter_->key(); }
  std::string_view value() const override { return iter_->value(); }
  Status status() const override { return iter_->status(); }

 private:
  std::shared_ptr<Table> table_;
  std::unique_ptr<InternalIterator> iter_;
};

}  // namespace

namespace {

// Adds `table` to *usage, or takes it away.
void Count(const Table& table, bool add, TableCache::Usage* usage) {
  auto apply = [add](size_t* total, size_t n) { *total = add ? *total + n : *total - n; };
  apply(&usage->tables, 1);
  apply(&usage->direct_tables, table.file().alignment() > 1 ? 1 : 0);
  apply(&usage->index_bytes, table.index_bytes());
  apply(&usage->filter_bytes, table.filter_bytes());
}

}  // namespace

TableCache::TableCache(std::string dir, std::shared_ptr<FileSystem> fs, BlockCache* block_cache,
                       int capacity, bool direct_reads, DiskReadLatency* read_latency)
    : dir_(std::move(dir)),
      fs_(std::move(fs)),
      block_cache_(block_cache),
      capacity_(capacity),
      direct_reads_(direct_reads),
      read_latency_(read_latency) {}

TableCache::~TableCache() = default;

Status TableCache::FindTable(const FileMetaData& file, std::shared_ptr<Table>* table) {
  {
    std::lock_guard lock(mu_);
    auto it = tables_.find(file.number);
    if (it != tables_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
      *table = it->second.table;
      return Status::OK();
    }
  }
  // Opened without the lock: other lookups go on meanwhile.
  const std::string name = TableFileName(dir_, file.number);
  std::unique_ptr<RandomAccessFile> raf;
  Status s = direct_reads_ ? fs_->NewDirectRandomAccessFile(name, &raf)
                           : fs_->NewRandomAccessFile(name, &raf);
  if (!s.ok()) return s;
  std::unique_ptr<Table> opened;
  TableOptions options;
  options.read_latency = read_latency_;
  s = Table::Open(options, std::move(raf), file.file_size, file.number, block_cache_, name,
                  &opened);
  if (!s.ok()) return s;
  std::shared_ptr<Table> shared(std::move(opened));
  std::lock_guard lock(mu_);
  auto it = tables_.find(file.number);
  if (it != tables_.end()) {  // another thread opened it first
    *table = it->second.table;
    return Status::OK();
  }
  lru_.push_front(file.number);
  tables_[file.number] = Entry{shared, lru_.begin()};
  Count(*shared, true, &usage_);
  while (tables_.size() > capacity_) {
    auto victim = tables_.find(lru_.back());
    Count(*victim->second.table, false, &usage_);
    tables_.erase(victim);
    lru_.pop_back();
  }
  *table = std::move(shared);
  return Status::OK();
}

Status TableCache::NewIterator(const FileMetaData& file, bool fill_cache,
                               std::unique_ptr<InternalIterator>* iter, BlockFetch* const* fetch) {
  std::shared_ptr<Table> table;
  Status s = FindTable(file, &table);
  if (!s.ok()) return s;
  auto inner = table->NewIterator(fill_cache, fetch);
  *iter = std::make_unique<PinnedIterator>(std::move(table), std::move(inner));
  return Status::OK();
}

Status TableCache::Get(const FileMetaData& file, std::string_view lookup_key, bool fill_cache,
                       EntryVisitor visitor, BlockFetch* fetch) {
  std::shared_ptr<Table> table;
  Status s = FindTable(file, &table);
  if (!s.ok()) return s;
  return table->Get(lookup_key, fill_cache, visitor, fetch);
}

Status TableCache::Warm(const FileMetaData& file) {
  std::shared_ptr<Table> table;
  return FindTable(file, &table);
}

TableCache::Usage TableCache::GetUsage() const {
  std::lock_guard lock(mu_);
  return usage_;
}

Status TableCache::ApproximateShare(const FileMetaData& file, std::string_view lower,
                                    std::string_view upper, double* share) {
  std::shared_ptr<Table> table;
  Status s = FindTable(file, &table);
  if (!s.ok()) return s;
  const uint64_t end = table->DataSize();
  const uint64_t from = table->ApproximateOffsetOf(LookupKey(lower, kMaxSequence));
  const uint64_t to =
      upper.empty() ? end : table->ApproximateOffsetOf(LookupKey(upper, kMaxSequence));
  *share = end == 0 || to <= from ? 0.0 : static_cast<double>(to - from) / static_cast<double>(end);
  return Status::OK();
}

void TableCache::Evict(uint64_t number) {
  if (block_cache_ != nullptr) block_cache_->EraseFile(number);
  std::lock_guard lock(mu_);
  auto it = tables_.find(number);
  if (it == tables_.end()) return;
  Count(*it->second.table, false, &usage_);
  lru_.erase(it->second.lru_pos);
  tables_.erase(it);
}

}  // namespace ebb::storage
