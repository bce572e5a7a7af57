// The snapshot an active-active node sends a peer whose offset is no longer in its origin log
// (docs/active-active.md, "Snapshots"): a new peer joining after the log has dropped its first
// deltas, or one that was away (or too slow) for longer than peer-backlog-size deltas.
//
// A snapshot is this node's logical content as canonical deltas — the same operations the
// stream carries, applied by the receiver through the same merge gate, so a snapshot that
// overlaps what the receiver holds changes nothing it should not (every piece is idempotent and
// commutes with every delta). First the whole-key markers (whole_key.h), read from the same
// engine snapshot as the keys (SnapshotMarkerRow), so that each delete removes what the receiver
// held before the content of the keys arrives:
//   a key marker       `marker-at <deleted_up_to> key <floor> [<register ts>
//                      <expire_at>|persist <register origin>]`, applied as the delete, the floor
//                      and the register that made it
//   a database horizon `flushdb-at <T>`
// Then the keys (SnapshotKey):
//   TLOG   `tlog trimat key <cutoff>` (when > 0), then `tlog ins key <value> <ts>` per entry,
//          also the entries an expiry register hides and a log it expired whole (the key's
//          marker gives them the register again)
//   TREG   `treg set key <value> <ts>`
//   string the key's newest version — the greatest, as the merge gate keeps it: a live or expired
//          value as `put key <value> TS <ts> PXAT <expire_at>|NOTTL`, a tombstone as
//          `delete key TS <ts>`
// Then the series' registers, range deletes and compaction rules (series_state.h,
// series_range.h, series_rules_state.h).
//
// On the wire, after `+SNAPSHOT <offset> <byte position>` answers PEER SYNC, each piece is
// ["snap", db, arg0, arg1, ...] — the first the sender's observed vector (kSnapshotVectorPiece),
// then the sender's own last collect (`collect-of`, collect.h) when it has one and the collects it
// knows (`collects-known`), which judge the snapshot's data pieces — and the end is
// ["snapend", offset, byte position]; the stream of deltas from offset + 1 follows on the same
// connection. `offset` is this node's last origin offset when the snapshot began: every delta up to
// it is reflected in what the snapshot holds.
//
// SnapshotSender produces one snapshot on the io thread, a step at a time: the keys come from
// ONE engine snapshot taken with the offset (an iterator per database over it, dead keys
// included: their tombstones and expired versions travel too); each key's content is read when
// its turn comes — it then holds at least what it held at the snapshot, since merges only add to
// a key (a later change arrives again through the stream; applying it twice is harmless). A step
// writes up to kStepBytes and yields to the event loop; while the peer's connection holds more
// than kMaxPendingOutput unsent bytes the sender waits (kWaitMs), so memory stays bounded
// whatever the data's size and the peer's speed.
//
// Thread-safety: the io thread only. The sender must be destroyed before the engine (it holds an
// engine snapshot and an iterator).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/active_active/stable_vector.h"
#include "storage/db.h"
#include "storage/status.h"
#include "types/or_string.h"
#include "types/row_cursor.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

class ServerContext;

// Appends to *pieces the canonical deltas that carry (db, key)'s content as this node holds it
// now (see above); nothing for a key that holds nothing a peer needs (never written, wiped, a
// TLOG its retention window expired; a TREG or TLOG expired by an expiry register is carried).
// Not OK on an engine error.
// Under the observed-remove rule (`observed_remove`), a string key whose data row carries the
// observed-remove extension goes as an `or-string` piece (below) sent by node `sender_node_id`
// (this node's id); under the timestamp rule every string key goes as its newest version.
storage::Status SnapshotKey(types::Keyspace& keyspace, int db, std::string_view key,
                            bool observed_remove, std::string_view sender_node_id,
                            std::vector<std::vector<std::string>>* pieces);

// Appends to *pieces the delta that carries system row `name` = `value` when it is a key marker
// or a database horizon (whole_key.h), and sets *db to that row's database; nothing for a row of
// any other kind. Corruption for a marker or horizon that does not decode.
storage::Status SnapshotMarkerRow(std::string_view name, std::string_view value, int* db,
                                  std::vector<std::vector<std::string>>* pieces);

// A string key under the observed-remove rule as a snapshot carries it (docs/active-active.md,
// "Snapshots"; made by SnapshotKey, applied by ActiveActive::ApplyOrStringPiece): its removed
// context R and each slot with its dot, its version, and its value when it has one, so that the
// receiver joins the sender's state into its own (types/or_string.h: JoinOrState) and holds the
// value of any slot that may win there:
//
//   or-string <key> <R> <n> (<origin> <offset> <kind> <ts> <expire_at> <bytes>){n}
//
// R is a context (types/or_context.h's wire form, the sender as its own origin), canonical: no
// entry for an origin that holds a slot. The n slots follow, ascending by origin, one per origin:
// origin a node id (40 lower-case hex digits), offset an unsigned decimal >= 1, ts a signed 64-bit
// decimal, expire_at one or NOTTL (never; INT64_MAX is only NOTTL), and kind
//   value      bytes: the value
//   reduced    an expired value compaction reduced; bytes: its SHA-256, 64 lower-case hex digits
//   tombstone  a delete's; expire_at NOTTL, bytes empty
// Anything else is refused.
inline constexpr std::string_view kOrStringPiece = "or-string";
struct OrStringPiece {
  std::string key;
  types::OrStringState state;  // R and the slots, each made by types::MakeOrSlot
  // Per slot of state.slots: its value; nullopt for a tombstone or a reduced version.
  std::vector<std::optional<std::string>> values;
};
// The piece's arguments, sent by node `sender_node_id`. REQUIRES: sender_node_id is a node id;
// `piece.state` canonical (types/or_string.h), values as many as slots.
std::vector<std::string> OrStringPieceArgs(const OrStringPiece& piece,
                                           std::string_view sender_node_id);
// `args` (args[0] lower-case) as a piece sent by node `sender_node_id`; false (piece unspecified)
// unless it is exactly the form above and sender_node_id is a node id.
bool ParseOrStringPiece(std::span<const std::string> args, std::string_view sender_node_id,
                        OrStringPiece* piece);

// The first piece of every snapshot: the sender's observed vector when its engine snapshot was
// taken (ActiveActive::ObservedVector, its own id with `offset`), so the receiver can tell a
// version the sender removed from one it never had (docs/active-active.md, "Collection of
// observed-remove deletes"):
//
//   vector (<origin id> <offset>)*
//
// in database 0, as a tick's vector is written (stable_vector.h; ids 40 lower-case hex digits,
// each once, at most kMaxVectorOrigins). Applied by ActiveActive::ApplySnapshot, which refuses
// any other form as malformed and then joins the snapshot without it.
inline constexpr std::string_view kSnapshotVectorPiece = "vector";
std::vector<std::string> SnapshotVectorPieceArgs(const OriginVector& observed);

// The user key a snapshot piece `args` (args[0] its kind, any case) is about: the key of every
// piece above but `flushdb-at` and the vector, which name none (nullopt), as for anything
// unknown or too short.
std::optional<std::string_view> SnapshotPieceKey(std::span<const std::string> args);

// Appends the wire form of one snapshot piece / of the snapshot's end to *out.
void AppendSnapshotPieceResp(std::string* out, int db, const std::vector<std::string>& args);
void AppendSnapshotEndResp(std::string* out, uint64_t offset, uint64_t byte_position);

class SnapshotSender {
 public:
  static constexpr size_t kStepBytes = 256 * 1024;
  static constexpr size_t kMaxPendingOutput = 4 * 1024 * 1024;
  static constexpr int kWaitMs = 5;

  // Called once, on the io thread, when the snapshot's end has been pushed (true) or the
  // transfer stopped (false: the client went, or an engine error closed it).
  using Done = std::function<void(SnapshotSender* sender, bool complete)>;

  // Sends to client `client_id` the snapshot of databases 0..databases-1 that corresponds to
  // origin offset `offset` (this node's end offset now) at byte position `byte_position`, and to
  // `observed`, this node's observed vector now (its own id with `offset`); `sender_node_id`:
  // this node's id. `collect_pieces`: this node's last collect as a `collect-of` piece and the
  // join of the collects it knows as a `collects-known` piece (collect.h; each left out while
  // empty), sent right after the vector.
  // REQUIRES: called on the io thread, with no keyspace batch open.
  SnapshotSender(ServerContext* context, boost::asio::io_context& io, uint64_t client_id,
                 std::string peer_id, std::string sender_node_id, uint64_t offset,
                 uint64_t byte_position, OriginVector observed,
                 std::vector<std::vector<std::string>> collect_pieces, Done done);
  ~SnapshotSender();
  SnapshotSender(const SnapshotSender&) = delete;

  void Start();

  uint64_t client_id() const { return client_id_; }
  const std::string& peer_id() const { return peer_id_; }
  uint64_t offset() const { return offset_; }
  bool finished() const { return finished_; }
  uint64_t keys_sent() const { return keys_sent_; }

 private:
  void Schedule(int delay_ms);
  void Step();
  // What one phase of the snapshot sends: a database's keys, or the system rows of one prefix.
  struct Phase {
    int db = -1;                     // >= 0: that database's keys
    std::string_view system_prefix;  // otherwise: the rows named with this prefix
  };
  // The phases in the order they are sent (PhasesInOrder says why that order).
  static std::vector<Phase> PhasesInOrder(int databases);
  // Positions cursor_ on the first row of phases_[phase_]; cursor_ is null past the last phase.
  void OpenPhase();
  // phase_ is a database's keys.
  bool DatabasePhase() const;
  // Appends the pieces of the row cursor_ is on; *db: their database.
  storage::Status PiecesOfRow(int* db, std::vector<std::vector<std::string>>* pieces);
  void Finish(bool complete);

  ServerContext* context_;
  boost::asio::steady_timer timer_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  const uint64_t client_id_;
  const std::string peer_id_;
  const std::string sender_node_id_;
  const uint64_t offset_;
  const uint64_t byte_position_;
  OriginVector observed_;  // sent first (kSnapshotVectorPiece), then cleared
  std::vector<std::vector<std::string>> collect_pieces_;  // sent next, then cleared
  bool vector_sent_ = false;
  Done done_;
  const storage::Snapshot* snapshot_ = nullptr;
  std::unique_ptr<types::RowCursor> cursor_;
  const std::vector<Phase> phases_;
  size_t phase_ = 0;
  bool finished_ = false;
  uint64_t keys_sent_ = 0;
};

}  // namespace ebb::server
