// InternalIterator: ordered access to internal keys and encoded rows (format/internal_key.h).
// Implemented by memtables, SST blocks and tables, and the merging iterator; the DB turns it into
// the user-facing Iterator. Contract as storage/iterator.h, but over every version.
#pragma once

#include <string_view>

#include "storage/status.h"

namespace ebb::storage {

class InternalIterator {
 public:
  virtual ~InternalIterator() = default;
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  // First entry >= target (an internal key).
  virtual void Seek(std::string_view target) = 0;
  virtual void Next() = 0;
  virtual void Prev() = 0;
  virtual std::string_view key() const = 0;    // internal key
  virtual std::string_view value() const = 0;  // encoded row
  virtual Status status() const = 0;
};

}  // namespace ebb::storage
