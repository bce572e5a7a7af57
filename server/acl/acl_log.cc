#include "server/acl/acl_log.h"

#include <cstdlib>
#include <utility>

namespace ebb::server {
namespace {

// Redis's ACL_LOG_GROUPING_MAX_TIME_DELTA and the entries it scans for an equal one.
constexpr int64_t kGroupingMs = 60000;
constexpr size_t kScanned = 10;

bool SameEvent(const AclLogEntry& a, const AclLogEntry& b) {
  return a.reason == b.reason && a.context == b.context &&
         std::llabs(a.time_ms - b.time_ms) <= kGroupingMs && a.object == b.object &&
         a.username == b.username;
}

}  // namespace

std::string_view AclLogReasonName(AclLogReason reason) {
  switch (reason) {
    case AclLogReason::kCommand:
      return "command";
    case AclLogReason::kKey:
      return "key";
    case AclLogReason::kChannel:
      return "channel";
    case AclLogReason::kAuth:
      return "auth";
  }
  return "unknown";
}

std::string_view AclLogContextName(AclLogContext context) {
  switch (context) {
    case AclLogContext::kToplevel:
      return "toplevel";
    case AclLogContext::kMulti:
      return "multi";
    case AclLogContext::kLua:
      return "lua";
  }
  return "unknown";
}

void AclLog::Add(AclLogEntry entry, size_t max_len) {
  for (size_t i = 0; i < entries_.size() && i < kScanned; i++) {
    if (!SameEvent(entries_[i], entry)) continue;
    AclLogEntry bumped = std::move(entries_[i]);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    bumped.count++;
    bumped.time_ms = entry.time_ms;
    bumped.client_info = std::move(entry.client_info);
    entries_.push_front(std::move(bumped));
    return;
  }
  entry.count = 1;
  entries_.push_front(std::move(entry));
  while (entries_.size() > max_len) entries_.pop_back();
}

}  // namespace ebb::server
