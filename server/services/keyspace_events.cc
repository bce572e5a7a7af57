#include "server/services/keyspace_events.h"

#include <algorithm>
#include <string>

#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/pubsub.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

struct ClassLetter {
  char letter;
  uint32_t bits;
};

// In keyspaceEventsFlagsToString's order; 'A' is handled apart.
constexpr ClassLetter kLetters[] = {
    {'g', kNotifyGeneric},  {'$', kNotifyString},      {'l', kNotifyList},
    {'s', kNotifySet},      {'h', kNotifyHash},        {'z', kNotifyZset},
    {'x', kNotifyExpired},  {'e', kNotifyEvicted},     {'t', kNotifyStream},
    {'d', kNotifyModule},   {'T', kNotifyTimestamped}, {'K', kNotifyKeyspace},
    {'E', kNotifyKeyevent}, {'m', kNotifyKeyMiss},     {'n', kNotifyNew},
};

void Notify(ServerContext& server, int db, std::string_view key, NotifyClass type,
            std::string_view event) {
  const uint32_t selected = server.config().notify_keyspace_events;
  if (!(selected & type) || !server.pubsub().HasSubscribers()) return;
  if (KeyEventScratch& scratch = server.key_events(); scratch.holding) {
    scratch.held.push_back({db, std::string(key), type, std::string(event)});
    return;
  }
  const std::string db_text = std::to_string(db);
  if (selected & kNotifyKeyspace) {
    std::string channel = "__keyspace@" + db_text + "__:";
    channel.append(key);
    server.pubsub().Publish(PubSub::Kind::kChannel, channel, event);
  }
  if (selected & kNotifyKeyevent) {
    std::string channel = "__keyevent@" + db_text + "__:";
    channel.append(event);
    server.pubsub().Publish(PubSub::Kind::kChannel, channel, key);
  }
}

}  // namespace

bool ParseNotifyClasses(std::string_view text, uint32_t* classes) {
  uint32_t bits = 0;
  for (char c : text) {
    if (c == 'A') {
      bits |= kNotifyAll;
      continue;
    }
    bool known = false;
    for (const ClassLetter& l : kLetters) {
      if (l.letter == c) {
        bits |= l.bits;
        known = true;
      }
    }
    if (!known) return false;
  }
  *classes = bits;
  return true;
}

std::string NotifyClassesText(uint32_t classes) {
  std::string out;
  const bool all = (classes & kNotifyAll) == kNotifyAll;
  if (all) out.push_back('A');
  for (const ClassLetter& l : kLetters) {
    const bool in_all = (l.bits & kNotifyAll) != 0;
    if ((classes & l.bits) && !(all && in_all)) out.push_back(l.letter);
  }
  return out;
}

void NoteKeyChange(ServerContext& server, int db, std::string_view key) {
  if (server.watches().empty() && server.config().notify_keyspace_events == 0) return;
  server.watches().Touch(db, key);
  server.expiry_events().Note(db, key);
}

void SignalKeyChange(ServerContext& server, int db, std::string_view key, NotifyClass type,
                     std::string_view event) {
  // The common case, every write pays for it: nobody watches and no event is published.
  if (server.watches().empty() && server.config().notify_keyspace_events == 0) return;
  server.watches().Touch(db, key);
  if (type != kNotifyExpired) server.expiry_events().Note(db, key);
  auto& absent = server.key_events().absent;
  if (!absent.empty()) {
    auto it = std::find_if(absent.begin(), absent.end(),
                           [&](const auto& a) { return a.first == db && a.second == key; });
    if (it != absent.end()) {
      absent.erase(it);
      auto exists = server.keyspace().Exists(db, key);
      if (exists.ok() && *exists) Notify(server, db, key, kNotifyNew, "new");
    }
  }
  Notify(server, db, key, type, event);
}

void SignalKeyChange(CommandContext& ctx, std::string_view key, NotifyClass type,
                     std::string_view event) {
  if (ctx.client.applies_peer_deltas())
    return NoteKeyChange(ctx.server, ctx.client.db_index(), key);
  SignalKeyChange(ctx.server, ctx.client.db_index(), key, type, event);
}

void SignalKeyMiss(CommandContext& ctx, std::string_view key) {
  ctx.server.stats().keyspace_misses++;
  if (!(ctx.server.config().notify_keyspace_events & kNotifyKeyMiss) ||
      !ctx.server.pubsub().HasSubscribers()) {
    return;
  }
  ctx.server.key_events().misses.emplace_back(ctx.client.db_index(), std::string(key));
}

void BeginKeyEvents(ServerContext& server, const CommandSpec& spec, int db,
                    std::span<const std::string_view> args) {
  KeyEventScratch& scratch = server.key_events();
  scratch.absent.clear();
  if (!(spec.flags & kCmdWrite) || spec.keys.first <= 0 || !server.has_keyspace() ||
      !(server.config().notify_keyspace_events & kNotifyNew) || !server.pubsub().HasSubscribers()) {
    return;
  }
  const int count = static_cast<int>(args.size());
  const int last = spec.keys.last < 0 ? count + spec.keys.last : spec.keys.last;
  for (int i = spec.keys.first; i <= last && i < count; i += spec.keys.step) {
    auto exists = server.keyspace().Exists(db, args[i]);
    if (exists.ok() && !*exists) scratch.absent.emplace_back(db, std::string(args[i]));
  }
}

void EndKeyEvents(ServerContext& server, bool complete) {
  KeyEventScratch& scratch = server.key_events();
  scratch.absent.clear();
  if (scratch.misses.empty()) return;
  std::vector<std::pair<int, std::string>> misses = std::move(scratch.misses);
  scratch.misses.clear();
  if (!complete) return;
  for (const auto& [db, key] : misses) Notify(server, db, key, kNotifyKeyMiss, "keymiss");
}

void HoldKeyEvents(ServerContext& server) {
  KeyEventScratch& scratch = server.key_events();
  scratch.holding = true;
  scratch.held.clear();
}

void ReleaseKeyEvents(ServerContext& server, bool publish) {
  KeyEventScratch& scratch = server.key_events();
  scratch.holding = false;
  if (scratch.held.empty()) return;
  std::vector<HeldKeyEvent> held = std::move(scratch.held);
  scratch.held.clear();
  if (!publish) return;
  for (const HeldKeyEvent& e : held) Notify(server, e.db, e.key, e.type, e.event);
}

void SignalFlush(ServerContext& server, int db) {
  if (server.watches().empty() || !server.has_keyspace()) return;
  for (const auto& [key_db, key] : server.watches().WatchedIn(db)) {
    auto exists = server.keyspace().Exists(key_db, key);
    if (exists.ok() && *exists) server.watches().Touch(key_db, key);
  }
}

}  // namespace ebb::server
