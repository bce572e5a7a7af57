#include "storage/table/block_fetch.h"

#include <functional>
#include <utility>

#include "storage/env/file.h"
#include "storage/table/block.h"
#include "storage/table/table.h"

namespace ebb::storage {

BlockFetch::~BlockFetch() = default;

void BlockFetch::ClearWantsOfAnIncompletePass() {
  ++rounds_;
  wants_.clear();
  wanted_.clear();
  wanted_bytes_ = 0;
}

void BlockFetch::BeginLookahead() {
  cache_only_ = true;
  keep_pins_ = true;
}

void BlockFetch::Fill(size_t i, const Status& read_error, std::string_view data) {
  const Want& want = wants_[i];
  Pin pin;
  if (!read_error.ok()) {
    pin.error = read_error;
  } else {
    // The block and its trailer, inside what was read from read_offset on.
    const uint64_t skip = want.handle.offset - want.read_offset;
    const uint64_t need = want.handle.size + kBlockTrailerSize;
    const std::string_view bytes =
        data.size() >= skip ? data.substr(static_cast<size_t>(skip)) : std::string_view();
    pin.error =
        want.table->InstallBlock(want.handle, bytes.substr(0, need), want.fill_cache, &pin.block);
  }
  if (pin.block != nullptr) pinned_bytes_ += pin.block->size();
  pins_[BlockAddress{want.table->file_number(), want.handle.offset}] = std::move(pin);
}

Status BlockFetch::ReadWant(const Want& want, AlignedBuffer* buffer, std::string_view* data) {
  if (buffer->size() < want.read_length) *buffer = AlignedBuffer(want.alignment, want.read_length);
  return want.file->Read(want.read_offset, want.read_length, data, buffer->data());
}

void BlockFetch::ReadAndFillAll() {
  AlignedBuffer buffer;
  for (size_t i = 0; i < wants_.size(); ++i) {
    std::string_view data;
    Status s = ReadWant(wants_[i], &buffer, &data);
    Fill(i, s, data);
  }
}

void BlockFetch::DropPins() {
  pins_.clear();
  hints_.clear();
  pinned_bytes_ = 0;
}

void BlockFetch::Release() {
  keep_pins_ = false;
  EndRequest();
}

bool BlockFetch::FindPinned(uint64_t file_number, uint64_t offset,
                            std::shared_ptr<const Block>* block, Status* error) const {
  if (pins_.empty()) return false;
  auto it = pins_.find(BlockAddress{file_number, offset});
  if (it == pins_.end()) return false;
  *block = it->second.block;
  *error = it->second.error;
  return true;
}

void BlockFetch::NoteBlockFor(uint64_t file_number, std::string_view user_key, uint64_t offset) {
  if (hints_.size() >= kMaxHints) return;  // the rest search the index again
  hints_.push_back(Hint{file_number, std::hash<std::string_view>()(user_key), offset});
}

std::shared_ptr<const Block> BlockFetch::PinnedBlockFor(uint64_t file_number,
                                                        std::string_view user_key,
                                                        uint64_t* offset) const {
  if (hints_.empty()) return nullptr;
  const size_t key_hash = std::hash<std::string_view>()(user_key);
  for (const Hint& hint : hints_) {
    if (hint.file_number != file_number || hint.key_hash != key_hash) continue;
    auto it = pins_.find(BlockAddress{file_number, hint.offset});
    if (it == pins_.end() || it->second.block == nullptr) return nullptr;
    *offset = hint.offset;
    return it->second.block;
  }
  return nullptr;
}

void BlockFetch::AddWant(std::shared_ptr<const Table> table, const BlockHandle& handle,
                         bool fill_cache) {
  if (!wanted_.insert(BlockAddress{table->file_number(), handle.offset}).second) return;
  Want want;
  want.handle = handle;
  want.fill_cache = fill_cache;
  want.file = &table->file();
  want.fd = want.file->fd();
  want.alignment = want.file->alignment();
  want.read_offset = AlignDown(handle.offset, want.alignment);
  want.read_length = static_cast<size_t>(
      AlignUp(handle.offset + handle.size + kBlockTrailerSize, want.alignment) - want.read_offset);
  want.table = std::move(table);
  wanted_bytes_ += want.read_length;
  wants_.push_back(std::move(want));
}

bool BlockFetch::AdmitWrite() {
  if (incomplete()) return false;
  cache_only_ = false;
  return true;
}

}  // namespace ebb::storage
