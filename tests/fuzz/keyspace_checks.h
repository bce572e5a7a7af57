// What the command-level fuzz targets check of a server after each input: that a request got
// exactly one well-formed reply (Run), and that the keyspace still holds together
// (CheckInvariants). A broken one aborts through Check (fuzz_check.h).
#pragma once

#include <cctype>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_check.h"
#include "tests/support/command_runner.h"
#include "tests/support/reply.h"

namespace ebb::fuzz {

// Runs `request` on `ebb`; checks that it got exactly one well-formed RESP2 reply, and that an
// error reply starts with an upper-case code (ERR, WRONGTYPE, ...). The reply goes to *out.
inline void Run(test::CommandRunner& ebb, const std::vector<std::string>& request,
                test::Reply* out = nullptr) {
  using test::Reply;
  const Reply reply = ebb.Cmd(request);
  Check(!reply.is_io_error(), "not exactly one well-formed RESP2 reply", request);
  if (reply.is_error()) {
    const std::string text = reply.str();
    Check(!text.empty() && std::isupper(static_cast<unsigned char>(text[0])),
          "an error reply without an upper-case code", request);
  }
  if (out) *out = reply;
}

// The client's state reset, PING answers, DBSIZE equals the keys a whole SCAN returns, and every
// log's TLOG SIZE equals the entries TLOG GET returns.
inline void CheckInvariants(test::CommandRunner& ebb) {
  using test::Reply;
  Reply reply;
  Run(ebb, {"RESET"});
  Run(ebb, {"PING"}, &reply);
  Check(reply.is_status() && reply.str() == "PONG", "PING does not answer PONG", {"PING"});
  std::vector<std::string> keys;
  std::string cursor = "0";
  for (int i = 0; i < 1000; ++i) {
    Run(ebb, {"SCAN", cursor, "COUNT", "100"}, &reply);
    Check(reply.is_array() && reply.size() == 2, "SCAN's reply is not [cursor, keys]", {"SCAN"});
    for (const Reply& k : reply[1].elements()) keys.push_back(k.str());
    cursor = reply[0].str();
    if (cursor == "0") break;
  }
  Check(cursor == "0", "SCAN did not finish in 1000 calls", {"SCAN"});
  Run(ebb, {"DBSIZE"}, &reply);
  Check(reply.is_integer() && reply.integer() == static_cast<long long>(keys.size()),
        "DBSIZE differs from the number of keys SCAN returns", {"DBSIZE"});
  for (const std::string& key : keys) {
    Run(ebb, {"TYPE", key}, &reply);
    if (reply.str() != "tlog") continue;
    Reply size, entries;
    Run(ebb, {"TLOG", "SIZE", key}, &size);
    Run(ebb, {"TLOG", "GET", key}, &entries);
    Check(size.is_integer() && entries.is_array() &&
              size.integer() == static_cast<long long>(entries.size()),
          "TLOG SIZE differs from the number of entries TLOG GET returns", {"TLOG", "SIZE", key});
  }
}

}  // namespace ebb::fuzz
