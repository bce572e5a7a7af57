// libFuzzer target for the data types' on-disk decoders (types/key_encoding.h, key_meta.h,
// tlog_codec.h, treg.h, sample_block.h, series_codec.h, series_merge.h): what every read, scan and
// compaction-filter call applies to bytes that came from a table or a WAL.
//
// The first byte picks a decoder (modulo 10); the rest of the input is its bytes. Each decoder
// either refuses them or accepts them, and whatever it accepts encodes back to bytes that decode to
// the same parts (for the fixed-width and tagged forms, to the very same bytes). Then, from the
// same input read as values: two TLOG elements compare bytewise exactly as their entries order
// newest first (tlog_state.h EntryBefore), every element decodes to its entry, and no element is
// a proper prefix of another's bytes.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/key_slot.h"
#include "tests/fuzz/fuzz_check.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/or_string_ext.h"
#include "types/sample_block.h"
#include "types/series_codec.h"
#include "types/series_merge.h"
#include "types/tlog_codec.h"
#include "types/tlog_state.h"
#include "types/treg.h"

namespace {

using namespace ebb::types;  // NOLINT: a fuzz target of this one namespace

using ebb::fuzz::Check;

// The bytes before the user key's part of an engine key: tag and database (2), or tag and slot
// (3) in the slot layout, whose slot bytes a parse takes as they are.
std::string_view LayoutHead(std::string_view bytes, KeyLayout layout) {
  return bytes.substr(0, layout == KeyLayout::kBySlot ? 3 : 2);
}

void MetaKeys(std::string_view bytes) {
  int db = -1;
  std::string_view user_key;
  KeyLayout layout;
  if (!ParseMetaKey(bytes, &db, &user_key, &layout)) return;
  Check(db >= 0 && db < kMaxDatabases, "a metadata key's database is out of range");
  Check(layout == KeyLayout::kByDatabase || db == 0, "a slot-layout key outside database 0");
  const std::string_view head = LayoutHead(bytes, layout);
  Check(std::string(head) + std::string(user_key) == bytes,
        "a metadata key does not re-encode to itself");
  const std::string prefix = MetaKeyPrefix(layout, db);
  Check(bytes.starts_with(prefix), "a metadata key outside its database's prefix");
  Check(bytes < PrefixUpperBound(prefix), "a metadata key above its database's upper bound");
  if (layout == KeyLayout::kByDatabase || head == SlotMetaPrefix(ebb::KeySlot(user_key))) {
    Check(MetaKey(layout, db, user_key) == bytes, "a metadata key does not re-encode to itself");
  }
  Check(SubRowSeekPrefixLength(bytes) == 0, "a metadata key has a sub-row seek prefix");
}

void SubRowKeys(std::string_view bytes) {
  SubRowKeyParts parts;
  const size_t seek = SubRowSeekPrefixLength(bytes);
  if (!ParseSubRowKey(bytes, &parts)) {
    Check(seek == 0, "a key that is not a sub-row has a sub-row seek prefix");
    return;
  }
  Check(parts.db >= 0 && parts.db < kMaxDatabases, "a sub-row's database is out of range");
  Check(parts.layout == KeyLayout::kByDatabase || parts.db == 0,
        "a slot-layout sub-row outside database 0");
  // The incarnation's prefix as written, with the head the key carries.
  const std::string prefix = std::string(LayoutHead(bytes, parts.layout)) +
                             SubRowPrefix(parts.db, parts.user_key, parts.version).substr(2);
  Check(prefix + std::string(parts.element) == bytes, "a sub-row key does not re-encode to itself");
  if (parts.layout == KeyLayout::kByDatabase ||
      bytes.starts_with(SlotSubRowPrefix(ebb::KeySlot(parts.user_key)))) {
    Check(SubRowPrefix(parts.layout, parts.db, parts.user_key, parts.version) == prefix,
          "a sub-row prefix does not re-encode to itself");
  }
  Check(seek == prefix.size(), "the seek prefix is not the incarnation's prefix");
  const std::string upper = PrefixUpperBound(prefix);
  Check(bytes.starts_with(prefix) && (upper.empty() || bytes < upper),
        "a sub-row key outside its incarnation's range");
}

void MetaValues(std::string_view bytes) {
  KeyType type;
  std::string_view payload;
  bool raw_string = false;
  if (!DecodeMetaValue(bytes, &type, &payload, &raw_string)) return;
  Check(!raw_string || type == KeyType::kString, "a raw tag decoded to a type other than string");
  // A string with its observed-remove extension (tag 5) reads as the row it wraps, which is what
  // re-encodes.
  Check(EncodeMetaValue(type, payload, raw_string) == OrInnerRow(bytes),
        "a metadata value does not re-encode to itself");
  Check(!KeyTypeName(type).empty() && KeyTypeFromName(KeyTypeName(type)) == type,
        "a decoded type has no name that maps back to it");
  uint64_t version = 0;
  if (IsCollectionType(type) && DecodeCollectionVersion(payload, &version)) {
    TlogMeta meta;
    if (type == KeyType::kTlog && DecodeTlogMeta(payload, &meta)) {
      Check(meta.version == version, "the collection version disagrees with the TLOG meta");
    }
  }
}

void TlogMetas(std::string_view bytes) {
  TlogMeta meta;
  if (!DecodeTlogMeta(bytes, &meta)) return;
  TlogMeta again;
  Check(DecodeTlogMeta(EncodeTlogMeta(meta), &again) && again == meta,
        "a TLOG meta does not survive encode and decode");
  uint64_t version = 0;
  Check(DecodeCollectionVersion(bytes, &version) && version == meta.version,
        "a TLOG meta's version is not its collection version");
}

void TlogElements(std::string_view bytes) {
  uint64_t ts = 0, ts_only = 0;
  std::string value;
  const bool whole = DecodeTlogElement(bytes, &ts, &value);
  const bool ts_ok = DecodeTlogElementTs(bytes, &ts_only);
  Check(ts_ok == (bytes.size() >= 8), "the timestamp decoder disagrees with its contract");
  if (!whole) return;
  Check(ts_only == ts, "the two element decoders disagree on the timestamp");
  std::string encoded;
  AppendTlogElement(&encoded, ts, value);
  Check(encoded == bytes, "a TLOG element does not re-encode to itself");
}

void TregPayloads(std::string_view bytes) {
  std::string_view value;
  uint64_t ts = 0;
  const bool ok = DecodeTregPayload(bytes, &value, &ts);
  Check(ok == (bytes.size() >= 8), "the TREG decoder disagrees with its contract");
  if (ok) Check(EncodeTregPayload(value, ts) == bytes, "a TREG payload does not re-encode");
}

// Two entries written as elements: their bytes order as the entries do, newest first.
void ElementOrder(FuzzedDataProvider& fdp) {
  const uint64_t a_ts = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<uint64_t>(0, 3)
                                          : fdp.ConsumeIntegral<uint64_t>();
  const uint64_t b_ts = fdp.ConsumeBool() ? a_ts : fdp.ConsumeIntegral<uint64_t>();
  const std::string a_value = fdp.ConsumeRandomLengthString(40);
  std::string b_value = fdp.ConsumeRandomLengthString(40);
  if (fdp.ConsumeBool()) b_value = a_value + b_value;  // a prefix of the other
  std::string a, b;
  AppendTlogElement(&a, a_ts, a_value);
  AppendTlogElement(&b, b_ts, b_value);
  Check(EntryBefore(a_ts, a_value, b_ts, b_value) == (a < b), "element order is not entry order");
  Check((a == b) == (a_ts == b_ts && a_value == b_value), "distinct entries share an element");
  Check(a == b || (!a.starts_with(b) && !b.starts_with(a)), "an element is a prefix of another");
  uint64_t ts = 0;
  std::string value;
  Check(DecodeTlogElement(a, &ts, &value) && ts == a_ts && value == a_value,
        "an element does not decode to its entry");
  Check(DecodeTlogElement(b, &ts, &value) && ts == b_ts && value == b_value,
        "an element does not decode to its entry");
}

}  // namespace

// A sample block (types/sample_block.h): whatever samples a reader takes from the bytes, written
// again they read back the same, bit for bit.
void SampleBlocks(std::string_view bytes) {
  SampleBlockReader reader(bytes);
  SampleBlockWriter writer;
  std::vector<Sample> read;
  Sample sample;
  while (reader.Next(&sample)) {
    read.push_back(sample);
    writer.Add(sample.ts, sample.value);
  }
  Check(read.size() <= reader.count(), "a block gave more samples than it claims");
  const std::string again = writer.Finish();
  SampleBlockReader reread(again);
  for (const Sample& want : read) {
    Check(reread.Next(&sample), "a written block lost a sample");
    Check(sample.ts == want.ts &&
              std::bit_cast<uint64_t>(sample.value) == std::bit_cast<uint64_t>(want.value),
          "a written block changed a sample");
  }
  Check(!reread.Next(&sample) && !reread.corrupt(), "a written block does not end cleanly");
}

// A series' metadata payload (types/series_codec.h) and, in active-active mode, a sample's merge
// state and the settings register (types/series_merge.h; a peer's `ts-merge` delta carries the
// same bytes): whatever a decoder accepts encodes to bytes that decode again and encode the same.
template <typename Value, typename Decode, typename Encode>
void DecodesStably(std::string_view bytes, Decode decode, Encode encode, const char* what) {
  Value value;
  if (!decode(bytes, &value)) return;
  const std::string once = encode(value);
  Value again;
  Check(decode(once, &again), what);
  Check(encode(again) == once, what);
}

void SeriesRows(std::string_view bytes) {
  if (bytes.empty()) return;
  const std::string_view rest = bytes.substr(1);
  switch (static_cast<uint8_t>(bytes[0]) % 3) {
    case 0:
      DecodesStably<SeriesMeta>(rest, DecodeSeriesMeta, EncodeSeriesMeta,
                                "a series' metadata does not decode stably");
      break;
    case 1:
      DecodesStably<SampleState>(rest, DecodeSampleState, EncodeSampleState,
                                 "a sample's merge state does not decode stably");
      break;
    default:
      DecodesStably<SeriesRegister>(rest, DecodeSeriesRegister, EncodeSeriesRegister,
                                    "a series' settings register does not decode stably");
      break;
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 10) {
    case 0:
      MetaKeys(bytes);
      break;
    case 1:
      SubRowKeys(bytes);
      break;
    case 2:
      MetaValues(bytes);
      break;
    case 3:
      TlogMetas(bytes);
      break;
    case 4:
      TlogElements(bytes);
      break;
    case 5:
      TregPayloads(bytes);
      break;
    case 7:
      SampleBlocks(bytes);
      break;
    case 8:
    case 9:
      SeriesRows(bytes);
      break;
    default: {
      FuzzedDataProvider fdp(data + 1, size - 1);
      ElementOrder(fdp);
      break;
    }
  }
  return 0;
}
