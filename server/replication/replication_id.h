// ReplicationIds: a server's replication history as PSYNC judges it — Redis's replid, replid2
// and second_repl_offset (docs/replication.md, "Offsets, replid").
//
// replid names the stream this server produces (as a master) or follows (as a replica). After a
// promotion replid2 is the old master's ID and second_offset the first offset this server did
// not receive from it: a replica of the old master that asks `PSYNC <replid2> <o>` with
// o <= second_offset is on the same history and may continue.
// Thread-safety: none (the io thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::server {

struct ReplicationIds {
  // 40 random lower-case hex characters (Redis's CONFIG_RUN_ID_SIZE): core/random_id.h.
  static std::string NewId();
  // The ID Redis shows while there is no second history.
  static constexpr std::string_view kNoId = "0000000000000000000000000000000000000000";

  std::string replid = NewId();
  std::string replid2 = std::string(kNoId);
  int64_t second_offset = -1;  // INFO's second_repl_offset; -1: none

  // True when `PSYNC <asked_id> <offset>` continues this history: asked_id is replid, or it is
  // replid2 and offset <= second_offset. (Whether the bytes are still held is the backlog's
  // question.)
  bool SameHistory(std::string_view asked_id, uint64_t offset) const {
    if (asked_id == replid) return true;
    return asked_id == replid2 && second_offset >= 0 &&
           offset <= static_cast<uint64_t>(second_offset);
  }
  // A promotion (REPLICAOF NO ONE) at stream offset `end_offset`: the current ID becomes the
  // second one, valid up to end_offset + 1, and a new ID starts.
  void Shift(uint64_t end_offset) {
    replid2 = replid;
    second_offset = static_cast<int64_t>(end_offset) + 1;
    replid = NewId();
  }
  // Forgets the second history (a full resynchronisation adopts the master's ID).
  void ClearSecond() {
    replid2 = std::string(kNoId);
    second_offset = -1;
  }
};

}  // namespace ebb::server
