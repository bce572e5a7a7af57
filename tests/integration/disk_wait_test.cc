// Commands that wait for table blocks, through a real server whose block cache keeps nothing
// (every read of a row in a table file waits for the disk, with direct reads): a pipeline's
// replies keep their order, other clients are served while one waits, a client that leaves
// while its reads are in flight is freed, a damaged block fails only the commands that need it,
// each block read is one 4 KiB page, and SHUTDOWN answers the waiting command before the server
// exits.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key:%06d", i);
  return buf;
}
std::string Value(int i) { return std::string(100, static_cast<char>('a' + i % 26)); }

constexpr int kKeys = 2000;

class DiskWaitTest : public ServerTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--block-cache-size", "0", "--use-direct-reads", "yes"};
  }
  // kKeys keys in one table file at the last level; nothing in the memtable.
  void SetUp() override {
    ServerTest::SetUp();
    std::vector<std::string> mset = {"MSET"};
    for (int i = 0; i < kKeys; ++i) {
      mset.push_back(Key(i));
      mset.push_back(Value(i));
    }
    ASSERT_EQ(Do(mset), "+OK");
    ASSERT_EQ(Do({"DEBUG", "COMPACT"}), "+OK");
    ASSERT_EQ(InfoField(conn_.get(), "storage", "files"), 1);
  }
  long long Info(const char* section, const char* field) {
    return InfoField(conn_.get(), section, field);
  }
  // The RESP of GET key:i.
  static std::string BulkOf(int i) { return "$100\r\n" + Value(i) + "\r\n"; }
};

TEST_F(DiskWaitTest, APipelineIsAnsweredInOrderAroundCommandsThatWait) {
  const long long waits = Info("stats", "disk_waits");
  RedisConnection c = server_.Connect();
  Append(c.get(), {"GET", Key(1)});
  Append(c.get(), {"SET", Key(1), "new"});
  Append(c.get(), {"GET", Key(1)});
  Append(c.get(), {"PING"});
  Append(c.get(), {"MGET", Key(500), "nokey", Key(1500)});
  Append(c.get(), {"INCR", "counter"});
  Append(c.get(), {"DEL", Key(600), Key(601), "nokey"});
  Append(c.get(), {"EXISTS", Key(600), Key(602)});
  Append(c.get(), {"GET", Key(1999)});
  EXPECT_EQ(Canon(ReadReply(c.get())), "$" + Value(1));
  EXPECT_EQ(Canon(ReadReply(c.get())), "+OK");
  EXPECT_EQ(Canon(ReadReply(c.get())), "$new");
  EXPECT_EQ(Canon(ReadReply(c.get())), "+PONG");
  EXPECT_EQ(Canon(ReadReply(c.get())), "[$" + Value(500) + ",nil,$" + Value(1500) + "]");
  EXPECT_EQ(Canon(ReadReply(c.get())), ":1");
  EXPECT_EQ(Canon(ReadReply(c.get())), ":2");
  EXPECT_EQ(Canon(ReadReply(c.get())), ":1");
  EXPECT_EQ(Canon(ReadReply(c.get())), "$" + Value(1999));
  // GET, MGET and DEL waited once each; the second GET found the key in the memtable, INCR
  // found no table holds it, and EXISTS and the last GET, queued behind the waiting DEL, had
  // their blocks read with its (lookahead).
  EXPECT_EQ(Info("stats", "disk_waits") - waits, 3);
  EXPECT_EQ(Info("stats", "inline_block_reads"), 0);
  EXPECT_EQ(Info("clients", "clients_waiting_for_disk"), 0);
}

// Point reads pipelined behind one that waits have their blocks read in the same round: the
// pipeline waits for the disk once, and every reply is the one its turn gives.
TEST_F(DiskWaitTest, PointReadsQueuedBehindAWaitingOneWaitOnce) {
  const long long waits = Info("stats", "disk_waits");
  const long long hits = Info("stats", "keyspace_hits");
  const long long misses = Info("stats", "keyspace_misses");
  RedisConnection c = server_.Connect();
  for (int i = 0; i < 40; ++i) Append(c.get(), {"GET", Key(i * 47)});
  Append(c.get(), {"MGET", Key(3), "nokey", Key(1888)});
  Append(c.get(), {"EXISTS", Key(5), Key(1777), "nokey"});
  Append(c.get(), {"TYPE", Key(999)});
  for (int i = 0; i < 40; ++i) EXPECT_EQ(Canon(ReadReply(c.get())), "$" + Value(i * 47)) << i;
  EXPECT_EQ(Canon(ReadReply(c.get())), "[$" + Value(3) + ",nil,$" + Value(1888) + "]");
  EXPECT_EQ(Canon(ReadReply(c.get())), ":2");
  EXPECT_EQ(Canon(ReadReply(c.get())), "+string");
  EXPECT_EQ(Info("stats", "disk_waits") - waits, 1);
  EXPECT_EQ(Info("stats", "inline_block_reads"), 0);
  EXPECT_EQ(Info("stats", "disk_wait_fallbacks"), 0);
  // The dry runs counted nothing: 40 GETs, MGET's two keys, EXISTS's two and TYPE's one found
  // (Redis counts EXISTS and TYPE too); MGET's and EXISTS's "nokey" missed.
  EXPECT_EQ(Info("stats", "keyspace_hits") - hits, 45);
  EXPECT_EQ(Info("stats", "keyspace_misses") - misses, 2);
}

// The server writes its tables for direct reads with data blocks aligned to 4 KiB pages: each
// block read for a waiting command asks the device for one page, not the two an unaligned 4 KiB
// block and its trailer span.
TEST_F(DiskWaitTest, EachBlockReadIsOnePage) {
  const long long reads = Info("stats", "disk_reads");
  const long long bytes = Info("stats", "disk_read_bytes");
  RedisConnection c = server_.Connect();
  for (int i = 0; i < 30; ++i) Append(c.get(), {"GET", Key(i * 61)});
  for (int i = 0; i < 30; ++i) EXPECT_EQ(Canon(ReadReply(c.get())), "$" + Value(i * 61)) << i;
  const long long read = Info("stats", "disk_reads") - reads;
  EXPECT_GE(read, 20);  // 30 keys 61 apart, about 30 rows to a block
  // A file system that refuses O_DIRECT (tmpfs) reads just the block and its trailer, which
  // the alignment keeps within a page too.
  if (Info("storage", "open_tables_direct") == 1) {
    EXPECT_EQ(Info("stats", "disk_read_bytes") - bytes, 4096 * read);
  } else {
    EXPECT_LE(Info("stats", "disk_read_bytes") - bytes, 4096 * read);
  }
}

// A read looked ahead at runs before the write queued ahead of it has run: only its blocks are
// kept, its reply is the one after the write.
TEST_F(DiskWaitTest, AReadQueuedBehindAWaitingWriteSeesTheWrite) {
  RedisConnection c = server_.Connect();
  Append(c.get(), {"APPEND", Key(10), "+"});
  Append(c.get(), {"GET", Key(10)});
  Append(c.get(), {"STRLEN", Key(10)});
  Append(c.get(), {"DEL", Key(11)});
  Append(c.get(), {"GET", Key(11)});
  Append(c.get(), {"EXISTS", Key(11), Key(12)});
  EXPECT_EQ(Canon(ReadReply(c.get())), ":101");
  EXPECT_EQ(Canon(ReadReply(c.get())), "$" + Value(10) + "+");
  EXPECT_EQ(Canon(ReadReply(c.get())), ":101");
  EXPECT_EQ(Canon(ReadReply(c.get())), ":1");
  EXPECT_EQ(Canon(ReadReply(c.get())), "nil");
  EXPECT_EQ(Canon(ReadReply(c.get())), ":1");
}

// The requests after a waiting one are parsed ahead of their turn; one that has not fully
// arrived yet is parsed again, whole, once it has.
TEST_F(DiskWaitTest, ARequestArrivingWhileTheOneBeforeItWaitsIsParsedWhole) {
  ASSERT_EQ(Do({"DEBUG", "BLOCK-READ-DELAY", "500"}), "+OK");
  RawConnection raw(server_.port());
  const std::string second =
      "*3\r\n$4\r\nMGET\r\n$10\r\n" + Key(1234) + "\r\n$10\r\n" + Key(2) + "\r\n";
  ASSERT_TRUE(raw.Send("*2\r\n$3\r\nGET\r\n$10\r\n" + Key(8) + "\r\n" + second.substr(0, 35)));
  ASSERT_EQ(WaitInfoField(conn_.get(), "clients", "clients_waiting_for_disk", 1), 1);
  ASSERT_TRUE(raw.Send(second.substr(35)));
  EXPECT_EQ(raw.ReadExactly(BulkOf(8).size(), 20000), BulkOf(8));
  const std::string mget = "*2\r\n" + BulkOf(1234) + BulkOf(2);
  EXPECT_EQ(raw.ReadExactly(mget.size(), 20000), mget);
  EXPECT_EQ(Do({"DEBUG", "BLOCK-READ-DELAY", "0"}), "+OK");
}

TEST_F(DiskWaitTest, OtherClientsAreServedWhileOneWaits) {
  ASSERT_EQ(Do({"DEBUG", "BLOCK-READ-DELAY", "3000"}), "+OK");
  RawConnection waiting(server_.port());
  ASSERT_TRUE(waiting.Send("*2\r\n$3\r\nGET\r\n$10\r\n" + Key(7) + "\r\n"));
  ASSERT_EQ(WaitInfoField(conn_.get(), "clients", "clients_waiting_for_disk", 1), 1);
  // Served at once, reads included (a key in the memtable, and one whose block another read
  // of this connection fetches).
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(Do({"SET", "fresh", "v"}), "+OK");
  EXPECT_EQ(Do({"GET", "fresh"}), "$v");
  EXPECT_EQ(waiting.ReadExactly(1, 0), "");  // still waiting for its block
  EXPECT_EQ(waiting.ReadExactly(BulkOf(7).size(), 20000), BulkOf(7));
  EXPECT_EQ(Do({"DEBUG", "BLOCK-READ-DELAY", "0"}), "+OK");
}

TEST_F(DiskWaitTest, AClientThatLeavesWhileItsReadsAreInFlightIsFreed) {
  ASSERT_EQ(Do({"DEBUG", "BLOCK-READ-DELAY", "1000"}), "+OK");
  {
    std::vector<std::unique_ptr<RawConnection>> leaving;
    for (int i = 0; i < 5; ++i) {
      leaving.push_back(std::make_unique<RawConnection>(server_.port()));
      ASSERT_TRUE(leaving.back()->Send("*2\r\n$3\r\nGET\r\n$10\r\n" + Key(100 * i) + "\r\n"));
    }
    ASSERT_EQ(WaitInfoField(conn_.get(), "clients", "clients_waiting_for_disk", 5), 5);
  }  // they close here, their reads still in flight
  EXPECT_EQ(WaitInfoField(conn_.get(), "clients", "clients_waiting_for_disk", 0), 0);
  EXPECT_EQ(WaitInfoField(conn_.get(), "stats", "disk_reads_in_flight", 0), 0);
  EXPECT_EQ(WaitInfoField(conn_.get(), "clients", "connected_clients", 1), 1);
  EXPECT_EQ(Do({"DEBUG", "BLOCK-READ-DELAY", "0"}), "+OK");
  EXPECT_EQ(Do({"GET", Key(300)}), "$" + Value(300));
  EXPECT_EQ(server_.Stop(), 0);  // a sanitizer build fails here on a leak
}

TEST_F(DiskWaitTest, ShutdownAnswersTheCommandThatWaitsThenExits) {
  ASSERT_EQ(Do({"DEBUG", "BLOCK-READ-DELAY", "1000"}), "+OK");
  RawConnection waiting(server_.port());
  ASSERT_TRUE(waiting.Send("*2\r\n$3\r\nGET\r\n$10\r\n" + Key(42) + "\r\n"));
  ASSERT_EQ(WaitInfoField(conn_.get(), "clients", "clients_waiting_for_disk", 1), 1);
  RawConnection admin(server_.port());
  ASSERT_TRUE(admin.Send("*1\r\n$8\r\nSHUTDOWN\r\n"));
  EXPECT_EQ(waiting.ReadExactly(BulkOf(42).size(), 20000), BulkOf(42));
  EXPECT_TRUE(waiting.WaitClosed(20000));
  EXPECT_EQ(server_.WaitExit(20000), 0);
}

// A damaged data block: the commands that need it get the corruption, in their place in the
// pipeline; every other command, of this client or another, is answered.
TEST_F(DiskWaitTest, ADamagedBlockFailsOnlyTheCommandsThatNeedIt) {
  ASSERT_EQ(server_.Stop(), 0);
  std::string table;
  for (const auto& entry : std::filesystem::directory_iterator(server_.data_dir())) {
    if (entry.path().extension() == ".sst") table = entry.path();
  }
  ASSERT_FALSE(table.empty());
  {
    std::fstream f(table, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);  // inside the first data block: the smallest keys
    f.put('\x7f');
  }
  ASSERT_TRUE(server_.Start(ServerArgs())) << server_.error();
  Reconnect();
  RedisConnection c = server_.Connect();
  Append(c.get(), {"GET", Key(0)});
  Append(c.get(), {"GET", Key(1999)});
  Append(c.get(), {"MGET", Key(1000), Key(1)});
  Append(c.get(), {"PING"});
  const std::string error = ReadReply(c.get()).str();
  EXPECT_EQ(error.rfind("ERR Corruption: ", 0), 0u) << error;
  EXPECT_NE(error.find("block checksum mismatch at offset 0"), std::string::npos) << error;
  EXPECT_EQ(Canon(ReadReply(c.get())), "$" + Value(1999));
  // MGET answers nil for a key it cannot read, as for one of another type.
  EXPECT_EQ(Canon(ReadReply(c.get())), "[$" + Value(1000) + ",nil]");
  EXPECT_EQ(Canon(ReadReply(c.get())), "+PONG");
  EXPECT_EQ(Do({"GET", Key(1998)}), "$" + Value(1998));
  EXPECT_GE(Info("storage", "open_tables"), 1);
  EXPECT_GT(Info("memory", "engine_table_index_bytes"), 0);
  EXPECT_GT(Info("memory", "engine_table_filter_bytes"), 0);
}

}  // namespace
}  // namespace ebb::test
