// libFuzzer target for active-active's merge (docs/active-active.md): three nodes in the mode, in
// this process (tests/support/command_runner.h, HostActiveActive), take client writes of every
// kind the mode merges on a few keys, with small timestamps so that versions tie and types
// collide, and each delta a node logs reaches the other two by DEBUG PEER-APPLY whenever the
// input says — in any order, within one origin's log too, some more than once, save that an
// origin's collect comes after its earlier deltas and before its later ones and no delta comes
// again once a later collect of its origin has, as a link gives them — while the nodes move their
// clocks apart, flush and compact, restart, and log collects (DEBUG PEER-COLLECT, C what every node
// has had of each origin's log). Some deltas arrive damaged (an argument replaced, dropped or
// added), from a fourth origin, the same damaged delta at every node: each node skips it as
// malformed or merges it like any other.
//
// The input picks the string rule (`active-active-string-rule`; under observed-remove the INCR
// family is refused) and then up to 48 steps; one write in eight goes to database 1. Checked:
//  - every request gets exactly one well-formed reply (keyspace_checks.h), and every delta a node
//    logged is applied by the others (DEBUG PEER-APPLY answers OK);
//  - once every node has every delta and the clocks agree, every node answers the same DEBUG
//    DIGEST-LOGICAL — the merge laws, whatever the order of arrival — and each node's keyspace
//    holds together (CheckInvariants);
//  - then, and whenever a node restarts, what each node holds of a key lies above the deletes
//    that cover it (CheckHeldAboveDeletes); once every node has every delta, every node holds
//    the same deletes and expiry registers (CheckSameMarkers) and the same collect row per origin.
// Every expiry lies within an hour of the clocks, which move by at most an hour in all: far inside
// half of `expiry-purge-deadline`, after which compaction reduces what expired ("Dead
// versions"), and a later expiry register would bring back on one node what another reduced (a
// gap docs/active-active.md, "Known gaps in convergence", names). So a TTL'd PUT is stamped near
// the clock, and a damaged delta's expiry is replaced by one near the clock.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/active_active/collect.h"
#include "server/active_active/counters.h"
#include "server/active_active/series_state.h"
#include "server/active_active/whole_key.h"
#include "server/services/server_context.h"
#include "storage/row.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/keyspace_checks.h"
#include "tests/support/active_active_support.h"
#include "tests/support/command_runner.h"
#include "tests/support/reply.h"
#include "types/counter.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/or_string_rows.h"
#include "types/tlog.h"
#include "types/treg.h"

namespace {

using ebb::fuzz::Check;
using ebb::fuzz::CheckInvariants;
using ebb::fuzz::Run;
using ebb::test::CommandRunner;
using ebb::test::Reply;

constexpr int kNodes = 3;
constexpr int kSteps = 48;
constexpr int64_t kClockMs = 1700000000000;
constexpr int64_t kMostClockMoveMs = 3600 * 1000;
// The origin of damaged deltas: no node's id.
const std::string kDamagedOrigin(40, 'd');

// A delta as a node's stream carries it.
struct Delta {
  std::string origin;
  uint64_t offset = 0;
  std::string db;
  std::vector<std::string> args;
};

const char* const kKeys[] = {"k0", "k1", "k2"};
const char* const kValues[] = {"a", "b", "7", "-3", "2.5", ""};
// Words a damaged delta or a hostile argument may take.
using std::string_view_literals::operator""sv;
const std::string_view kWords[] = {"0",
                                   "1",
                                   "-1",
                                   "9223372036854775807",
                                   "-9223372036854775808",
                                   "18446744073709551615",
                                   "1700000000000",
                                   "TS",
                                   "PXAT",
                                   "NOTTL",
                                   "CTX",
                                   "DIGEST",
                                   "BY",
                                   "BASE",
                                   "persist",
                                   "del",
                                   "tombstone",
                                   "reduced",
                                   "k0",
                                   "k1",
                                   "nan",
                                   "0x1p+0",
                                   "",
                                   "\x01\x01\x00\x05"sv,  // a context: the sender at offset 5
                                   "\x01\x00"sv};

std::string Pick(FuzzedDataProvider& fdp, const auto& words) {
  return std::string(words[fdp.ConsumeIntegralInRange<size_t>(0, std::size(words) - 1)]);
}

// A time within five seconds of the clock's start.
std::string NearClock(FuzzedDataProvider& fdp) {
  return std::to_string(kClockMs + fdp.ConsumeIntegralInRange<int64_t>(-5000, 5000));
}

// A timestamp: small, so that writes tie and deletes fall between them; now and then near the
// clock, or the edge of its range.
std::string Stamp(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return NearClock(fdp);
    case 1:
      return Pick(fdp, kWords);
    default:
      return std::to_string(fdp.ConsumeIntegralInRange<int>(1, 12));
  }
}

std::string Small(FuzzedDataProvider& fdp) {
  return std::to_string(fdp.ConsumeIntegralInRange<int>(-2, 50));
}

// A client write (or read) of a kind the mode merges, on one of kKeys.
std::vector<std::string> ClientRequest(FuzzedDataProvider& fdp) {
  const std::string key = Pick(fdp, kKeys);
  const std::string value = Pick(fdp, kValues);
  switch (fdp.ConsumeIntegralInRange<int>(0, 27)) {
    case 0:
      return {"SET", key, value};
    case 1:
      return {"SET", key, value, "PX", std::to_string(fdp.ConsumeIntegralInRange<int>(1, 3000))};
    case 2:
      return {"PUT", key, value, "TS", Stamp(fdp)};
    case 3:
      // Near the clock: its expiry too (the header says why).
      return {"PUT", key, value, "TS", NearClock(fdp), "TTL", Small(fdp)};
    case 4:
      return {"DELETE", key, "TS", Stamp(fdp)};
    case 5:
      return {"DEL", key};
    case 6:
      return {"UNLINK", key, Pick(fdp, kKeys)};
    case 7:
      return {"INCR", key};
    case 8:
      return {"INCRBY", key, Small(fdp)};
    case 9:
      return {"INCRBYFLOAT", key, "0.5"};
    case 10:
    case 11:
      return {"TLOG", "INS", key, value, Stamp(fdp)};
    case 12:
      return {"TLOG", "TRIMAT", key, Stamp(fdp)};
    case 13:
      return {"TLOG", "TRIM", key, std::to_string(fdp.ConsumeIntegralInRange<int>(0, 3))};
    case 14:
      return {"TLOG", "CLR", key};
    case 15:
    case 16:
      return {"TREG", "SET", key, value, Stamp(fdp)};
    case 17:
      return {"PEXPIRE", key, std::to_string(fdp.ConsumeIntegralInRange<int>(1, 5000))};
    case 18:
      return {"EXPIRE", key, Small(fdp), Pick(fdp, std::array{"NX", "XX", "GT", "LT"})};
    case 19:
      return {"PERSIST", key};
    case 20:
      return {fdp.ConsumeBool() ? "FLUSHDB" : "FLUSHALL"};
    case 21:
      return {"TS.ADD", key, Stamp(fdp), Small(fdp)};
    case 22:
      return {"TS.CREATE", key, "DUPLICATE_POLICY",
              Pick(fdp, std::array{"LAST", "FIRST", "SUM", "MIN", "MAX", "BLOCK"})};
    case 23:
      return {"TS.INCRBY", key, Small(fdp), "TIMESTAMP", Stamp(fdp)};
    case 24:
      return {"TS.DEL", key, "-", Stamp(fdp)};
    case 25:
      return {"TS.CREATERULE", key, Pick(fdp, kKeys), "AGGREGATION", "sum", "10"};
    case 26:
      return {"GET", key};
    default:
      return {"TLOG", "GET", key};
  }
}

// `delta` with one argument after its name replaced, dropped or added.
std::vector<std::string> Damaged(FuzzedDataProvider& fdp, std::vector<std::string> args) {
  const size_t at = fdp.ConsumeIntegralInRange<size_t>(1, args.size());
  std::string word = fdp.ConsumeBool() ? Pick(fdp, kWords) : fdp.ConsumeRandomLengthString(12);
  // An expiry stays near the clock (the header says why).
  const bool expiry =
      at < args.size() && (args[at - 1] == "PXAT" || (args[0] == "expiry-at" && at == 3));
  if (expiry) word = NearClock(fdp);
  switch (fdp.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      if (at < args.size()) {
        args[at] = std::move(word);
        break;
      }
      [[fallthrough]];
    case 1:
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(at), std::move(word));
      break;
    default:
      if (at < args.size() && args.size() > 2)
        args.erase(args.begin() + static_cast<ptrdiff_t>(at));
  }
  return args;
}

// EBB_FUZZ_TRACE=1 prints every request of a run with its reply (to read a crash's input).
bool Tracing() {
  static const bool tracing = std::getenv("EBB_FUZZ_TRACE") != nullptr;
  return tracing;
}

// Run, traced.
void RunAt(int node, CommandRunner& runner, const std::vector<std::string>& request,
           Reply* out = nullptr) {
  Reply reply;
  Run(runner, request, &reply);
  if (Tracing()) {
    std::string line = "n" + std::to_string(node) + ":";
    for (const std::string& a : request) line += " " + a;
    fprintf(stderr, "%s -> %s\n", line.c_str(), reply.ToString().c_str());
  }
  if (out != nullptr) *out = reply;
}

// System row `name` of `node` into *value; false when there is none.
bool ReadSystemRow(CommandRunner& node, const std::string& name, std::string* value) {
  ebb::types::Keyspace& ks = node.context().keyspace();
  ebb::storage::Row row;
  const ebb::storage::Status s =
      ks.db().Get(ks.ReadOptions(), ebb::types::Keyspace::SystemRowKey(name), &row);
  Check(s.ok() || s.IsNotFound(), "a system row is unreadable", {name, s.ToString()});
  *value = row.value;
  return s.ok();
}

// The greatest T of the deletes that cover `key` in `db` on `node`: its marker's and its
// database's horizon's (server/active_active/whole_key.h), read from their system rows, those
// `view` covers left out when there is one (MarkerEntries::GreatestBeyond);
// KeyMarker::kNothingDeleted for none.
int64_t CoveredUpTo(CommandRunner& node, int db, const std::string& key,
                    const ebb::types::OrContext* view = nullptr) {
  using ebb::server::KeyMarker;
  int64_t covered = KeyMarker::kNothingDeleted;
  std::string value;
  if (ReadSystemRow(node, ebb::server::KeyMarkerRowName(db, key), &value)) {
    KeyMarker marker;
    Check(ebb::server::DecodeKeyMarker(value, &marker), "a key marker does not decode", {key});
    covered = view != nullptr ? marker.deletes.GreatestBeyond(*view) : marker.deleted_up_to;
  }
  if (ReadSystemRow(node, ebb::server::HorizonRowName(db), &value)) {
    ebb::server::MarkerEntries flushes;
    Check(ebb::server::DecodeHorizon(value, &flushes), "a horizon does not decode", {key});
    covered =
        std::max(covered, view != nullptr ? flushes.GreatestBeyond(*view) : flushes.Greatest());
  }
  return covered;
}

// `request`'s reply in database `db` of `node`'s client, which is left in database 0.
Reply RunInDb(CommandRunner& node, int db, const std::vector<std::string>& request) {
  Reply reply;
  RunAt(-1, node, {"SELECT", std::to_string(db)});
  RunAt(-1, node, request, &reply);
  RunAt(-1, node, {"SELECT", "0"});
  return reply;
}

// `where` with `what` after it: a failed check's request.
std::vector<std::string> Naming(std::vector<std::string> where, std::string what) {
  where.push_back(std::move(what));
  return where;
}

// Every slot, siblings included, of the string `key` holds under the observed-remove rule lies
// above `covered`.
void CheckOrSlotsAbove(ebb::types::Keyspace& ks, int db, const std::string& key, int64_t covered,
                       const std::vector<std::string>& where) {
  ebb::types::OrStringRows rows;
  Check(ebb::types::LoadOrString(ks, db, key, &rows).ok(), "a string's slots are unreadable",
        where);
  for (const ebb::types::OrSlot& slot : rows.state.slots) {
    Check(slot.version.ts > covered, "a held string slot lies under a delete",
          Naming(where, "slot at " + std::to_string(slot.version.ts)));
  }
}

// What a node holds of a key lies above the deletes that cover it: its newest string or TREG
// value, live or expired by the node's clock, each slot of a string under the observed-remove rule
// (a key marker there comes from a delete of another type or a flush), every entry its log holds
// and every sample row its series holds — hidden by an expiry register or not, of a log or series
// live or expired whole — and its counter's base and records. Every delete removes what it covers
// as it is applied (what has expired too), and the gate drops what arrives covered, so the expiry
// register applies to what is held without asking the deletes again (docs/active-active.md,
// "Status", marker collection: what step 3 must keep). All of it lies above the deletes no collect
// the node knows covers (`known`, the join of its collect rows): a write below a delete lives when
// its origin wrote it after a collect covering that delete (step 3).
void CheckHeldAboveDeletes(CommandRunner& node, bool observed_remove,
                           const ebb::types::OrContext& known) {
  using ebb::types::KeyType;
  ebb::types::Keyspace& ks = node.context().keyspace();
  for (int db = 0; db < 2; ++db) {
    for (const std::string key : kKeys) {
      const int64_t covered = CoveredUpTo(node, db, key);
      if (covered == ebb::server::KeyMarker::kNothingDeleted) continue;
      const int64_t uncollected = CoveredUpTo(node, db, key, &known);
      const std::vector<std::string> where = {"db " + std::to_string(db), key,
                                              "covered up to " + std::to_string(covered),
                                              "uncollected up to " + std::to_string(uncollected)};
      std::string counter_row;
      if (ReadSystemRow(node, ebb::server::CounterRowName(db, key), &counter_row)) {
        ebb::types::CounterState counter;
        Check(ebb::types::DecodeCounterState(counter_row, &counter), "a counter does not decode",
              where);
        Check(!counter.base || counter.base->ts > uncollected,
              "a held counter base lies under a delete", where);
        for (const ebb::types::CounterRecord& record : counter.records) {
          Check(record.ts > uncollected, "a held counter record lies under a delete", where);
        }
      }
      ebb::types::KeyMetaRow row;
      std::optional<ebb::storage::DeadVersion> dead;
      ebb::storage::Status s = ks.GetMeta(db, key, &row, 0, &dead);
      Check(s.ok() || s.IsNotFound(), "a key's metadata is unreadable", where);
      bool held = s.ok();
      if (!held && dead && dead->kind == ebb::storage::RowKind::kValue) {
        std::string_view payload;
        held = ebb::types::DecodeMetaValue(dead->value, &row.type, &payload, &row.raw_string);
        row.payload = std::string(payload);
        row.meta = dead->meta;
      }
      // A key whose winner reads as absent may still hold a live sibling.
      if (observed_remove) CheckOrSlotsAbove(ks, db, key, uncollected, where);
      if (!held) continue;
      if (row.type == KeyType::kString && !observed_remove) {
        Check(row.meta.timestamp_or_zero() > uncollected, "a held string value lies under a delete",
              where);
      } else if (row.type == KeyType::kTreg) {
        std::string_view value;
        uint64_t ts = 0;
        Check(ebb::types::DecodeTregPayload(row.payload, &value, &ts), "a TREG does not decode",
              where);
        Check(ebb::server::ClampToSigned(ts) > uncollected, "a held TREG pair lies under a delete",
              where);
      } else if (row.type == KeyType::kSeries) {
        if (s.ok()) {
          const Reply samples = RunInDb(node, db, {"TS.RANGE", key, "-", "+"});
          for (const Reply& sample : samples.elements()) {
            Check(sample.size() == 2 && sample[0].integer() > uncollected,
                  "a held series sample lies under a delete", where);
          }
        }
        const ebb::storage::Status rows = ebb::server::ForEachSampleRowIn(
            ks, db, key, INT64_MIN, uncollected,
            [&](int64_t ts, std::string_view, std::string_view) {
              Check(false, "a held series sample row lies under a delete",
                    Naming(where, "sample " + std::to_string(ts)));
              return ebb::storage::Status::OK();
            });
        Check(rows.ok(), "a series' sample rows are unreadable", where);
      } else if (row.type == KeyType::kTlog) {
        uint64_t cutoff = 0;
        auto entries = ebb::types::Tlog(ks, db).HeldEntries(key, &cutoff);
        Check(entries.ok(), "a log's held entries are unreadable", where);
        for (const ebb::types::TlogEntry& entry : *entries) {
          Check(ebb::server::ClampToSigned(entry.ts) > uncollected,
                "a held TLOG entry lies under a delete",
                Naming(where, "entry " + std::to_string(entry.ts)));
        }
      }
    }
  }
}

class Mesh {
 public:
  explicit Mesh(const std::string& string_rule)
      : observed_remove_(string_rule == "observed-remove") {
    for (int i = 0; i < kNodes; ++i) {
      nodes_[i] = std::make_unique<CommandRunner>(
          std::vector<std::string>{"--active-active-string-rule", string_rule});
      CommandRunner& node = *nodes_[i];
      node.HostActiveActive();
      RunAt(i, node, {"DEBUG", "CLOCK", "SET", std::to_string(kClockMs)});
      Reply id;
      RunAt(i, node, {"PEER", "ID"}, &id);
      Check(id.str().size() == 40, "PEER ID is not a node id", {"PEER", "ID"});
      ids_[i] = id.str();
      Subscribe(i);
    }
  }

  // Runs a client's request on `node`, in database `db` (SELECT first when it changes).
  void Write(int node, int db, const std::vector<std::string>& request) {
    if (db != db_[node]) {
      RunAt(node, *nodes_[node], {"SELECT", std::to_string(db)});
      db_[node] = db;
    }
    RunAt(node, *nodes_[node], request);
    Collect(node);
  }

  // Gives `to` one delta it has not had yet: of the origin `from`'s log, or a damaged one.
  void Deliver(FuzzedDataProvider& fdp, int to) {
    std::vector<size_t> pending;
    for (size_t d = 0; d < deltas_.size(); ++d) {
      if (!had_[to][d]) pending.push_back(d);
    }
    if (pending.empty()) return;
    // Mostly the oldest pending, as a link delivers; otherwise any — but never past a collect
    // its origin logged before it, nor a collect before an earlier delta of its origin: a link
    // gives every delta in its origin's order, and marker collection judges each delta of an
    // origin by that origin's last collect before it.
    size_t d = fdp.ConsumeBool()
                   ? pending.front()
                   : pending[fdp.ConsumeIntegralInRange<size_t>(0, pending.size() - 1)];
    for (bool moved = true; moved;) {
      moved = false;
      for (const size_t earlier : pending) {
        if (deltas_[earlier].offset < deltas_[d].offset &&
            (CollectOfOrigin(earlier, d) || CollectOfOrigin(d, earlier))) {
          d = earlier;
          moved = true;
          break;
        }
      }
    }
    Apply(to, d);
  }

  // Gives `to` a delta it already had, unless a later collect of its origin has come since: no
  // link gives a delta again, and one made before a collect must not be judged by it.
  void Repeat(FuzzedDataProvider& fdp, int to) {
    if (deltas_.empty()) return;
    const size_t d = fdp.ConsumeIntegralInRange<size_t>(0, deltas_.size() - 1);
    if (!had_[to][d]) return;
    for (size_t later = 0; later < deltas_.size(); ++later) {
      if (had_[to][later] && CollectOfOrigin(later, d) &&
          deltas_[later].offset > deltas_[d].offset) {
        return;
      }
    }
    Apply(to, d);
  }

  // Adds a damaged copy of a logged delta, which every node will get.
  void Damage(FuzzedDataProvider& fdp) {
    if (deltas_.empty()) return;
    const Delta& source = deltas_[fdp.ConsumeIntegralInRange<size_t>(0, deltas_.size() - 1)];
    if (source.origin == kDamagedOrigin) return;
    Add(Delta{.origin = kDamagedOrigin,
              .offset = ++damaged_,
              .db = source.db,
              .args = Damaged(fdp, source.args)});
  }

  void Flush(int i, bool compact) {
    RunAt(i, *nodes_[i], {"DEBUG", compact ? "COMPACT" : "FLUSH-MEMTABLE"});
  }

  // Node i logs a collect: C is, per origin, the greatest offset up to which every node has had
  // every delta of its log (damaged ones too), which the stable vector promises (collect.h).
  void LogCollect(int i) {
    std::vector<std::string> request = {"DEBUG", "PEER-COLLECT"};
    for (const std::string& origin : Origins()) {
      uint64_t stable = UINT64_MAX;  // the least offset some node still lacks, less one
      uint64_t greatest = 0;
      for (size_t d = 0; d < deltas_.size(); ++d) {
        if (deltas_[d].origin != origin) continue;
        greatest = std::max(greatest, deltas_[d].offset);
        for (const auto& had : had_) {
          if (!had[d]) stable = std::min(stable, deltas_[d].offset - 1);
        }
      }
      stable = std::min(stable, greatest);
      if (stable == 0) continue;
      request.push_back(origin);
      request.push_back(std::to_string(stable));
    }
    Reply reply;
    RunAt(i, *nodes_[i], request, &reply);
    Check(reply.is_status() && reply.str() == "OK", "DEBUG PEER-COLLECT is refused", request);
    Collect(i);
  }

  void Restart(int i) {
    nodes_[i]->Reopen();
    db_[i] = 0;  // a new client
    Subscribe(i);
    CheckHeldAboveDeletes(*nodes_[i], observed_remove_, KnownCollects(i));
  }

  // Under EBB_FUZZ_TRACE, what every node holds on each key of each database: the reads that
  // show where digests differ.
  void TraceEveryKey() {
    if (!Tracing()) return;
    for (int n = 0; n < kNodes; ++n) {
      for (const char* db : {"0", "1"}) {
        RunAt(n, *nodes_[n], {"SELECT", db});
        for (const char* key : kKeys) {
          const std::vector<std::vector<std::string>> reads = {{"TYPE", key},
                                                               {"GET", key},
                                                               {"TREG", "GET", key},
                                                               {"TLOG", "GET", key},
                                                               {"TS.RANGE", key, "-", "+"}};
          for (const std::vector<std::string>& read : reads) RunAt(n, *nodes_[n], read);
        }
      }
      RunAt(n, *nodes_[n], {"SELECT", "0"});
      db_[n] = 0;
    }
  }

  // Every node gets every delta, the clocks are set alike, and the nodes must agree.
  void Settle(FuzzedDataProvider& fdp) {
    for (int to = 0; to < kNodes; ++to) {
      while (std::find(had_[to].begin(), had_[to].end(), false) != had_[to].end()) {
        Deliver(fdp, to);
      }
    }
    int64_t latest = 0;
    for (int i = 0; i < kNodes; ++i) latest = std::max(latest, clock_[i]);
    std::string digest;
    for (int i = 0; i < kNodes; ++i) {
      RunAt(i, *nodes_[i], {"DEBUG", "CLOCK", "SET", std::to_string(kClockMs + latest)});
      Reply reply;
      RunAt(i, *nodes_[i], {"DEBUG", "DIGEST-LOGICAL"}, &reply);
      Check(reply.is_string(), "DEBUG DIGEST-LOGICAL answers no digest",
            {"DEBUG", "DIGEST-LOGICAL"});
      if (i == 0) digest = reply.str();
      if (reply.str() != digest) TraceEveryKey();
      Check(reply.str() == digest, "nodes with every delta answer different digests",
            {"DEBUG", "DIGEST-LOGICAL", "node " + std::to_string(i)});
      CheckInvariants(*nodes_[i]);  // its RESET selects database 0
      db_[i] = 0;
      CheckHeldAboveDeletes(*nodes_[i], observed_remove_, KnownCollects(i));
    }
    CheckSameMarkers();
  }

  // Every node holds the same deletes, each with its dot, and the same expiry register per key,
  // and the same flushes per database (whole_key.h), whatever the order the deltas came in. The
  // type floor is left out: a delete raises it to the type of content it meets even when that
  // content outlives the delete, which a node that gets the content after the delete does not
  // (docs/active-active.md, "The type floor").
  void CheckSameMarkers() {
    for (const std::string& id : Origins()) {
      const std::optional<ebb::types::OriginId> origin = ebb::types::OriginId::FromHex(id);
      Check(origin.has_value(), "an origin is no node id", {id});
      const std::string name = ebb::server::CollectRowName(*origin);
      std::string first;
      const bool held = ReadSystemRow(*nodes_[0], name, &first);
      for (int i = 1; i < kNodes; ++i) {
        std::string value;
        Check(ReadSystemRow(*nodes_[i], name, &value) == held && value == first,
              "nodes with every delta hold different collects", {id, "node " + std::to_string(i)});
      }
    }
    for (int db = 0; db < 2; ++db) {
      std::string first;
      const bool held = ReadSystemRow(*nodes_[0], ebb::server::HorizonRowName(db), &first);
      for (int i = 1; i < kNodes; ++i) {
        std::string value;
        Check(ReadSystemRow(*nodes_[i], ebb::server::HorizonRowName(db), &value) == held &&
                  value == first,
              "nodes with every delta hold different horizons",
              {"db " + std::to_string(db), "node " + std::to_string(i)});
      }
      for (const std::string key : kKeys) {
        std::array<ebb::server::KeyMarker, kNodes> markers;
        for (int i = 0; i < kNodes; ++i) {
          std::string value;
          if (!ReadSystemRow(*nodes_[i], ebb::server::KeyMarkerRowName(db, key), &value)) continue;
          Check(ebb::server::DecodeKeyMarker(value, &markers[i]), "a key marker does not decode",
                {key});
        }
        for (int i = 1; i < kNodes; ++i) {
          Check(markers[i].deletes == markers[0].deletes && markers[i].expiry == markers[0].expiry,
                "nodes with every delta hold different deletes or registers",
                {"db " + std::to_string(db), key, "node " + std::to_string(i)});
        }
      }
    }
  }

  void MoveClock(int i, int64_t ms) {
    if (clock_[i] + ms > kMostClockMoveMs) return;
    clock_[i] += ms;
    RunAt(i, *nodes_[i], {"DEBUG", "CLOCK", "SET", std::to_string(kClockMs + clock_[i])});
  }

 private:
  // A client of node i that takes its stream (PEER SYNC), from the first delta not yet
  // collected.
  void Subscribe(int i) {
    streamer_[i] = nodes_[i]->AddClient();
    const std::string from = std::to_string(collected_[i] + 1);
    const std::string reply =
        nodes_[i]->RawAs(streamer_[i], {"PEER", "SYNC", std::string(40, 'f'), from});
    Check(reply.starts_with("+CONTINUE "), "PEER SYNC does not continue the stream",
          {"PEER", "SYNC", from});
    TakeStream(i, reply.substr(reply.find("\r\n") + 2));
  }

  void Collect(int i) { TakeStream(i, nodes_[i]->TakePushed(streamer_[i])); }

  void TakeStream(int i, const std::string& bytes) {
    for (const Reply& r : ebb::test::ParseAll(bytes)) {
      if (!r.is_array() || r.size() == 0 || r[0].str() == "tick") continue;
      std::optional<ebb::server::PeerDelta> streamed = ebb::test::StreamedDelta(r);
      Check(streamed.has_value(), "a stream message that is no delta", {r.ToString()});
      Delta delta{.origin = ids_[i],
                  .offset = streamed->offset,
                  .db = std::to_string(streamed->db),
                  .args = std::move(streamed->args)};
      Check(delta.offset == collected_[i] + 1, "a gap in the stream", {r.ToString()});
      collected_[i] = delta.offset;
      Add(std::move(delta));
      had_[i].back() = true;  // its origin
    }
  }

  // Every origin whose deltas the nodes get: the three nodes and the damaged deltas' fourth.
  // The join of node i's collect rows, one per origin.
  ebb::types::OrContext KnownCollects(int i) {
    ebb::types::OrContext known;
    for (const std::string& id : Origins()) {
      const std::optional<ebb::types::OriginId> origin = ebb::types::OriginId::FromHex(id);
      Check(origin.has_value(), "an origin is no node id", {id});
      std::string value;
      if (!ReadSystemRow(*nodes_[i], ebb::server::CollectRowName(*origin), &value)) continue;
      ebb::types::OrContext collect;
      Check(ebb::server::DecodeCollectRow(value, *origin, &collect), "a collect does not decode",
            {id});
      known.Join(collect);
    }
    return known;
  }

  std::vector<std::string> Origins() const {
    std::vector<std::string> origins(ids_.begin(), ids_.end());
    origins.push_back(kDamagedOrigin);
    return origins;
  }

  // Whether delta `c` is a collect of delta `d`'s origin.
  bool CollectOfOrigin(size_t c, size_t d) const {
    return deltas_[c].origin == deltas_[d].origin && !deltas_[c].args.empty() &&
           deltas_[c].args[0] == "collect";
  }

  void Add(Delta delta) {
    deltas_.push_back(std::move(delta));
    for (auto& had : had_) had.push_back(false);
  }

  void Apply(int to, size_t d) {
    const Delta& delta = deltas_[d];
    std::vector<std::string> request = {"DEBUG",  "PEER-APPLY", delta.origin,
                                        delta.db, "OFFSET",     std::to_string(delta.offset)};
    request.insert(request.end(), delta.args.begin(), delta.args.end());
    Reply reply;
    RunAt(to, *nodes_[to], request, &reply);
    if (delta.origin != kDamagedOrigin) {
      Check(reply.is_status() && reply.str() == "OK", "a logged delta is not applied", request);
    }
    had_[to][d] = true;
  }

  const bool observed_remove_;  // the mesh's string rule
  std::array<std::unique_ptr<CommandRunner>, kNodes> nodes_;
  std::array<std::string, kNodes> ids_;
  std::array<size_t, kNodes> streamer_{};
  std::array<uint64_t, kNodes> collected_{};   // the last offset of each node's log taken
  std::array<int64_t, kNodes> clock_{};        // each node's clock, ms past kClockMs
  std::array<int, kNodes> db_{};               // the database each node's client selected
  std::vector<Delta> deltas_;                  // every delta logged, and the damaged ones
  std::array<std::vector<bool>, kNodes> had_;  // by node, by delta: applied there
  uint64_t damaged_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::warn);  // each node's stream and mode lines, every run
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  Mesh mesh(fdp.ConsumeBool() ? "observed-remove" : "timestamp");
  for (int step = 0; step < kSteps && fdp.remaining_bytes() > 0; ++step) {
    const int node = fdp.ConsumeIntegralInRange<int>(0, kNodes - 1);
    switch (fdp.ConsumeIntegralInRange<int>(0, 15)) {
      case 0:
        mesh.MoveClock(node, fdp.ConsumeIntegralInRange<int64_t>(1, 120000));
        break;
      case 1:
        mesh.Damage(fdp);
        break;
      case 2:
        mesh.Repeat(fdp, node);
        break;
      case 3:
        mesh.Flush(node, fdp.ConsumeBool());
        break;
      case 4:
        switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
          case 0:
            mesh.Restart(node);
            break;
          case 1:
            mesh.LogCollect(node);
            break;
          default:
            break;
        }
        break;
      case 5:
      case 6:
      case 7:
      case 8:
        mesh.Deliver(fdp, node);
        break;
      default:
        // Mostly database 0: the keys meet there.
        mesh.Write(node, fdp.ConsumeIntegralInRange<int>(0, 7) == 0 ? 1 : 0, ClientRequest(fdp));
    }
  }
  mesh.Settle(fdp);
  return 0;
}
