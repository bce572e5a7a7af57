// BenchEngine over ebb's engine (storage::DB). See engine_adapters.h.
#include <cstdio>
#include <cstdlib>

#include "bench/engine_adapters.h"
#include "storage/db.h"

namespace ebb::bench {
namespace {

void Check(const storage::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "ebb %s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

class EbbCursor final : public BenchCursor {
 public:
  explicit EbbCursor(std::unique_ptr<storage::Iterator> it) : it_(std::move(it)) {}
  bool Seek(std::string_view target, uint64_t* bytes) override {
    it_->Seek(target);
    if (!it_->Valid()) {
      Check(it_->status(), "seek");
      return false;
    }
    *bytes += it_->key().size() + it_->value().size();
    return true;
  }

 private:
  std::unique_ptr<storage::Iterator> it_;
};

class EbbEngine final : public BenchEngine {
 public:
  explicit EbbEngine(std::unique_ptr<storage::DB> db) : db_(std::move(db)) {}
  const char* name() const override { return "ebb"; }

  void Put(std::string_view key, std::string_view value, int64_t ttl_ms) override {
    storage::WriteOptions wo;
    if (ttl_ms > 0) wo.ttl_ms = ttl_ms;
    Check(db_->Put(wo, key, value), "put");
  }

  bool Get(std::string_view key, std::string* value) override {
    storage::Row row;
    const storage::Status s = db_->Get(storage::ReadOptions(), key, &row);
    if (s.IsNotFound()) return false;
    Check(s, "get");
    *value = std::move(row.value);
    return true;
  }

  uint64_t ScanAll() override {
    uint64_t n = 0, bytes = 0;
    auto it = db_->NewIterator(storage::ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      bytes += it->key().size() + it->value().size();
      n++;
    }
    Check(it->status(), "scan");
    bytes_read_ += bytes;
    return n;
  }

  std::unique_ptr<BenchCursor> NewCursor() override {
    return std::make_unique<EbbCursor>(db_->NewIterator(storage::ReadOptions()));
  }

  void Flush() override { Check(db_->FlushMemtable(), "flush"); }
  void CompactAll() override { Check(db_->CompactAll(), "compact"); }

  uint64_t LiveTableBytes() override {
    uint64_t bytes = 0;
    for (const storage::LevelStats& level : db_->GetStats().levels) bytes += level.bytes;
    return bytes;
  }

  Reclaimed ReclaimedSoFar() override {
    const storage::Stats s = db_->GetStats();
    return {s.bytes_expired_whole, s.files_expired_whole, s.compaction_bytes_read,
            s.compaction_bytes_written};
  }

 private:
  std::unique_ptr<storage::DB> db_;
  uint64_t bytes_read_ = 0;  // keeps the scan's reads observable
};

}  // namespace

std::unique_ptr<BenchEngine> OpenEbb(const BenchSettings& settings, const std::string& dir) {
  storage::Options o;
  o.clock = settings.clock;  // nullptr: the engine's SystemClock
  o.memtable_size = settings.memtable_size;
  o.block_size = settings.block_size;
  o.block_cache_size = settings.block_cache_size;
  o.bloom_bits_per_key = settings.bloom_bits_per_key;
  o.compression = storage::Compression::kNone;
  o.wal_fsync = storage::WalFsync::kNo;
  o.purge_deadline_ms = settings.purge_deadline_ms;
  std::unique_ptr<storage::DB> db;
  Check(storage::DB::Open(o, dir, &db), "open");
  return std::make_unique<EbbEngine>(std::move(db));
}

}  // namespace ebb::bench
