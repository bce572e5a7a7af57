#include "types/or_string_ext.h"

#include <utility>

#include "storage/util/coding.h"
#include "types/key_meta.h"

namespace ebb::types {
namespace {

constexpr uint8_t kExtVersion = 1;
constexpr uint8_t kSiblingsLive = 1;
constexpr uint8_t kDotFollows = 2;

void AppendDot(const Dot& dot, std::string* out) {
  out->append(dot.origin);
  storage::PutVarint64(out, dot.offset);
}

// An origin and an offset >= 1 in its shortest varint.
bool ConsumeDot(std::string_view* input, Dot* dot) {
  if (input->size() < kOriginIdSize) return false;
  dot->origin = OriginId(input->substr(0, kOriginIdSize));
  input->remove_prefix(kOriginIdSize);
  return GetShortestVarint64(input, &dot->offset) && dot->offset >= 1;
}

bool ConsumeU8(std::string_view* input, uint8_t* v) {
  if (input->empty()) return false;
  *v = static_cast<uint8_t>((*input)[0]);
  input->remove_prefix(1);
  return true;
}

// R's entries: ascending, none for the dot's origin.
bool ConsumeRemoved(std::string_view* input, const std::optional<Dot>& dot, OrContext* removed) {
  uint32_t count = 0;
  if (!GetShortestVarint32(input, &count)) return false;
  OriginId previous;
  for (uint32_t i = 0; i < count; ++i) {
    Dot entry;
    if (!ConsumeDot(input, &entry)) return false;
    if ((i > 0 && entry.origin <= previous) || (dot && entry.origin == dot->origin)) return false;
    removed->Raise(entry.origin, entry.offset);
    previous = entry.origin;
  }
  return true;
}

bool IsStringTag(char tag) {
  return tag == static_cast<char>(KeyType::kString) || tag == static_cast<char>(kRawStringTag);
}

}  // namespace

std::string SiblingRowPrefix(int db, std::string_view key) {
  std::string name(kSiblingRowPrefix);
  name += std::to_string(db);
  name += ':';
  name += std::to_string(key.size());
  name += ':';
  name.append(key);
  return name;
}

void AppendOrStringExt(const OrStringExt& ext, std::string* out) {
  out->push_back(static_cast<char>(kExtVersion));
  out->push_back(
      static_cast<char>((ext.siblings_live ? kSiblingsLive : 0) | (ext.dot ? kDotFollows : 0)));
  if (ext.dot) AppendDot(*ext.dot, out);
  storage::PutVarint32(out, static_cast<uint32_t>(ext.removed.entries().size()));
  for (const Dot& entry : ext.removed.entries()) AppendDot(entry, out);
}

bool ConsumeOrStringExt(std::string_view* input, OrStringExt* ext) {
  *ext = OrStringExt();
  uint8_t version = 0;
  uint8_t flags = 0;
  if (!ConsumeU8(input, &version) || version != kExtVersion || !ConsumeU8(input, &flags)) {
    return false;
  }
  if ((flags & ~(kSiblingsLive | kDotFollows)) != 0 || flags == kSiblingsLive) return false;
  ext->siblings_live = (flags & kSiblingsLive) != 0;
  if (flags & kDotFollows) {
    ext->dot.emplace();
    if (!ConsumeDot(input, &*ext->dot)) return false;
  }
  return ConsumeRemoved(input, ext->dot, &ext->removed);
}

void EncodeOrStringRow(const OrStringExt& ext, std::string_view inner, std::string* row) {
  std::string out;
  out.push_back(static_cast<char>(kOrStringTag));
  AppendOrStringExt(ext, &out);
  out.append(inner);
  *row = std::move(out);
}

bool DecodeOrStringRow(std::string_view row, OrStringExt* ext, std::string_view* inner) {
  if (row.empty() || static_cast<uint8_t>(row[0]) != kOrStringTag) return false;
  row.remove_prefix(1);
  if (!ConsumeOrStringExt(&row, ext)) return false;
  if (!row.empty() && !IsStringTag(row[0])) return false;
  *inner = row;
  return true;
}

std::string_view OrInnerRow(std::string_view row) {
  OrStringExt ext;
  std::string_view inner;
  return DecodeOrStringRow(row, &ext, &inner) ? inner : row;
}

}  // namespace ebb::types
