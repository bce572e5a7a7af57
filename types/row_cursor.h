// A walk over the keyspace's rows that its caller keeps between turns of the event loop: the
// metadata rows of one database's keys, or the system rows named with one prefix, in engine order
// (Keyspace::KeyCursor, Keyspace::SystemRowCursor). What a walk over many rows in steps needs —
// an active-active snapshot, the sweep that follows one — without the caller knowing how the
// engine names the rows (types/key_encoding.h stays the keyspace's own).
//
//   auto cursor = keyspace.KeyCursor(db, keyspace.FirstKeyPosition(db),
//                                    keyspace.EndKeyPosition(db), snapshot);
//   for (; cursor->Valid(); cursor->Next()) Use(cursor->name(), cursor->value());
//   if (!cursor->status().ok()) ...
//
// A key cursor shows every key whose newest version holds something, live or not (the engine's
// include_dead: a tombstone with the value it carries, an expired value), read at `snapshot` or,
// without one, through the keyspace's open batch as it stood when the cursor was made.
// Positions (Keyspace::KeyPosition) are opaque, ordered strings: one database's positions compare
// as its keys' places in the walk.
// Thread-safety: one thread; the keyspace and a snapshot given must outlive the cursor.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "storage/iterator.h"

namespace ebb::types {

class RowCursor {
 public:
  enum class Rows { kKeys, kSystem };
  // `name_offset`: the bytes of a system row's engine key before its name.
  RowCursor(std::unique_ptr<storage::Iterator> it, Rows rows, size_t name_offset);

  // True while on a row; REQUIRES for the accessors and Next: Valid().
  bool Valid() const { return valid_; }
  void Next();
  // A key cursor: the user key; a system-row cursor: the row's name (its prefix included).
  std::string_view name() const { return name_; }
  std::string_view value() const { return it_->value(); }
  storage::RowMeta meta() const { return it_->meta(); }
  // The row's position (a key cursor: Keyspace::KeyPosition of name()).
  std::string_view position() const { return it_->key(); }
  // Not OK if a read failed; the cursor is then not Valid().
  storage::Status status() const { return it_->status(); }

 private:
  // Sets valid_ and name_ from the row the iterator is on.
  void Settle();

  std::unique_ptr<storage::Iterator> it_;
  const Rows rows_;
  const size_t name_offset_;
  bool valid_ = false;
  std::string_view name_;
};

}  // namespace ebb::types
