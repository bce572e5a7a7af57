// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN] (Redis 7's lcsCommand): the longest
// common subsequence of two strings (missing keys are empty), its length, or with IDX the
// matching ranges from the end of the strings backwards, as Redis lists them. The dynamic
// programming table takes (len1 + 1) * (len2 + 1) * 4 bytes, which may not exceed
// proto-max-bulk-len, as Redis.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/read_string.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/kv.h"

namespace ebb::server {
namespace {

using types::OpResult;

struct LcsOptions {
  std::string_view key1;
  std::string_view key2;
  std::vector<std::string_view> rest;
};

LcsOptions ParseLcs(ArgParser& args) {
  LcsOptions o;
  o.key1 = args.Next();
  o.key2 = args.Next();
  while (args.HasMore()) o.rest.push_back(args.Next());
  return o;
}

// The value of a string key for LCS: "" when missing; false (nothing replied) for another type.
bool LcsValue(CommandContext& ctx, std::string_view key, std::string* value, bool* wrong_type,
              std::optional<types::OpFailure>* failure) {
  OpResult<types::KvRow> row = KvOf(ctx).Get(key);
  if (row.ok()) {
    *value = std::move(row->value);
  } else if (row.status() == types::OpStatus::kWrongType) {
    *wrong_type = true;
  } else if (row.status() != types::OpStatus::kNotFound && !*failure) {
    *failure = types::FailureOf(row);
  }
  return true;
}

struct Range {
  uint32_t a_start, a_end, b_start, b_end;
};

void ExecuteLcs(CommandContext& ctx, const LcsOptions& o) {
  std::string a, b;
  bool wrong_type = false;
  std::optional<types::OpFailure> failure;
  LcsValue(ctx, o.key1, &a, &wrong_type, &failure);  // both read: a waiting command asks for both
  LcsValue(ctx, o.key2, &b, &wrong_type, &failure);
  if (failure) return ReplyError(ctx, *failure);
  if (wrong_type) return ctx.reply.Error(kLcsNotStrings);
  bool get_len = false, get_idx = false, with_match_len = false;
  int64_t min_match_len = 0;
  for (size_t i = 0; i < o.rest.size(); ++i) {
    const std::string_view opt = o.rest[i];
    if (EqualsIgnoreCase(opt, "idx")) {
      get_idx = true;
    } else if (EqualsIgnoreCase(opt, "len")) {
      get_len = true;
    } else if (EqualsIgnoreCase(opt, "withmatchlen")) {
      with_match_len = true;
    } else if (EqualsIgnoreCase(opt, "minmatchlen") && i + 1 < o.rest.size()) {
      if (!ParseInt64(o.rest[++i], &min_match_len)) return ctx.reply.Error(kNotInteger);
      if (min_match_len < 0) min_match_len = 0;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  if (get_len && get_idx) return ctx.reply.Error(kLcsLenAndIdx);
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    return ctx.reply.Error(kLcsTooLong);
  }
  const uint64_t cells = (uint64_t{a.size()} + 1) * (uint64_t{b.size()} + 1);
  if (cells * sizeof(uint32_t) > ctx.server.config().proto_max_bulk_len) {
    return ctx.reply.Error(kLcsTooMuchMemory);
  }
  const uint32_t alen = static_cast<uint32_t>(a.size());
  const uint32_t blen = static_cast<uint32_t>(b.size());
  std::vector<uint32_t> table(cells, 0);
  auto at = [&](uint32_t i, uint32_t j) -> uint32_t& {
    return table[j + uint64_t{i} * (blen + 1)];
  };
  for (uint32_t i = 1; i <= alen; ++i) {
    for (uint32_t j = 1; j <= blen; ++j) {
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
    }
  }
  const uint32_t length = at(alen, blen);
  if (get_len) return ctx.reply.Integer(length);
  // Walk back from the end, collecting the subsequence and the runs of consecutive matches.
  std::string result(length, '\0');
  std::vector<Range> ranges;
  uint32_t idx = length, i = alen, j = blen;
  bool open = false;
  Range run{};
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (!open) {
        run = {i - 1, i - 1, j - 1, j - 1};
        open = true;
      } else if (run.a_start == i && run.b_start == j) {
        run.a_start--;
        run.b_start--;
      } else {
        emit = true;  // Redis's walk: a match that does not extend the run closes it
      }
      if (run.a_start == 0 || run.b_start == 0) emit = true;
      idx--;
      i--;
      j--;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        i--;
      } else {
        j--;
      }
      if (open) emit = true;
    }
    if (emit) {
      if (min_match_len == 0 || run.a_end - run.a_start + 1 >= min_match_len) {
        ranges.push_back(run);
      }
      open = false;
    }
  }
  if (!get_idx) return ctx.reply.Bulk(result);
  ctx.reply.MapHeader(2);
  ctx.reply.Bulk("matches");
  ctx.reply.ArrayHeader(ranges.size());
  for (const Range& r : ranges) {
    ctx.reply.ArrayHeader(with_match_len ? 3 : 2);
    ctx.reply.ArrayHeader(2);
    ctx.reply.Integer(r.a_start);
    ctx.reply.Integer(r.a_end);
    ctx.reply.ArrayHeader(2);
    ctx.reply.Integer(r.b_start);
    ctx.reply.Integer(r.b_end);
    if (with_match_len) ctx.reply.Integer(r.a_end - r.a_start + 1);
  }
  ctx.reply.Bulk("len");
  ctx.reply.Integer(length);
}

}  // namespace

std::vector<CommandSpec> LcsCommands() {
  return {
      {.name = "lcs",
       .arity = -3,
       .flags = kCmdReadOnly,
       .keys = {1, 2, 1},
       .group = "string",
       .since = "7.0.0",
       .summary = "Finds the longest common substring.",
       .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
       .arguments = {{.name = "key1", .type = ArgType::kKey},
                     {.name = "key2", .type = ArgType::kKey},
                     {.name = "len", .type = ArgType::kPureToken, .token = "LEN", .optional = true},
                     {.name = "idx", .type = ArgType::kPureToken, .token = "IDX", .optional = true},
                     {.name = "min-match-len",
                      .type = ArgType::kInteger,
                      .token = "MINMATCHLEN",
                      .optional = true},
                     {.name = "withmatchlen",
                      .type = ArgType::kPureToken,
                      .token = "WITHMATCHLEN",
                      .optional = true}},
       .handler = Handler<ParseLcs, ExecuteLcs>}};
}

}  // namespace ebb::server
