// CompactionFilter: lets the layer above decide the fate of value rows during compaction.
//
// Compaction calls Filter for each value row it is about to write (tombstones and rows that are
// already expired are the engine's business and are not shown to the filter). Kept rows keep
// their meta. A dropped row is treated exactly like an expired one: it becomes a tombstone,
// unless nothing older can lie under it, in which case it disappears.
// Thread-safety: Filter is called from the engine's background thread, concurrently with every
// other DB method; it may call DB::Get (the engine holds no lock while calling it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "storage/row.h"

namespace ebb::storage {

class CompactionFilter {
 public:
  enum class Decision { kKeep, kDrop, kChangeValue };

  virtual ~CompactionFilter() = default;
  // `now_ms` is the engine clock at the start of this compaction. For kChangeValue the filter
  // puts the replacement in *new_value.
  virtual Decision Filter(std::string_view user_key, const RowMeta& meta, std::string_view value,
                          int64_t now_ms, std::string* new_value) const = 0;
  // Compaction calls this as it starts and sends every Filter call of that compaction to the
  // filter returned (from one thread, in key order), which it destroys when it ends. So that
  // filter may remember what it learned, such as a row it read, for the length of one
  // compaction. nullptr (the default): the calls go to this filter.
  virtual std::unique_ptr<CompactionFilter> StartCompaction() const { return nullptr; }
  virtual const char* Name() const = 0;
};

}  // namespace ebb::storage
