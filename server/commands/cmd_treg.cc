// TREG: the timestamped register commands (docs/commands.md, "TREG"; last write wins by
// (ts, value)).
//
// A container command over types::Treg. Timestamps are unsigned 64-bit (digits only, leading
// zeros allowed) and replied with ReplyWriter::Unsigned (RESP3 big number / RESP2 bulk string
// above 2^63-1).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/treg.h"

namespace ebb::server {
namespace {

using types::OpResult;

types::Treg RegisterOf(CommandContext& ctx) {
  return types::Treg(ctx.server.keyspace(), ctx.client.db_index());
}

struct TregOptions {
  std::string_view key;
  std::string_view value;  // SET
  uint64_t ts = 0;         // SET
};

// TREG SET key value timestamp
TregOptions ParseSet(ArgParser& args) {
  TregOptions o;
  o.key = args.Next();
  o.value = args.Next();
  o.ts = args.Digits();
  return o;
}

void ExecuteSet(CommandContext& ctx, const TregOptions& o) {
  ReplyOkOrError(ctx, RegisterOf(ctx).Set(o.key, o.value, o.ts), o.key, kNotifyTimestamped,
                 "treg_set");
}

// TREG SET in active-active mode: the pair as it is (registers merge by the greater (ts,
// value)). A key the TTL policy gives a TTL is refused: each node would renew it from its own
// clock.
WriteForm FormSet(const TregOptions& o, const WriteFormInput& in) {
  const std::optional<int64_t> client_ts = ClientTsOf(o.ts);
  if (in.keyspace.PolicyExpireAt(o.key, in.now_ms).has_value()) {
    return WriteForm::Refused(std::string(kTregSetWithTtl), client_ts);
  }
  return WriteForm::Delta(
      {"treg", "set", std::string(o.key), std::string(o.value), std::to_string(o.ts)}, client_ts);
}

// TREG GET key
void ExecuteGet(CommandContext& ctx, const KeyOptions& o) {
  types::KeyMetaView row;
  std::string_view value;
  uint64_t ts;
  types::OpResult<void> read = RegisterOf(ctx).GetPinned(o.key, &row, &value, &ts);
  if (read.status() == types::OpStatus::kNotFound) return ctx.reply.NullArray();
  if (!read.ok()) return ReplyError(ctx, read);
  ctx.reply.BulkAndUnsigned(value, ts);
}

const ArgSpec kKey = {.name = "key", .type = ArgType::kKey};

}  // namespace

std::vector<CommandSpec> TregCommands() {
  return {{
      .name = "treg",
      .arity = -2,
      .group = "treg",
      .summary = "A container for timestamped register (TREG) commands.",
      .complexity = "Depends on subcommand.",
      .subcommands =
          {{.name = "set",
            .arity = 5,
            .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
            .keys = kSubcommandKey,
            .group = "treg",
            .summary = "Sets a register unless it holds a newer (timestamp, value) pair.",
            .arguments = {kKey,
                          {.name = "value"},
                          {.name = "timestamp", .type = ArgType::kInteger}},
            .help = {{.text = "Set the register if <timestamp> is newer (or equal with a greater "
                              "value)."}},
            .handler = Handler<ParseSet, ExecuteSet>,
            .write_form = FormOf<ParseSet, FormSet>},
           {.name = "get",
            .arity = 3,
            .flags = kCmdReadOnly | kCmdFast,
            .keys = kSubcommandKey,
            .group = "treg",
            .summary = "Returns the value and timestamp of a register.",
            .arguments = {kKey},
            .help = {{.text = "Return the [value, timestamp] pair, or nil if the key does not "
                              "exist."}},
            .handler = Handler<ParseKey, ExecuteGet>},
           HelpSubcommand("treg", "Returns helpful text about TREG.", kCmdReadOnly | kCmdFast)},
  }};
}

}  // namespace ebb::server
