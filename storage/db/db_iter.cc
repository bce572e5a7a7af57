#include "storage/db/db_iter.h"

#include "storage/format/internal_key.h"

namespace ebb::storage {
namespace {

class DBIter final : public Iterator {
 public:
  DBIter(std::unique_ptr<InternalIterator> internal, DBIterParams params)
      : iter_(std::move(internal)), params_(std::move(params)) {}

  ~DBIter() override {
    iter_.reset();  // before the pins it may point into
  }

  bool Valid() const override { return valid_; }

  void SeekToFirst() override {
    if (params_.lower_bound) {
      Seek(*params_.lower_bound);
      return;
    }
    iter_->SeekToFirst();
    FindNextUserEntry(nullptr);
  }

  void SeekToLast() override {
    FindPrevUserEntry(params_.upper_bound ? &*params_.upper_bound : nullptr);
  }

  void Seek(std::string_view target) override {
    if (params_.lower_bound && CompareUserKeys(target, *params_.lower_bound) < 0) {
      target = *params_.lower_bound;
    }
    iter_->Seek(LookupKey(target, params_.sequence));
    FindNextUserEntry(nullptr);
  }

  void SeekForPrev(std::string_view target) override {
    std::string before(target);
    before.push_back('\0');  // the smallest key after target
    if (params_.upper_bound && CompareUserKeys(*params_.upper_bound, before) < 0) {
      before = *params_.upper_bound;
    }
    FindPrevUserEntry(&before);
  }

  void Next() override {
    const std::string skip = key_;
    iter_->Next();
    FindNextUserEntry(&skip);
  }

  void Prev() override {
    const std::string before = key_;
    FindPrevUserEntry(&before);
  }

  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  RowMeta meta() const override { return meta_; }
  Status status() const override { return status_.ok() ? iter_->status() : status_; }

 private:
  bool IsDead(RowKind kind, const RowMeta& meta) const {
    return kind == RowKind::kTombstone ||
           (params_.expiration_enabled && meta.ExpiredAt(params_.now_ms));
  }

  // Parses the internal entry; false (and invalid, with status) on damage.
  bool ParseCurrent(ParsedInternalKey* ikey, RowMeta* meta, std::string_view* value) {
    if (!ParseInternalKey(iter_->key(), ikey) || !DecodeRow(iter_->value(), meta, value)) {
      status_ = Status::Corruption("iterator: malformed internal entry");
      return false;
    }
    return true;
  }

  void Save(std::string_view user_key, const RowMeta& meta, std::string_view value) {
    key_.assign(user_key.data(), user_key.size());
    value_.assign(value.data(), value.size());
    meta_ = meta;
    valid_ = true;
  }

  // From the current internal position forward: the first user key (other than *skip) whose
  // newest visible version is live.
  void FindNextUserEntry(const std::string* skip_key) {
    valid_ = false;
    std::string skip;
    bool skipping = skip_key != nullptr;
    if (skipping) skip = *skip_key;
    for (; iter_->Valid(); iter_->Next()) {
      ParsedInternalKey ikey;
      RowMeta meta;
      std::string_view value;
      if (!ParseCurrent(&ikey, &meta, &value)) return;
      if (ikey.sequence > params_.sequence) continue;
      if (skipping && CompareUserKeys(ikey.user_key, skip) == 0) continue;
      if (params_.upper_bound && CompareUserKeys(ikey.user_key, *params_.upper_bound) >= 0) return;
      if (IsDead(ikey.kind, meta)) {
        skip.assign(ikey.user_key.data(), ikey.user_key.size());
        skipping = true;
        continue;
      }
      Save(ikey.user_key, meta, value);
      return;
    }
  }

  // The last user key < *before (or the last key at all) whose newest visible version is live;
  // leaves the internal iterator on that version.
  void FindPrevUserEntry(const std::string* before) {
    valid_ = false;
    std::string target;
    bool bounded = before != nullptr;
    if (bounded) target = *before;
    for (;;) {
      if (bounded) {
        iter_->Seek(LookupKey(target, kMaxSequence));
        if (iter_->Valid()) {
          iter_->Prev();
        } else {
          iter_->SeekToLast();
        }
      } else {
        iter_->SeekToLast();
      }
      if (!iter_->Valid()) return;
      const std::string user_key(ExtractUserKey(iter_->key()));
      if (params_.lower_bound && CompareUserKeys(user_key, *params_.lower_bound) < 0) return;
      target = user_key;
      bounded = true;
      iter_->Seek(LookupKey(user_key, params_.sequence));
      if (!iter_->Valid()) {
        if (!iter_->status().ok()) return;
        continue;
      }
      ParsedInternalKey ikey;
      RowMeta meta;
      std::string_view value;
      if (!ParseCurrent(&ikey, &meta, &value)) return;
      if (CompareUserKeys(ikey.user_key, user_key) != 0) continue;  // nothing visible
      if (IsDead(ikey.kind, meta)) continue;
      Save(ikey.user_key, meta, value);
      return;
    }
  }

  std::unique_ptr<InternalIterator> iter_;
  DBIterParams params_;
  Status status_;
  bool valid_ = false;
  std::string key_;
  std::string value_;
  RowMeta meta_;
};

}  // namespace

std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<InternalIterator> internal,
                                        DBIterParams params) {
  return std::make_unique<DBIter>(std::move(internal), std::move(params));
}

}  // namespace ebb::storage
