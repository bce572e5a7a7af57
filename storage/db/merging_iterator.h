// MergingIterator: one ordered InternalIterator over several children (memtables, tables).
//
// Entries come out in internal-key order (CompareInternalKeys); equal keys cannot occur because
// every version has its own sequence number. Works in both directions, as LevelDB's.
// Thread-safety: one thread at a time, like every iterator.
#pragma once

#include <memory>
#include <vector>

#include "storage/format/internal_iterator.h"

namespace ebb::storage {

std::unique_ptr<InternalIterator> NewMergingIterator(
    std::vector<std::unique_ptr<InternalIterator>> children);

}  // namespace ebb::storage
