// MEMORY USAGE / STATS / DOCTOR / MALLOC-STATS / PURGE / HELP (docs/commands.md, "MEMORY"), with
// Redis 7's replies and errors; STATS and DOCTOR read server/metrics/memory_report.h.
//
// ebb keeps its data on disk, so a key's "memory" is the bytes of its rows: MEMORY USAGE answers
// the key name's length plus the size of the key's DUMP payload (types/dump_codec.h: every
// version a read could still see, each TLOG entry, their timestamps and expiries) — what the key
// costs wherever it lives, and what redis-cli --memkeys ranks keys by. SAMPLES is accepted as
// Redis parses it; the whole key is always measured.
#include <malloc.h>
#include <stdio.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/metrics/memory_report.h"
#include "server/services/command_docs.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

struct UsageOptions {
  std::string_view key;
};

// MEMORY USAGE key [SAMPLES count]: count is an integer >= 0 (0: every element).
UsageOptions ParseUsage(ArgParser& args) {
  UsageOptions o;
  o.key = args.Next();
  while (args.HasMore()) {
    if (args.remaining() >= 2 && args.Token("SAMPLES")) {
      if (args.Int64() < 0 && !args.failed()) args.SyntaxError();
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

void ExecuteUsage(CommandContext& ctx, const UsageOptions& o) {
  types::OpResult<std::optional<std::string>> payload =
      ctx.server.keyspace().DumpKey(ctx.client.db_index(), o.key);
  if (!payload.ok()) return ReplyError(ctx, payload);
  if (!*payload) return ctx.reply.Null();
  ctx.reply.Integer(static_cast<int64_t>(o.key.size() + (*payload)->size()));
}

double Ratio(uint64_t a, uint64_t b) { return b == 0 ? 0 : static_cast<double>(a) / b; }

// Redis 7.0's fields in its order (no db.N maps: ebb keeps no per-database hash tables), valued
// from the report; Redis's fields with no meaning in ebb (cluster.links, aof.buffer) answer 0.
// Then ebb's own: the engine's parts and the TLOG cache.
void ExecuteStats(CommandContext& ctx, const NoOptions&) {
  const MemoryReport r = ReadMemoryReport(ctx.server);
  const uint64_t keys = ctx.server.KeyCount();
  const uint64_t net = r.used > r.startup ? r.used - r.startup : 0;
  const uint64_t overhead = std::min(r.used, r.startup + r.overhead());
  const uint64_t dataset = r.used - overhead;
  const auto diff = [](uint64_t a, uint64_t b) { return static_cast<int64_t>(a - b); };
  protocol::ReplyWriter& w = ctx.reply;
  w.MapHeader(32);
  auto integer = [&](std::string_view name, int64_t v) {
    w.Bulk(name);
    w.Integer(v);
  };
  auto real = [&](std::string_view name, double v) {
    w.Bulk(name);
    w.Double(v);
  };
  auto u = [](uint64_t v) { return static_cast<int64_t>(v); };
  integer("peak.allocated", u(r.peak));
  integer("total.allocated", u(r.used));
  integer("startup.allocated", u(r.startup));
  integer("replication.backlog", u(r.replication_backlog));
  integer("clients.slaves", u(r.clients_replicas));
  integer("clients.normal", u(r.clients_normal));
  integer("cluster.links", 0);
  integer("aof.buffer", 0);
  integer("lua.caches", u(r.script_cache));
  integer("functions.caches", 0);
  integer("overhead.total", u(overhead));
  integer("keys.count", u(keys));
  integer("keys.bytes-per-key", keys == 0 ? 0 : u(net / keys));
  integer("dataset.bytes", u(dataset));
  real("dataset.percentage", net == 0 ? 0 : 100.0 * Ratio(dataset, net));
  real("peak.percentage", 100.0 * Ratio(r.used, r.peak));
  integer("allocator.allocated", u(r.used));
  integer("allocator.active", u(r.allocator_active));
  integer("allocator.resident", u(r.rss));
  real("allocator-fragmentation.ratio", Ratio(r.allocator_active, r.used));
  integer("allocator-fragmentation.bytes", diff(r.allocator_active, r.used));
  real("allocator-rss.ratio", Ratio(r.rss, r.allocator_active));
  integer("allocator-rss.bytes", diff(r.rss, r.allocator_active));
  real("rss-overhead.ratio", 1);
  integer("rss-overhead.bytes", 0);
  real("fragmentation", Ratio(r.rss, r.used));
  integer("fragmentation.bytes", diff(r.rss, r.used));
  integer("engine.memtables", u(r.engine_memtables));
  integer("engine.block-cache", u(r.engine_block_cache));
  integer("engine.table-index", u(r.engine_table_index));
  integer("engine.table-filter", u(r.engine_table_filter));
  integer("tlog.cache", u(r.tlog_cache));
}

void ExecuteDoctor(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Verbatim("txt", MemoryDoctorReport(ReadMemoryReport(ctx.server)));
}

// glibc's own report (malloc_info's XML), as Redis answers jemalloc's.
void ExecuteMallocStats(CommandContext& ctx, const NoOptions&) {
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr || malloc_info(0, out) != 0) {
    if (out != nullptr) fclose(out);
    free(text);
    return ctx.reply.Verbatim("txt", "Stats not supported for the current allocator");
  }
  fclose(out);
  ctx.reply.Verbatim("txt", std::string_view(text, size));
  free(text);
}

// Gives free memory at the top of the heap and in the arenas back to the system (malloc_trim).
void ExecutePurge(CommandContext& ctx, const NoOptions&) {
  malloc_trim(0);
  ctx.reply.Ok();
}

}  // namespace

std::vector<CommandSpec> MemoryCommands() {
  return {{
      .name = "memory",
      .arity = -2,
      .group = "server",
      .since = "4.0.0",
      .summary = "A container for memory diagnostics commands.",
      .complexity = "Depends on subcommand.",
      .subcommands =
          {{.name = "usage",
            .arity = -3,
            .flags = kCmdReadOnly,
            .keys = kSubcommandKey,
            .group = "server",
            .since = "4.0.0",
            .summary = "Estimates the memory usage of a key.",
            .complexity = "O(N) where N is the number of versions and entries of the key.",
            .arguments = {{.name = "key", .type = ArgType::kKey},
                          {.name = "count",
                           .type = ArgType::kInteger,
                           .token = "SAMPLES",
                           .optional = true}},
            .help = {{.usage = "USAGE <key> [SAMPLES <count>]",
                      .text = "Return the bytes of the key's rows: its name and its DUMP "
                              "payload."}},
            .handler = Handler<ParseUsage, ExecuteUsage>},
           {.name = "stats",
            .arity = 2,
            .group = "server",
            .since = "4.0.0",
            .summary = "Returns details about memory usage.",
            .help = {{.text = "Return information about the memory usage of the server."}},
            .handler = Handler<ParseNothing, ExecuteStats>},
           {.name = "doctor",
            .arity = 2,
            .group = "server",
            .since = "4.0.0",
            .summary = "Outputs a memory problems report.",
            .help = {{.text = "Return memory problems reports."}},
            .handler = Handler<ParseNothing, ExecuteDoctor>},
           {.name = "malloc-stats",
            .arity = 2,
            .group = "server",
            .since = "4.0.0",
            .summary = "Returns the allocator statistics.",
            .complexity = "Depends on how much memory is allocated, could be slow",
            .help = {{.text = "Return internal statistics report from the memory allocator."}},
            .handler = Handler<ParseNothing, ExecuteMallocStats>},
           {.name = "purge",
            .arity = 2,
            .group = "server",
            .since = "4.0.0",
            .summary = "Asks the allocator to release memory.",
            .complexity = "Depends on how much memory is allocated, could be slow",
            .help = {{.text = "Attempt to purge dirty pages for reclamation by the allocator."}},
            .handler = Handler<ParseNothing, ExecutePurge>},
           HelpSubcommand("server", "Returns helpful text about the different subcommands.", 0,
                          "4.0.0")},
  }};
}

}  // namespace ebb::server
