#include "server/services/monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/secret_args.h"

namespace ebb::server {
namespace {

// Redis's sdscatrepr: the argument in double quotes, escaped.
void AppendQuoted(std::string* out, std::string_view arg) {
  *out += '"';
  for (const char c : arg) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '"':
        *out += "\\\"";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\a':
        *out += "\\a";
        break;
      case '\b':
        *out += "\\b";
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          *out += c;
        } else {
          *out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        }
    }
  }
  *out += '"';
}

}  // namespace

std::string MonitorLine(int64_t unix_us, int db, std::string_view origin,
                        std::span<const std::string_view> args, const std::vector<bool>& secret) {
  std::string line =
      fmt::format("{}.{:06} [{} {}]", unix_us / 1000000, unix_us % 1000000, db, origin);
  for (size_t i = 0; i < args.size(); ++i) {
    line += ' ';
    AppendQuoted(&line, secret[i] ? kRedactedArgument : args[i]);
  }
  return line;
}

bool Monitors::Contains(uint64_t client_id) const {
  return std::find(ids_.begin(), ids_.end(), client_id) != ids_.end();
}

void Monitors::Add(uint64_t client_id) {
  if (!Contains(client_id)) ids_.push_back(client_id);
}

void Monitors::Remove(uint64_t client_id) { std::erase(ids_, client_id); }

void Monitors::Feed(ClientRegistry& clients, const CommandSpec& spec,
                    std::span<const std::string_view> args, const Client& client,
                    bool from_script) {
  if (spec.flags & kCmdAdmin) return;
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const std::string push =
      "+" +
      MonitorLine(now_us, client.db_index(), from_script ? "lua" : client.addr(), args,
                  SecretArguments(spec, args)) +
      "\r\n";
  std::erase_if(ids_, [&](uint64_t id) {
    Client* monitor = clients.Find(id);
    if (monitor == nullptr) return true;
    monitor->Push(push);
    return false;
  });
}

}  // namespace ebb::server
