// RowCursor (row_cursor.h): the engine's iterator, each row's name read off its engine key.
#include "types/row_cursor.h"

#include <utility>

#include "types/key_encoding.h"

namespace ebb::types {

RowCursor::RowCursor(std::unique_ptr<storage::Iterator> it, Rows rows, size_t name_offset)
    : it_(std::move(it)), rows_(rows), name_offset_(name_offset) {
  Settle();
}

void RowCursor::Next() {
  it_->Next();
  Settle();
}

void RowCursor::Settle() {
  valid_ = it_->Valid();
  if (!valid_) return;
  const std::string_view key = it_->key();
  if (rows_ == Rows::kSystem) {
    name_ = key.substr(name_offset_);
    return;
  }
  int db = 0;
  // Every row of a database's metadata range is a metadata row: one that is not ends the walk.
  valid_ = ParseMetaKey(key, &db, &name_);
}

}  // namespace ebb::types
