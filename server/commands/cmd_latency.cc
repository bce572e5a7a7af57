// LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR / HISTOGRAM / HELP: the latency monitor's
// events (server/services/latency_monitor.h) and the commands' latency histograms (INFO
// latencystats), with Redis 7's replies and errors (latency.c).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/cycle_clock.h"
#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/command_stats.h"
#include "server/core/errors.h"
#include "server/core/latency_histogram.h"
#include "server/services/command_docs.h"
#include "server/services/latency_monitor.h"
#include "server/services/latency_report.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

constexpr uint32_t kFlags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;

int64_t NowSeconds(CommandContext& ctx) { return ctx.server.clock().NowMs() / 1000; }

// The table as of now: what the engine's threads and the disk reads noted is collected first.
const LatencyMonitor& CollectedMonitor(CommandContext& ctx) {
  ctx.server.CollectLatencySamples();
  return ctx.server.latency();
}

struct EventOptions {
  std::string_view event;
};
EventOptions ParseEvent(ArgParser& args) { return {args.Next()}; }

// LATEST: [event, unix time of the latest sample, its ms, all-time max ms] per event.
void ExecuteLatest(CommandContext& ctx, const NoOptions&) {
  const LatencyMonitor& monitor = CollectedMonitor(ctx);
  ctx.reply.ArrayHeader(monitor.events().size());
  for (const auto& [event, series] : monitor.events()) {
    ctx.reply.ArrayHeader(4);
    ctx.reply.Bulk(event);
    ctx.reply.Integer(series.samples.back().time_s);
    ctx.reply.Integer(series.samples.back().latency_ms);
    ctx.reply.Integer(series.max_ms);
  }
}

// HISTORY event: [unix time, ms] per sample, oldest first; an unknown event has none.
void ExecuteHistory(CommandContext& ctx, const EventOptions& o) {
  const LatencyMonitor::Series* series = CollectedMonitor(ctx).Find(o.event);
  if (series == nullptr) return ctx.reply.ArrayHeader(0);
  ctx.reply.ArrayHeader(series->samples.size());
  for (const LatencyMonitor::Sample& sample : series->samples) {
    ctx.reply.ArrayHeader(2);
    ctx.reply.Integer(sample.time_s);
    ctx.reply.Integer(sample.latency_ms);
  }
}

void ExecuteGraph(CommandContext& ctx, const EventOptions& o) {
  const LatencyMonitor::Series* series = CollectedMonitor(ctx).Find(o.event);
  if (series == nullptr) return ctx.reply.Error(NoLatencySamplesError(o.event));
  ctx.reply.Verbatim("txt", LatencyGraph(o.event, *series, NowSeconds(ctx)));
}

void ExecuteDoctor(CommandContext& ctx, const NoOptions&) {
  const Config& config = ctx.server.config();
  const LatencyReportSettings settings{.threshold_ms = config.latency_monitor_threshold_ms,
                                       .slowlog_slower_than_us = config.slowlog_log_slower_than_us,
                                       .wal_fsync_always = config.wal_fsync == "always"};
  ctx.reply.Verbatim("txt", LatencyDoctorReport(CollectedMonitor(ctx), settings, NowSeconds(ctx)));
}

// RESET [event ...]: how many events were forgotten.
struct EventsOptions {
  std::vector<std::string_view> events;  // none: every event
};
EventsOptions ParseEvents(ArgParser& args) { return {RemainingArgs(args)}; }

void ExecuteReset(CommandContext& ctx, const EventsOptions& o) {
  LatencyMonitor& monitor = ctx.server.latency();
  ctx.server.CollectLatencySamples();  // what was noted before the reset goes with it
  size_t resets = 0;
  if (o.events.empty()) resets = monitor.ResetAll();
  for (std::string_view event : o.events) resets += monitor.Reset(event);
  ctx.reply.Integer(static_cast<int64_t>(resets));
}

// HISTOGRAM: Redis's buckets are HdrHistogram's at two significant figures, iterated by powers
// of two from 1024 ns: bound k is 1024·2^k ns plus its equivalent range (2^(k+3) ns) less one,
// reported in whole µs (1, 2, 4, 8, 16, 33, 66, ...). Times are clamped to 1 ns .. 1 s.
constexpr int kHistogramBounds = 21;  // the last bound is past 1 s

uint64_t BoundNs(int k) { return (uint64_t{1024} << k) + (uint64_t{8} << k) - 1; }

void ReplyHistogram(protocol::ReplyWriter& reply, const LatencyHistogram& histogram) {
  const double ticks_per_ns = CycleClock::TicksPerMicrosecond() / 1000.0;
  std::vector<uint64_t> per_bound(kHistogramBounds, 0);
  for (size_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    const uint64_t count = histogram.count(b);
    if (count == 0) continue;
    double ns = static_cast<double>(LatencyHistogram::HighestInBucket(b)) / ticks_per_ns;
    ns = ns < 1 ? 1 : (ns > 1e9 ? 1e9 : ns);
    int k = 0;
    while (k + 1 < kHistogramBounds && static_cast<double>(BoundNs(k)) < ns) ++k;
    per_bound[k] += count;
  }
  std::vector<std::pair<uint64_t, uint64_t>> cumulative;  // (µs, calls at or below)
  uint64_t total = 0;
  for (int k = 0; k < kHistogramBounds; ++k) {
    if (per_bound[k] == 0) continue;
    total += per_bound[k];
    cumulative.emplace_back(BoundNs(k) / 1000, total);
  }
  reply.MapHeader(2);
  reply.Bulk("calls");
  reply.Integer(static_cast<int64_t>(histogram.total()));
  reply.Bulk("histogram_usec");
  reply.MapHeader(cumulative.size());
  for (const auto& [usec, calls] : cumulative) {
    reply.Integer(static_cast<int64_t>(usec));
    reply.Integer(static_cast<int64_t>(calls));
  }
}

const LatencyHistogram* HistogramOf(CommandContext& ctx, const CommandSpec& spec) {
  const CommandCallStats* row = ctx.server.command_stats().find(spec.id);
  const LatencyHistogram* histogram = row != nullptr ? row->latency.get() : nullptr;
  return histogram != nullptr && histogram->total() > 0 ? histogram : nullptr;
}

// A row with a histogram, then its subcommands that have one (Redis's order).
void AddWithSubcommands(CommandContext& ctx, const CommandSpec& spec,
                        std::vector<const CommandSpec*>* out) {
  if (HistogramOf(ctx, spec) != nullptr) out->push_back(&spec);
  for (const CommandSpec& sub : spec.subcommands) {
    if (HistogramOf(ctx, sub) != nullptr) out->push_back(&sub);
  }
}

// A command as Redis's lookupCommandBySds finds it: "name" or "container|sub"; nullptr if none.
const CommandSpec* LookupByFullName(const CommandTable& table, std::string_view name) {
  const size_t bar = name.find('|');
  if (bar == std::string_view::npos) return table.Find(name);
  const std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  const CommandSpec* container = table.Find(name.substr(0, bar));
  return container == nullptr ? nullptr : CommandTable::FindSubcommand(*container, sub);
}

// HISTOGRAM [command ...]: a map from each command's full name to its calls and cumulative
// histogram; no names: every command with recorded calls; unknown names are skipped.
struct CommandNamesOptions {
  std::vector<std::string_view> names;  // none: every command
};
CommandNamesOptions ParseCommandNames(ArgParser& args) { return {RemainingArgs(args)}; }

void ExecuteHistogram(CommandContext& ctx, const CommandNamesOptions& o) {
  std::vector<const CommandSpec*> rows;
  const CommandTable& table = ctx.server.commands();
  if (o.names.empty()) {
    for (const auto& [name, spec] : table.rows()) AddWithSubcommands(ctx, spec, &rows);
  }
  for (std::string_view name : o.names) {
    if (const CommandSpec* spec = LookupByFullName(table, name)) {
      AddWithSubcommands(ctx, *spec, &rows);
    }
  }
  ctx.reply.MapHeader(rows.size());
  for (const CommandSpec* spec : rows) {
    ctx.reply.Bulk(spec->full_name);
    ReplyHistogram(ctx.reply, *HistogramOf(ctx, *spec));
  }
}

CommandSpec Subcommand(std::string_view name, int arity, std::string_view summary,
                       std::vector<ArgSpec> arguments, std::vector<HelpEntry> help,
                       CommandHandler handler) {
  return {.name = name,
          .arity = arity,
          .flags = kFlags,
          .group = "server",
          .since = "2.8.13",
          .summary = summary,
          .arguments = std::move(arguments),
          .help = std::move(help),
          .handler = handler};
}

}  // namespace

std::vector<CommandSpec> LatencyCommands() {
  const ArgSpec event{.name = "event"};
  CommandSpec histogram = Subcommand(
      "histogram", -2,
      "Return the cumulative distribution of latencies of a subset of commands or all.",
      {{.name = "COMMAND", .optional = true, .multiple = true}},
      {{.usage = "HISTOGRAM [COMMAND ...]",
        .text = "Return a cumulative distribution of latencies in the format of a histogram for "
                "the specified command names.\nIf no commands are specified then all histograms "
                "are replied."}},
      Handler<ParseCommandNames, ExecuteHistogram>);
  histogram.since = "7.0.0";
  histogram.complexity =
      "O(N) where N is the number of commands with latency information being retrieved.";
  return {{
      .name = "latency",
      .arity = -2,
      .group = "server",
      .since = "2.8.13",
      .summary = "A container for latency diagnostics commands",
      .complexity = "Depends on subcommand.",
      .subcommands = {Subcommand("doctor", 2, "Return a human readable latency analysis report.",
                                 {}, {{.usage = "DOCTOR"}}, Handler<ParseNothing, ExecuteDoctor>),
                      Subcommand("graph", 3, "Return a latency graph for the event.", {event},
                                 {{.usage = "GRAPH <event>",
                                   .text = "Return an ASCII latency graph for the <event> class."}},
                                 Handler<ParseEvent, ExecuteGraph>),
                      Subcommand("history", 3, "Return timestamp-latency samples for the event.",
                                 {event},
                                 {{.usage = "HISTORY <event>",
                                   .text = "Return time-latency samples for the <event> class."}},
                                 Handler<ParseEvent, ExecuteHistory>),
                      Subcommand("latest", 2, "Return the latest latency samples for all events.",
                                 {}, {{.usage = "LATEST"}}, Handler<ParseNothing, ExecuteLatest>),
                      Subcommand(
                          "reset", -2, "Reset latency data for one or more events.",
                          {{.name = "event", .optional = true, .multiple = true}},
                          {{.usage = "RESET [<event> ...]",
                            .text = "Reset latency data of one or more <event> classes.\n(default: "
                                    "reset all data for all event classes)"}},
                          Handler<ParseEvents, ExecuteReset>),
                      histogram,
                      HelpSubcommand("server", "Show helpful text about the different subcommands.",
                                     kCmdLoading | kCmdStale, "2.8.13")},
  }};
}

}  // namespace ebb::server
