// CompactionFilter: lets the layer above take part in the engine's background work.
//
// Compaction calls Filter for each live value row it is about to write (tombstones, wipes and
// rows already expired are the engine's business and are not shown to it). Kept rows keep their
// meta. A dropped row is treated exactly like an expired one: it becomes a tombstone, unless
// nothing can lie under it, in which case it disappears.
//
// Durability. A filter's decisions become durable with the compaction's output, so it must base
// them on state at least as durable: StartCompaction hands each compaction's run of the filter a
// view of the DB as of a point the WAL has synced (reads through it see every write made before
// that point and none after, with expiry judged at that point's time). A filter that reads other
// rows must read them through that view.
//
// Table builds (flushes and compactions) also ask it to classify rows (ExpiryModeOf, OwnsRanges)
// for the table's properties, and compaction tells it when a row it is removing had expired
// (ExpiredRowRanges) so that the rows depending on it are purged by the same deadline.
// Thread-safety: every method is called from the engine's background threads, concurrently with
// every other DB method; they may call DB::Get and DB::NewIterator (the engine holds no lock
// while calling them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/key_range.h"
#include "storage/row.h"

namespace ebb::storage {

class Snapshot;

// How the expired rows of a key leave the disk (Riak's expiration_mode), for the ttl-rule that
// governs the key: kDefault follows the DB's whole-file setting; kPerItem rows are only ever
// rewritten away by compaction; kWholeFile rows let whole-file expiry drop their file even when
// it is off globally.
enum class ExpiryMode { kDefault, kPerItem, kWholeFile };

class CompactionFilter {
 public:
  enum class Decision { kKeep, kDrop, kChangeValue };

  virtual ~CompactionFilter() = default;
  // `now_ms` is the time of the durable view (see above). For kChangeValue the filter puts the
  // replacement in *new_value.
  virtual Decision Filter(std::string_view user_key, const RowMeta& meta, std::string_view value,
                          int64_t now_ms, std::string* new_value) const = 0;
  // Compaction calls this as it starts, with the durable view (valid until the returned filter
  // is destroyed), and sends every Filter call of that compaction to the filter returned (from
  // one thread, in key order), which it destroys when it ends. So that filter may remember what
  // it learned, such as a row it read, for the length of one compaction. nullptr (the default):
  // the calls go to this filter.
  virtual std::unique_ptr<CompactionFilter> StartCompaction(const Snapshot* durable_view) const {
    (void)durable_view;
    return nullptr;
  }
  // The expiry mode of a value row of `user_key` that carries an expiry.
  virtual ExpiryMode ExpiryModeOf(std::string_view user_key) const {
    (void)user_key;
    return ExpiryMode::kDefault;
  }
  // True when other rows live only through this value row (whose expiry, if it expires, ends
  // them too): its table is then never dropped by whole-file expiry, so that compaction sees the
  // row expire and calls ExpiredRowRanges.
  virtual bool OwnsRanges(std::string_view user_key, std::string_view value,
                          const RowMeta& meta) const {
    (void)user_key, (void)value, (void)meta;
    return false;
  }
  // Compaction found this value row expired and is removing it: appends the ranges of the rows
  // that lived only through it. They become due for a purge compaction at once.
  virtual void ExpiredRowRanges(std::string_view user_key, std::string_view value,
                                std::vector<KeyRange>* ranges) const {
    (void)user_key, (void)value, (void)ranges;
  }
  // True when `user_key`'s newest version, if it is dead (a tombstone, an expired value), must
  // stay even with nothing under it: a write arriving later with an older timestamp — from an
  // active-active peer — must still be hidden by it. It stays as a tombstone of its timestamp
  // (an expired value's bytes still go: ReducedDeadValue), without an expiry at the bottom.
  virtual bool KeepsNewestDead(std::string_view user_key) const {
    (void)user_key;
    return false;
  }
  // Asked when KeepsNewestDead(user_key) keeps `user_key`'s newest version, dead, at the bottom
  // of the tree: true when it has nothing left to hide — no write it would hide can arrive any
  // more (an active-active observed-remove tombstone whose removals every stream has delivered
  // here) — so it goes as it would outside the mode. Counted as collected
  // (Stats::dead_versions_collected). `meta` and `value`: the row's.
  //
  // `newer_may_rank_below`: newer data of the compaction's range outside it (the memtables,
  // newer tables) may hold a version of the key with a smaller timestamp. This version hides it
  // from reads, and its going would show it, unless a wipe lies between the two: a wipe ends a
  // read's walk first (storage/db.h). A filter answers true then only for rows whose key's
  // writers put a wipe before every version they write below the key's newest. Background
  // threads.
  virtual bool CollectsNewestDead(std::string_view user_key, const RowMeta& meta,
                                  std::string_view value, bool newer_may_rank_below) const {
    (void)user_key, (void)meta, (void)value, (void)newer_may_rank_below;
    return false;
  }
  // The bytes the tombstone a dead value row of `user_key` is reduced to carries in place of the
  // value (`meta` and `value`: the row's), when compaction keeps it (KeepsNewestDead, or something
  // beneath it): what the layer above needs of the version without its bytes, such as its rank
  // between peers. Deterministic: a function of the row alone. Empty (the default): none. Reads
  // still take the tombstone as absent; a tombstone keeps these bytes through later compactions.
  virtual void ReducedDeadValue(std::string_view user_key, const RowMeta& meta,
                                std::string_view value, std::string* reduced) const {
    (void)user_key, (void)meta, (void)value;
    reduced->clear();
  }
  // True when KeepsNewestDead may answer true for some key: whole-file expiry, which cannot ask
  // row by row, then drops no table.
  virtual bool KeepsDeadVersions() const { return false; }
  virtual const char* Name() const = 0;
};

}  // namespace ebb::storage
