#include "server/commands/kv_support.h"

#include <limits>
#include <utility>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/commands/arg_parser.h"
#include "server/config/config.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {

types::Kv KvFor(CommandContext& ctx) {
  return types::Kv(ctx.server.command_keyspace(), ctx.client.db_index(),
                   ctx.server.config().default_retrieval_grace_ms);
}

int64_t NowMs(CommandContext& ctx) { return ctx.server.clock().NowMs(); }

types::TtlPolicy TtlPolicyFromConfig(CommandContext& ctx) {
  const Config& config = ctx.server.config();
  std::vector<types::TtlRule> rules;
  rules.reserve(config.ttl_rules.size());
  for (const TtlRule& rule : config.ttl_rules) rules.push_back({rule.pattern, rule.ttl_ms});
  return types::TtlPolicy(
      config.default_ttl_ms, std::move(rules),
      [](std::string_view pattern, std::string_view key) { return GlobMatch(pattern, key); });
}

std::optional<int64_t> PolicyExpireAt(const types::TtlPolicy& policy, std::string_view key,
                                      int64_t ts_ms) {
  std::optional<int64_t> expire_at;
  if (!policy.ResolveExpireAt(key, ts_ms, types::ExpiryOption::Policy(), &expire_at)) {
    return std::nullopt;
  }
  return expire_at;
}

bool ParseExpireOrReply(CommandContext& ctx, std::string_view cmd, std::string_view text,
                        bool seconds, bool relative, int64_t now_ms, int64_t* expire_at_ms) {
  int64_t value = 0;
  if (!ParseInt64(text, &value)) {
    ctx.reply.Error(kNotInteger);
    return false;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (value <= 0 || (seconds && value > kMax / 1000)) {
    ctx.reply.Error(InvalidExpireTimeError(cmd));
    return false;
  }
  if (seconds) value *= 1000;
  if (relative && __builtin_add_overflow(value, now_ms, &value)) {
    ctx.reply.Error(InvalidExpireTimeError(cmd));
    return false;
  }
  if (value <= 0) {
    ctx.reply.Error(InvalidExpireTimeError(cmd));
    return false;
  }
  *expire_at_ms = value;
  return true;
}

CommandSpec MakeStringCommand(std::string name, int arity, uint32_t flags, int first_key,
                              int last_key, int step, std::string since, std::string summary,
                              std::string complexity, std::vector<ArgSpec> arguments,
                              CommandHandler handler) {
  return KeyRangeRow(std::move(name), arity, flags, first_key, last_key, step, "string",
                     std::move(since), std::move(summary), std::move(complexity),
                     std::move(arguments), handler);
}

}  // namespace ebb::server
