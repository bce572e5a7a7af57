// libFuzzer target for storage::WriteBatch's decoder (the payload of every WAL record, which
// recovery replays into the memtable).
//
// Two modes, chosen by the first byte:
//  - raw: the rest of the input is a batch's encoding. FromRep either refuses it with a
//    Corruption or accepts it; an accepted batch iterates without error, yields exactly Count()
//    entries whose rows decode to the entry's meta and value, never a wipe with a value nor a
//    delete or wipe with an expiry, and a batch rebuilt from those entries decodes to the same
//    entries.
//  - written: the input describes entries (a Delete with or without a value); Put/Delete/Wipe
//    encode them, then the encoding is cut and/or one byte is changed. The untouched encoding
//    decodes to exactly the entries written; a cut one is refused unless the cut falls at its
//    end; damage never crashes.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "storage/format/internal_key.h"
#include "storage/write_batch.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ebb::storage::RowMeta;
using ebb::storage::Status;
using ebb::storage::WriteBatch;
using ebb::storage::WriteOptions;

using ebb::fuzz::Check;

struct Decoded {
  WriteBatch::Op op;
  std::string key, value;
  RowMeta meta;
  bool operator==(const Decoded&) const = default;
};

class Collector final : public WriteBatch::Handler {
 public:
  void Apply(const WriteBatch::Entry& e) override {
    if (e.op == WriteBatch::Op::kDeleteRange) {
      Check(e.encoded_row.empty() && e.meta == RowMeta{}, "a range deletion carries a row");
      entries.push_back({e.op, std::string(e.key), std::string(e.value), e.meta});
      return;
    }
    RowMeta meta;
    std::string_view value;
    Check(ebb::storage::DecodeRow(e.encoded_row, &meta, &value), "entry row does not decode");
    Check(meta == e.meta && value == e.value, "entry row disagrees with the entry");
    // A tombstone may carry a value for the layer above (a reduced dead version's rank); a wipe
    // carries none, and neither an expiry.
    Check(e.op == WriteBatch::Op::kPut ||
              ((e.op == WriteBatch::Op::kDelete || e.value.empty()) && !e.meta.expire_at_ms),
          "a wipe with a value, or a delete or wipe with an expiry");
    entries.push_back({e.op, std::string(e.key), std::string(e.value), e.meta});
  }
  std::vector<Decoded> entries;
};

// Decodes `rep`; nullopt if refused (a Corruption).
std::optional<std::vector<Decoded>> Decode(std::string_view rep) {
  WriteBatch batch;
  const Status s = WriteBatch::FromRep(rep, &batch);
  if (!s.ok()) {
    Check(s.IsCorruption(), "a refused batch is not a Corruption");
    return std::nullopt;
  }
  Collector collector;
  Check(batch.Iterate(&collector).ok(), "an accepted batch failed to iterate");
  Check(collector.entries.size() == batch.Count(), "entries differ from the count");
  Check(batch.rep() == rep, "the accepted encoding was not kept as it is");
  return collector.entries;
}

WriteBatch Encode(const std::vector<Decoded>& entries) {
  WriteBatch batch;
  for (const Decoded& e : entries) {
    WriteOptions options;
    options.timestamp_ms = e.meta.timestamp_ms;
    options.expire_at_ms = e.meta.expire_at_ms;
    switch (e.op) {
      case WriteBatch::Op::kPut:
        batch.Put(options, e.key, e.value, /*now_ms=*/0);
        break;
      case WriteBatch::Op::kDelete:
        batch.Delete(options, e.key, e.value);
        break;
      case WriteBatch::Op::kWipe:
        batch.Wipe(options, e.key);
        break;
      case WriteBatch::Op::kDeleteRange:
        batch.DeleteRange({e.key, e.value});
        break;
    }
  }
  return batch;
}

void Raw(const std::string& rep) {
  const auto entries = Decode(rep);
  if (!entries) return;
  const WriteBatch rebuilt = Encode(*entries);
  const auto again = Decode(rebuilt.rep());
  Check(again && *again == *entries, "a rebuilt batch decodes differently");
}

void Written(FuzzedDataProvider& fdp) {
  std::vector<Decoded> entries;
  const size_t count = fdp.ConsumeIntegralInRange<size_t>(0, 20);
  for (size_t i = 0; i < count && fdp.remaining_bytes() > 0; ++i) {
    Decoded e;
    e.op = fdp.PickValueInArray({WriteBatch::Op::kPut, WriteBatch::Op::kDelete,
                                 WriteBatch::Op::kWipe, WriteBatch::Op::kDeleteRange});
    e.key = fdp.ConsumeRandomLengthString(64);
    if (e.op == WriteBatch::Op::kDeleteRange) {
      e.value = fdp.ConsumeRandomLengthString(64);  // the range's end
      entries.push_back(std::move(e));
      continue;
    }
    if (fdp.ConsumeBool()) e.meta.timestamp_ms = fdp.ConsumeIntegral<int64_t>();
    if (e.op == WriteBatch::Op::kPut) {
      e.value = fdp.ConsumeRandomLengthString(300);
      if (fdp.ConsumeBool()) e.meta.expire_at_ms = fdp.ConsumeIntegral<int64_t>();
    } else if (e.op == WriteBatch::Op::kDelete && fdp.ConsumeBool()) {
      e.value = fdp.ConsumeRandomLengthString(64);  // a reduced dead version's rank
    }
    entries.push_back(std::move(e));
  }
  const WriteBatch batch = Encode(entries);
  const auto clean = Decode(batch.rep());
  Check(clean && *clean == entries, "an untouched batch did not decode to what was written");
  if (batch.rep().empty()) return;
  std::string bad = batch.rep();
  const bool cut = fdp.ConsumeBool();
  if (cut) {
    bad.resize(fdp.ConsumeIntegralInRange<size_t>(0, bad.size() - 1));
    Check(!Decode(bad).has_value() || entries.empty(), "a cut batch was accepted");
  } else {
    const size_t pos = fdp.ConsumeIntegralInRange<size_t>(0, bad.size() - 1);
    bad[pos] = static_cast<char>(bad[pos] ^ fdp.ConsumeIntegralInRange<uint8_t>(1, 255));
    Raw(bad);  // may decode (a changed value byte) or not; it must never crash
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  if (fdp.ConsumeBool()) {
    Raw(fdp.ConsumeRemainingBytesAsString());
  } else {
    Written(fdp);
  }
  return 0;
}
