#include "tests/support/command_runner.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/active_active/active_active.h"
#include "server/commands/register.h"
#include "server/config/config.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/transaction.h"
#include "server/dispatch/dispatcher.h"
#include "server/keyspace_setup.h"
#include "server/net/active_active_planner.h"
#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "storage/clock.h"
#include "storage/env/fault_injection_file_system.h"
#include "types/keyspace.h"

namespace ebb::test {

using server::Client;
using server::CommandTable;
using server::ConfigRegistry;
using server::Dispatcher;
using server::ServerContext;

// Everything the runner owns besides its directory, in construction order.
struct CommandRunner::State {
  ConfigRegistry registry;
  CommandTable commands;
  std::shared_ptr<storage::PinnableClock> clock = std::make_shared<storage::PinnableClock>();
  std::shared_ptr<storage::FaultInjectionFileSystem> disk_faults =
      std::make_shared<storage::FaultInjectionFileSystem>(storage::DefaultFileSystem());
  std::unique_ptr<types::Keyspace> keyspace;
  std::unique_ptr<ServerContext> context;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<Client> client;
  std::vector<std::unique_ptr<Client>> others;       // clients 1, 2, ...
  std::vector<std::unique_ptr<std::string>> pushed;  // by client index
  // While a client's request runs, what is pushed to it joins its reply, as on a connection.
  Client* running = nullptr;
  std::string* running_out = nullptr;
  // Active-active (HostActiveActive), last so that it goes before what it uses.
  bool hosts_active_active = false;
  boost::asio::io_context io;
  std::unique_ptr<server::ActiveActive> active_active;
  std::unique_ptr<server::ActiveActivePlanner> write_planner;

  void DropActiveActive() {
    if (!active_active) return;
    context->set_write_planner(nullptr);
    write_planner.reset();
    context->set_active_active(nullptr);
    active_active.reset();
  }
  // As Server's constructor and Listen make them.
  void MakeActiveActive() {
    active_active = std::make_unique<server::ActiveActive>(context.get(), io);
    context->set_active_active(active_active.get());
    write_planner = std::make_unique<server::ActiveActivePlanner>(active_active.get());
    context->set_write_planner(write_planner.get());
    const storage::Status s = active_active->Open();
    ASSERT_TRUE(s.ok()) << s.ToString();
    const server::Result<server::ActiveActiveCode> started = active_active->Start();
    ASSERT_TRUE(started.ok()) << active_active->ErrorText(started);
  }

  // Unregisters every client (and its watches and subscriptions).
  void DropClients() {
    auto drop = [this](Client* c) {
      server::DiscardTransaction(context->watches(), *c);
      context->pubsub().Forget(c);
      context->clients().Remove(c->id());
    };
    if (client) drop(client.get());
    for (auto& c : others) drop(c.get());
    client.reset();
    others.clear();
    pushed.clear();
  }
  Client& At(size_t index) { return index == 0 ? *client : *others.at(index - 1); }
  Client* NewClient() {
    auto c = std::make_unique<Client>(context->clients().NextId(), "127.0.0.1:40000",
                                      "127.0.0.1:6379", -1, 0, /*local=*/true);
    c->set_user(context->acl().anonymous());  // as Connection::Start
    pushed.push_back(std::make_unique<std::string>());
    std::string* sink = pushed.back().get();
    Client* self = c.get();
    c->set_push_hook([this, sink, self](std::string_view m) {
      (running == self ? running_out : sink)->append(m);
    });
    context->clients().Add(c.get());
    Client* raw = c.get();
    if (!client) {
      client = std::move(c);
    } else {
      others.push_back(std::move(c));
    }
    return raw;
  }
};

CommandRunner::CommandRunner(std::vector<std::string> options) : state_(new State) {
  char tmpl[] = "/tmp/ebb_commands_XXXXXX";
  root_ = ::mkdtemp(tmpl);
  data_dir_ = root_ + "/data";
  std::vector<std::string> argv = {"ebb-server", "--dir", data_dir_};
  bool debug_given = false;
  for (const std::string& o : options) debug_given |= o == "--enable-debug-command";
  if (!debug_given) argv.insert(argv.end(), {"--enable-debug-command", "yes"});
  argv.insert(argv.end(), options.begin(), options.end());
  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  bool exit_now = false;
  const server::Result<server::ConfigCode> parsed =
      state_->registry.ParseCommandLine(static_cast<int>(c_argv.size()), c_argv.data(), &exit_now);
  EXPECT_TRUE(parsed.ok()) << server::ConfigErrorText(parsed);
  server::RegisterAllCommands(state_->commands);
  state_->context =
      std::make_unique<ServerContext>(&state_->registry, &state_->commands, state_->clock.get());
  state_->context->set_version("test");
  state_->context->set_script_engine_factory([](ServerContext* server) {
    return std::make_shared<server::scripting::ScriptEngine>(server);
  });
  state_->context->set_disk_faults(state_->disk_faults.get());
  ServerContext* context = state_->context.get();
  state_->registry.OnChange([context](std::string_view name, const server::Config& config) {
    server::ApplyRuntimeChange(name, config, context);
  });
  Open();
}

CommandRunner::~CommandRunner() {
  state_->DropClients();
  state_->DropActiveActive();
  state_.reset();
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

void CommandRunner::Open() {
  const server::Config& config = state_->registry.config();
  std::filesystem::create_directories(data_dir_);
  storage::Options options = server::EngineOptions(config, state_->clock);
  options.file_system = state_->disk_faults;
  state_->DropClients();
  state_->DropActiveActive();
  state_->dispatcher.reset();
  state_->context->set_keyspace(nullptr);
  state_->keyspace.reset();
  storage::Status s = types::Keyspace::Open(
      options, data_dir_, &state_->keyspace,
      config.cluster_enabled ? types::KeyLayout::kBySlot : types::KeyLayout::kByDatabase);
  ASSERT_TRUE(s.ok()) << s.ToString();
  state_->keyspace->tlog_heads().set_capacity(config.tlog_cache_size);
  server::ApplyTypeSettings(config, state_->keyspace.get());
  ASSERT_TRUE(server::IndexSeriesLabels(config, state_->keyspace.get()));
  state_->context->set_keyspace(state_->keyspace.get());
  state_->context->latency().set_engine(options.engine_latency);
  state_->dispatcher = std::make_unique<Dispatcher>(state_->context.get());
  if (state_->hosts_active_active) state_->MakeActiveActive();
  state_->NewClient();
}

void CommandRunner::HostActiveActive() {
  if (!state_->hosts_active_active) {
    state_->hosts_active_active = true;
    state_->MakeActiveActive();
  }
  server::ActiveActive& aa = *state_->active_active;
  if (aa.enabled()) return;
  // Port 1: nothing listens there, and the link is gone before it retries.
  const server::Result<server::ActiveActiveCode> added = aa.AddPeer("127.0.0.1", 1);
  ASSERT_TRUE(added.ok()) << aa.ErrorText(added);
  const server::Result<server::ActiveActiveCode> removed = aa.RemovePeer("127.0.0.1", 1);
  ASSERT_TRUE(removed.ok()) << aa.ErrorText(removed);
}

size_t CommandRunner::AddClient() {
  state_->NewClient();
  return state_->others.size();
}

std::string CommandRunner::RawAs(size_t client, std::span<const std::string_view> args) {
  std::string out, silenced;
  Client& c = state_->At(client);
  protocol::ReplyWriter writer(&out, c.resp()), silent(&silenced, c.resp());
  if (args.empty()) return out;
  state_->running = &c;
  state_->running_out = &out;
  // A run that needs table blocks comes back incomplete: read them here, as the connection's
  // reader would, and run the request again (server/dispatch/dispatcher.h, "Restartable commands").
  storage::BlockFetch& fetch = c.block_fetch();
  for (size_t runs = 1;
       state_->dispatcher->Dispatch(args, c, c.replies_silenced() ? silent : writer).incomplete;
       ++runs) {
    EXPECT_TRUE(out.empty()) << "an incomplete run replied " << out;
    if (runs > 2 * Dispatcher::kMaxRounds) {
      ADD_FAILURE() << "a request came back incomplete " << runs << " times";
      fetch.Release();
      break;
    }
    fetch.ReadAndFillAll();
    reruns_++;
  }
  c.OnCommandDone();
  state_->running = nullptr;
  // The end of this request's turn, which no io loop marks here: the deltas it logged go to
  // the streams.
  if (state_->active_active) state_->active_active->FlushToSubscribers();
  return out;
}

std::string CommandRunner::TakePushed(size_t client) {
  std::string out;
  out.swap(*state_->pushed.at(client));
  return out;
}

void CommandRunner::Reopen() { Open(); }

server::ServerContext& CommandRunner::context() { return *state_->context; }

std::string CommandRunner::Raw(const std::vector<std::string>& args) {
  const std::vector<std::string_view> views(args.begin(), args.end());
  return Raw(std::span<const std::string_view>(views));
}

std::string CommandRunner::Raw(std::span<const std::string_view> args) { return RawAs(0, args); }

void CommandTest::PinClock(int64_t ms) {
  ASSERT_EQ(Do({"DEBUG", "CLOCK", "SET", std::to_string(ms)}), "+OK");
}

void CommandTest::Advance(int64_t ms) {
  ASSERT_EQ(Do({"DEBUG", "CLOCK", "ADVANCE", std::to_string(ms)}), "+OK");
}

}  // namespace ebb::test
