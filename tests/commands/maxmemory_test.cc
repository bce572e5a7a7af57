// maxmemory: above it, writes that add data get Redis's -OOM error while reads, deletes and
// trims are served; INFO memory reports the bounded memory by part and the bound.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

constexpr const char* kOom = "(error) OOM command not allowed when used memory > 'maxmemory'.";

// The value of `field` in INFO memory, or -1.
long long MemoryField(CommandRunner& ebb, const std::string& field) {
  const std::string info = ebb.Cmd({"INFO", "memory"}).str();
  const size_t at = info.find("\r\n" + field + ":");
  if (at == std::string::npos) return -1;
  return std::stoll(info.substr(at + field.size() + 3));
}

class MaxmemoryTest : public CommandTest {};

TEST_F(MaxmemoryTest, WritesThatAddDataAreRefusedAboveTheBoundReadsAndDeletesAreServed) {
  ASSERT_EQ(R({"SET", "k", "v"}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "log", "a", "5"}), "OK");
  EXPECT_EQ(MemoryField(*ebb_, "maxmemory"), 0);
  const long long bounded = MemoryField(*ebb_, "used_memory_bounded");
  EXPECT_GT(bounded, 0);
  EXPECT_EQ(bounded, MemoryField(*ebb_, "used_memory_memtables") +
                         MemoryField(*ebb_, "used_memory_table_metadata") +
                         MemoryField(*ebb_, "used_memory_tlog_cache") +
                         MemoryField(*ebb_, "used_memory_clients"));

  ASSERT_EQ(R({"CONFIG", "SET", "maxmemory", "1"}), "OK");
  EXPECT_EQ(MemoryField(*ebb_, "maxmemory"), 1);
  for (const auto& write : std::vector<std::vector<std::string>>{{"SET", "k", "w"},
                                                                 {"PUT", "p", "v"},
                                                                 {"MSET", "a", "1", "b", "2"},
                                                                 {"APPEND", "k", "x"},
                                                                 {"INCR", "n"},
                                                                 {"TLOG", "INS", "log", "b", "6"},
                                                                 {"TREG", "SET", "r", "v", "1"}}) {
    EXPECT_EQ(R(write), kOom) << write[0];
  }
  EXPECT_EQ(R({"GET", "k"}), "\"v\"");
  EXPECT_EQ(R({"TLOG", "SIZE", "log"}), "(integer) 1");
  EXPECT_EQ(R({"EXPIRE", "k", "100"}), "(integer) 1");
  EXPECT_EQ(R({"TLOG", "TRIM", "log", "0"}), "OK");
  EXPECT_EQ(R({"DEL", "k"}), "(integer) 1");
  EXPECT_EQ(R({"FLUSHALL"}), "OK");

  ASSERT_EQ(R({"CONFIG", "SET", "maxmemory", "0"}), "OK");
  EXPECT_EQ(R({"SET", "k", "w"}), "OK");
  ASSERT_EQ(R({"CONFIG", "SET", "maxmemory", "1gb"}), "OK");
  EXPECT_EQ(R({"SET", "k", "x"}), "OK");
}

}  // namespace
}  // namespace ebb::test
