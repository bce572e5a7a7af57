// Treg: the TREG data type (timestamped register, last write wins) over the engine.
//
// Data model (docs/key-encoding.md, "TREG"): the register lives entirely in its metadata row,
// payload = fixed64-LE ts | value bytes. SET is one metadata read and, when the write wins, one
// write; GET is one read. Answers exactly as the reference model TregState (types/treg_state.h).
// Writes stamp the metadata row with a timestamp >= every version of the key
// (Keyspace::TypeWriteTimestamp), so an accepted SET wins under every grace. The expiry: a TTL
// policy (ttl-rule, default-ttl) gives each accepted SET expire_at = now + ttl; without one a
// SET keeps the key's whole-key expiry.
// Thread-safety: like Keyspace — used from the server's command thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/status.h"
#include "types/keyspace.h"
#include "types/op_result.h"
#include "types/treg_state.h"

namespace ebb::types {

// The metadata payload of a TREG (without the type byte). on-disk: never change.
std::string EncodeTregPayload(std::string_view value, uint64_t ts);
// False if shorter than the 8-byte timestamp. *value views `payload`'s bytes.
bool DecodeTregPayload(std::string_view payload, std::string_view* value, uint64_t* ts);

class Treg {
 public:
  // REQUIRES: 0 <= db < kMaxDatabases.
  Treg(Keyspace& keyspace, int db) : keyspace_(keyspace), db_(db) {}

  // TREG SET: takes effect when the key is absent, ts > current ts, or ts == current ts and
  // value > current value (bytewise unsigned); otherwise ignored. kWrongType.
  OpResult<void> Set(std::string_view key, std::string_view value, uint64_t ts);
  // TREG GET: the register's state. kNotFound, kWrongType.
  OpResult<TregState> Get(std::string_view key);
  // Get without a copy of the value: *value views row->payload (valid while *row lives).
  // kNotFound, kWrongType.
  OpResult<void> GetPinned(std::string_view key, KeyMetaView* row, std::string_view* value,
                           uint64_t* ts);

 private:
  Keyspace& keyspace_;
  int db_;
};

}  // namespace ebb::types
