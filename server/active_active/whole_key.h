// Whole-key operations between active-active peers: DEL, UNLINK, FLUSHDB and FLUSHALL as
// timestamped deletes, the EXPIRE family and PERSIST as a timestamped expiry register
// (docs/active-active.md, "Whole-key deletes" and "Expiry changes").
//
// The rule. A delete of a key at origin time T removes everything the key held that was written
// at or before T, of every type, and every such write that arrives later: delete wins over older
// and equal writes, the newer ones survive it. FLUSHDB at T does the same to every key of its
// database (FLUSHALL: of every database) through one horizon row instead of a marker per key.
// What a node keeps for it (docs/key-encoding.md, "Active-active markers"):
//   - the key marker, system row `aa-key:<db>:<key>` = KeyMarker: the key's deletes, each with
//     the dot of the delta that made it (marker_entries.h), their greatest T `deleted_up_to`, and
//     the key's type floor (below);
//   - the database horizon, system row `aa-horizon:<db>` = its flushes the same way, their
//     greatest T the horizon.
// A write is *covered* when its timestamp is at or below max(deleted_up_to, horizon) (a TLOG
// TRIMAT c when c <= that + 1): it is dropped wherever and whenever it arrives.
//
// Canonical content after a delete at T, so that every order of arrival leaves the same rows:
//   string  the newest version (under the LWW gate also the greatest) stays when its ts > T;
//           otherwise the key is wiped. Under the observed-remove rule (types/or_string.h) each
//           slot at or before T goes, its dot joined into the key's R, and a covered write that
//           arrives later joins R with its context and dot, so R and slots match in every order;
//   TREG    stays when its pair's ts > T, else wiped;
//   TLOG    entries at or below T go: the cutoff becomes max(cutoff, T + 1), and a log left with
//           no entries and a cutoff <= T + 1 is wiped. Every TLOG write that passes a marker M
//           first raises the log's cutoff to M + 1, so a log made after the delete has the
//           cutoff it would have had before it.
//
// The type floor. Between peers a key used as two types takes the type of higher precedence
// (series > TLOG > TREG > string) whatever the timestamps (merge_gate.h), so a lower-type write
// that met a live higher type was dropped for good on that node. Content that goes away must not
// make it resurface elsewhere: the marker keeps the highest precedence the key held or was written
// with whenever that content can go — a delete (a covered write still raises the floor), an expiry
// register (SetExpiry: the type it holds) and a TREG or TLOG write on a key that has one (the
// same floor in either order of arrival), a TLOG write on a key its TTL policy gives a retention
// window (Admission::raise_floor, on the origin and on every peer, whether or not the entry is
// already outside the window) — raising it wipes live content of a lower type, and a
// write of a type below the floor loses. So on every node the type of a key whose content
// deletes, registers or windows removed stays the highest ever written, whatever the order of
// arrival and whether or not compaction has forgotten the dead version's type yet.
//
// The expiry register. EXPIRE (any form) or PERSIST of a string key at origin time T is a
// last-writer-wins register per key, ordered by (T, origin node id), kept in the key marker: the
// greater register replaces the smaller, and its expiry (an absolute expire_at, or none) applies
// to every string version written at or before its T — the one a node holds when the register
// arrives (rewritten with the same timestamp and value), and every PUT at or before T that
// arrives later (its expiry replaced before the LWW gate judges it). A version after T keeps its
// own expiry. A TREG takes the register's expiry the same way while its pair's ts <= T, and has
// none once a later pair replaces it (SettleExpiry after every TREG SET), so its expiry is a
// function of the greatest pair and the greatest register. A TLOG carries the key's register in
// its metadata (SettleExpiry after every TLOG write; types/tlog.h): once the register's expiry
// has passed, its entries at or before T are hidden, and the log expires whole when it holds
// nothing after T; entries after T keep their own expiry (none, or the retention window's). A
// series carries it the same way, its samples for entries (series_expiry.h). Clocks
// differ between nodes, so the held string version, pair or log counts whether or not it has
// expired by this node's clock (ReadNewest, Tlog::Extent): otherwise a node that saw it expire
// would keep it dead while the others rewrite or wipe it.
//
// Thread-safety: the command (io) thread, inside the keyspace batch the caller opened.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/active_active/marker_entries.h"
#include "storage/status.h"
#include "types/key_meta.h"

namespace ebb::types {
class Keyspace;
struct KeyMetaRow;
}  // namespace ebb::types

namespace ebb::server {

class Counters;

// A TLOG entry's or TREG pair's timestamp (unsigned) as a marker's (signed): above INT64_MAX,
// INT64_MAX.
inline int64_t ClampToSigned(uint64_t ts) {
  return ts > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(ts);
}

// An expiry change: at origin time `ts` by node `origin` (40 hex digits), to `expire_at`
// (nullopt: PERSIST), made by the delta at `offset` of that origin (0: data held before the mode,
// or DEBUG PEER-APPLY without OFFSET): the register's dot is (origin, offset).
struct ExpiryRegister {
  int64_t ts = 0;
  std::string origin;
  std::optional<int64_t> expire_at;
  uint64_t offset = 0;

  // The register order: (ts, origin), then the offset — two registers of one origin at one ts
  // (an origin that gave an offset again after a lost tail no peer could tell, or a snapshot from
  // a node whose registers kept no offset) resolve to the same one in every order of arrival.
  bool Precedes(const ExpiryRegister& other) const {
    if (ts != other.ts) return ts < other.ts;
    return origin != other.origin ? origin < other.origin : offset < other.offset;
  }
  bool operator==(const ExpiryRegister&) const = default;
};

// The value of a key marker row. on-disk (docs/key-encoding.md, "Active-active markers"):
//   version:u8 (2) floor:u8 (0 string, 1 TREG, 2 TLOG, 3 series) deletes (AppendMarkerEntries,
//   each value a T) [register: ts:fixed64 has_expiry:u8 expire_at:fixed64 offset:varint64
//   origin_len:varint32 origin]
// Version 1, written before markers kept their dots, is read too:
//   version:u8 (1) deleted_up_to:fixed64 (int64, two's complement) floor:u8 [register without
//   its offset]
// its deleted_up_to as one delete at PreModeMarkerDot() (none for the least int64), its register
// at offset 0. The floor keeps no dot: the delta that raises it depends on the order of arrival
// (the delete that met the content on one node, the covered write of that type on another), so
// it cannot be collected by the dots until rows carry the dots of the writes that made them
// (docs/active-active.md, "Status").
struct KeyMarker {
  static constexpr int64_t kNothingDeleted = MarkerEntries::kNone;
  // deletes.Greatest() in a row as decoded; WholeKeyMarkers::Marker raises it to the database's
  // horizon. What judges writes; `deletes` is what the row stores.
  int64_t deleted_up_to = kNothingDeleted;
  MarkerEntries deletes;
  int floor = 0;
  std::optional<ExpiryRegister> expiry;

  // Joins `del` into `deletes` and raises deleted_up_to; true when the set changed.
  bool AddDelete(const MarkerEntry& del);

  bool operator==(const KeyMarker&) const = default;
};
std::string EncodeKeyMarker(const KeyMarker& marker);
// False when `encoded` is not a key marker of a known version.
bool DecodeKeyMarker(std::string_view encoded, KeyMarker* marker);

// The value of a horizon row: version:u8 (2) deletes (AppendMarkerEntries). A row written before
// (the greatest T in decimal) reads as one delete at PreModeMarkerDot().
std::string EncodeHorizon(const MarkerEntries& deletes);
bool DecodeHorizon(std::string_view encoded, MarkerEntries* deletes);

// System row names: `aa-key:<db>:<key>` and `aa-horizon:<db>`.
inline constexpr std::string_view kKeyMarkerRowPrefix = "aa-key:";
inline constexpr std::string_view kHorizonRowPrefix = "aa-horizon:";
std::string KeyMarkerRowName(int db, std::string_view key);
std::string HorizonRowName(int db);
// The database and key a key marker row's name names; false for any other name.
bool ParseKeyMarkerRowName(std::string_view name, int* db, std::string_view* key);
// The name shape of the mode's per-key system rows (key markers, counters):
// `<prefix><db>:<key>`, and its parse (false for another prefix or a malformed database).
std::string PerKeyRowName(std::string_view prefix, int db, std::string_view key);
bool ParsePerKeyRowName(std::string_view prefix, std::string_view name, int* db,
                        std::string_view* key);
// The database a horizon row's name names; false for any other name.
bool ParseHorizonRowName(std::string_view name, int* db);

class WholeKeyMarkers {
 public:
  // REQUIRES: keyspace outlives this object.
  WholeKeyMarkers(types::Keyspace& keyspace, int databases)
      : keyspace_(keyspace), databases_(databases), horizons_(databases) {}

  // The counters (counters.h) a delete, a register or a floor settles: their state is pruned at
  // the key's new marker and their row rewritten. REQUIRES: outlives this object.
  void set_counters(Counters* counters) { counters_ = counters; }

  // Whether any marker or horizon row exists (read once at start, then kept): when none does,
  // no write needs a marker read. Also counts them (rows_held): one pass over the marker rows.
  storage::Status Load();
  bool any() const { return any_; }
  // Discards the keyspace's open batch, and with it the horizons cached from it (they are cached
  // once read or written, for every write reads its database's, and a flush in the batch never
  // happened); the count of rows held is then taken again by the next Recount. Every discard of a
  // batch that may hold a marker goes through here.
  void DiscardBatch();
  // The key marker and horizon rows held (INFO peers markers_pending), counting the open
  // batch's new rows: exact between batches unless one was discarded since the last Recount.
  uint64_t rows_held() const { return rows_held_; }
  // Counts the rows again when a discarded batch may have left rows_held() off (between
  // batches).
  storage::Status Recount();
  // Per origin, the greatest offset of a delete entry the rows hold (the pre-mode dot left out:
  // marker_entries.h), counting the open batch's: what a `collect` may cover (collect.h). Taken
  // with the count; between counts it only grows, so a discarded batch may leave it above the
  // rows until the next Recount, never below.
  const types::OrContext& entry_tops() const { return entry_tops_; }

  // How a data delta (canonical PUT, DELETE, TREG SET, TLOG INS/TRIMAT) meets the markers. A PUT
  // at or before the key's expiry register takes the register's expiry: *delta's PXAT/NOTTL is
  // rewritten (one marker read serves both).
  struct Admission {
    bool covered = false;      // at or below the delete: dropped
    bool below_floor = false;  // a type below the key's floor: loses
    int precedence = 0;        // the delta's type
    // A TLOG INS that passes: raise the log's cutoff to this first.
    std::optional<uint64_t> tlog_min_cutoff;
    // A TREG SET or TLOG write on a key with an expiry register: SettleExpiry after it runs.
    bool settle_expiry = false;
    // A TREG SET that does not beat the held pair (live, or expired by a register here): nothing
    // to write.
    bool loses = false;
    // A TLOG write on a key whose log has a retention window, or a TREG or TLOG write on a key
    // with an expiry register, the key's floor below its type: raise the floor (RaiseFloor)
    // before the write on a peer, after it succeeds on the origin.
    bool raise_floor = false;
    // A PUT's PXAT/NOTTL was rewritten to the key's expiry register: views into *delta taken
    // before Judge are stale.
    bool expiry_rewritten = false;
  };
  // `view`: the deletes that judge the delta (covered, the pair it must beat, the log cutoff it
  // raises) are the key's and its database's that `view` does not cover
  // (MarkerEntries::GreatestBeyond) — the last collect of the delta's origin, or of the
  // snapshot's sender (docs/active-active.md, "Status", marker collection's step 3); nullptr:
  // every delete.
  // Reads only. InvalidArgument for a delta too short or with a timestamp that does not parse.
  // REQUIRES: *delta is a data delta (args[0], and args[1] of TLOG and TREG, lower-case).
  storage::Status Judge(int db, std::vector<std::string>* delta, Admission* admission,
                        const types::OrContext* view = nullptr);
  // The key's floor rises to `precedence` (a covered delta's one effect, and Admission's
  // raise_floor), wiping live content of a lower type.
  storage::Status RaiseFloor(int db, std::string_view key, int precedence);
  // Raises a live log's cutoff (or makes an empty log) to `cutoff` when it is lower.
  storage::Status EnsureTlogCutoff(int db, std::string_view key, uint64_t cutoff);

  // The greatest timestamp `key` holds, live or expired by this node's clock (string and TREG
  // ts, newest TLOG entry hidden or not, cutoff - 1), raised into *ts; nothing for a key that
  // holds nothing (absent, a tombstone, wiped). *existed says whether it holds something.
  storage::Status RaiseToNewest(int db, std::string_view key, int64_t* ts, bool* existed);

  // `del`, a DEL at T del.value made by the delta at del.dot, of each key (origin and peers alike).
  // A key whose marker already holds `del` (the same entry, or one of its origin's that dominates
  // it: MarkerEntries::Add) is left as it is: the delete took effect there when it first came,
  // and what the key gained since came past it by the rules (docs/active-active.md, "Status",
  // marker collection: a delete already held changes nothing).
  storage::Status DeleteKeys(int db, const MarkerEntry& del, std::span<const std::string> keys);
  // `del`, a FLUSHDB at T del.value made by the delta at del.dot; nothing when the database's
  // horizon already holds it, as DeleteKeys.
  storage::Status FlushDb(int db, const MarkerEntry& del);

  // EXPIRE / PERSIST from `reg.origin`: stored when it follows the key's register, then applied
  // to the string version held (when written at or before reg.ts), the TREG pair or the log.
  storage::Status SetExpiry(int db, std::string_view key, const ExpiryRegister& reg);
  // The key's register given to what a write left: a TREG's expiry is the register's when the
  // pair was written at or before the register's T, else none (a TREG SET in the mode carries no
  // expiry of its own); a log and a series carry the register (types/tlog.h, series_expiry.h).
  // Nothing for a key that holds none of them or has no register.
  storage::Status SettleExpiry(int db, std::string_view key);
  // Raises *ts above the key's register, so that a change made after it follows it in the
  // register order whatever the clocks.
  storage::Status RaiseAboveRegister(int db, std::string_view key, int64_t* ts);

  // The effective marker of `key`: its row's, with deleted_up_to raised to the horizon. With a
  // `view` (Judge's), deleted_up_to is the greatest of the key's and the database's deletes that
  // `view` does not cover.
  storage::Status Marker(int db, std::string_view key, KeyMarker* marker, bool* has_row,
                         const types::OrContext* view = nullptr);
  // Lowers marker->deleted_up_to (of a marker Marker read) to the greatest T of the key's deletes
  // (marker->deletes) and its database's flushes that `view` does not cover (Judge's view).
  storage::Status NarrowToView(int db, const types::OrContext& view, KeyMarker* marker);

 private:
  // The key's newest version when it is live, or a value of type `expired_type` that has
  // expired (a string's, or a TREG's the expiry register gave it): clocks differ between nodes,
  // so what one node has seen expire another may still hold live, and every rule here must leave
  // both alike. *found false: absent, a tombstone, wiped, or expired of another type.
  storage::Status ReadNewest(int db, std::string_view key, types::KeyMetaRow* row, bool* found,
                             types::KeyType expired_type = types::KeyType::kString);
  // ReadNewest with an expired value of any of `expired_types` taken: one read.
  storage::Status ReadNewestOf(int db, std::string_view key, types::KeyMetaRow* row, bool* found,
                               std::initializer_list<types::KeyType> expired_types);
  // ReadNewestOf the types a delete removes whole: a string, a TREG or a series (a log has its
  // own extent, Tlog::Extent).
  storage::Status ReadNewestWhole(int db, std::string_view key, types::KeyMetaRow* row,
                                  bool* found) {
    return ReadNewestOf(db, key, row, found,
                        {types::KeyType::kString, types::KeyType::kTreg, types::KeyType::kSeries});
  }
  // ReadNewest's version when it is a TREG, live or expired.
  storage::Status ReadTreg(int db, std::string_view key, types::KeyMetaRow* row, bool* found);
  // Removes ReadNewest's version and everything older with a wipe, whether the version is live
  // or has expired by this node's clock: what a delete leaves must not depend on the clock (a
  // tombstone at the version's timestamp would outrank a later write below it where a wipe does
  // not; docs/active-active.md, "Status", marker collection's step 3), and after a compaction
  // nothing of the key is left (the delete's marker row covers what the version hid).
  storage::Status WipeNewest(int db, std::string_view key);
  // Removes what `key` holds at or before `ts`; *precedence: the live type's (-1 absent).
  storage::Status DeleteContent(int db, std::string_view key, int64_t ts, int* precedence);
  // Writes a marker or horizon row; `new_row`: none was held under that name (counted).
  storage::Status PutRow(const std::string& name, const std::string& value, bool new_row);
  // The marker and horizon rows the engine holds, counted into rows_held_, their entries' dots
  // into entry_tops_.
  storage::Status CountRows();
  void RaiseEntryTop(const types::Dot& dot);
  // SettleExpiry under `reg`. Like every ApplyRegisterTo*, it asks no delete: what a key holds
  // lies above the deletes that cover it, as each removed what it covered when it came (expired
  // content too: DeleteContent, FlushDb) and the gate drops what arrives covered. A check by the
  // key's greatest delete would cut a write below it that marker collection lets live
  // (docs/active-active.md, "Status").
  storage::Status ApplyRegisterToTreg(int db, std::string_view key, const ExpiryRegister& reg);
  // The register given to a string key under the observed-remove rule (*extended: its data row
  // carries the extension; nothing done otherwise): every slot written at or before reg.ts takes
  // its expiry, in its own row (types/or_string_rows.h).
  storage::Status ApplyRegisterToOrString(int db, std::string_view key, const ExpiryRegister& reg,
                                          bool* extended);
  // The same for a log (live, or expired by an earlier register): it carries the register in
  // its metadata (types/tlog.h).
  storage::Status ApplyRegisterToTlog(int db, std::string_view key, const ExpiryRegister& reg);
  // A delete at `ts` of the string `key` holds under the observed-remove rule (*extended: its
  // data row carries the extension; nothing done otherwise): every slot written at or before ts
  // goes, its dot kept in the key's R (types/or_string_rows.h, ApplyOrDeleteUpTo), so the slots
  // and R are those of a node that had the delete first. *precedence: a string's when a slot
  // was held.
  storage::Status DeleteFromOrString(int db, std::string_view key, int64_t ts, int* precedence,
                                     bool* extended);
  // A delete at `ts` of the log `key` holds, live or expired by its register (*is_log): its
  // entries at or before ts go (cutoff raised to ts + 1), and a log left with nothing after ts
  // is wiped. *is_log false: the key holds no log, nothing done.
  storage::Status DeleteFromLog(int db, std::string_view key, int64_t ts, bool* is_log);
  // The key's own marker row (no horizon); *found says whether there is one.
  storage::Status ReadRow(int db, std::string_view key, KeyMarker* marker, bool* found);
  // The database's flushes, cached once read or written (horizons_), and their greatest T
  // (KeyMarker::kNothingDeleted for none).
  struct Horizon {
    MarkerEntries deletes;
    int64_t greatest = KeyMarker::kNothingDeleted;
  };
  storage::Status ReadHorizon(int db, const Horizon** horizon);
  // The database's horizon row, uncached; empty when there is none.
  storage::Status ReadHorizonRow(int db, MarkerEntries* deletes);

  // Settles the counter of `key` (if any) under its effective marker, after a delete at
  // `deleted_at` (which prunes what it covers of the state) or a change of register or floor.
  storage::Status SettleCounter(int db, std::string_view key,
                                std::optional<int64_t> deleted_at = std::nullopt);

  types::Keyspace& keyspace_;
  Counters* counters_ = nullptr;
  int databases_;
  bool any_ = false;                              // some marker or horizon row exists (never reset)
  bool any_horizon_ = false;                      // some horizon row exists (never reset)
  uint64_t rows_held_ = 0;                        // see rows_held()
  types::OrContext entry_tops_;                   // see entry_tops()
  bool recount_ = false;                          // a batch was discarded since the count
  std::vector<std::optional<Horizon>> horizons_;  // per database, once read or written
};

}  // namespace ebb::server
