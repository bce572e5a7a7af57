// libFuzzer target for the scripting surface: random Lua source run through the server as a
// user would send it — EVAL_RO with a key and arguments, a function registered by FUNCTION LOAD
// and called with FCALL_RO, and a library's top-level code — so the sandbox
// (server/scripting/lua_guards.h), redis.call / redis.pcall, and the value converters in both
// directions (a command's reply to a Lua value, a script's result to a reply, under RESP2 and
// after redis.setresp(3)) all see hostile input.
//
// The input's last byte picks the form (FuzzedDataProvider reads integers from the end); the
// rest is the Lua source. Every input ends quickly:
// scripts run read-only (EVAL_RO, FCALL_RO, a no-writes function), so a script past
// busy-reply-threshold (20 ms) can always be killed, and the harness's busy hook kills it; the
// Lua heap is bounded by lua-memory-limit (32 MB) and a result's reply by 65,536 values / 4 MiB
// (ScriptEngine::set_reply_limits; the server keeps Redis's sizes).
// Checked: every request gets exactly one well-formed RESP2 reply, an error reply starts with an
// upper-case code, and afterwards the server answers PING and a plain script still runs.
// Seeds: tests/fuzz/corpus/lua_script/ (the Lua advisories' scripts among them). Build and run:
// `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "server/scripting/script_engine.h"
#include "server/server_context.h"
#include "tests/support/command_runner.h"
#include "tests/support/reply.h"

namespace {

using ebb::test::CommandRunner;
using ebb::test::Reply;

void Check(bool ok, const char* what, const std::vector<std::string>& request) {
  if (ok) return;
  fprintf(stderr, "invariant violated: %s; request:", what);
  for (const std::string& a : request) fprintf(stderr, " '%s'", a.c_str());
  fprintf(stderr, "\n");
  abort();
}

Reply Run(CommandRunner& ebb, const std::vector<std::string>& request) {
  const Reply reply = ebb.Cmd(request);
  Check(!reply.is_io_error(), "not exactly one well-formed RESP2 reply", request);
  if (reply.is_error()) {
    const std::string text = reply.str();
    Check(!text.empty() && std::isupper(static_cast<unsigned char>(text[0])),
          "an error reply without an upper-case code", request);
  }
  return reply;
}

CommandRunner& Server() {
  static CommandRunner* const ebb = [] {
    auto* runner = new CommandRunner();
    Run(*runner, {"CONFIG", "SET", "busy-reply-threshold", "20"});
    Run(*runner, {"CONFIG", "SET", "lua-memory-limit", "32mb"});
    ebb::server::ServerContext& context = runner->context();
    context.scripts().set_reply_limits({.max_elements = 65536, .max_bytes = 4 << 20});
    // What a client's SCRIPT KILL / FUNCTION KILL would do once the script is busy.
    context.set_busy_hook([&context](const ebb::server::Client&) {
      (void)context.scripts().Kill(/*eval=*/true);
      (void)context.scripts().Kill(/*eval=*/false);
    });
    // Something for redis.call to read: each type's reply shape.
    Run(*runner, {"SET", "k0", "value"});
    Run(*runner, {"TLOG", "INS", "log", "entry", "1"});
    Run(*runner, {"TREG", "SET", "reg", "value", "1"});
    return runner;
  }();
  return *ebb;
}

// The library around a function body or around top-level code.
std::string Library(const std::string& top_level) { return "#!lua name=fz\n" + top_level; }
std::string FunctionAround(const std::string& body) {
  return Library(
      "redis.register_function{function_name='f', flags={'no-writes'}, "
      "callback=function(KEYS, ARGV)\n" +
      body + "\nend}");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int inputs = 0;
  CommandRunner& ebb = Server();
  FuzzedDataProvider fdp(data, size);
  const int form = fdp.ConsumeIntegralInRange<int>(0, 3);
  const std::string source = fdp.ConsumeRemainingBytesAsString();
  switch (form) {
    case 0:
      Run(ebb, {"EVAL_RO", source, "1", "k0", "arg"});
      break;
    case 1:
      Run(ebb, {"EVAL_RO", "redis.setresp(3)\n" + source, "1", "log", "arg"});
      break;
    case 2:
      if (Run(ebb, {"FUNCTION", "LOAD", "REPLACE", FunctionAround(source)}).is_error()) break;
      Run(ebb, {"FCALL_RO", "f", "1", "reg", "arg"});
      break;
    default:
      Run(ebb, {"FUNCTION", "LOAD", "REPLACE", Library(source)});
      break;
  }
  // The server goes on serving, with a working Lua state.
  Check(Run(ebb, {"PING"}).str() == "PONG", "PING does not answer PONG", {"PING"});
  const Reply plain = Run(ebb, {"EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "k0"});
  Check(plain.str() == "value", "a plain script no longer runs", {"EVAL_RO"});
  // EVAL keeps every script it ran; start over now and then so memory stays flat.
  if (++inputs % 256 == 0) Run(ebb, {"SCRIPT", "FLUSH"});
  return 0;
}
