// ebb-server: `ebb-server [conf-file] [--option value ...]`.
//
// Reads the options (file, then flags), sets up logging, raises the open-file limit (lowering
// maxclients if the OS will not; server/open_files.h), opens the keyspace in `dir`, serves
// until SHUTDOWN/SIGTERM/SIGINT, then closes the keyspace (the engine syncs its WAL) and exits 0.
// Exits 1 when the options are bad, the data cannot be opened, or no address can be bound.
#include <malloc.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "server/acl/acl.h"
#include "server/commands/register.h"
#include "server/config/config.h"
#include "server/core/command.h"
#include "server/keyspace_setup.h"
#include "server/net/server.h"
#include "server/open_files.h"
#include "server/replication/replica.h"
#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "storage/clock.h"
#include "storage/env/fault_injection_file_system.h"
#include "storage/options.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

// glibc's malloc gives each block of 128 KB or more a fresh mapping, and hands the top of its heap
// back as soon as twice the last such block lies free there: every copy of a large value (a
// 256 KB string through a snapshot's merge) then took a page fault per 4 KB. Blocks up to 1 MB now
// come from the heap, which keeps up to 8 MB free at its top (docs/performance.md, "The
// allocator"). Before any thread starts.
void TuneAllocator() {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 8 << 20);
}

spdlog::level::level_enum LogLevel(const std::string& name) {
  if (name == "debug") return spdlog::level::debug;
  if (name == "verbose") return spdlog::level::info;
  if (name == "warning") return spdlog::level::warn;
  return spdlog::level::info;  // notice
}

// Returns false (with *error) when the log file cannot be opened.
bool SetUpLogging(const Config& config, std::string* error) {
  std::shared_ptr<spdlog::logger> logger;
  if (config.logfile.empty()) {
    logger =
        std::make_shared<spdlog::logger>("ebb", std::make_shared<spdlog::sinks::stdout_sink_mt>());
  } else {
    try {
      logger = std::make_shared<spdlog::logger>(
          "ebb", std::make_shared<spdlog::sinks::basic_file_sink_mt>(config.logfile));
    } catch (const spdlog::spdlog_ex& e) {
      *error = "Can't open the log file: " + std::string(e.what());
      return false;
    }
  }
  logger->set_pattern("%P:M %d %b %Y %H:%M:%S.%e %^%L%$ %v");
  logger->set_level(LogLevel(config.loglevel));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return true;
}

// Raises the open-file limit for `config`'s clients and the engine, lowering maxclients with
// Redis's warnings when the OS will not give enough. Returns the table cache size, or 0 (after
// logging why) when the limit is too low to start.
int AdjustOpenFilesLimit(ConfigRegistry* registry) {
  const int maxclients = registry->config().maxclients;
  const uint64_t wanted = OpenFilesWanted(maxclients);
  const OpenFilesLimit raised = RaiseOpenFilesLimit(wanted);
  const uint64_t limit = raised.limit;
  const std::string& os_error = raised.raising.detail();
  const OpenFilesPlan plan = PlanOpenFiles(maxclients, limit);
  if (limit >= wanted) {
    spdlog::info("Maximum number of open files is {} ({} for the table cache)", limit,
                 plan.table_cache);
    return plan.table_cache;
  }
  if (plan.maxclients < 1) {
    spdlog::critical(
        "Your current 'ulimit -n' of {} is not enough for the server to start. Please increase "
        "your open file limit to at least {}. Exiting.",
        limit, kReservedFds + kMinTableCache + 1);
    return 0;
  }
  spdlog::warn("You requested maxclients of {} requiring at least {} max file descriptors.",
               maxclients, wanted);
  if (!os_error.empty()) {
    spdlog::warn("Server can't set maximum open files to {} because of OS error: {}.", wanted,
                 os_error);
  }
  spdlog::warn(
      "Current maximum open files is {}. maxclients has been reduced to {} to compensate for low "
      "ulimit, and the table cache to {} files. If you need higher maxclients increase "
      "'ulimit -n'.",
      limit, plan.maxclients, plan.table_cache);
  // Lower than the value accepted at start, so accepted too.
  (void)registry->Set("maxclients", std::to_string(plan.maxclients));
  return plan.table_cache;
}

// CONFIG SET maxclients above what the open-file limit allows raises the limit, or is refused
// with Redis's text.
std::string CheckMaxclients(std::string_view name, const Config& proposed, int table_cache) {
  if (name != "maxclients") return "";
  const uint64_t limit =
      RaiseOpenFilesLimit(OpenFilesWanted(proposed.maxclients) - kDefaultTableCache + table_cache)
          .limit;
  const OpenFilesPlan plan = PlanOpenFiles(proposed.maxclients, limit, table_cache);
  if (plan.maxclients >= proposed.maxclients) return "";
  return "The operating system is not able to handle the specified number of clients, try with " +
         std::to_string(plan.maxclients);
}

void OnConfigChange(std::string_view name, const Config& config, ServerContext* ctx) {
  ApplyRuntimeChange(name, config, ctx);
  if (name == "loglevel") spdlog::default_logger()->set_level(LogLevel(config.loglevel));
}

// Reads the options (file, then flags) into `registry` and sets up logging. Returns the exit
// code when the process ends here (bad options: 1; --help, --version: 0), else nothing.
std::optional<int> ReadOptions(int argc, char** argv, ConfigRegistry& registry) {
  bool exit_now = false;
  if (const Result<ConfigCode> parsed = registry.ParseCommandLine(argc, argv, &exit_now);
      !parsed.ok()) {
    const bool in_file = parsed.code() != ConfigCode::kBadCommandLine;
    std::fprintf(stderr, "*** FATAL %s ERROR ***\n%s\n", in_file ? "CONFIG FILE" : "COMMAND LINE",
                 ConfigErrorText(parsed).c_str());
    return 1;
  }
  if (exit_now) return 0;
  std::string error;
  if (!SetUpLogging(registry.config(), &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  // "PID: <pid>", as in Redis's startup banner: what tools that start a server wait for.
  spdlog::info("ebb {} starting, PID: {}", EBB_VERSION, static_cast<int>(getpid()));
  for (const std::string& notice : registry.notices()) spdlog::info("{}", notice);
  return std::nullopt;
}

// The open engine under the keyspace, and what main wires from it.
struct OpenedData {
  std::unique_ptr<types::Keyspace> keyspace;
  storage::Options engine_options;
  std::shared_ptr<storage::FaultInjectionFileSystem> disk_faults;  // with DEBUG allowed
  int table_cache = 0;
};

// Opens the keyspace in `dir` within the open-file budget (lowering maxclients if it must).
// False (after logging why) when the server cannot start.
bool OpenData(ConfigRegistry& registry, std::shared_ptr<storage::PinnableClock> clock,
              OpenedData* data) {
  const Config& config = registry.config();
  std::error_code fs_error;
  RecoverDataDirectory(config.dir);  // a replica's full resynchronisation cut short
  std::filesystem::create_directories(config.dir, fs_error);
  data->table_cache = AdjustOpenFilesLimit(&registry);
  if (data->table_cache == 0) return false;
  data->engine_options = EngineOptions(config, std::move(clock));
  data->engine_options.max_open_files = data->table_cache;
  if (config.enable_debug_command != DebugCommandPolicy::kNo) {
    // DEBUG DISK-FAULT fails the engine's writes and fsyncs through this layer.
    data->disk_faults =
        std::make_shared<storage::FaultInjectionFileSystem>(storage::DefaultFileSystem());
    data->engine_options.file_system = data->disk_faults;
  }
  storage::Status s = types::Keyspace::Open(
      data->engine_options, config.dir, &data->keyspace,
      config.cluster_enabled ? types::KeyLayout::kBySlot : types::KeyLayout::kByDatabase);
  if (!s.ok()) {
    spdlog::critical("Cannot open the data in '{}': {}", config.dir, s.ToString());
    return false;
  }
  return true;
}

// Loads what the context serves besides the data: the function libraries and the ACL users.
// False (after logging why) when the server cannot start.
bool LoadScriptsAndUsers(ServerContext& ctx) {
  const Config& config = ctx.config();
  // The function libraries live in an engine row; an older ebb's functions file moves there
  // (docs/scripting.md, "Where the libraries live").
  if (const auto opened = ctx.scripts().OpenLibraries(config.dir + "/functions"); !opened.ok()) {
    spdlog::critical("Cannot load the functions: {}", scripting::ScriptErrorText(opened));
    return false;
  }
  if (!config.users.empty() && !config.aclfile.empty()) {
    spdlog::critical(
        "Configuring ebb with users defined in the config file and at the same time an ACL file "
        "path is invalid: define either an ACL file or `user` lines, not both.");
    return false;
  }
  if (const Result<AclCode> users = ctx.acl().LoadConfigUsers(config.users); !users.ok()) {
    spdlog::critical("Cannot load the ACL users: {}",
                     AclErrorText(users, AclRuleWording::kUserDeclaration));
    return false;
  }
  if (!config.aclfile.empty()) {
    if (const Result<AclCode> loaded = ctx.acl().LoadFile(config.aclfile, nullptr); !loaded.ok()) {
      spdlog::critical("Cannot load the ACL users: {}", AclErrorText(loaded));
      return false;
    }
  }
  return true;
}

// Serves until SHUTDOWN or a signal, then closes the keyspace; the exit code.
int Serve(ServerContext& ctx, std::unique_ptr<types::Keyspace>& keyspace) {
  int code = 0;
  {
    Server server(&ctx);
    if (Result<ListenCode> listening = server.Listen(); !listening.ok()) {
      spdlog::critical("{}", ListenErrorText(listening));
      code = 1;
    } else {
      server.Run();
    }
    // Close the engine (stops background work, syncs the WAL) while the server's signal
    // handlers are still installed, so a second SIGTERM cannot cut the close short.
    ctx.set_keyspace(nullptr);
    keyspace.reset();
  }
  std::signal(SIGTERM, SIG_IGN);
  std::signal(SIGINT, SIG_IGN);
  spdlog::warn("ebb is now ready to exit, bye bye...");
  spdlog::default_logger()->flush();
  return code;
}

int Main(int argc, char** argv) {
  TuneAllocator();
  std::signal(SIGPIPE, SIG_IGN);  // a peer that went away is an error code, not a signal
  ConfigRegistry registry;
  if (std::optional<int> code = ReadOptions(argc, argv, registry)) return *code;
  const Config& config = registry.config();
  auto clock = std::make_shared<storage::PinnableClock>();
  OpenedData data;
  if (!OpenData(registry, clock, &data)) return 1;

  CommandTable commands;
  RegisterAllCommands(commands);
  ServerContext ctx(&registry, &commands, clock.get());
  ctx.set_keyspace(data.keyspace.get());
  ctx.latency().set_engine(data.engine_options.engine_latency);
  data.keyspace->tlog_heads().set_capacity(config.tlog_cache_size);
  ApplyTypeSettings(config, data.keyspace.get());
  IndexSeriesLabels(config, data.keyspace.get());  // once per data directory
  ctx.set_disk_faults(data.disk_faults.get());
  ctx.set_version(EBB_VERSION);
  ctx.set_script_engine_factory(
      [](ServerContext* server) { return std::make_shared<scripting::ScriptEngine>(server); });
  if (!LoadScriptsAndUsers(ctx)) return 1;
  registry.OnChange(
      [&ctx](std::string_view name, const Config& c) { OnConfigChange(name, c, &ctx); });
  registry.OnSetCheck(
      [table_cache = data.table_cache](std::string_view name, const Config& proposed) {
        return CheckMaxclients(name, proposed, table_cache);
      });
  return Serve(ctx, data.keyspace);
}

}  // namespace
}  // namespace ebb::server

int main(int argc, char** argv) { return ebb::server::Main(argc, argv); }
