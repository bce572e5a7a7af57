// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN] (Redis 7's lcsCommand): the longest
// common subsequence of two strings (missing keys are empty), its length, or with IDX the
// matching ranges from the end of the strings backwards, as Redis lists them. The dynamic
// programming table takes (len1 + 1) * (len2 + 1) * 4 bytes, which may not exceed
// proto-max-bulk-len, as Redis.
#include <algorithm>
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

// The options after the two keys.
struct LcsFlags {
  bool get_len = false;
  bool get_idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
};

// Reads LEN, IDX, WITHMATCHLEN and MINMATCHLEN from `rest`; the error text when one is wrong.
std::optional<std::string_view> ParseLcsFlags(const std::vector<std::string_view>& rest,
                                              LcsFlags* f) {
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string_view opt = rest[i];
    if (EqualsIgnoreCase(opt, "idx")) {
      f->get_idx = true;
    } else if (EqualsIgnoreCase(opt, "len")) {
      f->get_len = true;
    } else if (EqualsIgnoreCase(opt, "withmatchlen")) {
      f->with_match_len = true;
    } else if (EqualsIgnoreCase(opt, "minmatchlen") && i + 1 < rest.size()) {
      if (!ParseInt64(rest[++i], &f->min_match_len)) return kNotInteger;
      if (f->min_match_len < 0) f->min_match_len = 0;
    } else {
      return kSyntaxError;
    }
  }
  if (f->get_len && f->get_idx) return kLcsLenAndIdx;
  return std::nullopt;
}

// The dynamic programming table of a and b: at(i, j) is the LCS length of a[0, i) and b[0, j).
class LcsTable {
 public:
  LcsTable(std::string_view a, std::string_view b, uint64_t cells)
      : alen_(static_cast<uint32_t>(a.size())),
        blen_(static_cast<uint32_t>(b.size())),
        table_(cells, 0) {
    for (uint32_t i = 1; i <= alen_; ++i) {
      for (uint32_t j = 1; j <= blen_; ++j) {
        at(i, j) =
            a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
      }
    }
  }
  uint32_t at(uint32_t i, uint32_t j) const { return table_[j + uint64_t{i} * (blen_ + 1)]; }
  uint32_t length() const { return at(alen_, blen_); }

 private:
  uint32_t& at(uint32_t i, uint32_t j) { return table_[j + uint64_t{i} * (blen_ + 1)]; }
  const uint32_t alen_, blen_;
  std::vector<uint32_t> table_;
};

// The subsequence and the runs of consecutive matches at least min_match_len long, found by
// walking the table back from the end as Redis walks it.
struct LcsWalk {
  std::string result;
  std::vector<Range> ranges;
};

LcsWalk WalkLcs(std::string_view a, std::string_view b, const LcsTable& table,
                int64_t min_match_len) {
  const uint32_t length = table.length();
  LcsWalk w{std::string(length, '\0'), {}};
  uint32_t idx = length, i = static_cast<uint32_t>(a.size()), j = static_cast<uint32_t>(b.size());
  bool open = false;
  Range run{};
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      w.result[idx - 1] = a[i - 1];
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
      if (table.at(i - 1, j) > table.at(i, j - 1)) {
        i--;
      } else {
        j--;
      }
      if (open) emit = true;
    }
    if (emit) {
      if (min_match_len == 0 || run.a_end - run.a_start + 1 >= min_match_len) {
        w.ranges.push_back(run);
      }
      open = false;
    }
  }
  return w;
}

// The IDX reply: {matches: [[[a_start, a_end], [b_start, b_end](, len)], ...], len: length}.
void ReplyLcsMatches(CommandContext& ctx, const std::vector<Range>& ranges, uint32_t length,
                     bool with_match_len) {
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

void ExecuteLcs(CommandContext& ctx, const LcsOptions& o) {
  std::string a, b;
  bool wrong_type = false;
  std::optional<types::OpFailure> failure;
  LcsValue(ctx, o.key1, &a, &wrong_type, &failure);  // both read: a waiting command asks for both
  LcsValue(ctx, o.key2, &b, &wrong_type, &failure);
  if (failure) return ReplyError(ctx, *failure);
  if (wrong_type) return ctx.reply.Error(kLcsNotStrings);
  LcsFlags f;
  if (std::optional<std::string_view> error = ParseLcsFlags(o.rest, &f)) {
    return ctx.reply.Error(*error);
  }
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    return ctx.reply.Error(kLcsTooLong);
  }
  const uint64_t cells = (uint64_t{a.size()} + 1) * (uint64_t{b.size()} + 1);
  if (cells * sizeof(uint32_t) > ctx.server.config().proto_max_bulk_len) {
    return ctx.reply.Error(kLcsTooMuchMemory);
  }
  const LcsTable table(a, b, cells);
  if (f.get_len) return ctx.reply.Integer(table.length());
  const LcsWalk walk = WalkLcs(a, b, table, f.min_match_len);
  if (!f.get_idx) return ctx.reply.Bulk(walk.result);
  ReplyLcsMatches(ctx, walk.ranges, table.length(), f.with_match_len);
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
