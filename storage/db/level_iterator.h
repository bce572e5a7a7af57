// LevelIterator: one InternalIterator over a run of table files that are sorted by key and do
// not overlap — a level >= 1, or a single L0 file — opening a file only when a position
// reaches it.
//
// Files that lie wholly outside the bounds [*lower_bound, *upper_bound) (user keys; empty:
// unbounded) are treated as absent: never opened, in either direction. The bounds are read at
// every Seek/SeekToFirst/SeekToLast, so they may change between uses (DBImpl reuses iterator
// trees with new bounds). A Seek binary-searches the files' largest keys and opens only the one
// file that can hold the target; an open file stays open across Seeks that land in it again.
// So an iterator over a whole version is cheap to build (one child per level, not per file)
// and cheap to seek into a narrow key range.
//
// Reads of the files carry *fetch (when `fetch` is not null), read at each read like the bounds.
// Thread-safety: one thread at a time. `files` are kept alive by the iterator; the table cache,
// the bounds and `fetch` must outlive it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/db/version_edit.h"
#include "storage/format/internal_iterator.h"

namespace ebb::storage {

class BlockFetch;
class TableCache;

using FileList = std::vector<std::shared_ptr<const FileMetaData>>;

// The index of the first of `files` whose largest user key is >= `user_key`: the only one that
// can hold it (files.size() if none). REQUIRES: `files` sorted by key and disjoint.
size_t FindFile(const FileList& files, std::string_view user_key);

// REQUIRES: `files` sorted by key and disjoint.
std::unique_ptr<InternalIterator> NewLevelIterator(TableCache* table_cache, FileList files,
                                                   bool fill_cache,
                                                   const std::optional<std::string>* lower_bound,
                                                   const std::optional<std::string>* upper_bound,
                                                   BlockFetch* const* fetch = nullptr);

}  // namespace ebb::storage
