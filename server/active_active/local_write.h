// ActiveActiveLocalWrite: what ActiveActive's origin side does with one client write in the
// mode (docs/active-active.md, "Deltas"): PlanLocalWrite makes it from the command's write form,
// the dispatcher acts on its kind, and FinishLocalWrite logs its delta (local_write.cc). Named
// ActiveActive::LocalWrite there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/active_active/peer_delta.h"
#include "server/dispatch/write_planner.h"
#include "types/or_context.h"

namespace ebb::server {

struct ActiveActiveLocalWrite {
  // What the dispatcher does with it (dispatch/write_planner.h): kRun runs `args`, kRunHere
  // runs it through RunHere (a whole-key operation, or a write that must meet a delete's
  // marker first), kReplyOk answers a string version that loses to the one held.
  using Kind = WritePlanner::Kind;
  Kind kind = Kind::kPass;
  std::string error;
  std::vector<std::string> args;  // the canonical command (kRun)
  std::vector<std::string_view> views;
  int db = 0;
  // The clock when the write was planned: its delta's origin_ms, and the time a string version
  // is judged dead on arrival by (one reading per write).
  int64_t now_ms = 0;
  bool trim_after = false;  // TLOG TRIM/CLR: log the TRIMAT of the cutoff they left; TRIMAT 0:
                            // nothing
  // kRunHere, TLOG INS on a deleted key: the log's cutoff is raised to this first
  // (whole_key.h).
  std::optional<uint64_t> tlog_min_cutoff;
  uint32_t expire_flags = 0;  // kRunHere, EXPIRE family: types::ExpireFlag bits
  // kRunHere, TREG SET or TLOG write on a key with an expiry register: its expiry is settled
  // after it runs.
  bool settle_expiry = false;
  // kRunHere, a TLOG write on a key with a retention window, or a TREG or TLOG write on a key with
  // an expiry register: the key's type floor rises to the write's type precedence after it runs
  // (whole_key.h, "type floor"; Admission::raise_floor).
  std::optional<int> raise_floor_to;
  // kRunHere: a counter's write (an INCR family form, or a string write on a counter key),
  // settled and run by RunCounter (counters.h).
  bool counter = false;
  // kRunHere: a TS write form (server/core/write_form.h), settled and run by RunSeries
  // (series_state.h).
  bool series = false;
  // kRunHere: a string write (`put`, `delete`) by the timestamp rule, written by
  // RunStringVersion from string_delta.
  bool string_version = false;
  // kRunHere: a string write (`put`, `delete`) by the observed-remove rule, run by RunOrString;
  // the context it carries: every slot held here (or_rows_, loaded by the plan).
  bool or_string = false;
  types::OrContext or_context;
  // A string write (`put`, `delete`): its delta parsed once, by the plan. Its views (key, value,
  // context) are into `args`, which has room for the context RunOrString appends: they hold
  // until the plan goes.
  std::optional<StringDelta> string_delta;
};

}  // namespace ebb::server
