// OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT|HELP and TOUCH, on keys of every type.
//
// What ebb answers where Redis describes its in-memory objects:
//   ENCODING  a string as Redis would encode the value SET writes: "int" (a 64-bit integer in
//             canonical form), "embstr" (up to 44 bytes), "raw"; "raw" also after the writes
//             Redis leaves raw (types/key_meta.h, kRawStringTag); a TLOG "tlog", a TREG "treg".
//   IDLETIME  seconds since the key's newest version was written (ebb keeps no access times; a
//             read does not reset it).
//   REFCOUNT  1: ebb shares no values between keys.
//   FREQ      Redis's error for a server without an LFU maxmemory policy (ebb evicts nothing).
// A missing key is nil, as Redis.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/object_info.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/key_meta.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

void ExecuteEncoding(CommandContext& ctx, const KeyOptions& o) {
  std::optional<types::KeyMetaRow> meta;
  if (!ReadMetaOrReply(ctx, o.key, &meta)) return;
  if (!meta) return ctx.reply.Null();
  ctx.reply.Bulk(ObjectEncoding(*meta));
}

void ExecuteIdleTime(CommandContext& ctx, const KeyOptions& o) {
  std::optional<types::KeyMetaRow> meta;
  if (!ReadMetaOrReply(ctx, o.key, &meta)) return;
  if (!meta) return ctx.reply.Null();
  ctx.reply.Integer(IdleSeconds(*meta, ctx.server.clock().NowMs()));
}

void ExecuteRefCount(CommandContext& ctx, const KeyOptions& o) {
  std::optional<types::KeyMetaRow> meta;
  if (!ReadMetaOrReply(ctx, o.key, &meta)) return;
  if (!meta) return ctx.reply.Null();
  ctx.reply.Integer(1);
}

void ExecuteFreq(CommandContext& ctx, const KeyOptions& o) {
  std::optional<types::KeyMetaRow> meta;
  if (!ReadMetaOrReply(ctx, o.key, &meta)) return;
  if (!meta) return ctx.reply.Null();
  ctx.reply.Error(kNoLfuPolicy);
}

// TOUCH key [key ...] -> how many of the keys exist.
void ExecuteTouch(CommandContext& ctx, const KeysOptions& o) {
  int64_t found = 0;
  std::optional<types::OpFailure> failure;
  for (std::string_view key : o.keys) {
    types::OpResult<bool> exists = ctx.server.keyspace().Exists(ctx.client.db_index(), key);
    if (exists.ok()) {
      found += *exists ? 1 : 0;
    } else if (!failure) {
      failure = types::FailureOf(exists);  // read on: a command waiting for the disk asks for all
    }
  }
  if (failure) return ReplyError(ctx, *failure);
  ctx.reply.Integer(found);
}

CommandSpec ObjectRow(std::string_view name, std::string_view summary, HelpEntry help,
                      CommandHandler handler) {
  return {.name = name,
          .arity = 3,
          .flags = kCmdReadOnly,
          .keys = kSubcommandKey,
          .group = "generic",
          .since = "2.2.3",
          .summary = summary,
          .arguments = {{.name = "key", .type = ArgType::kKey}},
          .help = {help},
          .handler = handler};
}

}  // namespace

std::vector<CommandSpec> ObjectCommands() {
  return {
      {.name = "object",
       .arity = -2,
       .group = "generic",
       .since = "2.2.3",
       .summary = "A container for object introspection commands",
       .complexity = "Depends on subcommand.",
       .subcommands =
           {ObjectRow("encoding", "Returns the internal encoding of a Redis object.",
                      {.usage = "ENCODING <key>",
                       .text = "Return the kind of internal representation used in order to store "
                               "the value\nassociated with a <key>."},
                      Handler<ParseKey, ExecuteEncoding>),
            ObjectRow("freq", "Returns the logarithmic access frequency counter of a Redis object.",
                      {.usage = "FREQ <key>",
                       .text = "Return the access frequency index of the <key>. The returned "
                               "integer is\nproportional to the logarithm of the recent access "
                               "frequency of the key."},
                      Handler<ParseKey, ExecuteFreq>),
            ObjectRow("idletime", "Returns the time since the last access to a Redis object.",
                      {.usage = "IDLETIME <key>",
                       .text = "Return the idle time of the <key>, that is the approximated number "
                               "of\nseconds elapsed since the last access to the key."},
                      Handler<ParseKey, ExecuteIdleTime>),
            ObjectRow("refcount", "Returns the reference count of a value of a key.",
                      {.usage = "REFCOUNT <key>",
                       .text = "Return the number of references of the value associated with the "
                               "specified\n<key>."},
                      Handler<ParseKey, ExecuteRefCount>),
            HelpSubcommand("generic", "Returns helpful text about the different subcommands.",
                           kCmdLoading | kCmdStale, "6.2.0")}},
      {.name = "touch",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kAllKeys,
       .group = "generic",
       .since = "3.2.1",
       .summary = "Returns the number of existing keys out of those specified after updating the "
                  "time they were last accessed.",
       .complexity = "O(N) where N is the number of keys that will be touched.",
       .arguments = {{.name = "key", .type = ArgType::kKey, .multiple = true}},
       .handler = Handler<ParseKeys, ExecuteTouch>},
  };
}

}  // namespace ebb::server
