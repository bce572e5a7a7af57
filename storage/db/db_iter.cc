#include "storage/db/db_iter.h"

#include "storage/db/version_chooser.h"
#include "storage/format/internal_key.h"

namespace ebb::storage {
namespace {

class DBIter final : public Iterator {
 public:
  DBIter(std::unique_ptr<DBIterTree> tree, DBIterParams params, DBIterTreeRecycler* recycler)
      : tree_(std::move(tree)),
        iter_(tree_->internal.get()),
        params_(params),
        recycler_(recycler),
        key_(tree_->key),
        value_(tree_->value),
        skip_(tree_->skip),
        lookup_(tree_->lookup),
        lower_bound_(tree_->lower_bound),
        upper_bound_(tree_->upper_bound) {}

  ~DBIter() override {
    if (recycler_ != nullptr) recycler_->Recycle(std::move(tree_));
  }

  bool Valid() const override { return valid_; }

  void SeekToFirst() override {
    if (lower_bound_) {
      Seek(*lower_bound_);
      return;
    }
    iter_->SeekToFirst();
    FindNextUserEntry(false);
  }

  void SeekToLast() override { FindPrevUserEntry(upper_bound_ ? &*upper_bound_ : nullptr); }

  void Seek(std::string_view target) override {
    if (lower_bound_ && CompareUserKeys(target, *lower_bound_) < 0) {
      target = *lower_bound_;
    }
    lookup_.clear();
    AppendLookupKey(&lookup_, target, params_.sequence);
    iter_->Seek(lookup_);
    FindNextUserEntry(false);
  }

  void SeekForPrev(std::string_view target) override {
    std::string before(target);
    before.push_back('\0');  // the smallest key after target
    if (upper_bound_ && CompareUserKeys(*upper_bound_, before) < 0) {
      before = *upper_bound_;
    }
    FindPrevUserEntry(&before);
  }

  void Next() override {
    // The internal iterator is on a version of the shown key or past them: skip the rest.
    skip_.swap(key_);  // key_ keeps a buffer to reuse
    FindNextUserEntry(true);
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
    return kind != RowKind::kValue || meta.ExpiredAt(params_.expiry_now_ms);
  }

  uint64_t Floor(std::string_view user_key) const {
    if (params_.range_deletions == nullptr) return 0;
    uint64_t floor = 0;
    for (const RangeDeletion& d : *params_.range_deletions) {
      if (d.sequence <= params_.sequence && d.sequence > floor && d.range.Contains(user_key)) {
        floor = d.sequence;
      }
    }
    return floor;
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

  // With the internal iterator on the first visible version of `ikey.user_key` (already parsed
  // into ikey/meta/value), applies the read rule to the key's versions. Returns true and shows
  // the key when the version chosen is live. With a grace the walk may move the internal
  // iterator past the key's versions; without one it stays on the first.
  bool Choose(const ParsedInternalKey& ikey, const RowMeta& meta, std::string_view value) {
    const uint64_t floor = Floor(ikey.user_key);
    if (params_.retrieval_grace_ms <= 0) {
      if (ikey.sequence < floor || ikey.kind == RowKind::kWipe) return false;
      if (!params_.include_dead && IsDead(ikey.kind, meta)) return false;
      Save(ikey.user_key, meta, value);
      return true;
    }
    VersionChooser chooser(params_.retrieval_grace_ms, floor);
    key_.assign(ikey.user_key.data(), ikey.user_key.size());
    bool more = chooser.Offer(ikey.kind, meta, value, ikey.sequence);
    while (more) {
      iter_->Next();
      if (!iter_->Valid()) break;
      ParsedInternalKey next;
      RowMeta next_meta;
      std::string_view next_value;
      if (!ParseCurrent(&next, &next_meta, &next_value)) return false;
      if (CompareUserKeys(next.user_key, key_) != 0) break;
      if (next.sequence > params_.sequence) continue;
      more = chooser.Offer(next.kind, next_meta, next_value, next.sequence);
    }
    if (!chooser.has_choice() || chooser.ChosenIsDead(params_.expiry_now_ms)) return false;
    value_ = chooser.TakeValue();
    meta_ = chooser.meta();
    valid_ = true;
    return true;
  }

  // From the current internal position forward: the first user key (other than skip_, when
  // `skipping`) whose chosen version is live.
  void FindNextUserEntry(bool skipping) {
    valid_ = false;
    while (iter_->Valid()) {
      ParsedInternalKey ikey;
      RowMeta meta;
      std::string_view value;
      if (!ParseCurrent(&ikey, &meta, &value)) return;
      if (ikey.sequence > params_.sequence ||
          (skipping && CompareUserKeys(ikey.user_key, skip_) == 0)) {
        iter_->Next();
        continue;
      }
      if (upper_bound_ && CompareUserKeys(ikey.user_key, *upper_bound_) >= 0) return;
      // Copied first: a walk with a grace moves the internal iterator, and ikey with it.
      skip_.assign(ikey.user_key.data(), ikey.user_key.size());
      if (Choose(ikey, meta, value)) return;
      if (!status_.ok()) return;
      skipping = true;
    }
  }

  // The last user key < *before (or the last key at all) whose chosen version is live.
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
      if (lower_bound_ && CompareUserKeys(user_key, *lower_bound_) < 0) return;
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
      if (Choose(ikey, meta, value)) return;
      if (!status_.ok()) return;
    }
  }

  std::unique_ptr<DBIterTree> tree_;
  InternalIterator* const iter_;
  const DBIterParams params_;
  DBIterTreeRecycler* const recycler_;
  // The tree's buffers (they outlive this iterator, keeping their capacity): the shown key and
  // value, the user key being skipped, the internal key a Seek looks up.
  std::string& key_;
  std::string& value_;
  std::string& skip_;
  std::string& lookup_;
  const std::optional<std::string>& lower_bound_;
  const std::optional<std::string>& upper_bound_;
  Status status_;
  bool valid_ = false;
  RowMeta meta_;
};

}  // namespace

std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<DBIterTree> tree, DBIterParams params,
                                        DBIterTreeRecycler* recycler) {
  return std::make_unique<DBIter>(std::move(tree), params, recycler);
}

}  // namespace ebb::storage
