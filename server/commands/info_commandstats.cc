// INFO cpu, commandstats, errorstats and latencystats: what the process and each command row
// cost, which errors clients were answered with (server/core/command_stats.h) and how each
// command's latency is distributed, in Redis 7's field names.
#include <fmt/format.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "common/cycle_clock.h"
#include "server/commands/info_sections.h"
#include "server/core/command.h"
#include "server/core/command_stats.h"
#include "server/core/latency_histogram.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

void AppendRow(const CommandSpec& spec, const CommandStats& stats, double ticks_per_us,
               std::string* out) {
  const CommandCallStats* row = stats.find(spec.id);
  if (row == nullptr || (row->calls == 0 && row->rejected_calls == 0 && row->failed_calls == 0)) {
    return;
  }
  const double usec = static_cast<double>(row->ticks) / ticks_per_us;
  const double per_call = row->calls == 0 ? 0.0 : usec / static_cast<double>(row->calls);
  *out += fmt::format(
      "cmdstat_{}:calls={},usec={},usec_per_call={:.2f},rejected_calls={},failed_calls={}\r\n",
      spec.full_name, row->calls, static_cast<uint64_t>(usec), per_call, row->rejected_calls,
      row->failed_calls);
}

// latency_percentiles_usec_<cmd>:p50=..,p99=..,p99.9=.. for a row with recorded calls.
void AppendLatencyRow(const CommandSpec& spec, const CommandStats& stats,
                      const std::vector<double>& percentiles, double ticks_per_us,
                      std::string* out) {
  const CommandCallStats* row = stats.find(spec.id);
  const LatencyHistogram* histogram = row != nullptr ? row->latency.get() : nullptr;
  if (histogram == nullptr || histogram->total() == 0) return;
  *out += fmt::format("latency_percentiles_usec_{}:", spec.full_name);
  for (size_t i = 0; i < percentiles.size(); ++i) {
    const double usec =
        static_cast<double>(histogram->ValueAtPercentile(percentiles[i])) / ticks_per_us;
    *out += fmt::format("{}p{}={:.3f}", i == 0 ? "" : ",", PercentileText(percentiles[i]), usec);
  }
  *out += "\r\n";
}

}  // namespace

void InfoCpu(ServerContext&, std::string* out) {
  rusage self{}, children{}, thread{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);  // INFO runs on the command thread
  *out += fmt::format(
      "# CPU\r\nused_cpu_sys:{:.6f}\r\nused_cpu_user:{:.6f}\r\nused_cpu_sys_children:{:.6f}\r\n"
      "used_cpu_user_children:{:.6f}\r\nused_cpu_sys_main_thread:{:.6f}\r\n"
      "used_cpu_user_main_thread:{:.6f}\r\n",
      Seconds(self.ru_stime), Seconds(self.ru_utime), Seconds(children.ru_stime),
      Seconds(children.ru_utime), Seconds(thread.ru_stime), Seconds(thread.ru_utime));
}

void InfoCommandStats(ServerContext& ctx, std::string* out) {
  *out += "# Commandstats\r\n";
  const CommandStats& stats = ctx.command_stats();
  const double ticks_per_us = CycleClock::TicksPerMicrosecond();
  for (const auto& [name, spec] : ctx.commands().rows()) {
    AppendRow(spec, stats, ticks_per_us, out);
    for (const CommandSpec& sub : spec.subcommands) AppendRow(sub, stats, ticks_per_us, out);
  }
}

void InfoLatencyStats(ServerContext& ctx, std::string* out) {
  *out += "# Latencystats\r\n";
  const CommandStats& stats = ctx.command_stats();
  const std::vector<double>& percentiles = ctx.config().latency_tracking_info_percentiles;
  const double ticks_per_us = CycleClock::TicksPerMicrosecond();
  for (const auto& [name, spec] : ctx.commands().rows()) {
    AppendLatencyRow(spec, stats, percentiles, ticks_per_us, out);
    for (const CommandSpec& sub : spec.subcommands) {
      AppendLatencyRow(sub, stats, percentiles, ticks_per_us, out);
    }
  }
}

void InfoErrorStats(ServerContext& ctx, std::string* out) {
  *out += "# Errorstats\r\n";
  for (const auto& [code, count] : ctx.command_stats().errors()) {
    *out += fmt::format("errorstat_{}:count={}\r\n", code, count);
  }
}

}  // namespace ebb::server
