// TypesCompactionFilter: the engine compaction filter that types/ installs (Keyspace::Open).
//
// It drops orphaned sub-rows (docs/key-encoding.md, "Compaction filter"): a sub-row
// 0x02|db|key|version|element is dropped when the metadata row of (db, key) is absent or
// expired, is not a collection type, or names another version. For sub-rows of the current
// incarnation it asks the hook registered for the key's type (e.g. TLOG: entry below the
// cutoff -> drop); with no hook the row is kept. Every other row (system, metadata, rows that do
// not parse) is kept: their expiry is the engine's business.
//
// The filter reads metadata with DB::Get, at full retrieval grace — the version compaction
// keeps when it merges a key's versions, which is the only one that can name a live
// incarnation (types write their metadata with the greatest timestamp of the key, Keyspace) —
// and never from a cache that outlives one compaction (see the doc). Each compaction gets a run
// of it (StartCompaction) that reads through the compaction's durable view, so it acts only on
// metadata the WAL has synced, and reads a key's metadata row once for all of that key's
// sub-rows, which compaction meets one after another. Until SetDb is called with the open DB —
// and after SetDb(nullptr) — it keeps every row.
//
// System rows (0x00|name) are kept too, except that the hook registered for a name prefix
// (RegisterSystemRowHook) may rewrite one: active-active's counter rows reduce a base whose value
// expired — and the hook registered for a prefix by RegisterDependentRowHook may drop one whose
// life hangs on metadata rows, which it reads through the compaction's durable view as sub-rows'
// verdicts are read (the series' label index, types/series_index.h). And when compaction removes an
// expired string version, the hook set by SetStringDependents names the system rows that hold more
// of that value (a counter's base): their range becomes due for a purge compaction at once
// (ExpiredRowRanges), so they meet the same deadline.
//
// In active-active mode it keeps each key's newest dead version (SetKeepNewestDead) but collects
// an observed-remove string key's tombstone that holds no slot once the vector the server hands
// it (SetOrCollectionVector) covers what the tombstone removed (CollectsNewestDead) — also while
// newer data of its range may rank below it: no writer puts a version of a key below the key's
// newest without a wipe before it (an observed-remove write, types/or_string_rows.h's
// StoreOrString; a last-writer-wins string write, which the merge gate takes only at or above
// the newest; another type's write, at Keyspace::TypeWriteTimestamp or above; RENAME, COPY and
// RESTORE, which wipe first), so a newer version with a smaller timestamp is never read through
// the tombstone. A live observed-remove row's removed context goes the same way once the vector
// covers it (DecideMetaRow): the row is rewritten with its slot and without the context.
//
// It also tells the engine which rows it classifies (storage/compaction_filter.h): the expiry
// mode of a key's ttl-rule (SetTtlPolicy), and that a TLOG's metadata row with a whole-key
// expiry owns its entries, so their purge follows the key's expiry.
//
// Purge markers (PurgeMarkerKey): a system row with an expiry that names a key prefix; when
// compaction removes it expired, the prefix's range becomes due for a purge compaction at once
// (ExpiredRowRanges), whose run of this filter then drops what the hooks say is dead. A type
// whose sub-rows die by something other than an expiry of their own (a series' retention,
// types/series_purge.h) writes one, in the write that kills them, to keep the purge deadline;
// its file is never dropped whole (OwnsRanges), so that compaction sees it expire.
// Thread-safety: Filter is called from engine background threads; SetDb and RegisterSubRowHook
// may be called from any thread at any time.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "storage/compaction_filter.h"
#include "storage/db.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/or_context.h"
#include "types/or_string_ext.h"
#include "types/ttl_policy.h"

namespace ebb::types {

// Decides the fate of a sub-row of a live incarnation: `meta` is the key's metadata row (its
// version equals key.version), `key` the parsed sub-row key, `row_meta`/`value` the sub-row.
// For kChangeValue put the replacement in *new_value. Called from background threads.
using SubRowHook = std::function<storage::CompactionFilter::Decision(
    const KeyMetaRow& meta, const SubRowKeyParts& key, const storage::RowMeta& row_meta,
    std::string_view value, int64_t now_ms, std::string* new_value)>;

// Decides the fate of a system row whose name begins with the hook's prefix (`name` without the
// 0x00 tag). `now_ms` is the compaction's expiry clock (half the purge deadline behind while dead
// versions are kept). For kChangeValue put the replacement in *new_value. Background threads.
using SystemRowHook = std::function<storage::CompactionFilter::Decision(
    std::string_view name, std::string_view value, int64_t now_ms, std::string* new_value)>;

// Reads the metadata row of `key` in database `db` as a sub-row's verdict reads it (DB::Get, full
// retrieval grace, through the compaction's durable view): OK with *row, NotFound, or another
// status (unknown: the caller keeps its row).
using MetaRowReader =
    std::function<storage::Status(int db, std::string_view key, storage::Row* row)>;
// Decides the fate of a system row whose name (without the 0x00 tag) begins with the hook's
// prefix and whose life depends on metadata rows, read with `read`; `now_ms` as for a
// SystemRowHook. Background threads.
using DependentRowHook = std::function<storage::CompactionFilter::Decision(
    std::string_view name, const MetaRowReader& read, int64_t now_ms)>;

// The engine keys of the rows that may hold more of the string key `key` of database `db`,
// appended to *rows; the filter keeps those that exist (read through the compaction's view).
// Background threads; a pure function of its arguments (it must not touch the keyspace, whose
// batches belong to the command thread).
using StringDependentsHook =
    std::function<void(int db, std::string_view key, std::vector<std::string>* rows)>;

// The engine key of a purge marker for the rows under `prefix` (a sub-row prefix, or a system-row
// prefix naming more than the tag and no purge marker), written with
// expire_at `expire_at_ms` (and an empty value): 0x00 | "purge-marker:" | fixed64-BE(expire_at)
// | prefix, so two markers of one prefix with different expiries are different rows (neither
// hides the other) and markers sort by when they expire.
std::string PurgeMarkerKey(std::string_view prefix, int64_t expire_at_ms);
// The prefix a purge marker's key names; false for any other key (or a prefix that is neither a
// sub-row prefix nor such a system-row prefix).
bool ParsePurgeMarkerKey(std::string_view engine_key, std::string_view* prefix);

class TypesCompactionFilter final : public storage::CompactionFilter {
 public:
  // The DB to read metadata rows from, its keys placed by `layout`; nullptr detaches (then every
  // row is kept). Waits for Filter calls using the previous DB to finish.
  void SetDb(storage::DB* db, KeyLayout layout = KeyLayout::kByDatabase);
  // Installs (or, with an empty function, removes) the hook for sub-rows of `type`.
  void RegisterSubRowHook(KeyType type, SubRowHook hook);
  // Installs (or, with an empty function, removes) the hook for system rows whose name begins
  // with `prefix`.
  void RegisterSystemRowHook(std::string prefix, SystemRowHook hook);
  // Installs (or, with an empty function, removes) the hook for system rows whose name begins
  // with `prefix` and whose life depends on metadata rows. A row both kinds of hook match goes
  // to the RegisterSystemRowHook one.
  void RegisterDependentRowHook(std::string prefix, DependentRowHook hook);
  // Installs (empty: removes) the hook naming the rows an expired string version's purge takes.
  void SetStringDependents(StringDependentsHook hook);
  // The policy whose rules give keys their expiry mode; nullptr: every key kDefault.
  void SetTtlPolicy(std::shared_ptr<const TtlPolicy> policy);
  // On: a metadata row that is its key's newest version stays when it is dead (as a tombstone),
  // so that a peer's write with an older timestamp arriving later is still hidden, a string's
  // carrying its rank (ReducedDeadValue) — set for good once the node is in active-active mode
  // (docs/active-active.md). Any thread.
  void SetKeepNewestDead(bool on) { keep_newest_dead_.store(on); }
  // The applied vector this node's engine has synced (docs/active-active.md, "Collection of
  // observed-remove deletes"): while dead versions are kept, an observed-remove string key's
  // tombstone that holds no slot and whose removed context lies at or below it is collected
  // (CollectsNewestDead; types/or_string.h, OrCollectable). nullptr (the start): none is. Any
  // thread.
  void SetOrCollectionVector(std::shared_ptr<const OrContext> applied);

  // Outside a compaction run (tests): reads the latest state.
  Decision Filter(std::string_view user_key, const storage::RowMeta& meta, std::string_view value,
                  int64_t now_ms, std::string* new_value) const override;
  std::unique_ptr<storage::CompactionFilter> StartCompaction(
      const storage::Snapshot* durable_view) const override;
  storage::ExpiryMode ExpiryModeOf(std::string_view user_key) const override;
  bool OwnsRanges(std::string_view user_key, std::string_view value,
                  const storage::RowMeta& meta) const override;
  void ExpiredRowRanges(std::string_view user_key, std::string_view value,
                        std::vector<storage::KeyRange>* ranges) const override;
  bool KeepsNewestDead(std::string_view user_key) const override;
  bool KeepsDeadVersions() const override { return keep_newest_dead_.load(); }
  bool CollectsNewestDead(std::string_view user_key, const storage::RowMeta& meta,
                          std::string_view value, bool newer_may_rank_below) const override;
  // While dead versions are kept: a string's metadata row keeps its rank between peers, its
  // digest and expiry (types/string_rank.h); other rows keep nothing.
  void ReducedDeadValue(std::string_view user_key, const storage::RowMeta& meta,
                        std::string_view value, std::string* reduced) const override;
  const char* Name() const override { return "ebb.types"; }

 private:
  class Run;
  // What a key's metadata row, read once, says about its sub-rows.
  struct KeyVerdict {
    enum class Kind { kKeepAll, kDropAll, kAskHook } kind = Kind::kKeepAll;
    uint64_t version = 0;  // kAskHook: the live incarnation; its other versions are orphans
    KeyMetaRow meta;       // kAskHook: the row, for the type's hook
  };
  // Reads through `view` (nullptr: the latest state).
  KeyVerdict ReadVerdict(KeyLayout layout, int db, std::string_view key,
                         const storage::Snapshot* view) const;
  // ExpiredRowRanges reading through `view` (nullptr: the latest state).
  void ExpiredRowRangesIn(std::string_view user_key, std::string_view value,
                          const storage::Snapshot* view,
                          std::vector<storage::KeyRange>* ranges) const;
  // A row that is no sub-row: a system row (its hooks) or a key's metadata row (DecideMetaRow).
  // `view`: the compaction's durable view (nullptr: the latest state).
  Decision DecideSystemRow(std::string_view user_key, std::string_view value, int64_t now_ms,
                           std::string* new_value, const storage::Snapshot* view) const;
  // While dead versions are kept, an observed-remove string key's metadata row `value`: its
  // extension and inner row (types/or_string_ext.h); false for any other row or outside the mode.
  bool DecodeOrMetaRow(std::string_view user_key, std::string_view value, OrStringExt* ext,
                       std::string_view* inner) const;
  // The collection vector (SetOrCollectionVector) covers `removed` (OrRemovedCovered); false
  // while there is none.
  bool CollectionVectorCovers(const OrContext& removed) const;
  // A live observed-remove string row that holds a slot and whose removed context the collection
  // vector covers is rewritten without that context; other rows are kept.
  Decision DecideMetaRow(std::string_view user_key, std::string_view value,
                         std::string* new_value) const;
  Decision Decide(const KeyVerdict& verdict, const SubRowKeyParts& parts,
                  const storage::RowMeta& meta, std::string_view value, int64_t now_ms,
                  std::string* new_value) const;

  mutable std::shared_mutex mu_;  // guards db_, the hooks, policy_ and or_applied_
  std::atomic<bool> keep_newest_dead_{false};
  storage::DB* db_ = nullptr;
  KeyLayout layout_ = KeyLayout::kByDatabase;
  std::map<KeyType, SubRowHook> hooks_;
  std::map<std::string, SystemRowHook, std::less<>> system_hooks_;        // by name prefix
  std::map<std::string, DependentRowHook, std::less<>> dependent_hooks_;  // by name prefix
  StringDependentsHook string_dependents_;
  std::shared_ptr<const TtlPolicy> policy_;
  std::shared_ptr<const OrContext> or_applied_;  // SetOrCollectionVector
};

}  // namespace ebb::types
