// Iterator: an ordered walk over the live user keys of a consistent snapshot.
//
// Keys are ordered bytewise (unsigned). Each user key appears once, with its most recently
// written version (retrieval grace 0); keys whose version is a tombstone or has expired at the
// time the iterator was created are skipped (unless ReadOptions::include_dead). Bounds from
// ReadOptions are honoured.
// Thread-safety: one iterator is used by one thread at a time; it pins the files it reads, so
// it stays valid across flushes and compactions. Destroy every iterator before the DB.
#pragma once

#include <string_view>

#include "storage/row.h"
#include "storage/status.h"

namespace ebb::storage {

class Iterator {
 public:
  virtual ~Iterator() = default;

  // True while positioned on a row. REQUIRES for key/value/meta/Next/Prev: Valid().
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  // Positions at the first key >= target.
  virtual void Seek(std::string_view target) = 0;
  // Positions at the last key <= target.
  virtual void SeekForPrev(std::string_view target) = 0;
  virtual void Next() = 0;
  virtual void Prev() = 0;

  // Views valid until the iterator moves.
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual RowMeta meta() const = 0;

  // Not OK if a read failed (corruption, I/O); the iterator is then not Valid().
  virtual Status status() const = 0;
};

}  // namespace ebb::storage
