#include "server/dispatcher.h"

#include <spdlog/spdlog.h>

#include "protocol/reply_writer.h"
#include "server/client.h"
#include "server/command.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

bool ArityOk(int arity, size_t argc) {
  if (arity >= 0) return argc == static_cast<size_t>(arity);
  return argc >= static_cast<size_t>(-arity);
}

}  // namespace

bool Dispatcher::RefusedForDiskError(protocol::ReplyWriter& reply) {
  if (!server_->has_keyspace()) return false;
  const storage::Status error = server_->keyspace().db().BackgroundError();
  if (error.ok()) {
    if (refusing_writes_) spdlog::warn("The data directory is writable again: writes accepted");
    refusing_writes_ = false;
    return false;
  }
  if (!refusing_writes_) {
    spdlog::warn("Refusing writes until the disk error clears: {}", error.ToString());
  }
  refusing_writes_ = true;
  reply.Error(MisconfError(error.message()));
  return true;
}

bool Dispatcher::HeldByWriteStall(protocol::ReplyWriter& reply, bool* deferred) {
  if (!server_->has_keyspace()) return false;
  const storage::Status stall = server_->keyspace().db().CheckWriteStall();
  if (stall.ok()) return false;
  if (stall.IsBusy()) {
    *deferred = true;
    return true;
  }
  // The stall cannot end by itself: a disk error is Redis's MISCONF, anything else (a damaged
  // table compaction cannot read) says what it is.
  reply.Error(stall.IsIOError() ? MisconfError(stall.message()) : "ERR " + stall.ToString());
  return true;
}

Dispatcher::Result Dispatcher::Dispatch(std::span<const std::string_view> args, Client& client,
                                        protocol::ReplyWriter& reply) {
  Result result;
  const CommandSpec* spec = server_->commands().Find(args[0]);
  if (spec == nullptr) {
    reply.Error(UnknownCommandError(args[0], args.subspan(1)));
    return result;
  }
  uint32_t flags = spec->flags;
  size_t first_arg = 1;
  if (!spec->subcommands.empty()) {
    if (args.size() < 2) {
      // A container with its own handler (COMMAND) runs bare; others are reported by their
      // own arity, as Redis does ("at least 2").
      if (spec->handler == nullptr) {
        reply.Error(WrongArgsError(spec->full_name));
        return result;
      }
    } else {
      const CommandSpec* sub = CommandTable::FindSubcommand(*spec, args[1]);
      if (sub == nullptr) {
        reply.Error(UnknownSubcommandError(args[0], args[1]));
        return result;
      }
      spec = sub;
      flags |= sub->flags;
      first_arg = 2;
    }
  }
  if (!ArityOk(spec->arity, args.size())) {
    reply.Error(WrongArgsError(spec->full_name));
    return result;
  }
  if (flags & kCmdDebug) {
    DebugCommandPolicy policy = server_->config().enable_debug_command;
    if (policy == DebugCommandPolicy::kNo ||
        (policy == DebugCommandPolicy::kLocal && !client.is_local())) {
      reply.Error(kDebugNotAllowed);
      return result;
    }
  }
  if (!server_->config().requirepass.empty() && !client.authenticated() && !(flags & kCmdNoAuth)) {
    reply.Error(kNoAuth);
    return result;
  }
  if (((flags & kCmdWrite) || spec->name == "ping") && RefusedForDiskError(reply)) {
    return result;
  }
  if ((flags & kCmdDenyOom) && server_->OverMaxmemory()) {
    reply.Error(kOomError);
    return result;
  }
  if ((flags & kCmdWrite) && HeldByWriteStall(reply, &result.deferred)) return result;
  if (spec->handler == nullptr) {  // a container row without subcommands: not served
    reply.Error(UnknownCommandError(args[0], args.subspan(1)));
    return result;
  }
  client.set_last_command(spec->full_name);
  server_->stats().total_commands_processed++;
  CommandContext ctx{args, first_arg, reply, client, *server_};
  spec->handler(ctx);
  result.command = spec;
  result.is_write = (flags & kCmdWrite) != 0;
  return result;
}

}  // namespace ebb::server
