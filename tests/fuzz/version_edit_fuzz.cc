// libFuzzer target for storage::VersionEdit's decoder (each record of a MANIFEST, which open
// replays to learn the live tables and the counters).
//
// Two modes, chosen by the first byte:
//  - raw: the rest of the input is one edit record. DecodeFrom either refuses it with a
//    Corruption naming the manifest, or accepts it; an accepted edit holds only levels below
//    kNumLevels, and encoding it and decoding that again gives the same edit.
//  - written: the input describes an edit (counters, deleted and added tables with their time
//    facts); its encoding decodes to exactly that edit, and a cut or a changed byte never
//    crashes the decoder.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "storage/db/version_edit.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ebb::storage::FileMetaData;
using ebb::storage::kNumLevels;
using ebb::storage::Status;
using ebb::storage::VersionEdit;

constexpr char kWhere[] = "MANIFEST-000001";

using ebb::fuzz::Check;

bool SameFile(const FileMetaData& a, const FileMetaData& b) {
  return a.number == b.number && a.file_size == b.file_size && a.smallest == b.smallest &&
         a.largest == b.largest && a.props.entries == b.props.entries &&
         a.props.tombstones == b.props.tombstones &&
         a.props.min_timestamp == b.props.min_timestamp &&
         a.props.max_timestamp == b.props.max_timestamp &&
         a.props.min_expire_at == b.props.min_expire_at &&
         a.props.max_expire_at == b.props.max_expire_at &&
         a.props.has_non_expiring == b.props.has_non_expiring &&
         a.props.min_sequence == b.props.min_sequence &&
         a.props.max_sequence == b.props.max_sequence &&
         a.props.expired_at_write == b.props.expired_at_write &&
         a.props.meta_features == b.props.meta_features;
}

bool Same(const VersionEdit& a, const VersionEdit& b) {
  if (a.log_number() != b.log_number() || a.next_file_number() != b.next_file_number() ||
      a.last_sequence() != b.last_sequence() || a.deleted_files() != b.deleted_files() ||
      a.new_files().size() != b.new_files().size()) {
    return false;
  }
  for (size_t i = 0; i < a.new_files().size(); ++i) {
    if (a.new_files()[i].first != b.new_files()[i].first ||
        !SameFile(a.new_files()[i].second, b.new_files()[i].second)) {
      return false;
    }
  }
  return true;
}

std::optional<VersionEdit> Decode(std::string_view record) {
  VersionEdit edit;
  const Status s = edit.DecodeFrom(record, kWhere);
  if (!s.ok()) {
    Check(s.IsCorruption(), "a refused edit is not a Corruption");
    Check(s.message().rfind(std::string(kWhere) + ": ", 0) == 0, "the error names no manifest");
    return std::nullopt;
  }
  for (const auto& [level, number] : edit.deleted_files()) {
    Check(level >= 0 && level < kNumLevels, "a deleted table at a bad level");
  }
  for (const auto& [level, f] : edit.new_files()) {
    Check(level >= 0 && level < kNumLevels, "an added table at a bad level");
  }
  return edit;
}

void Raw(const std::string& record) {
  const auto edit = Decode(record);
  if (!edit) return;
  std::string encoded;
  edit->EncodeTo(&encoded);
  const auto again = Decode(encoded);
  Check(again && Same(*again, *edit), "an accepted edit re-encodes differently");
}

void Written(FuzzedDataProvider& fdp) {
  VersionEdit edit;
  if (fdp.ConsumeBool()) edit.SetLogNumber(fdp.ConsumeIntegral<uint64_t>());
  if (fdp.ConsumeBool()) edit.SetNextFileNumber(fdp.ConsumeIntegral<uint64_t>());
  if (fdp.ConsumeBool()) edit.SetLastSequence(fdp.ConsumeIntegral<uint64_t>());
  const size_t deleted = fdp.ConsumeIntegralInRange<size_t>(0, 8);
  for (size_t i = 0; i < deleted; ++i) {
    edit.RemoveFile(fdp.ConsumeIntegralInRange<int>(0, kNumLevels - 1),
                    fdp.ConsumeIntegral<uint64_t>());
  }
  const size_t added = fdp.ConsumeIntegralInRange<size_t>(0, 8);
  for (size_t i = 0; i < added && fdp.remaining_bytes() > 0; ++i) {
    FileMetaData f;
    f.number = fdp.ConsumeIntegral<uint64_t>();
    f.file_size = fdp.ConsumeIntegral<uint64_t>();
    f.smallest = fdp.ConsumeRandomLengthString(40);
    f.largest = fdp.ConsumeRandomLengthString(40);
    f.props.entries = fdp.ConsumeIntegral<uint64_t>();
    f.props.tombstones = fdp.ConsumeIntegral<uint64_t>();
    f.props.min_timestamp = fdp.ConsumeIntegral<int64_t>();
    f.props.max_timestamp = fdp.ConsumeIntegral<int64_t>();
    f.props.min_expire_at = fdp.ConsumeIntegral<int64_t>();
    f.props.max_expire_at = fdp.ConsumeIntegral<int64_t>();
    f.props.has_non_expiring = fdp.ConsumeBool();
    f.props.min_sequence = fdp.ConsumeIntegral<uint64_t>();
    f.props.max_sequence = fdp.ConsumeIntegral<uint64_t>();
    f.props.expired_at_write = fdp.ConsumeIntegral<uint64_t>();
    f.props.meta_features = fdp.ConsumeIntegral<uint8_t>();
    edit.AddFile(fdp.ConsumeIntegralInRange<int>(0, kNumLevels - 1), f);
  }
  std::string encoded;
  edit.EncodeTo(&encoded);
  const auto clean = Decode(encoded);
  Check(clean && Same(*clean, edit), "an untouched edit did not decode to what was written");
  if (encoded.empty()) return;
  std::string bad = encoded;
  if (fdp.ConsumeBool()) {
    bad.resize(fdp.ConsumeIntegralInRange<size_t>(0, bad.size() - 1));
  } else {
    const size_t pos = fdp.ConsumeIntegralInRange<size_t>(0, bad.size() - 1);
    bad[pos] = static_cast<char>(bad[pos] ^ fdp.ConsumeIntegralInRange<uint8_t>(1, 255));
  }
  Raw(bad);
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
