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

storage::CompactionFilter::Decision TypesCompactionFilter::Filter(std::string_view user_key,
                                                                  const storage::RowMeta& meta,
                                                                  std::string_view value,
                                                                  int64_t now_ms,
                                                                  std::string* new_value) const {
  SubRowKeyParts parts;
  if (!ParseSubRowKey(user_key, &parts)) return Decision::kKeep;

  std::shared_lock lock(mu_);
  if (db_ == nullptr) return Decision::kKeep;
  storage::Row row;
  storage::Status s = db_->Get(storage::ReadOptions(), MetaKey(parts.db, parts.user_key), &row);
  if (s.IsNotFound()) return Decision::kDrop;
  if (!s.ok()) return Decision::kKeep;  // an I/O error must never destroy data

  KeyMetaRow key_meta;
  std::string_view payload;
  if (!DecodeMetaValue(row.value, &key_meta.type, &payload)) return Decision::kKeep;
  if (!IsCollectionType(key_meta.type)) return Decision::kDrop;
  uint64_t version = 0;
  if (!DecodeCollectionVersion(payload, &version)) return Decision::kKeep;
  if (version != parts.version) return Decision::kDrop;

  auto hook = hooks_.find(key_meta.type);
  if (hook == hooks_.end()) return Decision::kKeep;
  key_meta.payload.assign(payload);
  key_meta.meta = row.meta;
  return hook->second(key_meta, parts, meta, value, now_ms, new_value);
}

}  // namespace ebb::types
