// The write form of a command row: what a client's write becomes in active-active mode, made from
// the options the row's own Parse step made (docs/active-active.md, "Deltas").
//
// A node in the mode logs every write it makes as a canonical delta — a command every peer
// applies to the same effect whatever its clock and its TTL settings: the timestamp and the
// absolute expiry written out, the command name in lower case (`PUT k v EX 10` at 1000 becomes
// `put k v TS 1000 PXAT 11000`). A row that has such a form names it beside its handler:
//
//   WriteForm FormPut(const PutOptions& o, const WriteFormInput& in);   // cmd_kv.cc
//   {.name = "put", ..., .handler = Handler<ParsePut, ExecutePut>,
//    .write_form = FormOf<ParsePut, FormPut>},
//
// so the arguments are parsed once, by the row, and active-active (server/active_active/) only
// judges and logs the form. A write row without one is refused in the mode. A whole-key form
// (DEL, UNLINK, FLUSHDB, FLUSHALL, the EXPIRE family, PERSIST) leaves its timestamp T empty, and
// TLOG TRIM and CLR keep their own form: the mode settles them from what the key holds
// (server/active_active/peer_delta.h).
// Thread-safety: the command thread (a form reads the keyspace's TTL policy).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/arg_parser.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

struct WriteForm {
  enum class Kind {
    kDelta,    // `args` is the canonical delta
    kInvalid,  // the request is malformed: its handler replies the error
    kRefused,  // the mode has no merge for this form: reply `error`
  };
  Kind kind = Kind::kInvalid;
  std::vector<std::string> args;  // kDelta: the canonical command
  std::string error;              // kRefused: the error text (server/core/errors.h)
  // The timestamp the client named (TS, a TLOG or TREG timestamp), which the mode checks
  // against max-clock-skew; nullopt when the node's clock gives it.
  std::optional<int64_t> client_ts;
  // An expiry change's NX, XX, GT and LT (types::ExpireFlag bits), judged on the origin.
  uint32_t expire_flags = 0;
  // A string version's form (`put key value TS ts PXAT expire_at`, or NOTTL: StringPutForm) also
  // carries its numbers, so that the origin reads the version without parsing the form back.
  struct StringPut {
    int64_t ts = 0;
    std::optional<int64_t> expire_at;  // nullopt: NOTTL
  };
  std::optional<StringPut> string_put;

  static WriteForm Delta(std::vector<std::string> args, std::optional<int64_t> client_ts) {
    return {Kind::kDelta, std::move(args), {}, client_ts, 0, std::nullopt};
  }
  static WriteForm Invalid() { return {}; }
  static WriteForm Refused(std::string error, std::optional<int64_t> client_ts = std::nullopt) {
    return {Kind::kRefused, {}, std::move(error), client_ts, 0, std::nullopt};
  }
};

// The form INCR, INCRBY, DECR and DECRBY make: `counter-incr key <delta>`. The mode settles it
// from what the key holds into a counter delta (server/active_active/counters.h).
inline constexpr std::string_view kCounterIncrForm = "counter-incr";
// INCRBYFLOAT's: `counter-incrbyfloat key <increment>` (the increment as the client sent it).
inline constexpr std::string_view kCounterIncrFloatForm = "counter-incrbyfloat";

// The TS.* writes' forms, which the mode settles from what the series holds into a `ts-merge`
// delta (server/active_active/series_state.h). Values travel as the decimal of their IEEE-754
// bits, the settings as types::EncodeSeriesRegister's bytes (stamp 0, no origin):
//   ts-create key <settings>            ts-alter key <mask: 1 retention, 2 chunk size,
//   ts-add key ts <value> <policy> <settings>       4 duplicate policy, 8 labels> <settings>
//   ts-incrby key ts <signed delta> <settings> <event: ts.incrby | ts.decrby>
//   ts-madd (key ts <value>)+ — a triple Redis refuses as (key "!" <error text>)
//   ts-del key from to                  (TS.DEL's bounds, "-" and "+" resolved)
// (<policy>: types::DuplicatePolicy's number, ON_DUPLICATE's; 0 when not given).
inline constexpr std::string_view kSeriesCreateForm = "ts-create";
inline constexpr std::string_view kSeriesAlterForm = "ts-alter";
inline constexpr std::string_view kSeriesAddForm = "ts-add";
inline constexpr std::string_view kSeriesIncrForm = "ts-incrby";
inline constexpr std::string_view kSeriesMaddForm = "ts-madd";
inline constexpr std::string_view kSeriesDelForm = "ts-del";
// TS.CREATERULE's and TS.DELETERULE's forms, which the mode settles into a `ts-rule` delta
// (server/active_active/series_rules_state.h):
//   ts-createrule source dest <aggregator number> <bucket ms> <align>
//   ts-deleterule source dest
inline constexpr std::string_view kSeriesCreateRuleForm = "ts-createrule";
inline constexpr std::string_view kSeriesDeleteRuleForm = "ts-deleterule";

// A TLOG or TREG timestamp as a clock reading, for the max-clock-skew check: nullopt when it
// does not fit one (such a timestamp is no clock's).
inline std::optional<int64_t> ClientTsOf(uint64_t ts) {
  if (ts > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(ts);
}

// What a form may read: the origin's clock and its keyspace (the TTL policy).
struct WriteFormInput {
  int64_t now_ms = 0;
  const types::Keyspace& keyspace;
  // Room a form may build its `args` in, or null: the arguments of a delta the mode logged
  // before, whose strings keep their buffers, so a form of the same shape allocates nothing (a
  // string version's: StringPutForm). A form that takes it moves from it.
  std::vector<std::string>* spare_args = nullptr;
};

// A row's write form: `args` is the request (args[0] the name), `first_arg` the index of its
// first argument after the name(s), as a handler sees them.
using WriteFormer = WriteForm (*)(std::span<const std::string_view> args, size_t first_arg,
                                  const WriteFormInput& in);

// Parse then Form: the write form of a row whose handler is Handler<Parse, Execute>.
//   Form: WriteForm Form(const Options& options, const WriteFormInput& in).
// A request Parse refuses is kInvalid: the handler runs to reply its error.
template <auto Parse, auto Form>
WriteForm FormOf(std::span<const std::string_view> args, size_t first_arg,
                 const WriteFormInput& in) {
  ArgParser parser(args, first_arg);
  const auto options = Parse(parser);
  if (!parser.Finish()) return WriteForm::Invalid();
  return Form(options, in);
}

}  // namespace ebb::server
