// PEER: active-active peers (docs/active-active.md) — ADD, REMOVE, LIST, and the two requests a
// peer's link sends, ID and SYNC.
#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

// The active-active side of the server. REQUIRES: the row is flagged kCmdNeedsPeers (the
// dispatcher checked it).
ActiveActive* PeersOf(CommandContext& ctx) { return ctx.server.active_active(); }

struct HostPortOptions {
  std::string host;
  int64_t port = 0;
};
HostPortOptions ParseHostPort(ArgParser& args) {
  HostPortOptions o;
  o.host = std::string(args.Next());
  o.port = args.Int64InRange(1, 65535, kInvalidPeerPort);
  return o;
}

// PEER ADD host port: links this node to a peer (entering active-active mode).
void ExecuteAdd(CommandContext& ctx, const HostPortOptions& o) {
  ActiveActive* aa = PeersOf(ctx);
  if (Result<ActiveActiveCode> r = aa->AddPeer(o.host, static_cast<int>(o.port)); !r.ok()) {
    return ctx.reply.Error(aa->ErrorText(r));
  }
  ctx.reply.Ok();
}

// PEER REMOVE host port: closes the link (the node stays in active-active mode).
void ExecuteRemove(CommandContext& ctx, const HostPortOptions& o) {
  ActiveActive* aa = PeersOf(ctx);
  if (!aa->RemovePeer(o.host, static_cast<int>(o.port)).ok()) {
    return ctx.reply.Error(NoPeerError(o.host, o.port));
  }
  ctx.reply.Ok();
}

// PEER LIST: one map per peer (a flat array in RESP2).
void ExecuteList(CommandContext& ctx, const NoOptions&) {
  ActiveActive* aa = PeersOf(ctx);
  const std::vector<ActiveActive::PeerInfo> peers = aa->Peers();
  ctx.reply.ArrayHeader(peers.size());
  for (const ActiveActive::PeerInfo& p : peers) {
    ctx.reply.MapHeader(10);
    ctx.reply.Bulk("host");
    ctx.reply.Bulk(p.host);
    ctx.reply.Bulk("port");
    ctx.reply.Integer(p.port);
    ctx.reply.Bulk("state");
    ctx.reply.Bulk(p.state);
    ctx.reply.Bulk("id");
    ctx.reply.Bulk(p.peer_id);
    ctx.reply.Bulk("applied");
    ctx.reply.Integer(static_cast<int64_t>(p.applied));
    ctx.reply.Bulk("lag_deltas");
    ctx.reply.Integer(static_cast<int64_t>(p.lag_deltas));
    ctx.reply.Bulk("lag_bytes");
    ctx.reply.Integer(static_cast<int64_t>(p.lag_bytes));
    ctx.reply.Bulk("lag_ms");
    ctx.reply.Integer(p.lag_ms);
    ctx.reply.Bulk("clock_skew_ms");
    ctx.reply.Integer(p.clock_skew_ms);
    ctx.reply.Bulk("acked");
    ctx.reply.Integer(static_cast<int64_t>(p.acked));
  }
}

// PEER ID: this node's id (40 hex characters, kept in the data).
void ExecuteId(CommandContext& ctx, const NoOptions&) {
  ActiveActive* aa = PeersOf(ctx);
  if (!aa->enabled()) return ctx.reply.Error(kNotInActiveActiveMode);
  ctx.reply.Bulk(aa->node_id());
}

struct SyncOptions {
  std::string_view peer_id;
  uint64_t from = 0;
  std::string_view origin;                 // ORIGIN: this node's id as the peer knows it
  std::string_view digest;                 // DIGEST: of the delta at from - 1 as the peer has it
  std::vector<std::string_view> settings;  // SETTINGS name value ...
};
SyncOptions ParseSync(ArgParser& args) {
  SyncOptions o;
  o.peer_id = args.Next();
  o.from = args.Uint64();
  if (args.Token("ORIGIN")) o.origin = args.Next();
  if (args.Token("DIGEST")) o.digest = args.Next();
  if (args.HasMore()) {
    if (!args.Token("SETTINGS") || args.remaining() % 2 != 0) args.SyntaxError();
    while (args.HasMore()) o.settings.push_back(args.Next());
  }
  return o;
}

// PEER SYNC peer-id offset [ORIGIN id] [DIGEST digest] [SETTINGS name value ...]: the connection
// becomes the stream of this node's deltas from origin offset `offset` on, unless a setting given
// differs from this node's.
void ExecuteSync(CommandContext& ctx, const SyncOptions& o) {
  PeersOf(ctx)->Subscribe(ctx.client, ctx.reply,
                          {.peer_id = o.peer_id,
                           .from = o.from,
                           .origin = o.origin,
                           .digest = o.digest,
                           .settings = o.settings});
}

constexpr uint32_t kPeerFlags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdNeedsPeers;

}  // namespace

std::vector<CommandSpec> PeerCommands() {
  const std::vector<ArgSpec> host_port = {{.name = "host"},
                                          {.name = "port", .type = ArgType::kInteger}};
  return {{
      .name = "peer",
      .arity = -2,
      .group = "server",
      .summary = "A container for active-active peer commands.",
      .complexity = "Depends on subcommand.",
      .subcommands =
          {{.name = "add",
            .arity = 4,
            // Entering the mode is an engine write of its own (never inside EXEC's).
            .flags = kPeerFlags | kCmdNoMulti,
            .group = "server",
            .summary = "Links this node to an active-active peer; the node enters active-active "
                       "mode.",
            .arguments = host_port,
            .help = {{.text = "Link to the peer at <host> <port> and stream its writes."}},
            .handler = Handler<ParseHostPort, ExecuteAdd>},
           {.name = "remove",
            .arity = 4,
            .flags = kPeerFlags,
            .group = "server",
            .summary = "Closes the link to an active-active peer.",
            .arguments = host_port,
            .help = {{.text = "Close the link to the peer at <host> <port>."}},
            .handler = Handler<ParseHostPort, ExecuteRemove>},
           {.name = "list",
            .arity = 2,
            .flags = kPeerFlags,
            .group = "server",
            .summary = "Lists the active-active peers and the state of each link.",
            .help = {{.text = "Return each peer's host, port, link state, id, last applied "
                              "origin offset, lag (deltas, bytes, milliseconds) and clock skew."}},
            .handler = Handler<ParseNothing, ExecuteList>},
           {.name = "id",
            .arity = 2,
            .flags = kPeerFlags | kCmdFast,
            .group = "server",
            .summary = "Returns this node's active-active id.",
            .help = {{.text = "Return this node's id."}},
            .handler = Handler<ParseNothing, ExecuteId>},
           {.name = "sync",
            .arity = -4,
            .flags = kPeerFlags,
            .group = "server",
            .summary = "Streams the deltas that originated on this node to a peer (sent by a "
                       "peer's link).",
            .arguments = {{.name = "peer-id"},
                          {.name = "offset", .type = ArgType::kInteger},
                          {.name = "origin", .token = "ORIGIN", .optional = true},
                          {.name = "digest", .token = "DIGEST", .optional = true},
                          {.name = "setting",
                           .type = ArgType::kBlock,
                           .token = "SETTINGS",
                           .optional = true,
                           .multiple = true,
                           .children = {{.name = "name"}, {.name = "value"}}}},
            .help = {{.usage = "SYNC <peer-id> <offset> [ORIGIN <id>] [DIGEST <digest>] "
                               "[SETTINGS <name> <value> ...]",
                      .text = "Stream this node's deltas from origin <offset> (a peer's link), "
                              "if <id> is this node's, the settings given are this node's and "
                              "<digest> names the delta before <offset> in this node's log."}},
            .handler = Handler<ParseSync, ExecuteSync>},
           HelpSubcommand("server", "Returns helpful text about PEER.", kCmdLoading | kCmdStale)},
  }};
}

}  // namespace ebb::server
