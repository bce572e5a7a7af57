#include "types/compaction_filter.h"

#include <limits>
#include <mutex>

#include "types/or_string.h"
#include "types/or_string_ext.h"
#include "types/string_rank.h"
#include "types/tlog_codec.h"

namespace ebb::types {

namespace {
constexpr std::string_view kPurgeMarkerName = "purge-marker:";

// How the filter reads a row it judges others by: through the compaction's view (nullptr: the
// latest state) at full retrieval grace, so an expired row still counts as held.
storage::ReadOptions ViewRead(const storage::Snapshot* view) {
  storage::ReadOptions options;
  options.snapshot = view;
  options.retrieval_grace_ms = std::numeric_limits<int64_t>::max();
  return options;
}
}  // namespace

std::string PurgeMarkerKey(std::string_view prefix, int64_t expire_at_ms) {
  std::string name(kPurgeMarkerName);
  PutFixed64BE(&name, static_cast<uint64_t>(expire_at_ms));
  name.append(prefix);
  return SystemKey(name);
}

bool ParsePurgeMarkerKey(std::string_view engine_key, std::string_view* prefix) {
  const size_t head = 1 + kPurgeMarkerName.size() + 8;
  if (engine_key.size() <= head || engine_key[0] != static_cast<char>(KeyTag::kSystem) ||
      engine_key.substr(1, kPurgeMarkerName.size()) != kPurgeMarkerName) {
    return false;
  }
  *prefix = engine_key.substr(head);
  // A sub-row prefix (its range is bounded and holds no other kind of row), or a system-row
  // prefix that names more than the tag and no purge marker (rows kept beside a key's sub-rows,
  // as active-active's merge state of a series' samples).
  const char tag = (*prefix)[0];
  if (tag == static_cast<char>(KeyTag::kSystem)) {
    const std::string_view name = prefix->substr(1);
    return !name.empty() && !name.starts_with(kPurgeMarkerName) &&
           !kPurgeMarkerName.starts_with(name);
  }
  return tag == static_cast<char>(KeyTag::kSubRow) || tag == static_cast<char>(KeyTag::kSlotSubRow);
}

void TypesCompactionFilter::SetDb(storage::DB* db, KeyLayout layout) {
  std::unique_lock lock(mu_);
  db_ = db;
  layout_ = layout;
}

void TypesCompactionFilter::RegisterSystemRowHook(std::string prefix, SystemRowHook hook) {
  std::unique_lock lock(mu_);
  if (hook) {
    system_hooks_[std::move(prefix)] = std::move(hook);
  } else {
    system_hooks_.erase(prefix);
  }
}

void TypesCompactionFilter::RegisterDependentRowHook(std::string prefix, DependentRowHook hook) {
  std::unique_lock lock(mu_);
  if (hook) {
    dependent_hooks_[std::move(prefix)] = std::move(hook);
  } else {
    dependent_hooks_.erase(prefix);
  }
}

void TypesCompactionFilter::SetStringDependents(StringDependentsHook hook) {
  std::unique_lock lock(mu_);
  string_dependents_ = std::move(hook);
}

void TypesCompactionFilter::SetTtlPolicy(std::shared_ptr<const TtlPolicy> policy) {
  std::unique_lock lock(mu_);
  policy_ = std::move(policy);
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
// all of them. It reads through the compaction's durable view.
class TypesCompactionFilter::Run final : public storage::CompactionFilter {
 public:
  Run(const TypesCompactionFilter& parent, const storage::Snapshot* view)
      : parent_(parent), view_(view) {}

  Decision Filter(std::string_view user_key, const storage::RowMeta& meta, std::string_view value,
                  int64_t now_ms, std::string* new_value) const override {
    SubRowKeyParts parts;
    if (!ParseSubRowKey(user_key, &parts)) {
      return parent_.DecideSystemRow(user_key, value, now_ms, new_value, view_);
    }
    if (!has_verdict_ || parts.layout != layout_ || parts.db != db_ || parts.user_key != key_) {
      verdict_ = parent_.ReadVerdict(parts.layout, parts.db, parts.user_key, view_);
      has_verdict_ = true;
      layout_ = parts.layout;
      db_ = parts.db;
      key_.assign(parts.user_key);
    }
    return parent_.Decide(verdict_, parts, meta, value, now_ms, new_value);
  }
  bool KeepsNewestDead(std::string_view user_key) const override {
    return parent_.KeepsNewestDead(user_key);
  }
  bool KeepsDeadVersions() const override { return parent_.KeepsDeadVersions(); }
  bool CollectsNewestDead(std::string_view user_key, const storage::RowMeta& meta,
                          std::string_view value, bool newer_may_rank_below) const override {
    return parent_.CollectsNewestDead(user_key, meta, value, newer_may_rank_below);
  }
  void ExpiredRowRanges(std::string_view user_key, std::string_view value,
                        std::vector<storage::KeyRange>* ranges) const override {
    parent_.ExpiredRowRangesIn(user_key, value, view_, ranges);
  }
  void ReducedDeadValue(std::string_view user_key, const storage::RowMeta& meta,
                        std::string_view value, std::string* reduced) const override {
    parent_.ReducedDeadValue(user_key, meta, value, reduced);
  }
  const char* Name() const override { return parent_.Name(); }

 private:
  const TypesCompactionFilter& parent_;
  const storage::Snapshot* const view_;
  // The last key read and its verdict (Filter is const by the interface; a run has one caller).
  mutable bool has_verdict_ = false;
  mutable KeyLayout layout_ = KeyLayout::kByDatabase;
  mutable int db_ = 0;
  mutable std::string key_;
  mutable KeyVerdict verdict_;
};

namespace {

// A string key's version held in a row of its own: its metadata row, or a sibling's system row
// (types/or_string_ext.h).
bool HoldsStringVersion(std::string_view user_key) {
  int db = 0;
  std::string_view key;
  return ParseMetaKey(user_key, &db, &key) ||
         (!user_key.empty() && user_key[0] == static_cast<char>(KeyTag::kSystem) &&
          user_key.substr(1).starts_with(kSiblingRowPrefix));
}

}  // namespace

bool TypesCompactionFilter::KeepsNewestDead(std::string_view user_key) const {
  return keep_newest_dead_.load() && HoldsStringVersion(user_key);
}

bool TypesCompactionFilter::DecodeOrMetaRow(std::string_view user_key, std::string_view value,
                                            OrStringExt* ext, std::string_view* inner) const {
  int db = 0;
  std::string_view key;
  return keep_newest_dead_.load() && ParseMetaKey(user_key, &db, &key) &&
         DecodeOrStringRow(value, ext, inner);
}

bool TypesCompactionFilter::CollectionVectorCovers(const OrContext& removed) const {
  std::shared_lock lock(mu_);
  return or_applied_ != nullptr &&
         OrRemovedCovered({.slots = {}, .removed = removed}, *or_applied_);
}

bool TypesCompactionFilter::CollectsNewestDead(std::string_view user_key,
                                               const storage::RowMeta& meta, std::string_view value,
                                               bool newer_may_rank_below) const {
  // Newer data does not matter: no write puts a version of a key below its newest without a wipe
  // first (the header).
  (void)meta, (void)newer_may_rank_below;
  OrStringExt ext;
  std::string_view inner;
  return DecodeOrMetaRow(user_key, value, &ext, &inner) && !ext.dot &&
         CollectionVectorCovers(ext.removed);
}

void TypesCompactionFilter::SetOrCollectionVector(std::shared_ptr<const OrContext> applied) {
  std::unique_lock lock(mu_);
  or_applied_ = std::move(applied);
}

void TypesCompactionFilter::ReducedDeadValue(std::string_view user_key,
                                             const storage::RowMeta& meta, std::string_view value,
                                             std::string* reduced) const {
  reduced->clear();
  KeyType type;
  std::string_view payload;
  if (!keep_newest_dead_.load() || !HoldsStringVersion(user_key) ||
      !DecodeMetaValue(value, &type, &payload) || type != KeyType::kString) {
    return;
  }
  // An observed-remove row keeps its extension in front of the rank (types/or_string_ext.h).
  const std::string_view inner = OrInnerRow(value);
  reduced->assign(value.substr(0, value.size() - inner.size()));
  reduced->append(EncodeReducedString(
      StringDigest(payload), meta.expire_at_ms.value_or(std::numeric_limits<int64_t>::max())));
}

std::unique_ptr<storage::CompactionFilter> TypesCompactionFilter::StartCompaction(
    const storage::Snapshot* durable_view) const {
  return std::make_unique<Run>(*this, durable_view);
}

TypesCompactionFilter::KeyVerdict TypesCompactionFilter::ReadVerdict(
    KeyLayout layout, int db, std::string_view key, const storage::Snapshot* view) const {
  KeyVerdict verdict;  // kKeepAll
  std::shared_lock lock(mu_);
  if (db_ == nullptr) return verdict;
  storage::Row row;
  storage::Status s = db_->Get(ViewRead(view), MetaKey(layout, db, key), &row);
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

storage::CompactionFilter::Decision TypesCompactionFilter::DecideMetaRow(
    std::string_view user_key, std::string_view value, std::string* new_value) const {
  OrStringExt ext;
  std::string_view inner;
  if (!DecodeOrMetaRow(user_key, value, &ext, &inner) || !ext.dot || ext.removed.empty() ||
      !CollectionVectorCovers(ext.removed)) {
    return Decision::kKeep;
  }
  ext.removed = OrContext();
  EncodeOrStringRow(ext, inner, new_value);
  return Decision::kChangeValue;
}

storage::CompactionFilter::Decision TypesCompactionFilter::DecideSystemRow(
    std::string_view user_key, std::string_view value, int64_t now_ms, std::string* new_value,
    const storage::Snapshot* view) const {
  if (user_key.empty() || user_key[0] != static_cast<char>(KeyTag::kSystem)) {
    return DecideMetaRow(user_key, value, new_value);
  }
  const std::string_view name = user_key.substr(1);
  std::shared_lock lock(mu_);
  for (const auto& [prefix, hook] : system_hooks_) {
    if (name.starts_with(prefix)) return hook(name, value, now_ms, new_value);
  }
  if (db_ == nullptr) return Decision::kKeep;
  for (const auto& [prefix, hook] : dependent_hooks_) {
    if (!name.starts_with(prefix)) continue;
    storage::DB* const db = db_;
    const KeyLayout layout = layout_;
    return hook(
        name,
        [db, view, layout](int key_db, std::string_view key, storage::Row* row) {
          return db->Get(ViewRead(view), MetaKey(layout, key_db, key), row);
        },
        now_ms);
  }
  return Decision::kKeep;
}

storage::CompactionFilter::Decision TypesCompactionFilter::Filter(std::string_view user_key,
                                                                  const storage::RowMeta& meta,
                                                                  std::string_view value,
                                                                  int64_t now_ms,
                                                                  std::string* new_value) const {
  SubRowKeyParts parts;
  if (!ParseSubRowKey(user_key, &parts)) {
    return DecideSystemRow(user_key, value, now_ms, new_value, nullptr);
  }
  return Decide(ReadVerdict(parts.layout, parts.db, parts.user_key, nullptr), parts, meta, value,
                now_ms, new_value);
}

namespace {

// The user key an engine key belongs to: a metadata row's, or a sub-row's owner.
bool UserKeyOf(std::string_view engine_key, std::string_view* user_key) {
  int db;
  if (ParseMetaKey(engine_key, &db, user_key)) return true;
  SubRowKeyParts parts;
  if (!ParseSubRowKey(engine_key, &parts)) return false;
  *user_key = parts.user_key;
  return true;
}

// The entries of the TLOG whose metadata row is (engine_key, value), when their life ends with
// the key's: a log without a retention window, holding entries. False otherwise.
bool OwnedEntries(std::string_view engine_key, std::string_view value, storage::KeyRange* range) {
  int db;
  std::string_view user_key;
  KeyLayout layout;
  KeyType type;
  std::string_view payload;
  TlogMeta tlog;
  if (!ParseMetaKey(engine_key, &db, &user_key, &layout) ||
      !DecodeMetaValue(value, &type, &payload) || type != KeyType::kTlog ||
      !DecodeTlogMeta(payload, &tlog) || tlog.window_ms > 0 || tlog.size == 0) {
    return false;
  }
  range->begin = SubRowPrefix(layout, db, user_key, tlog.version);
  range->end = PrefixUpperBound(range->begin);
  return true;
}

}  // namespace

storage::ExpiryMode TypesCompactionFilter::ExpiryModeOf(std::string_view user_key) const {
  std::shared_ptr<const TtlPolicy> policy;
  {
    std::shared_lock lock(mu_);
    policy = policy_;
  }
  std::string_view key;
  if (policy == nullptr || !policy->has_modes() || !UserKeyOf(user_key, &key)) {
    return storage::ExpiryMode::kDefault;
  }
  return policy->ModeFor(key);
}

bool TypesCompactionFilter::OwnsRanges(std::string_view user_key, std::string_view value,
                                       const storage::RowMeta& meta) const {
  storage::KeyRange range;
  std::string_view prefix;
  return meta.expire_at_ms.has_value() &&
         (OwnedEntries(user_key, value, &range) || ParsePurgeMarkerKey(user_key, &prefix));
}

void TypesCompactionFilter::ExpiredRowRanges(std::string_view user_key, std::string_view value,
                                             std::vector<storage::KeyRange>* ranges) const {
  ExpiredRowRangesIn(user_key, value, nullptr, ranges);
}

void TypesCompactionFilter::ExpiredRowRangesIn(std::string_view user_key, std::string_view value,
                                               const storage::Snapshot* view,
                                               std::vector<storage::KeyRange>* ranges) const {
  storage::KeyRange range;
  if (OwnedEntries(user_key, value, &range)) ranges->push_back(std::move(range));
  std::string_view prefix;
  if (ParsePurgeMarkerKey(user_key, &prefix)) {
    ranges->push_back(storage::KeyRange{std::string(prefix), PrefixUpperBound(prefix)});
    return;
  }
  int db = 0;
  std::string_view key;
  KeyType type;
  std::string_view payload;
  if (!ParseMetaKey(user_key, &db, &key) || !DecodeMetaValue(value, &type, &payload) ||
      type != KeyType::kString) {
    return;
  }
  std::shared_lock lock(mu_);
  if (!string_dependents_ || db_ == nullptr) return;
  std::vector<std::string> rows;
  string_dependents_(db, key, &rows);
  const storage::ReadOptions options = ViewRead(view);
  for (std::string& row : rows) {
    storage::Row held;
    if (!db_->Get(options, row, &held).ok()) continue;  // absent (or unreadable: no hint)
    std::string end = row + '\0';                       // the row alone
    ranges->push_back(storage::KeyRange{std::move(row), std::move(end)});
  }
}

}  // namespace ebb::types
