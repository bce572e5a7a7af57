// Pub/Sub: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PUBLISH,
// SPUBLISH and PUBSUB CHANNELS|NUMSUB|NUMPAT|SHARDCHANNELS|SHARDNUMSUB (Redis 7's pubsub.c).
// A shard channel is a channel of its own namespace. In cluster mode PUBLISH reaches every node's
// subscribers and SPUBLISH those of the node's shard, over the cluster bus as Redis 7 sends them
// (server/cluster/cluster.h). Delivery and the subscriber-mode rules: server/core/pubsub.h,
// server/dispatch/dispatcher.h.
// (UN)SUBSCRIBE's confirmations are pushed (Client::Push): the commands append no reply of their
// own.
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/cluster/cluster.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/pubsub.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

using Kind = PubSub::Kind;

// The channels (or patterns) a (P|S)(UN)SUBSCRIBE or (S)NUMSUB names; UNSUBSCRIBE's may be none.
struct ChannelsOptions {
  std::vector<std::string_view> channels;
};
ChannelsOptions ParseChannels(ArgParser& args) { return {RemainingArgs(args)}; }

template <Kind kKind>
void ExecuteSubscribe(CommandContext& ctx, const ChannelsOptions& o) {
  for (std::string_view name : o.channels) ctx.server.pubsub().Subscribe(&ctx.client, kKind, name);
}

template <Kind kKind>
void ExecuteUnsubscribe(CommandContext& ctx, const ChannelsOptions& o) {
  PubSub& pubsub = ctx.server.pubsub();
  if (o.channels.empty()) return pubsub.UnsubscribeAll(&ctx.client, kKind);
  for (std::string_view name : o.channels) pubsub.Unsubscribe(&ctx.client, kKind, name);
}

struct PublishOptions {
  std::string_view channel;
  std::string_view message;
};

PublishOptions ParsePublish(ArgParser& args) {
  PublishOptions o;
  o.channel = args.Next();
  o.message = args.Next();
  return o;
}

template <Kind kKind>
void ExecutePublish(CommandContext& ctx, const PublishOptions& o) {
  // The reply counts this node's receivers, as Redis's does.
  ctx.reply.Integer(ctx.server.pubsub().Publish(kKind, o.channel, o.message));
  if (auto* node = dynamic_cast<cluster::Cluster*>(ctx.server.cluster())) {
    node->PropagatePublish(kKind == Kind::kShard, o.channel, o.message);
  }
}

struct PatternOptions {
  std::string_view pattern;  // empty: every channel
};

PatternOptions ParsePattern(ArgParser& args) {
  PatternOptions o;
  if (args.HasMore()) o.pattern = args.Next();
  return o;
}

template <Kind kKind>
void ExecuteChannels(CommandContext& ctx, const PatternOptions& o) {
  const std::vector<std::string> channels = ctx.server.pubsub().Channels(kKind, o.pattern);
  ctx.reply.ArrayHeader(channels.size());
  for (const std::string& c : channels) ctx.reply.Bulk(c);
}

template <Kind kKind>
void ExecuteNumSub(CommandContext& ctx, const ChannelsOptions& o) {
  ctx.reply.ArrayHeader(o.channels.size() * 2);
  for (std::string_view channel : o.channels) {
    ctx.reply.Bulk(channel);
    ctx.reply.Integer(ctx.server.pubsub().NumSub(kKind, channel));
  }
}

void ExecuteNumPat(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Integer(ctx.server.pubsub().NumPat());
}

constexpr uint32_t kSubscribe =
    kCmdPubSub | kCmdNoScript | kCmdLoading | kCmdStale | kCmdSubscriberOk;
constexpr uint32_t kPublish = kCmdPubSub | kCmdLoading | kCmdStale | kCmdFast;
constexpr uint32_t kIntrospect = kCmdPubSub | kCmdLoading | kCmdStale;

CommandSpec SubscribeRow(std::string_view name, int arity, std::string_view since,
                         std::string_view summary, ArgSpec argument, CommandHandler handler) {
  argument.multiple = true;
  return {.name = name,
          .arity = arity,
          .flags = kSubscribe,
          .group = "pubsub",
          .since = since,
          .summary = summary,
          .complexity = "O(N) where N is the number of channels or patterns given.",
          .arguments = {argument},
          .handler = handler};
}

}  // namespace

std::vector<CommandSpec> PubSubCommands() {
  const ArgSpec channel{.name = "channel"};
  const ArgSpec pattern{.name = "pattern", .type = ArgType::kPattern};
  const ArgSpec shardchannel{.name = "shardchannel"};
  ArgSpec optional_channel = channel, optional_pattern = pattern, optional_shard = shardchannel;
  optional_channel.optional = optional_pattern.optional = optional_shard.optional = true;
  return {
      SubscribeRow("subscribe", -2, "2.0.0", "Listens for messages published to channels.", channel,
                   Handler<ParseChannels, ExecuteSubscribe<Kind::kChannel>>),
      SubscribeRow("unsubscribe", -1, "2.0.0", "Stops listening to messages posted to channels.",
                   optional_channel, Handler<ParseChannels, ExecuteUnsubscribe<Kind::kChannel>>),
      SubscribeRow("psubscribe", -2, "2.0.0",
                   "Listens for messages published to channels that match one or more patterns.",
                   pattern, Handler<ParseChannels, ExecuteSubscribe<Kind::kPattern>>),
      SubscribeRow("punsubscribe", -1, "2.0.0",
                   "Stops listening to messages published to channels that match patterns.",
                   optional_pattern, Handler<ParseChannels, ExecuteUnsubscribe<Kind::kPattern>>),
      SubscribeRow("ssubscribe", -2, "7.0.0", "Listens for messages published to shard channels.",
                   shardchannel, Handler<ParseChannels, ExecuteSubscribe<Kind::kShard>>),
      SubscribeRow("sunsubscribe", -1, "7.0.0",
                   "Stops listening to messages posted to shard channels.", optional_shard,
                   Handler<ParseChannels, ExecuteUnsubscribe<Kind::kShard>>),
      {.name = "publish",
       .arity = 3,
       .flags = kPublish,
       .group = "pubsub",
       .since = "2.0.0",
       .summary = "Posts a message to a channel.",
       .complexity = "O(N+M) where N is the number of clients subscribed to the receiving "
                     "channel and M is the total number of subscribed patterns.",
       .arguments = {channel, {.name = "message"}},
       .handler = Handler<ParsePublish, ExecutePublish<Kind::kChannel>>},
      {.name = "spublish",
       .arity = 3,
       .flags = kPublish,
       .group = "pubsub",
       .since = "7.0.0",
       .summary = "Posts a message to a shard channel.",
       .complexity = "O(N) where N is the number of clients subscribed to the receiving shard "
                     "channel.",
       .arguments = {shardchannel, {.name = "message"}},
       .handler = Handler<ParsePublish, ExecutePublish<Kind::kShard>>},
      {.name = "pubsub",
       .arity = -2,
       .group = "pubsub",
       .since = "2.8.0",
       .summary = "A container for Pub/Sub commands.",
       .complexity = "Depends on subcommand.",
       .subcommands =
           {{.name = "channels",
             .arity = -2,
             .flags = kIntrospect,
             .group = "pubsub",
             .since = "2.8.0",
             .summary = "Returns the active channels.",
             .complexity = "O(N) where N is the number of active channels.",
             .arguments = {optional_pattern},
             .help = {{.usage = "CHANNELS [<pattern>]",
                       .text = "Return the currently active channels matching a <pattern> "
                               "(default: '*')."}},
             .handler = Handler<ParsePattern, ExecuteChannels<Kind::kChannel>>},
            {.name = "numsub",
             .arity = -2,
             .flags = kIntrospect,
             .group = "pubsub",
             .since = "2.8.0",
             .summary = "Returns a count of subscribers to channels.",
             .complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested "
                           "channels",
             .arguments = {optional_channel},
             .help = {{.usage = "NUMSUB [<channel> ...]",
                       .text = "Return number of subscribers for the given named channels "
                               "(excluding patterns)."}},
             .handler = Handler<ParseChannels, ExecuteNumSub<Kind::kChannel>>},
            {.name = "numpat",
             .arity = 2,
             .flags = kIntrospect,
             .group = "pubsub",
             .since = "2.8.0",
             .summary = "Returns a count of unique pattern subscriptions.",
             .help = {{.usage = "NUMPAT", .text = "Return number of subscriptions to patterns."}},
             .handler = Handler<ParseNothing, ExecuteNumPat>},
            {.name = "shardchannels",
             .arity = -2,
             .flags = kIntrospect,
             .group = "pubsub",
             .since = "7.0.0",
             .summary = "Returns the active shard channels.",
             .complexity = "O(N) where N is the number of active shard channels.",
             .arguments = {optional_pattern},
             .help = {{.usage = "SHARDCHANNELS [<pattern>]",
                       .text = "Return the currently active shard level channels matching a "
                               "<pattern> (default: '*')."}},
             .handler = Handler<ParsePattern, ExecuteChannels<Kind::kShard>>},
            {.name = "shardnumsub",
             .arity = -2,
             .flags = kIntrospect,
             .group = "pubsub",
             .since = "7.0.0",
             .summary = "Returns the count of subscribers of shard channels.",
             .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of "
                           "requested shard channels",
             .arguments = {optional_shard},
             .help = {{.usage = "SHARDNUMSUB [<shardchannel> ...]",
                       .text = "Return the number of subscribers for the given shard channels."}},
             .handler = Handler<ParseChannels, ExecuteNumSub<Kind::kShard>>},
            HelpSubcommand("pubsub", "Returns helpful text.", kCmdLoading | kCmdStale)}},
  };
}

}  // namespace ebb::server
