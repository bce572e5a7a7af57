// Routing a keyed request in a cluster (Redis 7's getNodeByQuery): which hash slot the request's
// keys are in, and whether this node serves it or sends the client elsewhere (-MOVED, -ASK),
// asks it to retry (-TRYAGAIN) or refuses (-CROSSSLOT, -CLUSTERDOWN). docs/cluster.md, "Keys,
// slots and redirections", tells the rules from the client's side.
//
// The dispatcher routes every command that names keys (and EXEC, over its queue) before running
// it; a script routes each command it calls. Keys are found by the rows' key specs
// (server/core/key_positions.h), so what COMMAND GETKEYS answers is what routing uses.
// It lives in dispatch/ beside SlotOwnership (slot_ownership.h), the one thing it asks of the
// cluster; its names keep the cluster namespace. RouteRequest is a pure function of the slot
// table, the request and the keyspace: tests/commands/cluster_routing_test.cc runs it against a
// fake (tests/support/fake_cluster.h).
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/key_slot.h"
#include "server/core/command.h"
#include "server/dispatch/slot_ownership.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server::cluster {

// One command of a request: its row (a subcommand's row for a container) and its arguments
// (args[0] the command name).
struct RoutedCommand {
  const CommandSpec* spec = nullptr;
  std::span<const std::string_view> args;
};

// What the request may do here, besides its keys.
struct RouteFlags {
  bool asking = false;                 // the client sent ASKING (or the row is flagged kCmdAsking)
  bool readonly = false;               // the client sent READONLY
  bool write = false;                  // the request may write (a write command, an EXEC of one)
  bool allow_reads_when_down = false;  // cluster-allow-reads-when-down
};

enum class Redirect {
  kNone,          // served here
  kCrossSlot,     // keys of more than one slot
  kTryAgain,      // several keys of a slot in migration, some of them not here
  kDown,          // the cluster is down
  kDownReadOnly,  // the cluster is down and the request writes (reads are allowed)
  kUnbound,       // no node serves the keys' slot
  kMoved,         // another node serves the slot
  kAsk,           // this node is migrating the slot and the keys are no longer here
};

struct Route {
  Redirect redirect = Redirect::kNone;
  // The keys' slot; -1 when the request names no key (it is then always served here).
  int slot = -1;
  NodeAddress node;  // where kMoved and kAsk send the client
};

// Routes `commands` (one command, or a transaction's queue) as Redis Cluster does:
//   1. every key in one slot, else kCrossSlot; a slot no node serves: kUnbound;
//   2. the cluster down: kDown, or with allow_reads_when_down kDownReadOnly for a write;
//   3. MIGRATE on a slot in migration either way runs here (it moves the keys);
//   4. a slot this node owns and is migrating: a request whose keys are all gone is sent with
//      kAsk to the target, one with some gone gets kTryAgain;
//   5. a slot this node is importing, with `asking`: served, unless several different keys are
//      named and some are not here yet (kTryAgain);
//   6. a READONLY client's read of a slot this replica's master serves: served;
//   7. a slot another node owns: kMoved; this node's own slot: served.
// Whether a key is here (steps 4 and 5 only) is read from `keyspace`'s database 0 (an expired
// key is not); with no keyspace no key is. `scratch` is reused for key positions (no allocation
// once it has grown).
Route RouteRequest(const SlotOwnership& cluster, std::span<const RoutedCommand> commands,
                   const RouteFlags& flags, types::Keyspace* keyspace,
                   std::vector<size_t>* scratch);

// The common case, inline so that routing it costs one CRC16 and the slot table's answers: one
// command naming one key (GET, SET, TLOG INS, ...) of a slot this node owns, not migrating or
// importing, in a healthy cluster. Returns that slot (RouteRequest would serve it there); -1
// when the request needs RouteRequest.
inline int StableLocalSlot(const SlotOwnership& cluster, const CommandSpec& spec,
                           std::span<const std::string_view> args) {
  const KeySpec& keys = spec.keys;
  if (keys.first <= 0 || keys.last != keys.first || keys.numkeys != 0 || !keys.keyword.empty() ||
      static_cast<size_t>(keys.first) >= args.size()) {
    return -1;
  }
  const int slot = KeySlot(args[keys.first]);
  NodeAddress target;
  if (!cluster.OwnsSlot(slot) || !cluster.cluster_ok() || cluster.MigratingTo(slot, &target) ||
      cluster.Importing(slot)) {
    return -1;
  }
  return slot;
}

// The error a client gets for a route that is not kNone, in Redis's words, without the '-':
// "MOVED 3999 127.0.0.1:6381", "ASK 3999 127.0.0.1:6381", "CROSSSLOT ...", ... `tls_client`:
// the client is connected over TLS (under tls-cluster others are sent to the plain port:
// PortFor).
std::string RedirectError(const Route& route, bool tls_client);

// True when a row is routed at all: it names keys (or may: EVAL's numkeys, MIGRATE's KEYS) and is
// not a Pub/Sub command. EXEC is routed over its queue separately.
inline bool RoutesByKeys(const CommandSpec& spec) {
  return (spec.keys.first > 0 || spec.keys.numkeys > 0) && !(spec.flags & kCmdPubSub);
}

}  // namespace ebb::server::cluster
