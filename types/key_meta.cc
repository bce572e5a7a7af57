#include "types/key_meta.h"

#include "common/strings.h"
#include "storage/util/coding.h"
#include "types/or_string_ext.h"

namespace ebb::types {

namespace {

constexpr KeyType kAllTypes[] = {KeyType::kString, KeyType::kTreg, KeyType::kTlog,
                                 KeyType::kSeries};

}  // namespace

std::string_view KeyTypeName(KeyType type) {
  switch (type) {
    case KeyType::kString:
      return "string";
    case KeyType::kTreg:
      return "treg";
    case KeyType::kTlog:
      return "tlog";
    case KeyType::kSeries:
      return "TSDB-TYPE";
  }
  return "none";
}

std::optional<KeyType> KeyTypeFromName(std::string_view name) {
  for (KeyType type : kAllTypes) {
    if (EqualsIgnoreCase(name, KeyTypeName(type))) return type;
  }
  return std::nullopt;
}

bool IsCollectionType(KeyType type) { return type == KeyType::kTlog || type == KeyType::kSeries; }

std::string EncodeMetaValue(KeyType type, std::string_view payload, bool raw_string) {
  std::string value;
  value.reserve(1 + payload.size());
  value.push_back(raw_string ? static_cast<char>(kRawStringTag) : static_cast<char>(type));
  value.append(payload);
  return value;
}

bool DecodeMetaValue(std::string_view value, KeyType* type, std::string_view* payload,
                     bool* raw_string) {
  if (value.empty()) return false;
  auto tag = static_cast<uint8_t>(value[0]);
  if (tag == kOrStringTag) {
    // A string with its observed-remove extension reads as its inner row.
    OrStringExt ext;
    std::string_view inner;
    if (!DecodeOrStringRow(value, &ext, &inner) || inner.empty()) return false;
    value = inner;
    tag = static_cast<uint8_t>(value[0]);
  }
  const bool raw = tag == kRawStringTag;
  if (raw) tag = static_cast<uint8_t>(KeyType::kString);
  if (tag > static_cast<uint8_t>(KeyType::kTlog) && tag != static_cast<uint8_t>(KeyType::kSeries)) {
    return false;
  }
  if (raw_string != nullptr) *raw_string = raw;
  *type = static_cast<KeyType>(tag);
  *payload = value.substr(1);
  return true;
}

bool DecodeCollectionVersion(std::string_view payload, uint64_t* version) {
  return storage::GetVarint64(&payload, version);
}

}  // namespace ebb::types
