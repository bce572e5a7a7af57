// Client: what the server knows about one connected client (CLIENT LIST/INFO, HELLO, AUTH,
// SELECT), and ClientRegistry, the set of connected clients.
//
// A Client is owned by its connection (server/net/connection.h) and registered in the
// ClientRegistry for its lifetime. Handlers read and change their own client through
// CommandContext::client; CLIENT KILL reaches other clients through the registry.
// Thread-safety: none; everything here lives on the command (io) thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "server/core/pubsub.h"
#include "server/core/transaction.h"
#include "storage/table/block_fetch.h"

namespace ebb::server {

// Redis's validateClientName: a client name, library name or version is printable ASCII
// without spaces (CLIENT SETNAME, CLIENT SETINFO, HELLO SETNAME).
bool IsValidClientName(std::string_view name);

class AclUser;

class Client {
 public:
  // REQUIRES: id unique among clients of this process; now_ms from the system clock; `local`
  // true only when the connection's peer address is a loopback address (IsLoopbackPeer).
  Client(uint64_t id, std::string addr, std::string laddr, int fd, int64_t now_ms, bool local)
      : id_(id),
        addr_(std::move(addr)),
        laddr_(std::move(laddr)),
        fd_(fd),
        local_(local),
        created_ms_(now_ms),
        last_interaction_ms_(now_ms) {}

  uint64_t id() const { return id_; }
  const std::string& addr() const { return addr_; }    // "ip:port" of the peer
  const std::string& laddr() const { return laddr_; }  // "ip:port" of our side
  int fd() const { return fd_; }
  // True when the peer is on a loopback address (enable-debug-command local), as the socket
  // reported it when the connection was accepted.
  bool is_local() const { return local_; }
  // True for a connection accepted on tls-port (set once, when it is accepted).
  bool tls() const { return tls_; }
  void set_tls(bool tls) { tls_ = tls; }

  int db_index() const { return db_index_; }
  void set_db_index(int db) { db_index_ = db; }
  int resp() const { return resp_; }  // 2 or 3
  void set_resp(int v) { resp_ = v; }
  const std::string& name() const { return name_; }
  void set_name(std::string_view n) { name_ = n; }
  // The ACL user the client authenticated as (AUTH, HELLO AUTH), or nullptr: not authenticated,
  // acting as `default` while that needs no password (server/acl/acl.h).
  const AclUser* user() const { return user_; }
  void set_user(const AclUser* user) { user_ = user; }
  bool authenticated() const { return user_ != nullptr; }
  const std::string& lib_name() const { return lib_name_; }
  void set_lib_name(std::string_view v) { lib_name_ = v; }
  const std::string& lib_ver() const { return lib_ver_; }
  void set_lib_ver(std::string_view v) { lib_ver_ = v; }

  int64_t age_s(int64_t now_ms) const { return (now_ms - created_ms_) / 1000; }
  int64_t idle_s(int64_t now_ms) const { return (now_ms - last_interaction_ms_) / 1000; }
  int64_t last_interaction_ms() const { return last_interaction_ms_; }
  void Touch(int64_t now_ms) { last_interaction_ms_ = now_ms; }

  // The last command run, as CLIENT LIST prints it ("get", "client|list").
  std::string_view last_command() const { return last_command_; }
  // REQUIRES: `c` outlives the client (a command row's full name).
  void set_last_command(std::string_view c) { last_command_ = c; }

  // What the connection's buffers hold, for CLIENT LIST (Redis 7's fields).
  struct Memory {
    size_t query = 0;       // qbuf: bytes received and not yet run
    size_t query_free = 0;  // qbuf-free: the query buffer's unused capacity
    size_t argv = 0;        // argv-mem: the request parser's argument memory
    size_t read = 0;        // rbs: the socket read buffer
    size_t output = 0;      // omem: replies not yet written
    size_t total = 0;       // tot-mem: everything the connection holds, itself included
  };
  void set_memory(const Memory& memory) { memory_ = memory; }
  const Memory& memory() const { return memory_; }

  // Asks the connection to close once the replies already produced are written. Safe to call
  // on the client currently running a command (it closes after this reply) or on another one.
  void RequestClose();
  // The same, dropping the replies not yet written (a peer's stream past the bounded backlog:
  // what waits for it is no longer needed, as Redis drops a client over its output limit).
  void RequestCloseDiscardingOutput() {
    discard_output_ = true;
    RequestClose();
  }
  bool close_requested() const { return close_requested_; }
  bool discard_output_on_close() const { return discard_output_; }
  // Installed by the connection: how to close it when RequestClose is called from elsewhere.
  void set_close_hook(std::function<void()> hook) { close_hook_ = std::move(hook); }

  // Subscriptions (server/core/pubsub.h). In subscriber mode while it has any: a RESP2 client may
  // then run only (P|S)(UN)SUBSCRIBE, PING, QUIT and RESET.
  PubSubState& pubsub() { return pubsub_; }
  const PubSubState& pubsub() const { return pubsub_; }
  bool in_subscriber_mode() const { return pubsub_.total() > 0; }
  // Sends a message out of band (a Pub/Sub message, a RESP3 push): the connection appends it to
  // its output after the replies already produced. Dropped when no connection is attached.
  void Push(std::string_view encoded) {
    if (push_hook_) push_hook_(encoded);
  }
  void set_push_hook(std::function<void(std::string_view)> hook) { push_hook_ = std::move(hook); }
  // Bytes produced for the client and not yet written to its socket (0 with no connection).
  size_t PendingOutput() const { return pending_output_hook_ ? pending_output_hook_() : 0; }
  void set_pending_output_hook(std::function<size_t()> hook) {
    pending_output_hook_ = std::move(hook);
  }

  // What a WAIT that has not answered yet waits for (its runs after the first reuse it).
  struct PendingWait {
    bool active = false;
    uint64_t offset = 0;      // the stream offset the replicas must acknowledge
    int64_t deadline_ms = 0;  // wall clock; 0: no timeout
  };
  PendingWait& pending_wait() { return pending_wait_; }

  // A replica attached with PSYNC (CLIENT LIST flag S; server/replication/master.h).
  bool is_replica() const { return is_replica_; }
  void set_replica(bool replica) { is_replica_ = replica; }
  // The link of this replica to its master (CLIENT LIST flag M; server/replication/replica.h).
  bool is_master_link() const { return is_master_link_; }
  void set_master_link(bool link) { is_master_link_ = link; }
  // MONITOR made it a monitor (server/services/monitor.h), until RESET: CLIENT LIST's flag O.
  bool is_monitor() const { return is_monitor_; }
  void set_monitor(bool monitor) { is_monitor_ = monitor; }
  // The client active-active peers' deltas run as (server/active_active/active_active.h): the
  // writes it makes publish no keyspace events, which belong to the node whose client wrote.
  bool applies_peer_deltas() const { return applies_peer_deltas_; }
  void set_applies_peer_deltas(bool applies) { applies_peer_deltas_ = applies; }

  // CLIENT REPLY ON|OFF|SKIP: whether the replies of this client's commands are sent. Messages
  // pushed to it (Push: Pub/Sub messages and confirmations) are sent regardless, as in Redis.
  enum class ReplyMode { kOn, kOff, kSkipNext, kSkipThis };
  void set_reply_mode(ReplyMode mode) { reply_mode_ = mode; }
  // True when the reply of the command about to run must be dropped.
  bool replies_silenced() const { return reply_mode_ != ReplyMode::kOn; }
  // After a command ran: SKIP silences exactly the command after CLIENT REPLY SKIP.
  void OnCommandDone() {
    if (reply_mode_ == ReplyMode::kSkipThis) reply_mode_ = ReplyMode::kOn;
    if (reply_mode_ == ReplyMode::kSkipNext) reply_mode_ = ReplyMode::kSkipThis;
  }

  // Redis Cluster (docs/cluster.md, "Keys, slots and redirections"). ASKING lets the next command
  // (or the next transaction, when sent before or inside MULTI) run on a slot this node is
  // importing; the dispatcher clears it after any other command. READONLY lets reads of slots
  // this replica's master serves run here; READWRITE (and RESET) clears it.
  bool asking() const { return asking_; }
  void set_asking(bool asking) { asking_ = asking; }
  bool cluster_readonly() const { return cluster_readonly_; }
  void set_cluster_readonly(bool readonly) { cluster_readonly_ = readonly; }
  // The hash slot of the keys of the command running (set by the dispatcher's routing; -1 when
  // it names none): a script's calls must stay in it.
  int cluster_slot() const { return cluster_slot_; }
  void set_cluster_slot(int slot) { cluster_slot_ = slot; }

  // MULTI/EXEC and WATCH state (server/core/transaction.h).
  MultiState& multi() { return multi_; }
  const MultiState& multi() const { return multi_; }

  // One CLIENT LIST line (without the trailing newline), Redis 7.2's field order. `user` is the
  // name of the client's ACL user, as ClientUserName (server/acl/acl_user.h) gives it.
  std::string InfoLine(int64_t now_ms, std::string_view user) const;

  // The blocks the client's current command needs from disk and those fetched for its reruns
  // (server/dispatch/dispatcher.h, "Restartable commands").
  storage::BlockFetch& block_fetch() { return block_fetch_; }

 private:
  const uint64_t id_;
  const std::string addr_;
  const std::string laddr_;
  const int fd_;
  const bool local_;
  bool tls_ = false;
  const int64_t created_ms_;
  int64_t last_interaction_ms_;
  int db_index_ = 0;
  int resp_ = 2;
  const AclUser* user_ = nullptr;
  bool close_requested_ = false;
  bool discard_output_ = false;
  std::string name_;
  std::string lib_name_;
  std::string lib_ver_;
  std::string_view last_command_ = "NULL";
  Memory memory_;
  std::function<void()> close_hook_;
  storage::BlockFetch block_fetch_;
  MultiState multi_;
  PubSubState pubsub_;
  ReplyMode reply_mode_ = ReplyMode::kOn;
  std::function<void(std::string_view)> push_hook_;
  std::function<size_t()> pending_output_hook_;
  bool is_replica_ = false;
  bool is_master_link_ = false;
  bool is_monitor_ = false;
  bool applies_peer_deltas_ = false;
  bool asking_ = false;
  bool cluster_readonly_ = false;
  int cluster_slot_ = -1;
  PendingWait pending_wait_;
};

// The connected clients by id (ascending, as CLIENT LIST prints them).
class ClientRegistry {
 public:
  // REQUIRES: no client with the same id is registered.
  void Add(Client* client) { clients_[client->id()] = client; }
  void Remove(uint64_t id) { clients_.erase(id); }
  Client* Find(uint64_t id) const;
  size_t size() const { return clients_.size(); }
  const std::map<uint64_t, Client*>& all() const { return clients_; }
  uint64_t NextId() { return ++last_id_; }

 private:
  std::map<uint64_t, Client*> clients_;
  uint64_t last_id_ = 0;
};

}  // namespace ebb::server
