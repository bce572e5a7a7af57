#include "server/services/slowlog.h"

#include <algorithm>

#include "common/cycle_clock.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/secret_args.h"

namespace ebb::server {
namespace {

std::string Shortened(std::string_view arg) {
  if (arg.size() <= SlowLog::kMaxArgBytes) return std::string(arg);
  return std::string(arg.substr(0, SlowLog::kMaxArgBytes)) + "... (" +
         std::to_string(arg.size() - SlowLog::kMaxArgBytes) + " more bytes)";
}

}  // namespace

void SlowLog::Add(const CommandSpec& spec, std::span<const std::string_view> args,
                  const Client& client, uint64_t ticks, int64_t unix_time_s, size_t max_len) {
  Entry entry{.id = next_id_++,
              .unix_time_s = unix_time_s,
              .duration_us = static_cast<uint64_t>(static_cast<double>(ticks) /
                                                   CycleClock::TicksPerMicrosecond()),
              .client_addr = client.addr(),
              .client_name = client.name()};
  const std::vector<bool> secret = SecretArguments(spec, args);
  const size_t kept = args.size() > kMaxArgs ? kMaxArgs - 1 : args.size();
  entry.args.reserve(std::min(args.size(), kMaxArgs));
  for (size_t i = 0; i < kept; ++i) {
    entry.args.push_back(secret[i] ? std::string(kRedactedArgument) : Shortened(args[i]));
  }
  if (kept < args.size()) {
    entry.args.push_back("... (" + std::to_string(args.size() - kept) + " more arguments)");
  }
  entries_.push_front(std::move(entry));
  while (entries_.size() > max_len) entries_.pop_back();
}

std::vector<const SlowLog::Entry*> SlowLog::Newest(size_t count) const {
  std::vector<const Entry*> out;
  for (size_t i = 0; i < entries_.size() && i < count; ++i) out.push_back(&entries_[i]);
  return out;
}

}  // namespace ebb::server
