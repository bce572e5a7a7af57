// libFuzzer target for RESTORE's payload (types/dump_codec.h, docs/dump-format.md): a client
// sends it, so it is hostile, and its checksum keeps out no one who computes one.
//
// The input is a payload without its checksum; the target appends the right one, so every input
// reaches the decoder's body. What DecodeDump accepts must encode (EncodeDump) to a payload that
// decodes and encodes to the same bytes. Then the payload goes through a server (an in-process
// CommandRunner, its clock fixed): `RESTORE k 0 <payload> REPLACE` gets exactly one well-formed
// reply; when it restores, the key's DUMP is a payload RESTORE takes again under another key,
// whose DUMP is the same; and the keyspace holds together (keyspace_checks.h: DBSIZE equals a
// whole SCAN, every log's TLOG SIZE equals what TLOG GET returns).
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/util/coding.h"
#include "storage/util/crc32c.h"
#include "tests/fuzz/keyspace_checks.h"
#include "tests/support/command_runner.h"
#include "types/dump_codec.h"

namespace {

using ebb::fuzz::Check;
using ebb::fuzz::CheckInvariants;
using ebb::fuzz::Run;
using ebb::test::CommandRunner;
using ebb::test::Reply;

constexpr int64_t kClockMs = 1700000000000;

// The payload's codec alone: an accepted payload's encoding is a fixed point.
void CheckCodec(const std::string& payload) {
  ebb::types::KeyDump dump;
  if (ebb::types::DecodeDump(payload, &dump) != ebb::types::DumpDecode::kOk) return;
  const std::string encoded = ebb::types::EncodeDump(dump);
  ebb::types::KeyDump again;
  Check(ebb::types::DecodeDump(encoded, &again) == ebb::types::DumpDecode::kOk,
        "an accepted payload's encoding is refused", {"RESTORE"});
  Check(ebb::types::EncodeDump(again) == encoded,
        "an accepted payload's encoding does not read back to itself", {"RESTORE"});
}

// RESTORE through the server, then DUMP and RESTORE again.
void CheckServer(CommandRunner& ebb, const std::string& payload) {
  Reply reply;
  Run(ebb, {"RESTORE", "k", "0", payload, "REPLACE"}, &reply);
  if (reply.is_status()) {
    Reply dumped;
    Run(ebb, {"DUMP", "k"}, &dumped);
    // A restored key may be one a read does not see (expired, or a tombstone): no DUMP then.
    if (dumped.is_string()) {
      Run(ebb, {"RESTORE", "k2", "0", dumped.str(), "REPLACE"}, &reply);
      Check(reply.is_status(), "RESTORE refuses what DUMP made", {"RESTORE", "k2", "0", "..."});
      Reply again;
      Run(ebb, {"DUMP", "k2"}, &again);
      Check(again.is_string() && again.str() == dumped.str(), "a restored DUMP dumps differently",
            {"DUMP", "k2"});
    }
  }
  CheckInvariants(ebb);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static CommandRunner* const ebb = new CommandRunner();
  std::string payload(reinterpret_cast<const char*>(data), size);
  ebb::storage::PutFixed32(&payload, ebb::storage::crc32c::Value(payload));
  CheckCodec(payload);
  Run(*ebb, {"RESET"});
  Run(*ebb, {"FLUSHALL"});
  Run(*ebb, {"DEBUG", "CLOCK", "SET", std::to_string(kClockMs)});
  CheckServer(*ebb, payload);
  return 0;
}
