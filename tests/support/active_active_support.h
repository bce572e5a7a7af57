// Helpers for tests of active-active meshes of spawned ebb-servers (docs/active-active.md): the
// `--peer` arguments, partitions with DEBUG PEER-LINK, a bounded wait for every node to reach
// the same DEBUG DIGEST-LOGICAL, and a node's origin log read as a peer reads it, to be given to
// another node in an order of the test's choosing (DEBUG PEER-APPLY).
// Thread-safety: none; use from the test's thread.
#pragma once

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "server/active_active/peer_delta.h"
#include "tests/support/reply.h"
#include "tests/support/test_server.h"

namespace ebb::test {

// The delta a stream message carries (["delta", <its encoding>], server/active_active/peer_delta.h:
// AppendDeltaFrame), decoded; nullopt for any other message or one that does not decode.
std::optional<server::PeerDelta> StreamedDelta(const Reply& message);
// A delta of an origin's log at `offset` (origin clock 1), framed as an origin sends it.
std::string DeltaFrame(uint64_t offset, int db, std::vector<std::string> args);

// DEBUG DIGEST-LOGICAL of the node (through DigestReply: a slow reply does not break `c`).
std::string LogicalDigest(redisContext* c);

// `--peer 127.0.0.1 <port>` for each of `others`.
std::vector<std::string> PeerArgs(const std::vector<const TestServer*>& others);

// Polls (every 20 ms, up to `timeout`) until every connection answers the same logical digest;
// "" then, else the digests seen last.
std::string WaitConverged(const std::vector<redisContext*>& nodes,
                          std::chrono::milliseconds timeout = std::chrono::milliseconds(15000));

// Where two nodes' logical contents differ, for a failure message: each key of database 0 that
// either holds whose TYPE, value (GET, TLOG GET, TREG GET), PTTL or TLOG CUTOFF differs, with
// both sides' answers ("" when they answer alike).
std::string LogicalDifference(redisContext* a, redisContext* b);

// Pauses (up = false) or resumes the stream `node` pulls from `peer`, one direction (DEBUG
// PEER-LINK); true when the node answers OK.
bool SetPull(redisContext* node, const TestServer& peer, bool up);
// Cuts (up = false) or heals the link between two nodes, both directions (DEBUG PEER-LINK).
// Asserts (gtest) that both nodes answer OK.
void SetLink(redisContext* a, const TestServer& a_server, redisContext* b,
             const TestServer& b_server, bool up);

// A loopback port the test binds and never listens on: a connection to it is refused, and no
// server of a test running beside this one can take it while the object lives. A node started
// with it as its `peer` enters active-active mode and never reaches a peer.
class RefusingPort {
 public:
  RefusingPort();
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  // 0 when no port could be bound.
  int port() const { return port_; }
  // `--peer 127.0.0.1 <port>`.
  std::vector<std::string> PeerArgs() const;

 private:
  int fd_ = -1;
  int port_ = 0;
};

// The system rows (docs/key-encoding.md: `0x00 | name`) whose names begin with `prefix`, read
// from the engine in `dir`, the data directory of a stopped node, with `grace_ms` of retrieval
// grace (so that a row compaction kept, expired or not, counts): name -> value. Asserts (gtest)
// that the engine opens and the walk ends well.
std::map<std::string, std::string> StoppedNodeSystemRows(const std::string& dir,
                                                         std::string_view prefix,
                                                         int64_t grace_ms = 0);

// One delta of a node's origin log: the canonical command, its database and its origin's id.
struct LoggedDelta {
  std::string origin;
  uint64_t offset = 0;
  int db = 0;
  std::vector<std::string> args;
};

// Every delta `node` originated, from offset 1 to its end, read as a peer's link reads them
// (PEER SYNC with a node id of the test's, ticks skipped), each read bounded by the connection's
// 5 s timeout. Asserts (gtest) that the stream starts at offset 1 and has no gap; a failure
// returns what was read. `from_first`: from the first offset its log holds instead (INFO peers
// origin_log_first).
std::vector<LoggedDelta> ReadOriginLog(const TestServer& node, bool from_first = false);

// The pieces of the snapshot `node` sends a peer that asks for offset 0 (PEER SYNC with a node id
// of the test's), each as [db, kind, arg, ...] in the order sent, up to `snapend` (ticks skipped),
// each read bounded by the connection's 5 s timeout. Asserts (gtest) that the node answers
// +SNAPSHOT and that every message is a piece; a failure returns what was read.
std::vector<std::vector<std::string>> ReadSnapshotPieces(const TestServer& node);

// Every delta a mesh's nodes logged, each once, for a reference node (ApplyInOrder): what each
// node's log holds past the offset collected last of its origin. An offset names one delta only
// while the origin's log keeps what it streamed: a node restored from a copy of its data
// directory (or whose power was cut) that no peer catches keeps its id and gives the offsets
// after its log's end again, to new deltas — as when every peer that knew how far that id had
// streamed has since forgotten it, taking a new incarnation of its own (docs/active-active.md,
// "A node behind what it streamed"). The mesh applies both histories, so the reference must get
// both: Rewound, once such a node's id is settled and before anything is written to it.
class DeltaCollector {
 public:
  // Adds what `node`'s log holds (from its first offset) past what was collected of its origin.
  void Collect(const TestServer& node);
  // `node` came back on an older log: if it kept an id already collected past its log's end,
  // the offsets after that end name new deltas from now on.
  void Rewound(const TestServer& node);
  const std::vector<LoggedDelta>& deltas() const { return deltas_; }

 private:
  std::vector<LoggedDelta> deltas_;
  std::map<std::string, uint64_t> collected_;  // origin id -> last offset in deltas_
};

// Applies each of `deltas` to `node` in the order given, as if each came from its origin
// (DEBUG PEER-APPLY with its offset: the merge gate, no applied vector). Asserts (gtest) that each
// is applied.
void ApplyInOrder(redisContext* node, const std::vector<LoggedDelta>& deltas);

// `deltas` in a random interleaving of their origins that keeps each origin's deltas in the
// order given, as links give them (each origin's in its order, the origins' mixed in any way),
// with each `collect` after every delta its C covers, as every node applies them (a collect's C
// was applied everywhere before it was made; docs/active-active.md, "Collects").
std::vector<LoggedDelta> InterleaveOrigins(const std::vector<LoggedDelta>& deltas,
                                           std::mt19937_64& rng);

// One delta for DEBUG PEER-APPLY into database 0 with its dot: its origin, its offset, and its
// form, in which "K" stands for the key.
struct DottedDelta {
  const std::string* from;
  uint64_t offset;
  std::vector<std::string> args;
};
// Gives `deltas` to two nodes in every order of them, each order to a key of its own ("k0",
// "k1", ...): forwards to `forwards`, in that order to `ordered`; asserts (gtest) that each is
// applied and that the key then reads `value` on `ordered`. Returns the number of orders.
int ApplyInEveryOrder(redisContext* forwards, redisContext* ordered,
                      const std::vector<DottedDelta>& deltas, const std::string& value);

// A random write of a mesh test: small key, value and timestamp ranges, so versions tie and
// types collide on the key "mix" and on the logs "w*", which kNodeOptions' ttl-rule gives a
// retention window shorter than a test (150 ms), so they pass it while strings are written on
// them; whole-key deletes of one or two keys of any type, and now and then FLUSHDB; expiry
// changes (PEXPIREAT, EXPIRE with and without NX/XX/GT/LT, PERSIST), half of them to logs.
// `expect_refused` is set for a command the mode refuses (APPEND); counters "c*" take INCR,
// INCRBY, DECRBY and SET, and "f*" INCRBYFLOAT — with Counters::kNone (for nodes under
// `active-active-string-rule observed-remove`, which refuses the INCR family) "c*" and "f*"
// take SET instead. Timestamps lie within 200 ms of
// `now`, which a test moves on by 1 ms a write from kClockBase, where it pins the nodes' clocks
// (DEBUG CLOCK SET): ahead of the real clock, so a node applying deltas before its clock is
// pinned sees the same rows live. A delete, at its origin's clock or the newest timestamp the
// key holds there, then has writes on both sides of it.
inline constexpr int64_t kClockBase = 4'000'000'000'000;
// The nodes' options for RandomWrite: small memtables (flushes and compactions during a test),
// and the logs' window.
extern const std::vector<std::string> kNodeOptions;
enum class Counters { kIncluded, kNone };
std::vector<std::string> RandomWrite(std::mt19937_64& rng, int64_t now, bool* expect_refused,
                                     Counters counters = Counters::kIncluded);

}  // namespace ebb::test
