// libFuzzer target for storage::LogReader (the WAL and manifest framing).
//
// Two modes, chosen by the first byte:
//  - raw: the rest of the input is a log file. Reading it must end (bounded), every record
//    returned must fit in the file, offsets must stay within the file and only grow, and the
//    end must be clean, a torn tail (truncation point <= file size, status OK) or a Corruption
//    naming the file and an offset — never a crash or a hang.
//  - written: the input describes records; LogWriter writes them, then the file is truncated
//    and/or one byte is changed. Reading back must return a prefix of the written records
//    (wrong data is never returned); an untouched file returns all of them; a truncated file
//    returns every record that ends before the cut and reports the rest as a torn tail; a
//    changed byte is never silently skipped (unless all records still come back intact); a run
//    of zeros (a torn write) read as WAL replay reads it keeps every record before the zeros.
//  In both modes WAL replay's reading (LogReader with torn writes) returns the same records as
//  the strict one and differs only by ending at a torn write where the strict one refuses.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "storage/util/coding.h"
#include "storage/util/crc32c.h"
#include "storage/wal/log_format.h"
#include "storage/wal/log_reader.h"
#include "storage/wal/log_writer.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_files.h"

namespace {

using ebb::fuzz::StringSequentialFile;
using ebb::fuzz::StringSink;
using ebb::storage::LogReader;
using ebb::storage::LogWriter;
using ebb::storage::Status;

constexpr char kName[] = "fuzz.log";

using ebb::fuzz::Check;

struct ReadOutcome {
  std::vector<std::string> records;
  Status status;
  bool torn = false;
  uint64_t torn_offset = 0;
  bool torn_write = false;
};

// Reads every record of `file` and checks what holds for any input.
ReadOutcome ReadChecked(const std::string& file, size_t max_chunk, bool torn_writes = false) {
  LogReader reader(std::make_unique<StringSequentialFile>(file, max_chunk), kName, torn_writes);
  ReadOutcome out;
  std::string record;
  uint64_t last_end = 0;
  bool ended = false;
  // Every record (even an empty one) takes at least a 7-byte header.
  for (size_t guard = 0; guard <= file.size() / 7 + 1; ++guard) {
    if (!reader.ReadRecord(&record, &out.status)) {
      ended = true;
      break;
    }
    Check(out.status.ok(), "a record came with an error status");
    Check(record.size() <= file.size(), "record larger than the file");
    Check(reader.LastRecordEndOffset() > last_end, "record end offset did not grow");
    Check(reader.LastRecordEndOffset() <= file.size(), "record end offset past the file");
    last_end = reader.LastRecordEndOffset();
    out.records.push_back(record);
  }
  Check(ended, "more records than the file has headers");
  Status again;
  Check(!reader.ReadRecord(&record, &again), "a record after the end");
  out.torn = reader.torn_tail();
  out.torn_offset = reader.torn_tail_offset();
  out.torn_write = reader.torn_write();
  Check(!out.torn_write || (torn_writes && out.torn), "a torn write the reader may not report");
  if (!out.status.ok()) {
    Check(out.status.IsCorruption(), "a memory file produced a non-corruption error");
    Check(out.status.message().rfind(std::string(kName) + ": ", 0) == 0,
          "corruption does not name the file");
    Check(out.status.message().find(" at offset ") != std::string::npos,
          "corruption does not name an offset");
    Check(!out.torn, "both torn tail and corruption");
  }
  if (out.torn) {
    Check(out.torn_offset == reader.LastRecordEndOffset(), "torn offset != last record end");
    Check(out.torn_offset <= file.size(), "torn offset past the file");
  }
  return out;
}

// WAL replay's reading (zeros then records are a torn write) differs from the strict one only
// where the strict one reports a Corruption: it then returns the same records and ends there.
void CheckTornWriteReading(const std::string& file, const ReadOutcome& strict, size_t max_chunk) {
  const ReadOutcome lenient = ReadChecked(file, max_chunk, /*torn_writes=*/true);
  Check(lenient.records == strict.records, "torn-write reading returned other records");
  if (lenient.torn_write) {
    Check(strict.status.IsCorruption(), "a torn write the strict reading did not refuse");
  } else {
    Check(lenient.status.ToString() == strict.status.ToString() && lenient.torn == strict.torn &&
              lenient.torn_offset == strict.torn_offset,
          "torn-write reading differs without a torn write");
  }
}

// True if a valid physical record (checksum, type 1..4) in file[from, file.size()) ends exactly
// where the file's data ends (before any zero-filled rest), or the header at `from` has a
// checksum matching a length that differs from the stated one in one byte. Then the reader may
// call the cut record complete-but-damaged rather than torn (docs/wal-format.md, rules 4-5).
bool CutLooksLikeDamage(const std::string& file, size_t from) {
  size_t end = file.size();
  while (end > from && file[end - 1] == 0) --end;
  auto length_at = [&](size_t p) {
    return static_cast<size_t>(static_cast<uint8_t>(file[p + 4]) |
                               (static_cast<uint8_t>(file[p + 5]) << 8));
  };
  for (size_t p = from; p + ebb::storage::log::kHeaderSize <= file.size(); ++p) {
    const uint8_t type = static_cast<uint8_t>(file[p + 6]);
    const size_t len = length_at(p);
    if (type == 0 || type > ebb::storage::log::kMaxRecordType) continue;
    if (p + 7 + len < end || p + 7 + len > file.size()) continue;
    const uint32_t crc = ebb::storage::crc32c::Unmask(ebb::storage::DecodeFixed32(&file[p]));
    if (ebb::storage::crc32c::Value(&file[p + 6], 1 + len) == crc) return true;
  }
  if (from + 7 > file.size()) return false;
  const size_t stated = length_at(from);
  const uint32_t crc = ebb::storage::crc32c::Unmask(ebb::storage::DecodeFixed32(&file[from]));
  for (size_t len = 0; from + 7 + len <= file.size(); ++len) {
    if (len != stated && ((len & 0xff) == (stated & 0xff) || (len >> 8) == (stated >> 8)) &&
        ebb::storage::crc32c::Value(&file[from + 6], 1 + len) == crc) {
      return true;
    }
  }
  return false;
}

bool IsPrefix(const std::vector<std::string>& prefix, const std::vector<std::string>& all) {
  if (prefix.size() > all.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (prefix[i] != all[i]) return false;
  }
  return true;
}

void Written(FuzzedDataProvider& fdp, size_t max_chunk) {
  std::string file;
  std::vector<std::string> records;
  std::vector<uint64_t> ends;  // file size after each record
  {
    LogWriter writer(std::make_unique<StringSink>(&file));
    const size_t count = fdp.ConsumeIntegralInRange<size_t>(0, 16);
    for (size_t i = 0; i < count && fdp.remaining_bytes() > 0; ++i) {
      std::string r = fdp.ConsumeRandomLengthString(256);
      // Some records are long (repeated) so they span 32 KiB blocks as FIRST/MIDDLE/LAST.
      const size_t repeat = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<size_t>(1, 600) : 1;
      std::string rec;
      for (size_t k = 0; k < repeat; ++k) rec += r;
      Check(writer.AddRecord(rec).ok(), "AddRecord to memory failed");
      records.push_back(std::move(rec));
      ends.push_back(writer.Size());
    }
    Check(writer.Close().ok(), "Close failed");
  }
  const ReadOutcome clean = ReadChecked(file, max_chunk);
  Check(clean.status.ok() && !clean.torn && clean.records == records,
        "an untouched log did not read back exactly");

  const int damage = fdp.ConsumeIntegralInRange<int>(0, 3);
  if (file.empty()) return;
  if (damage == 3) {
    // A torn write: a run of the file reads as zeros (pages that never reached the disk).
    const size_t from = fdp.ConsumeIntegralInRange<size_t>(0, file.size() - 1);
    const size_t to = fdp.ConsumeIntegralInRange<size_t>(from + 1, file.size());
    std::string torn = file;
    std::fill(torn.begin() + static_cast<ptrdiff_t>(from),
              torn.begin() + static_cast<ptrdiff_t>(to), '\0');
    const ReadOutcome strict = ReadChecked(torn, max_chunk);
    const ReadOutcome got = ReadChecked(torn, max_chunk, /*torn_writes=*/true);
    Check(IsPrefix(got.records, records), "torn write returned wrong data");
    size_t before = 0;  // records that end before the zeros
    while (before < ends.size() && ends[before] <= from) ++before;
    if (got.status.ok()) Check(got.records.size() >= before, "a record before the tear was lost");
    CheckTornWriteReading(torn, strict, max_chunk);
    return;
  }
  if (damage == 0) {
    // Truncate: a crash cut the file.
    const size_t cut = fdp.ConsumeIntegralInRange<size_t>(0, file.size());
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    const ReadOutcome got = ReadChecked(file.substr(0, cut), max_chunk);
    Check(IsPrefix(got.records, records), "truncated log returned wrong data");
    const size_t torn_start = complete > 0 ? ends[complete - 1] : 0;
    Check(got.status.ok() || CutLooksLikeDamage(file.substr(0, cut), torn_start),
          "truncation reported as corruption");
    Check(got.records.size() == complete, "truncated log lost a complete record");
    if (got.torn) {
      Check(got.torn_offset == (complete > 0 ? ends[complete - 1] : 0), "torn offset is wrong");
    }
  } else {
    // Change one byte (damage == 2: also cut the file after it).
    const size_t pos = fdp.ConsumeIntegralInRange<size_t>(0, file.size() - 1);
    const uint8_t x = fdp.ConsumeIntegralInRange<uint8_t>(1, 255);
    std::string bad = file;
    bad[pos] = static_cast<char>(bad[pos] ^ x);
    if (damage == 2) bad.resize(fdp.ConsumeIntegralInRange<size_t>(pos + 1, bad.size()));
    const ReadOutcome got = ReadChecked(bad, max_chunk);
    Check(IsPrefix(got.records, records), "damaged log returned wrong data");
    if (got.status.ok() && !got.torn && damage == 1) {
      Check(got.records.size() == records.size(), "damage skipped silently");
    }
    CheckTornWriteReading(bad, got, max_chunk);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const bool raw = fdp.ConsumeBool();
  const size_t max_chunk =
      fdp.ConsumeBool() ? 1 << 20 : fdp.ConsumeIntegralInRange<size_t>(1, 4096);
  if (raw) {
    const std::string file = fdp.ConsumeRemainingBytesAsString();
    const ReadOutcome got = ReadChecked(file, max_chunk);
    const ReadOutcome whole = ReadChecked(file, 1 << 20);
    Check(got.records == whole.records && got.torn == whole.torn &&
              got.status.ToString() == whole.status.ToString(),
          "short reads changed the outcome");
    CheckTornWriteReading(file, got, max_chunk);
    size_t bytes = 0;
    for (const auto& r : got.records) bytes += r.size();
    Check(bytes <= file.size(), "records hold more bytes than the file");
  } else {
    Written(fdp, max_chunk);
  }
  return 0;
}
