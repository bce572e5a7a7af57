// WriteMix: a replication test's load — writes of every kind ebb replicates, so a replica that
// matches its master after them matches it for every type.
#pragma once

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {

// Writes of every kind: strings with and without expiry, TLOG entries and cutoffs, TREG,
// PUT with timestamps, deletes, a transaction, another database.
inline void WriteMix(redisContext* c, int from, int to) {
  size_t queued = 0;
  for (int i = from; i < to; i++) {
    const std::string n = std::to_string(i);
    Append(c, {"SET", "s" + n, std::string(100, 'a' + i % 26)});
    queued++;
    if (i % 5 == 0) {
      Append(c, {"SET", "e" + n, "x", "PX", std::to_string(100'000 + i)});
      queued++;
    }
    if (i % 7 == 0) {
      Append(c, {"TLOG", "INS", "log" + std::to_string(i % 13), n, n});
      queued++;
    }
    if (i % 11 == 0) {
      Append(c, {"TREG", "SET", "reg" + std::to_string(i % 3), n, n});
      queued++;
    }
    if (i % 17 == 0) {
      Append(c, {"DEL", "s" + std::to_string(i - 1)});
      queued++;
    }
    if (i % 19 == 0) {  // versions older than the newest: PUT keeps them (retrieval grace)
      Append(c, {"PUT", "p" + std::to_string(i % 5), n, "TS", std::to_string(1'000'000 + i % 97),
                 "PXAT", "4102444800000"});
      queued++;
    }
  }
  for (size_t i = 0; i < queued; i++) ASSERT_FALSE(ReadReply(c).is_error());
  ASSERT_EQ(Cmd(c, {"TLOG", "TRIMAT", "log1", std::to_string(from + 50)}).is_error(), false);
  ASSERT_EQ(Cmd(c, {"MULTI"}).str(), "OK");
  Cmd(c, {"SET", "tx-a", std::to_string(from)});
  Cmd(c, {"SET", "tx-b", std::to_string(from)});
  ASSERT_EQ(Cmd(c, {"EXEC"}).size(), 2u);
  ASSERT_EQ(Cmd(c, {"SELECT", "3"}).str(), "OK");
  ASSERT_EQ(Cmd(c, {"SET", "db3", std::to_string(from)}).str(), "OK");
  ASSERT_EQ(Cmd(c, {"SELECT", "0"}).str(), "OK");
}

}  // namespace ebb::test
