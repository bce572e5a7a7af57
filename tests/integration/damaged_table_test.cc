// A damaged table through the server: compaction finds it, names it (DEBUG COMPACT's error,
// INFO storage, the log) and leaves it alone; writes stay accepted and reads that do not touch
// the damaged block are served. Stopped, `ebb-check --repair` keeps everything readable, and the
// restarted server has it all and compacts again.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "tests/file_damage.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

namespace fs = std::filesystem;

// Runs `command`, returning its exit status and (in *out) what it printed.
int RunCommand(const std::string& command, std::string* out) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out->append(buf, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(DamagedTableTest, CompactionReportsItWritesGoOnAndRepairKeepsWhatIsReadable) {
  const std::vector<std::string> args = {"--compression", "none", "--block-size", "512"};
  TestServer server;
  ASSERT_TRUE(server.Start(args)) << server.error();
  std::map<std::string, std::string> written;
  {
    RedisConnection c = server.Connect();
    for (int t = 0; t < 3; t++) {
      for (int i = 0; i < 100; i++) {
        const std::string key = "t" + std::to_string(t) + ":" + std::to_string(1000 + i);
        const std::string value(60, static_cast<char>('a' + t));
        ASSERT_EQ(Cmd(c.get(), {"SET", key, value}).ToString(), "OK");
        written[key] = value;
      }
      ASSERT_EQ(Cmd(c.get(), {"DEBUG", "FLUSH-MEMTABLE"}).ToString(), "OK");
    }
  }
  ASSERT_EQ(server.Stop(), 0);
  std::vector<std::string> tables;
  for (const auto& e : fs::directory_iterator(server.data_dir())) {
    if (e.path().extension() == ".sst") tables.push_back(e.path().string());
  }
  std::sort(tables.begin(), tables.end());
  ASSERT_EQ(tables.size(), 3u);
  FlipByte(tables[1], 1000);  // a data block of the table holding t1:*
  const std::string damaged = fs::path(tables[1]).filename().string();

  ASSERT_TRUE(server.Start(args)) << server.error();
  {
    RedisConnection c = server.Connect();
    const Reply compact = Cmd(c.get(), {"DEBUG", "COMPACT"});
    ASSERT_TRUE(compact.is_error()) << compact.ToString();
    EXPECT_NE(compact.str().find("Corruption"), std::string::npos) << compact.str();
    EXPECT_NE(compact.str().find(damaged), std::string::npos) << compact.str();
    EXPECT_NE(compact.str().find("ebb-check --repair"), std::string::npos) << compact.str();
    const std::string info = Cmd(c.get(), {"INFO", "storage"}).str();
    EXPECT_NE(info.find("damaged_tables:"), std::string::npos) << info;
    EXPECT_NE(info.find(damaged), std::string::npos) << info;
    const std::string doctor = Cmd(c.get(), {"MEMORY", "DOCTOR"}).str();
    EXPECT_EQ(doctor.rfind("Sam, I detected a few issues", 0), 0u) << doctor;
    EXPECT_NE(doctor.find(" * Damaged table left out of compaction: "), std::string::npos)
        << doctor;
    EXPECT_NE(doctor.find(damaged), std::string::npos) << doctor;
    EXPECT_NE(doctor.find("ebb-check --repair"), std::string::npos) << doctor;
    // Writes are accepted, not MISCONF; reads of intact tables are served.
    EXPECT_EQ(Cmd(c.get(), {"SET", "after-damage", "x"}).ToString(), "OK");
    written["after-damage"] = "x";
    EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");
    EXPECT_EQ(Cmd(c.get(), {"GET", "t0:1000"}).str(), written["t0:1000"]);
    EXPECT_EQ(Cmd(c.get(), {"GET", "t2:1099"}).str(), written["t2:1099"]);
    EXPECT_NE(Cmd(c.get(), {"INFO", "persistence"}).str().find("wal_last_write_status:ok"),
              std::string::npos);
  }
  ASSERT_EQ(server.Stop(), 0);
  EXPECT_NE(server.ReadLog().find("compaction found a damaged table"), std::string::npos);

  std::string out;
  const int status =
      RunCommand(std::string(EBB_CHECK_PATH) + " --repair " + server.data_dir(), &out);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("rewrote"), std::string::npos) << out;
  EXPECT_NE(out.find("clean"), std::string::npos) << out;

  ASSERT_TRUE(server.Start(args)) << server.error();
  RedisConnection c = server.Connect();
  int lost = 0;
  for (const auto& [key, value] : written) {
    const Reply r = Cmd(c.get(), {"GET", key});
    if (r.is_nil()) {
      EXPECT_EQ(key.rfind("t1:", 0), 0u) << key;  // only the damaged block's keys
      lost++;
    } else {
      EXPECT_EQ(r.str(), value) << key;
    }
  }
  EXPECT_GE(lost, 1);
  EXPECT_LE(lost, 10);
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "COMPACT"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"SET", "after-repair", "y"}).ToString(), "OK");
}

}  // namespace
}  // namespace ebb::test
