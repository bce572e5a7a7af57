// BenchEngine over RocksDB, configured like ebb's engine. See engine_adapters.h.
//
// Expiry (only when BenchSettings::clock is set): every value is stored as an 8-byte
// little-endian expire_at (0 = never) followed by the value; ExpiryFilter drops rows whose
// expire_at <= clock now during compaction, and Get hides them.
#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench/engine_adapters.h"

namespace ebb::bench {
namespace {

constexpr size_t kExpiryBytes = 8;

void Check(const rocksdb::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "rocksdb %s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

int64_t DecodeExpiry(const char* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < kExpiryBytes; i++) v |= static_cast<uint64_t>(uint8_t(p[i])) << (8 * i);
  return static_cast<int64_t>(v);
}

void EncodeExpiry(int64_t expire_at, char* p) {
  const auto v = static_cast<uint64_t>(expire_at);
  for (size_t i = 0; i < kExpiryBytes; i++) p[i] = static_cast<char>(v >> (8 * i));
}

bool Expired(const rocksdb::Slice& stored, int64_t now_ms) {
  if (stored.size() < kExpiryBytes) return false;
  const int64_t expire_at = DecodeExpiry(stored.data());
  return expire_at != 0 && expire_at <= now_ms;
}

class ExpiryFilter final : public rocksdb::CompactionFilter {
 public:
  explicit ExpiryFilter(std::shared_ptr<storage::ManualClock> clock) : clock_(std::move(clock)) {}
  bool Filter(int /*level*/, const rocksdb::Slice& /*key*/, const rocksdb::Slice& existing_value,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    return Expired(existing_value, clock_->NowMs());
  }
  const char* Name() const override { return "ebb.bench.ExpiryFilter"; }

 private:
  std::shared_ptr<storage::ManualClock> clock_;
};

class RocksCursor final : public BenchCursor {
 public:
  explicit RocksCursor(rocksdb::Iterator* it) : it_(it) {}
  bool Seek(std::string_view target, uint64_t* bytes) override {
    it_->Seek(rocksdb::Slice(target.data(), target.size()));
    if (!it_->Valid()) {
      Check(it_->status(), "seek");
      return false;
    }
    *bytes += it_->key().size() + it_->value().size();
    return true;
  }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksEngine final : public BenchEngine {
 public:
  RocksEngine(const BenchSettings& settings, const std::string& dir) : clock_(settings.clock) {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.write_buffer_size = settings.memtable_size;
    o.compression = rocksdb::kNoCompression;
    o.manual_wal_flush = settings.rocksdb_manual_wal_flush;
    rocksdb::BlockBasedTableOptions t;
    t.block_size = settings.block_size;
    t.block_cache = rocksdb::NewLRUCache(settings.block_cache_size);
    t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(settings.bloom_bits_per_key));
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    if (clock_) {
      filter_ = std::make_unique<ExpiryFilter>(clock_);
      o.compaction_filter = filter_.get();
    }
    rocksdb::DB* raw = nullptr;
    Check(rocksdb::DB::Open(o, dir, &raw), "open");
    db_.reset(raw);
    write_options_.sync = false;  // WAL on, no fsync per write (as ebb's WalFsync::kNo)
  }
  ~RocksEngine() override {
    if (db_) Check(db_->Close(), "close");
  }

  const char* name() const override { return "RocksDB"; }

  void Put(std::string_view key, std::string_view value, int64_t ttl_ms) override {
    const rocksdb::Slice k(key.data(), key.size());
    if (!clock_) {
      Check(db_->Put(write_options_, k, rocksdb::Slice(value.data(), value.size())), "put");
      return;
    }
    buf_.resize(kExpiryBytes + value.size());
    EncodeExpiry(ttl_ms > 0 ? clock_->NowMs() + ttl_ms : 0, buf_.data());
    std::memcpy(buf_.data() + kExpiryBytes, value.data(), value.size());
    Check(db_->Put(write_options_, k, buf_), "put");
  }

  bool Get(std::string_view key, std::string* value) override {
    const rocksdb::Status s =
        db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), value);
    if (s.IsNotFound()) return false;
    Check(s, "get");
    if (!clock_) return true;
    if (Expired(*value, clock_->NowMs())) return false;
    value->erase(0, kExpiryBytes);
    return true;
  }

  uint64_t ScanAll() override {
    uint64_t n = 0, bytes = 0;
    const int64_t now = clock_ ? clock_->NowMs() : 0;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (clock_ && Expired(it->value(), now)) continue;
      bytes += it->key().size() + it->value().size();
      n++;
    }
    Check(it->status(), "scan");
    bytes_read_ += bytes;
    return n;
  }

  std::unique_ptr<BenchCursor> NewCursor() override {
    return std::make_unique<RocksCursor>(db_->NewIterator(rocksdb::ReadOptions()));
  }

  void Flush() override { Check(db_->Flush(rocksdb::FlushOptions()), "flush"); }

  void CompactAll() override {
    Flush();
    rocksdb::CompactRangeOptions c;
    c.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    Check(db_->CompactRange(c, nullptr, nullptr), "compact");
  }

  uint64_t LiveTableBytes() override {
    uint64_t bytes = 0;
    if (!db_->GetIntProperty(rocksdb::DB::Properties::kLiveSstFilesSize, &bytes)) {
      std::fprintf(stderr, "rocksdb: no %s\n", rocksdb::DB::Properties::kLiveSstFilesSize.c_str());
      std::exit(1);
    }
    return bytes;
  }

 private:
  std::shared_ptr<storage::ManualClock> clock_;
  std::unique_ptr<ExpiryFilter> filter_;  // must outlive db_ (declared first, destroyed last)
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::WriteOptions write_options_;
  std::string buf_;
  uint64_t bytes_read_ = 0;  // keeps the scan's reads observable
};

}  // namespace

std::unique_ptr<BenchEngine> OpenRocksDb(const BenchSettings& settings, const std::string& dir) {
  return std::make_unique<RocksEngine>(settings, dir);
}

std::string RocksDbVersion() {
  return std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
         std::to_string(ROCKSDB_PATCH);
}

}  // namespace ebb::bench
