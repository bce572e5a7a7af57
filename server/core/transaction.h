// MULTI/EXEC state: what one client has queued, and which keys clients WATCH.
//
// A client in MULTI queues every command except those flagged kCmdNoQueue (EXEC, DISCARD,
// MULTI, WATCH, QUIT, RESET); the dispatcher checks each one as it would run it (existence,
// arity, authentication, disk errors) and a refusal marks the transaction aborted (EXEC then
// answers EXECABORT). EXEC runs the queue inside one keyspace batch (types/batch_db.h): the
// commands see each other's writes and their writes reach the engine as one WAL record.
//
// WATCH: WatchRegistry maps (db, key) to the clients watching it. Every write that changes a key
// calls SignalKeyChange (server/services/keyspace_events.h), which marks its watchers dirty; EXEC
// of a dirty client answers a null array. A watched key that was live with an expiry when watched
// and has expired by EXEC also aborts it (Redis 7's isWatchedKeyExpired), whether or not the
// expiry was noticed.
//
// Composition with a connection that waits (a WAL commit, a read parked for table blocks,
// server/dispatch/dispatcher.h "Restartable commands"): queueing a command runs nothing, so it
// never parks; a command that parks before MULTI or between queued ones leaves the queue untouched.
// EXEC runs the whole queue inside one Dispatch call on the command thread and is never
// restarted (kCmdNoRestart: its reads wait for the disk inline), so nothing else interleaves
// with a transaction and its queue is consumed exactly once.
// Thread-safety: none; the command thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ebb::server {

class Client;
class WatchRegistry;
struct CommandSpec;

// One queued command: the row that will run and its arguments (copied out of the input buffer).
struct QueuedCommand {
  const CommandSpec* spec;
  size_t first_arg;
  std::vector<std::string> args;
};

// A watched key of one client.
struct WatchedKey {
  int db;
  std::string key;
  std::optional<int64_t> expire_at_ms;  // the key's expiry when watched, if live with one
};

struct MultiState {
  bool active = false;      // between MULTI and EXEC/DISCARD
  bool dirty_exec = false;  // a command was refused while queueing: EXEC answers EXECABORT
  bool dirty_cas = false;   // a watched key changed: EXEC answers a null array
  std::vector<QueuedCommand> queued;
  std::vector<WatchedKey> watched;
};

// Ends `client`'s transaction, if any: leaves MULTI, drops the queue and the flags, unwatches
// every key (DISCARD, EXEC, RESET, disconnect).
void DiscardTransaction(WatchRegistry& watches, Client& client);

class WatchRegistry {
 public:
  // `client` watches (db, key). Watching the same key twice keeps one entry.
  void Watch(Client* client, int db, std::string_view key, std::optional<int64_t> expire_at_ms);
  // Forgets every key `client` watches (UNWATCH, EXEC, DISCARD, RESET, disconnect).
  void UnwatchAll(Client* client);
  // Marks every client watching (db, key) dirty (Redis's touchWatchedKey).
  void Touch(int db, std::string_view key);
  // The watched keys of `db` (every database when db < 0), for FLUSHDB/FLUSHALL: the caller
  // touches those that exist.
  std::vector<std::pair<int, std::string>> WatchedIn(int db) const;
  bool empty() const { return watchers_.empty(); }

 private:
  static std::string MapKey(int db, std::string_view key);
  std::unordered_map<std::string, std::vector<Client*>> watchers_;
};

}  // namespace ebb::server
