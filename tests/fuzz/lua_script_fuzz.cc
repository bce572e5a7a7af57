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
// Checked: every request gets exactly one well-formed RESP2 reply (checked without nesting
// limits), and afterwards the server answers PING and a plain script still runs. An error's
// text is not checked: a script chooses its own (redis.error_reply(' x') answers "- x", as in
// Redis).
// Seeds: tests/fuzz/corpus/lua_script/ (the Lua advisories' scripts among them). Build and run:
// `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/support/command_runner.h"
#include "tests/support/reply.h"

namespace {

using ebb::fuzz::Check;
using ebb::test::CommandRunner;
using ebb::test::Reply;

// Whether `bytes` is exactly one well-formed RESP2 reply. Iterative: a script's reply may nest
// thousands of arrays deep (a table holding itself ends at Lua's stack limit), past what the
// test's reply parser (hiredis) accepts.
bool OneRespReply(std::string_view bytes) {
  size_t at = 0;
  int64_t pending = 1;  // values still to read, nested arrays' elements included
  while (pending > 0) {
    const size_t end = bytes.find("\r\n", at);
    if (at >= bytes.size() || end == std::string_view::npos) return false;
    const char type = bytes[at];
    const std::string line(bytes.substr(at + 1, end - at - 1));
    at = end + 2;
    --pending;
    if (type == '+' || type == '-' || type == ':') continue;
    if (type != '$' && type != '*') return false;
    char* stop = nullptr;
    const long long n = std::strtoll(line.c_str(), &stop, 10);
    if (line.empty() || *stop != '\0' || n < -1) return false;
    if (type == '*') {
      if (n > 0) pending += n;
    } else if (n >= 0) {
      if (bytes.size() - at < static_cast<size_t>(n) + 2 || bytes.substr(at + n, 2) != "\r\n") {
        return false;
      }
      at += static_cast<size_t>(n) + 2;
    }
  }
  return at == bytes.size();
}

// Runs `request`; returns its reply, parsed when the test's parser can (else an I/O-error
// Reply, which no caller below mistakes for an answer).
Reply Run(CommandRunner& ebb, const std::vector<std::string>& request) {
  const std::string bytes = ebb.Raw(request);
  Check(OneRespReply(bytes), "not exactly one well-formed RESP2 reply", request);
  return ebb::test::ParseResp(bytes);
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
