// SignalKeyChange: the one call every write makes after it changed a key — Redis's
// signalModifiedKey and notifyKeyspaceEvent in one.
//
//   if (result->written) SignalKeyChange(ctx, o.key, kNotifyString, "set");
//
// It invalidates the key's WATCHers (server/core/transaction.h) and publishes the keyspace
// notification `event` of class `type` when notify-keyspace-events selects it:
// "__keyspace@<db>__:<key>" carrying the event (class K) and "__keyevent@<db>__:<event>"
// carrying the key (class E). Call it once per key and event, after the change, and only when
// something changed (a write that changes nothing signals nothing, as in Redis). Events that
// change no key (a failed write) are not signalled. Expiry calls it with kNotifyExpired and
// "expired" when the key's time passes (server/services/expiry_events.h).
//
// Two classes are outside A, as in Redis 7: n publishes "new" when a command creates a key
// (before that command's own event for the key; BeginKeyEvents notes which of a write command's
// keys are absent), and m publishes "keymiss" when a read finds no key (SignalKeyMiss; published
// once the command's run is complete, so a run the dispatcher repeats or a lookahead publishes
// nothing twice).
//
// The classes are Redis's notify-keyspace-events letters; ebb's own types have one more:
// T (TLOG and TREG: tlog_ins, tlog_trim, tlog_clr, treg_set). PUT and DELETE are string
// writes ($: put, delete). docs/commands.md lists every command's events.
// Thread-safety: the command thread only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ebb::server {

struct CommandContext;
struct CommandSpec;
class ServerContext;

enum NotifyClass : uint32_t {
  kNotifyKeyspace = 1 << 0,      // K
  kNotifyKeyevent = 1 << 1,      // E
  kNotifyGeneric = 1 << 2,       // g
  kNotifyString = 1 << 3,        // $
  kNotifyList = 1 << 4,          // l
  kNotifySet = 1 << 5,           // s
  kNotifyHash = 1 << 6,          // h
  kNotifyZset = 1 << 7,          // z
  kNotifyExpired = 1 << 8,       // x
  kNotifyEvicted = 1 << 9,       // e
  kNotifyStream = 1 << 10,       // t
  kNotifyKeyMiss = 1 << 11,      // m (not in A)
  kNotifyModule = 1 << 12,       // d
  kNotifyNew = 1 << 13,          // n (not in A)
  kNotifyTimestamped = 1 << 14,  // T: ebb's TLOG and TREG
  // A: every class but m and n.
  kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
               kNotifyZset | kNotifyExpired | kNotifyEvicted | kNotifyStream | kNotifyModule |
               kNotifyTimestamped,
};

// Parses notify-keyspace-events ("KEA", "Ex", ""); false on an unknown letter.
bool ParseNotifyClasses(std::string_view text, uint32_t* classes);
// The canonical text of `classes` (CONFIG GET), as Redis's keyspaceEventsFlagsToString.
std::string NotifyClassesText(uint32_t classes);

// The key `key` of the client's database changed by `event` of class `type`.
void SignalKeyChange(CommandContext& ctx, std::string_view key, NotifyClass type,
                     std::string_view event);
// The same for database `db`, outside a command (expiry).
void SignalKeyChange(ServerContext& server, int db, std::string_view key, NotifyClass type,
                     std::string_view event);
// A change that publishes nothing: invalidates the key's WATCHers and indexes its expiry for
// `expired` events. For writes applied from active-active peers: their events belong to the node
// whose client made them (docs/active-active.md, "Keyspace notifications"); SignalKeyChange on a
// client that applies peer deltas comes here.
void NoteKeyChange(ServerContext& server, int db, std::string_view key);
// Before FLUSHDB (db >= 0) or FLUSHALL (db < 0) removes everything: touches the watchers of
// every watched key that exists (Redis's touchAllWatchedKeysInDb).
void SignalFlush(ServerContext& server, int db);

// A read of `key` in the client's database found nothing: counts a keyspace miss and, under
// class m, queues the "keymiss" event for EndKeyEvents.
void SignalKeyMiss(CommandContext& ctx, std::string_view key);

// One event whose publication waits for its write's outcome (HoldKeyEvents).
struct HeldKeyEvent {
  int db;
  std::string key;
  NotifyClass type;
  std::string event;
};

// What the running command has noted for classes n and m (ServerContext::key_events()), and the
// events it holds. Empty between commands, and all along while neither class is selected.
struct KeyEventScratch {
  std::vector<std::pair<int, std::string>> absent;  // keys the command may create
  std::vector<std::pair<int, std::string>> misses;  // keymiss events to publish
  bool holding = false;                             // between HoldKeyEvents and ReleaseKeyEvents
  std::vector<HeldKeyEvent> held;                   // events to publish once the write stands
  bool empty() const { return absent.empty() && misses.empty(); }
};
// Before a command runs in database `db`: under class n, notes which keys of a write command
// (its key spec over `args`) do not exist yet. The dispatcher calls it only for a write command
// while class n is selected (the check is its own, inline).
void BeginKeyEvents(ServerContext& server, const CommandSpec& spec, int db,
                    std::span<const std::string_view> args);
// A write whose outcome is decided after its handler ran (active-active: the mode logs it, or
// drops what it changed, once the handler has signalled its keys; server/dispatch/write_planner.h)
// holds its events: from HoldKeyEvents on, every event SignalKeyChange would publish waits, and
// ReleaseKeyEvents publishes them in their order when `publish` (the write stands) or forgets
// them. WATCH and the expiry index are touched at once either way.
void HoldKeyEvents(ServerContext& server);
void ReleaseKeyEvents(ServerContext& server, bool publish);

// After the run: publishes the queued keymiss events when `complete` (the run counts), and
// forgets what BeginKeyEvents and SignalKeyMiss noted. Needed only when the scratch is not
// empty.
void EndKeyEvents(ServerContext& server, bool complete);

}  // namespace ebb::server
