#include "server/dispatch/cluster_redirect.h"

#include <fmt/format.h>

#include "common/key_slot.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/core/key_positions.h"
#include "types/keyspace.h"

namespace ebb::server::cluster {
namespace {

// Whether `key` is in database 0 now, as a slot move counts it: a read at some grace returns it
// (GETKEYSINSLOT lists it, MIGRATE carries it), so a key the default grace hides is still
// answered here rather than created anew on the importing node. A read that fails counts as
// absent: the client is sent where the key may be, or asked to retry.
bool KeyHere(types::Keyspace* keyspace, std::string_view key) {
  if (keyspace == nullptr) return false;
  types::OpResult<bool> held = keyspace->HoldsKey(0, key);
  return held.ok() && *held;
}

}  // namespace

Route RouteRequest(const SlotOwnership& cluster, std::span<const RoutedCommand> commands,
                   const RouteFlags& flags, types::Keyspace* keyspace,
                   std::vector<size_t>* scratch) {
  Route route;
  std::string_view first_key;
  bool have_key = false;
  bool mine = false;
  bool multiple_keys = false;
  bool migrating = false;
  bool importing = false;
  bool is_migrate = false;
  int missing = 0;
  int existing = 0;
  int slot = -1;
  for (const RoutedCommand& command : commands) {
    scratch->clear();
    FindKeyPositions(command.spec->keys, command.args, scratch);
    for (size_t position : *scratch) {
      const std::string_view key = command.args[position];
      if (!have_key) {
        have_key = true;
        first_key = key;
        slot = KeySlot(key);
        mine = cluster.OwnsSlot(slot);
        if (!mine && !cluster.SlotOwner(slot, &route.node)) {
          route.redirect = Redirect::kUnbound;
          return route;
        }
        if (mine && cluster.MigratingTo(slot, &route.node)) {
          migrating = true;
        } else if (cluster.Importing(slot)) {
          importing = true;
        }
      } else if (key != first_key) {
        if (KeySlot(key) != slot) {
          route.redirect = Redirect::kCrossSlot;
          return route;
        }
        multiple_keys = true;
      }
      if (migrating || importing) {
        if (KeyHere(keyspace, key)) {
          existing++;
        } else {
          missing++;
        }
      }
    }
    if ((migrating || importing) && command.spec->full_name == "migrate") is_migrate = true;
  }
  if (!have_key) return route;
  if (!cluster.cluster_ok()) {
    if (!flags.allow_reads_when_down) {
      route.redirect = Redirect::kDown;
      return route;
    }
    if (flags.write) {
      route.redirect = Redirect::kDownReadOnly;
      return route;
    }
  }
  route.slot = slot;
  if (is_migrate && commands.size() == 1) return route;
  if (migrating && missing > 0) {
    route.redirect = existing > 0 ? Redirect::kTryAgain : Redirect::kAsk;
    return route;
  }
  if (importing && flags.asking) {
    if (multiple_keys && missing > 0) route.redirect = Redirect::kTryAgain;
    return route;
  }
  if (mine) return route;
  if (flags.readonly && !flags.write && cluster.ReplicatesSlot(slot)) return route;
  route.redirect = Redirect::kMoved;
  return route;
}

std::string RedirectError(const Route& route, bool tls_client) {
  switch (route.redirect) {
    case Redirect::kCrossSlot:
      return std::string(kCrossSlot);
    case Redirect::kTryAgain:
      return std::string(kTryAgain);
    case Redirect::kDown:
      return std::string(kClusterDown);
    case Redirect::kDownReadOnly:
      return std::string(kClusterDownReadOnly);
    case Redirect::kUnbound:
      return std::string(kSlotNotServed);
    case Redirect::kMoved:
    case Redirect::kAsk:
      return MovedOrAskError(route.redirect == Redirect::kAsk, route.slot, route.node.host,
                             PortFor(route.node, tls_client));
    case Redirect::kNone:
      break;
  }
  return {};
}

}  // namespace ebb::server::cluster
