#include "types/compaction_filter.h"

#include <mutex>

namespace ebb::types {

void TypesCompactionFilter::SetDb(storage::DB* db) {
  std::unique_lock lock(mu_);
  db_ = db;
}

void TypesCompactionFilter::RegisterSubRowHook(KeyType type, SubRowHook hook) {
  std::unique_lock lock(mu_);
  if (hook) {
    hooks_[type] = std::move(hook);
  } else {
    hooks_.erase(type);
  }
}

// One compaction's filter: sub-rows of one key arrive together, so it keeps the verdict of the
// last key it read. Safe for the whole compaction by the doc's staleness argument: every input
// row was written before the compaction started, so a metadata row read since then is right for
// all of them.
class TypesCompactionFilter::Run final : public storage::CompactionFilter {
 public:
  explicit Run(const TypesCompactionFilter& parent) : parent_(parent) {}

  Decision Filter(std::string_view user_key, const storage::RowMeta& meta, std::string_view value,
                  int64_t now_ms, std::string* new_value) const override {
    SubRowKeyParts parts;
    if (!ParseSubRowKey(user_key, &parts)) return Decision::kKeep;
    if (!has_verdict_ || parts.db != db_ || parts.user_key != key_) {
      verdict_ = parent_.ReadVerdict(parts.db, parts.user_key);
      has_verdict_ = true;
      db_ = parts.db;
      key_.assign(parts.user_key);
    }
    return parent_.Decide(verdict_, parts, meta, value, now_ms, new_value);
  }
  const char* Name() const override { return parent_.Name(); }

 private:
  const TypesCompactionFilter& parent_;
  // The last key read and its verdict (Filter is const by the interface; a run has one caller).
  mutable bool has_verdict_ = false;
  mutable int db_ = 0;
  mutable std::string key_;
  mutable KeyVerdict verdict_;
};

std::unique_ptr<storage::CompactionFilter> TypesCompactionFilter::StartCompaction() const {
  return std::make_unique<Run>(*this);
}

TypesCompactionFilter::KeyVerdict TypesCompactionFilter::ReadVerdict(int db,
                                                                     std::string_view key) const {
  KeyVerdict verdict;  // kKeepAll
  std::shared_lock lock(mu_);
  if (db_ == nullptr) return verdict;
  storage::Row row;
  storage::Status s = db_->Get(storage::ReadOptions(), MetaKey(db, key), &row);
  if (s.IsNotFound()) {
    verdict.kind = KeyVerdict::Kind::kDropAll;
    return verdict;
  }
  if (!s.ok()) return verdict;  // an I/O error must never destroy data
  std::string_view payload;
  if (!DecodeMetaValue(row.value, &verdict.meta.type, &payload)) return verdict;
  if (!IsCollectionType(verdict.meta.type)) {
    verdict.kind = KeyVerdict::Kind::kDropAll;
    return verdict;
  }
  if (!DecodeCollectionVersion(payload, &verdict.version)) return verdict;
  verdict.kind = KeyVerdict::Kind::kAskHook;
  verdict.meta.payload.assign(payload);
  verdict.meta.meta = row.meta;
  return verdict;
}

storage::CompactionFilter::Decision TypesCompactionFilter::Decide(
    const KeyVerdict& verdict, const SubRowKeyParts& parts, const storage::RowMeta& meta,
    std::string_view value, int64_t now_ms, std::string* new_value) const {
  switch (verdict.kind) {
    case KeyVerdict::Kind::kKeepAll:
      return Decision::kKeep;
    case KeyVerdict::Kind::kDropAll:
      return Decision::kDrop;
    case KeyVerdict::Kind::kAskHook:
      break;
  }
  if (verdict.version != parts.version) return Decision::kDrop;
  std::shared_lock lock(mu_);
  auto hook = hooks_.find(verdict.meta.type);
  if (hook == hooks_.end()) return Decision::kKeep;
  return hook->second(verdict.meta, parts, meta, value, now_ms, new_value);
}

storage::CompactionFilter::Decision TypesCompactionFilter::Filter(std::string_view user_key,
                                                                  const storage::RowMeta& meta,
                                                                  std::string_view value,
                                                                  int64_t now_ms,
                                                                  std::string* new_value) const {
  SubRowKeyParts parts;
  if (!ParseSubRowKey(user_key, &parts)) return Decision::kKeep;
  return Decide(ReadVerdict(parts.db, parts.user_key), parts, meta, value, now_ms, new_value);
}

}  // namespace ebb::types
