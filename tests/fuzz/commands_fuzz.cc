// libFuzzer target for the command layer end to end: random command arrays through the
// dispatcher of an in-process keyspace (tests/support/command_runner.h), as a connection hands
// requests over once the request parser has split them.
//
// Each input starts from an empty keyspace with a pinned clock (RESET, FLUSHALL, DEBUG CLOCK
// SET) and is read as up to 24 requests: a command name (one of COMMAND LIST's, or random
// bytes) and up to 7 arguments drawn from key names, option words, numbers at the edges of
// their ranges and random bytes; a request may also move the clock. Checked:
//  - every request gets exactly one well-formed RESP2 reply, and an error reply starts with an
//    upper-case code (ERR, WRONGTYPE, ...);
//  - afterwards the server still answers PING, DBSIZE equals the number of keys a whole SCAN
//    returns, and every log's TLOG SIZE equals the number of entries TLOG GET returns.
// Left out: what ends or reconfigures the process (SHUTDOWN, DEBUG but its clock, CONFIG but
// GET, HELLO's protocol switch, MONITOR), and what answers other than once per request: the
// (P|S)(UN)SUBSCRIBE family (a reply per channel, then pushes), CLIENT REPLY OFF|SKIP, REPLCONF
// (ACK and GETACK answer nothing) and PSYNC (the connection becomes a replica's link).
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/keyspace_checks.h"
#include "tests/support/command_runner.h"
#include "tests/support/reply.h"

namespace {

using ebb::fuzz::CheckInvariants;
using ebb::fuzz::Run;
using ebb::test::CommandRunner;
using ebb::test::Reply;

constexpr int64_t kClockMs = 1700000000000;

const char* const kWords[] = {"k0",
                              "k1",
                              "k2",
                              "log",
                              "reg",
                              "0",
                              "1",
                              "-1",
                              "2",
                              "100",
                              "1000",
                              "16",
                              "EX",
                              "PX",
                              "EXAT",
                              "PXAT",
                              "NX",
                              "XX",
                              "GT",
                              "LT",
                              "GET",
                              "KEEPTTL",
                              "PERSIST",
                              "TS",
                              "GRACE",
                              "TTL",
                              "NOTTL",
                              "COUNT",
                              "MATCH",
                              "*",
                              "k*",
                              "TYPE",
                              "string",
                              "tlog",
                              "treg",
                              "SYNC",
                              "ASYNC",
                              "INS",
                              "SET",
                              "SIZE",
                              "TRIM",
                              "TRIMAT",
                              "CURSOR",
                              "LIMIT",
                              "WITHSCORES",
                              "",
                              "9223372036854775807",
                              "-9223372036854775808",
                              "9223372036854775808",
                              "18446744073709551615",
                              "1.5",
                              "nan",
                              "inf",
                              "1700000000000",
                              "1700000001000",
                              "ID",
                              "SETNAME",
                              "GETNAME",
                              "LIST",
                              "INFO",
                              "keyspace",
                              "memory",
                              "all",
                              "everything",
                              "default",
                              "maxmemory"};

std::vector<std::string> CommandNames(CommandRunner& ebb) {
  static const std::set<std::string> kLeftOut = {
      "shutdown",     "debug",      "config",     "hello",       "monitor",
      "subscribe",    "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe",
      "sunsubscribe", "replconf",   "psync"};
  std::vector<std::string> names;
  for (const Reply& r : ebb.Cmd({"COMMAND", "LIST"}).elements()) {
    std::string name = r.str();
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!kLeftOut.contains(name)) names.push_back(name);
  }
  names.push_back("config");  // CONFIG GET only: see Request()
  return names;
}

std::string Arg(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
    case 1:
      return kWords[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kWords) - 1)];
    case 2:
      return std::to_string(fdp.ConsumeIntegral<int64_t>());
    default:
      return fdp.ConsumeRandomLengthString(24);
  }
}

std::vector<std::string> Request(FuzzedDataProvider& fdp, const std::vector<std::string>& names) {
  std::vector<std::string> request;
  const int kind = fdp.ConsumeIntegralInRange<int>(0, 15);
  if (kind == 0) {
    request = {"DEBUG", "CLOCK", "ADVANCE",
               std::to_string(fdp.ConsumeIntegralInRange<int64_t>(0, 200000))};
    return request;
  }
  if (kind == 1) {
    request.push_back(fdp.ConsumeRandomLengthString(12));
  } else {
    request.push_back(names[fdp.ConsumeIntegralInRange<size_t>(0, names.size() - 1)]);
  }
  if (request[0] == "config") request.push_back("GET");
  if (request[0] == "client") {
    // CLIENT REPLY OFF|SKIP silences the replies this target counts: only REPLY ON.
    request.push_back(Arg(fdp));
    std::string sub = request.back();
    for (char& c : sub) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (sub == "reply") request.push_back("ON");
  }
  const int args = fdp.ConsumeIntegralInRange<int>(0, 7);
  for (int i = 0; i < args && fdp.remaining_bytes() > 0; ++i) request.push_back(Arg(fdp));
  return request;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static CommandRunner* const ebb = new CommandRunner();
  static const std::vector<std::string> names = CommandNames(*ebb);
  Run(*ebb, {"RESET"});
  Run(*ebb, {"FLUSHALL"});
  Run(*ebb, {"DEBUG", "CLOCK", "SET", std::to_string(kClockMs)});
  FuzzedDataProvider fdp(data, size);
  for (int i = 0; i < 24 && fdp.remaining_bytes() > 0; ++i) Run(*ebb, Request(fdp, names));
  CheckInvariants(*ebb);
  return 0;
}
