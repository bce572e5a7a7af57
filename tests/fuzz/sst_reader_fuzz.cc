// libFuzzer target for the SST reader: storage::Table, storage::Block and TableProperties.
//
// Modes, chosen by the first byte:
//  - raw table: the rest is an SST file. Table::Open either fails with a Corruption naming the
//    file, or opens; then forward and backward iteration and seeks must end (bounded) without
//    crashing, stopping at the first damaged block with a Corruption naming the file.
//  - built table: the input describes rows; TableBuilder writes a valid table (random block
//    size, compression, bloom filter), which must read back exactly (forward, backward, Seek to
//    each key, bloom says "may match" for each key). Then one byte is changed and/or the file is
//    cut: every entry the reader still returns must be one of the written ones, in order (wrong
//    data is never returned), and a reader that reports no error must return all of them.
//  - raw block: the rest is the uncompressed contents of a block (what a crc-valid block could
//    hold); iterating, seeking and stepping back must stay within the block and end.
//  - properties: the rest is a properties block; DecodeFrom must not crash, and what decodes
//    must encode and decode to the same value.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/format/internal_key.h"
#include "storage/format/table_properties.h"
#include "storage/table/block.h"
#include "storage/table/table.h"
#include "storage/table/table_builder.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_files.h"

namespace {

using ebb::fuzz::StringRandomAccessFile;
using ebb::fuzz::StringSink;
using namespace ebb::storage;  // NOLINT: a fuzz target of this namespace

constexpr char kName[] = "fuzz.sst";
using Entry = std::pair<std::string, std::string>;

using ebb::fuzz::Check;

void CheckError(const Status& s) {
  if (s.ok()) return;
  Check(s.IsCorruption() || s.IsIOError() || s.code() == Status::Code::kNotSupported,
        "unexpected status code");
  Check(s.message().rfind(std::string(kName) + ": ", 0) == 0, "error does not name the file");
}

// Reads every entry forward; stops at the first error. Bounded by `limit` entries.
std::vector<Entry> ReadForward(InternalIterator* it, size_t limit, Status* status) {
  std::vector<Entry> out;
  for (it->SeekToFirst(); it->Valid() && out.size() < limit; it->Next()) {
    out.emplace_back(std::string(it->key()), std::string(it->value()));
  }
  *status = it->status();
  return out;
}

std::vector<Entry> ReadBackward(InternalIterator* it, size_t limit, Status* status) {
  std::vector<Entry> out;
  for (it->SeekToLast(); it->Valid() && out.size() < limit; it->Prev()) {
    out.emplace_back(std::string(it->key()), std::string(it->value()));
  }
  *status = it->status();
  std::reverse(out.begin(), out.end());
  return out;
}

Status OpenTable(const std::string& file, const TableOptions& options,
                 std::unique_ptr<Table>* table) {
  return Table::Open(options, std::make_unique<StringRandomAccessFile>(file), file.size(), 1,
                     nullptr, kName, table);
}

// True if `got` appears in `all` in the same order (a subsequence).
bool IsSubsequence(const std::vector<Entry>& got, const std::vector<Entry>& all) {
  size_t j = 0;
  for (const Entry& e : got) {
    while (j < all.size() && all[j] != e) ++j;
    if (j == all.size()) return false;
    ++j;
  }
  return true;
}

void RawTable(FuzzedDataProvider& fdp) {
  const std::string file = fdp.ConsumeRemainingBytesAsString();
  std::unique_ptr<Table> table;
  Status s = OpenTable(file, TableOptions{}, &table);
  CheckError(s);
  if (!s.ok()) return;
  // A block of n bytes holds at most n/3 entries; the file bounds every iteration.
  const size_t limit = file.size() + 1;
  auto it = table->NewIterator(false);
  std::vector<Entry> fwd = ReadForward(it.get(), limit, &s);
  CheckError(s);
  std::vector<Entry> bwd = ReadBackward(it.get(), limit, &s);
  CheckError(s);
  for (size_t i = 0; i < fwd.size() && i < 16; ++i) {
    it->Seek(fwd[i].first);
    CheckError(it->status());
  }
  table->KeyMayMatch("k");
  table->ApproximateOffsetOf(fwd.empty() ? std::string(8, '\0') : fwd.front().first);
}

void BuiltTable(FuzzedDataProvider& fdp) {
  TableOptions options;
  options.block_size = fdp.ConsumeIntegralInRange<size_t>(16, 4096);
  options.bloom_bits_per_key = fdp.ConsumeIntegralInRange<int>(0, 12);
  options.compression = static_cast<Compression>(fdp.ConsumeIntegralInRange<uint8_t>(0, 2));
  options.expiry_now_ms = fdp.ConsumeIntegral<int64_t>();

  std::vector<Entry> entries;
  const size_t count = fdp.ConsumeIntegralInRange<size_t>(0, 300);
  for (size_t i = 0; i < count && fdp.remaining_bytes() > 0; ++i) {
    std::string key;
    AppendInternalKey(&key, fdp.ConsumeRandomLengthString(24),
                      fdp.ConsumeIntegralInRange<uint64_t>(0, kMaxSequence),
                      fdp.ConsumeBool() ? RowKind::kValue : RowKind::kTombstone);
    RowMeta meta;
    if (fdp.ConsumeBool()) meta.timestamp_ms = fdp.ConsumeIntegral<int64_t>();
    if (fdp.ConsumeBool()) meta.expire_at_ms = fdp.ConsumeIntegral<int64_t>();
    std::string row;
    AppendEncodedRow(&row, meta, fdp.ConsumeRandomLengthString(64));
    entries.emplace_back(std::move(key), std::move(row));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return CompareInternalKeys(a.first, b.first) < 0;
  });
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const Entry& a, const Entry& b) {
                              return CompareInternalKeys(a.first, b.first) == 0;
                            }),
                entries.end());

  std::string file;
  {
    StringSink sink(&file);
    TableBuilder builder(options, &sink);
    for (const Entry& e : entries) builder.Add(e.first, e.second);
    Check(builder.status().ok(), "TableBuilder rejected valid rows");
    Check(builder.Finish().ok(), "TableBuilder::Finish failed");
    Check(builder.FileSize() == file.size(), "FileSize differs from the bytes written");
    Check(builder.properties().entries == entries.size(), "properties.entries is wrong");
  }

  std::unique_ptr<Table> table;
  Status s = OpenTable(file, options, &table);
  Check(s.ok(), "a freshly built table does not open");
  Check(table->properties().entries == entries.size(), "read properties.entries is wrong");
  auto it = table->NewIterator(false);
  Check(ReadForward(it.get(), entries.size() + 1, &s) == entries && s.ok(),
        "forward iteration differs");
  Check(ReadBackward(it.get(), entries.size() + 1, &s) == entries && s.ok(),
        "backward iteration differs");
  for (size_t i = 0; i < entries.size(); i += 1 + entries.size() / 16) {
    it->Seek(entries[i].first);
    Check(it->Valid() && it->key() == entries[i].first && it->value() == entries[i].second,
          "Seek did not find a written key");
    Check(table->KeyMayMatch(ExtractUserKey(entries[i].first)), "bloom lost a key");
  }

  if (file.empty()) return;
  std::string bad = file;
  const int damage = fdp.ConsumeIntegralInRange<int>(0, 2);
  if (damage != 1) {
    const size_t pos = fdp.ConsumeIntegralInRange<size_t>(0, bad.size() - 1);
    bad[pos] = static_cast<char>(bad[pos] ^ fdp.ConsumeIntegralInRange<uint8_t>(1, 255));
  }
  if (damage != 0) bad.resize(fdp.ConsumeIntegralInRange<size_t>(0, bad.size() - 1));
  table.reset();
  s = OpenTable(bad, options, &table);
  CheckError(s);
  if (!s.ok()) return;
  it = table->NewIterator(false);
  const std::vector<Entry> fwd = ReadForward(it.get(), entries.size() + 1, &s);
  CheckError(s);
  Check(IsSubsequence(fwd, entries), "damaged table returned an entry never written (forward)");
  if (s.ok()) Check(fwd.size() == entries.size(), "damaged table lost entries without an error");
  const std::vector<Entry> bwd = ReadBackward(it.get(), entries.size() + 1, &s);
  CheckError(s);
  Check(IsSubsequence(bwd, entries), "damaged table returned an entry never written (backward)");
  if (s.ok()) Check(bwd.size() == entries.size(), "damaged table lost entries without an error");
}

void RawBlock(FuzzedDataProvider& fdp) {
  auto block = std::make_shared<const Block>(fdp.ConsumeRemainingBytesAsString());
  const size_t limit = block->size() + 1;
  // The bytewise comparator: internal-key order needs keys of >= 8 bytes, which the table
  // format guarantees for crc-verified data blocks but arbitrary contents do not.
  auto it = Block::NewIterator(block, CompareUserKeys);
  Status s;
  const std::vector<Entry> fwd = ReadForward(it.get(), limit, &s);
  Check(fwd.size() < limit, "forward iteration of a block did not end");
  const std::vector<Entry> bwd = ReadBackward(it.get(), limit, &s);
  Check(bwd.size() < limit, "backward iteration of a block did not end");
  for (const Entry& e : fwd) {
    Check(e.first.size() + e.second.size() <= block->size(), "entry larger than its block");
  }
  for (size_t i = 0; i < fwd.size() && i < 8; ++i) {
    it->Seek(fwd[i].first);
    for (int k = 0; k < 4 && it->Valid(); ++k) it->Prev();
  }
  it->Seek("");
  it->Seek(std::string(64, '\xff'));
}

void Properties(FuzzedDataProvider& fdp) {
  const std::string data = fdp.ConsumeRemainingBytesAsString();
  TableProperties props;
  if (!props.DecodeFrom(data).ok()) return;
  std::string encoded;
  props.EncodeTo(&encoded);
  TableProperties again;
  Check(again.DecodeFrom(encoded).ok(), "encoded properties do not decode");
  Check(again == props, "properties changed in an encode/decode round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      RawTable(fdp);
      break;
    case 1:
      BuiltTable(fdp);
      break;
    case 2:
      RawBlock(fdp);
      break;
    default:
      Properties(fdp);
      break;
  }
  return 0;
}
