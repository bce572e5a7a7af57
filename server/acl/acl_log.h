// AclLog: Redis 7's ACL LOG — the latest refusals by the ACL (a command, a key, a channel) and the
// failed authentications, newest first, for ACL LOG to show.
//
// As Redis's addACLLogEntry: an event equal to one of the ten newest entries (same reason,
// context, object and user) within 60 s of it bumps that entry's count, takes its client's
// description and time, and moves it to the front; any other event is a new entry at the front,
// and the oldest entries go past the length limit (acllog-max-len).
//
// Thread-safety: none; the command thread's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace ebb::server {

// Why an entry was logged (ACL LOG's `reason`).
enum class AclLogReason { kCommand, kKey, kChannel, kAuth };
// Where the refused command ran (ACL LOG's `context`).
enum class AclLogContext { kToplevel, kMulti, kLua };

std::string_view AclLogReasonName(AclLogReason reason);     // "command", "key", "channel", "auth"
std::string_view AclLogContextName(AclLogContext context);  // "toplevel", "multi", "lua"

struct AclLogEntry {
  uint64_t count = 1;
  AclLogReason reason = AclLogReason::kCommand;
  AclLogContext context = AclLogContext::kToplevel;
  std::string object;       // the command's full name, the key, the channel, or AUTH/HELLO
  std::string username;     // the user refused, or the name a failed AUTH gave
  int64_t time_ms = 0;      // when it last happened
  std::string client_info;  // CLIENT INFO's line of the client it happened to
};

class AclLog {
 public:
  // Adds `entry` (its count ignored) or bumps an equal recent one; keeps at most `max_len`.
  void Add(AclLogEntry entry, size_t max_len);
  void Reset() { entries_.clear(); }
  const std::deque<AclLogEntry>& entries() const { return entries_; }

 private:
  std::deque<AclLogEntry> entries_;  // newest first
};

}  // namespace ebb::server
