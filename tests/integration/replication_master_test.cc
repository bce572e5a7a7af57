// The master side of replication against a spawned ebb-server: a replica speaking Redis's
// handshake (PING, REPLCONF, PSYNC) over a raw socket receives +FULLRESYNC, the snapshot and the
// stream — or +CONTINUE and the backlog — and the engine it builds from them (the snapshot
// opened, every stream record applied as it is) equals the master's engine, version for version.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "storage/db.h"
#include "storage/replication_record.h"
#include "storage/replication_snapshot.h"
#include "tests/support/engine_dump.h"
#include "tests/support/test_server.h"
#include "tests/support/write_mix.h"
#include "types/keyspace.h"

namespace ebb::test {
namespace {

// Where two dumps first differ ("" when equal), short enough to print.
std::string FirstDifference(const std::string& a, const std::string& b) {
  if (a == b) return "";
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) i++;
  const size_t from = i < 60 ? 0 : i - 60;
  return "sizes " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " at " +
         std::to_string(i) + ": ..." + a.substr(from, 120) + " vs ..." + b.substr(from, 120);
}

// The engine in `dir` as the types' compaction leaves it: opened as a keyspace (with the types'
// compaction filter), compacted whole, dumped. Two engines that answer every read alike — the
// master's and a replica's — give equal digests, whatever each had compacted before.
std::string Digest(const std::string& dir) {
  storage::Options options;
  options.clock = std::make_shared<storage::SystemClock>();
  std::unique_ptr<types::Keyspace> keyspace;
  storage::Status s = types::Keyspace::Open(options, dir, &keyspace);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return "";
  EXPECT_TRUE(keyspace->db().CompactAll().ok());
  return EngineDump(&keyspace->db());
}

storage::Options ReplicaOptions() {
  storage::Options options;
  options.wal_fsync = storage::WalFsync::kNo;
  return options;
}

// A replica link made by hand: the handshake, the snapshot into `dir`, the stream applied.
class HandReplica {
 public:
  HandReplica(int master_port, std::string dir) : conn_(master_port), dir_(std::move(dir)) {}

  // PING, REPLCONF listening-port and capa, then PSYNC; returns the PSYNC reply line.
  std::string Handshake(const std::string& replid, long long offset) {
    EXPECT_TRUE(conn_.Send("PING\r\n"));
    EXPECT_EQ(conn_.ReadUntil("\r\n"), "+PONG\r\n");
    EXPECT_TRUE(conn_.Send("REPLCONF listening-port 6390\r\n"));
    EXPECT_EQ(conn_.ReadUntil("\r\n"), "+OK\r\n");
    EXPECT_TRUE(conn_.Send("REPLCONF capa eof capa psync2\r\n"));
    EXPECT_EQ(conn_.ReadUntil("\r\n"), "+OK\r\n");
    EXPECT_TRUE(conn_.Send("PSYNC " + replid + " " + std::to_string(offset) + "\r\n"));
    std::string line = conn_.ReadUntil("\r\n");
    return line.substr(0, line.size() - 2);
  }

  // After +FULLRESYNC: reads the snapshot into dir_ and opens it.
  void ReadSnapshot() {
    std::string header = conn_.ReadUntil("\r\n");
    // A master still making the snapshot sends a newline a second to keep the link alive.
    header.erase(0, header.find_first_not_of('\n'));
    ASSERT_EQ(header[0], '$') << header;
    uint64_t left = std::stoull(header.substr(1));
    storage::SnapshotSink sink(storage::DefaultFileSystem(), dir_);
    while (left > 0) {
      std::string piece = conn_.ReadExactly(std::min<uint64_t>(left, 64 * 1024), 10'000);
      ASSERT_FALSE(piece.empty()) << "the snapshot stopped with " << left << " bytes to come";
      ASSERT_TRUE(sink.Feed(piece).ok());
      left -= piece.size();
    }
    ASSERT_TRUE(sink.done());
    ASSERT_TRUE(storage::DB::Open(ReplicaOptions(), dir_, &db_).ok());
    EXPECT_EQ(db_->LastSequence(), sink.sequence());
  }

  // A full resynchronisation from nothing: the handshake with `PSYNC ? -1`, +FULLRESYNC, the
  // snapshot read and opened; the offset set to the one the master gave.
  void FullResync() {
    const std::string reply = Handshake("?", -1);
    ASSERT_EQ(reply.rfind("+FULLRESYNC ", 0), 0u) << reply;
    offset_ = std::stoull(reply.substr(53));
    ReadSnapshot();
  }

  // Reads and applies stream bytes until `offset` bytes past the start are applied.
  void ApplyUntil(uint64_t offset) {
    while (offset_ < offset) {
      std::string piece = conn_.ReadExactly(std::min<uint64_t>(offset - offset_, 64 * 1024));
      ASSERT_FALSE(piece.empty()) << "the stream stopped at offset " << offset_;
      offset_ += piece.size();
      pending_ += piece;
      std::string_view in = pending_;
      for (;;) {
        storage::ReplicationRecord record;
        bool complete = false;
        ASSERT_TRUE(storage::ParseReplicationRecord(&in, &record, &complete).ok());
        if (!complete) break;
        bool applied = false;
        storage::Status s =
            storage::ApplyReplicationRecord(db_.get(), storage::WriteOptions(), record, &applied);
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
      pending_.erase(0, pending_.size() - in.size());
    }
    EXPECT_TRUE(pending_.empty());
  }

  void Ack() { EXPECT_TRUE(conn_.Send("REPLCONF ACK " + std::to_string(offset_) + "\r\n")); }

  RawConnection& conn() { return conn_; }
  storage::DB* db() { return db_.get(); }
  // The stream offset applied so far.
  uint64_t offset() const { return offset_; }
  void set_offset(uint64_t offset) { offset_ = offset; }
  void AdoptDb(std::unique_ptr<storage::DB> db) { db_ = std::move(db); }
  void CloseDb() { db_.reset(); }
  std::unique_ptr<storage::DB> ReleaseDb() { return std::move(db_); }

 private:
  RawConnection conn_;
  std::string dir_;
  std::unique_ptr<storage::DB> db_;
  std::string pending_;
  uint64_t offset_ = 0;
};

class ReplicationMasterTest : public ServerTest {
 protected:
  std::vector<std::string> ServerArgs() const override {
    return {"--memtable-size", "65536", "--repl-backlog-size", "1048576"};
  }
  std::string ReplicaDir(const std::string& name) { return server_.dir() + "/" + name; }

  // ROLE's offset.
  uint64_t MasterOffset() {
    Reply role = Cmd(conn_.get(), {"ROLE"});
    return static_cast<uint64_t>(role.elements().at(1).integer());
  }
};

TEST_F(ReplicationMasterTest, FullSyncWithWritesDuringItThenPartialResync) {
  WriteMix(conn_.get(), 0, 3'000);  // several memtables' worth: the snapshot holds tables

  HandReplica replica(server_.port(), ReplicaDir("replica"));
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    auto c = server_.Connect();
    WriteMix(c.get(), 3'000, 5'000);
    ASSERT_EQ(Cmd(c.get(), {"SELECT", "3"}).str(), "OK");
    ASSERT_EQ(Cmd(c.get(), {"FLUSHDB"}).str(), "OK");  // a range deletion on the stream
    writing = false;
  });
  const std::string reply = replica.Handshake("?", -1);
  ASSERT_EQ(reply.rfind("+FULLRESYNC ", 0), 0u) << reply;
  const std::string replid = reply.substr(12, 40);
  const uint64_t start = std::stoull(reply.substr(53));
  replica.ReadSnapshot();
  writer.join();
  ASSERT_FALSE(writing);

  replica.set_offset(start);
  const uint64_t end = MasterOffset();
  replica.ApplyUntil(end);
  replica.Ack();

  // The master lists the replica: ROLE with its port and acknowledged offset, CLIENT LIST flag S.
  Reply role;
  for (int i = 0; i < 250; i++) {  // the ACK arrives asynchronously: bounded wait
    role = Cmd(conn_.get(), {"ROLE"});
    if (role.elements().at(2).size() == 1 &&
        role.elements()[2].elements()[0].elements()[2].str() == std::to_string(end)) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(role.ToString(), "1) \"master\"\n2) (integer) " + std::to_string(end) +
                                 "\n3) 1) 1) \"127.0.0.1\"\n      2) \"6390\"\n      3) \"" +
                                 std::to_string(end) + "\"");
  EXPECT_NE(Cmd(conn_.get(), {"CLIENT", "LIST"}).str().find("flags=S "), std::string::npos);
  const std::string info = Cmd(conn_.get(), {"INFO", "replication"}).str();
  for (const std::string& line :
       {std::string("role:master"), std::string("connected_slaves:1"),
        "slave0:ip=127.0.0.1,port=6390,state=online,offset=" + std::to_string(end) + ",lag=",
        "master_replid:" + replid, "master_repl_offset:" + std::to_string(end),
        std::string("master_replid2:0000000000000000000000000000000000000000"),
        std::string("second_repl_offset:-1"), std::string("repl_backlog_active:1"),
        std::string("repl_backlog_size:1048576")}) {
    EXPECT_NE(info.find(line), std::string::npos) << line << " not in\n" << info;
  }

  // The link is cut; writes go on; the replica resumes from the backlog.
  replica.conn().Send("QUIT\r\n");
  EXPECT_TRUE(replica.conn().WaitClosed());
  WriteMix(conn_.get(), 5'000, 5'300);
  HandReplica again(server_.port(), ReplicaDir("unused"));
  again.AdoptDb(replica.ReleaseDb());
  again.set_offset(end);
  EXPECT_EQ(again.Handshake(replid, static_cast<long long>(end) + 1), "+CONTINUE " + replid);
  again.ApplyUntil(MasterOffset());

  // A history the master does not know, or an offset the backlog no longer holds: full sync.
  HandReplica stranger(server_.port(), ReplicaDir("stranger"));
  EXPECT_EQ(stranger.Handshake(std::string(40, 'f'), 1).rfind("+FULLRESYNC " + replid, 0), 0u);
  stranger.ReadSnapshot();

  const uint64_t master_sequence = InfoField(conn_.get(), "storage", "last_sequence");
  EXPECT_EQ(again.db()->LastSequence(), master_sequence);
  ASSERT_EQ(server_.Stop(), 0);
  again.CloseDb();
  stranger.CloseDb();
  const std::string master = Digest(server_.data_dir());
  EXPECT_GT(master.size(), 100'000u);
  EXPECT_EQ(FirstDifference(Digest(ReplicaDir("replica")), master), "");
  EXPECT_EQ(FirstDifference(Digest(ReplicaDir("stranger")), master), "");
}

// The stream reaches the replicas once per turn of the event loop, the backlog at once: a PSYNC
// in the same turn as a write (pipelined behind it) continues from the backlog, which holds the
// write, and must not get it a second time from what was pending for the replicas already there.
TEST_F(ReplicationMasterTest, APsyncPipelinedBehindAWriteGetsEachRecordOnce) {
  ASSERT_EQ(Do({"SET", "before", "1"}), "+OK");
  HandReplica online(server_.port(), ReplicaDir("online"));
  online.FullResync();  // attached: writes now wait for the end of their turn to reach it
  const std::string info = Cmd(conn_.get(), {"INFO", "replication"}).str();
  const size_t at = info.find("master_replid:");
  ASSERT_NE(at, std::string::npos);
  const std::string replid = info.substr(at + 14, 40);
  const uint64_t from = MasterOffset();

  RawConnection late(server_.port());
  ASSERT_TRUE(late.Send("REPLCONF capa eof capa psync2\r\n"));
  ASSERT_EQ(late.ReadUntil("\r\n"), "+OK\r\n");
  ASSERT_TRUE(
      late.Send("SET pipelined 1\r\nPSYNC " + replid + " " + std::to_string(from + 1) + "\r\n"));
  ASSERT_EQ(late.ReadUntil("\r\n"), "+OK\r\n");
  ASSERT_EQ(late.ReadUntil("\r\n"), "+CONTINUE " + replid + "\r\n");
  ASSERT_EQ(Do({"SET", "after", "1"}), "+OK");
  const uint64_t last_sequence = InfoField(conn_.get(), "storage", "last_sequence");

  // Every record up to the last write arrives once, in sequence order, and nothing more.
  const uint64_t bytes = MasterOffset() - from;
  const std::string stream = late.ReadExactly(bytes, 5'000);
  ASSERT_EQ(stream.size(), bytes);
  std::string_view in = stream;
  std::vector<uint64_t> sequences;
  storage::ReplicationRecord record;
  bool complete = false;
  while (storage::ParseReplicationRecord(&in, &record, &complete).ok() && complete) {
    if (record.kind == storage::ReplicationRecord::Kind::kBatch) {
      sequences.push_back(record.first_sequence);
    }
  }
  EXPECT_TRUE(in.empty());
  ASSERT_EQ(sequences.size(), 2u) << ::testing::PrintToString(sequences);
  EXPECT_LT(sequences[0], sequences[1]);
  EXPECT_LE(sequences[1], last_sequence);
  EXPECT_EQ(late.ReadExactly(1, 300), "");
  // The replica that was there got both as well.
  online.ApplyUntil(MasterOffset());
  EXPECT_EQ(online.db()->LastSequence(), last_sequence);
}

// A replica that does not read is dropped at the replica class's output limit; the master and
// its other clients go on.
TEST_F(ReplicationMasterTest, AReplicaThatDoesNotReadIsDroppedAtItsOutputLimit) {
  ASSERT_EQ(Do({"CONFIG", "SET", "client-output-buffer-limit", "replica 256kb 0 0"}), "+OK");
  HandReplica replica(server_.port(), ReplicaDir("replica"));
  ASSERT_EQ(replica.Handshake("?", -1).rfind("+FULLRESYNC ", 0), 0u);
  EXPECT_EQ(InfoField(conn_.get(), "replication", "connected_slaves"), 1);
  const std::string value(64 * 1024, 'v');
  for (int i = 0; i < 200 && InfoField(conn_.get(), "replication", "connected_slaves") != 0; i++) {
    ASSERT_EQ(Do({"SET", "k" + std::to_string(i), value}), "+OK");
  }
  EXPECT_EQ(WaitInfoField(conn_.get(), "replication", "connected_slaves", 0), 0);
  EXPECT_TRUE(replica.conn().WaitClosed());
  EXPECT_EQ(Do({"GET", "k0"}), "$" + value);
}

// WAIT answers once enough replicas acknowledged the stream up to it, or at its timeout; the
// requests pipelined behind it wait their turn, and the server serves others meanwhile.
TEST_F(ReplicationMasterTest, WaitCountsTheReplicasThatAcknowledged) {
  EXPECT_EQ(Do({"WAIT", "0", "0"}), ":0");
  EXPECT_EQ(Do({"WAIT", "1", "50"}), ":0");  // no replica: the timeout
  EXPECT_EQ(Do({"WAIT", "1", "-1"}), "-ERR timeout is negative");
  EXPECT_EQ(Do({"WAIT", "x", "0"}), "-ERR value is not an integer or out of range");
  // A deadline past INT64_MAX ms (the clock plus the timeout): refused, as Redis refuses it.
  EXPECT_EQ(Do({"WAIT", "0", "9223372036854775807"}), "-ERR timeout is out of range");
  EXPECT_EQ(Do({"PING"}), "+PONG");

  HandReplica replica(server_.port(), ReplicaDir("replica"));
  ASSERT_NO_FATAL_FAILURE(replica.FullResync());
  ASSERT_EQ(Do({"SET", "k", "1"}), "+OK");
  EXPECT_EQ(Do({"WAIT", "1", "100"}), ":0");  // written, not yet acknowledged

  // A WAIT with no timeout and a PING behind it, answered after the acknowledgement.
  auto waiter = server_.Connect();
  Append(waiter.get(), {"WAIT", "1", "0"});
  Append(waiter.get(), {"PING"});
  redisBufferWrite(waiter.get(), nullptr);
  EXPECT_EQ(Do({"GET", "k"}), "$1");  // others are served meanwhile
  replica.ApplyUntil(MasterOffset());
  replica.Ack();
  EXPECT_EQ(Canon(ReadReply(waiter.get())), ":1");
  EXPECT_EQ(Canon(ReadReply(waiter.get())), "+PONG");
  EXPECT_EQ(Do({"WAIT", "1", "0"}), ":1");

  // Inside MULTI it answers at once, counting what was acknowledged before the transaction (its
  // writes are one batch, committed when EXEC ends).
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "2"}), "+QUEUED");
  EXPECT_EQ(Do({"WAIT", "1", "0"}), "+QUEUED");
  EXPECT_EQ(R({"EXEC"}), "1) OK\n2) (integer) 1");
  EXPECT_EQ(Do({"WAIT", "1", "20"}), ":0");
}

// A WAIT that has to wait puts a GETACK control record on the stream, after the write it waits
// for; the replica's REPLCONF ACK of the offset after it answers the WAIT. The master's pings
// are control records too, counted in the offsets like every byte.
TEST_F(ReplicationMasterTest, WaitAsksForAnAckOnTheStreamAndPingsCountInTheOffsets) {
  EXPECT_EQ(Do({"CONFIG", "SET", "repl-ping-replica-period", "3600"}), "+OK");
  HandReplica replica(server_.port(), ReplicaDir("replica"));
  ASSERT_NO_FATAL_FAILURE(replica.FullResync());
  ASSERT_EQ(Do({"SET", "k", "1"}), "+OK");
  const uint64_t written = MasterOffset();

  auto waiter = server_.Connect();
  Append(waiter.get(), {"WAIT", "1", "0"});
  redisBufferWrite(waiter.get(), nullptr);
  // The SET's batch, then the GETACK.
  const std::string stream = replica.conn().ReadUntil(std::string("\x06getack"), 10'000);
  ASSERT_FALSE(stream.empty());
  std::string_view in = stream;
  std::vector<storage::ReplicationRecord::Kind> kinds;
  storage::ReplicationRecord record;
  bool complete = false;
  while (storage::ParseReplicationRecord(&in, &record, &complete).ok() && complete) {
    kinds.push_back(record.kind);
  }
  EXPECT_TRUE(in.empty());
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds[0], storage::ReplicationRecord::Kind::kBatch);
  EXPECT_EQ(kinds[1], storage::ReplicationRecord::Kind::kControl);
  EXPECT_EQ(record.payload, "getack");
  const uint64_t acked = replica.offset() + stream.size();
  EXPECT_EQ(acked, written + 16);  // the record: kind, sequence 0, length 6, "getack"
  EXPECT_EQ(MasterOffset(), acked);
  EXPECT_TRUE(replica.conn().Send("REPLCONF ACK " + std::to_string(acked) + "\r\n"));
  EXPECT_EQ(Canon(ReadReply(waiter.get())), ":1");
  EXPECT_NE(R({"ROLE"}).find("\"" + std::to_string(acked) + "\""), std::string::npos);

  // A WAIT its replicas cannot satisfy asks once: the answer to its GETACK, which resumes it,
  // does not make it ask again.
  Append(waiter.get(), {"WAIT", "2", "500"});
  redisBufferWrite(waiter.get(), nullptr);
  const std::string asked = replica.conn().ReadUntil(std::string("\x06getack"), 10'000);
  EXPECT_EQ(asked.size(), 16u);
  EXPECT_TRUE(replica.conn().Send("REPLCONF ACK " + std::to_string(acked + 16) + "\r\n"));
  EXPECT_EQ(Canon(ReadReply(waiter.get())), ":1");
  EXPECT_EQ(MasterOffset(), acked + 16);

  // A ping: 14 bytes more on the stream, with no write.
  EXPECT_EQ(Do({"CONFIG", "SET", "repl-ping-replica-period", "1"}), "+OK");
  const std::string ping = replica.conn().ReadUntil(std::string("\x04ping"), 10'000);
  EXPECT_EQ(ping, std::string("\x03\0\0\0\0\0\0\0\0\x04ping", 14));
  EXPECT_GE(MasterOffset(), acked + 16 + 14);
}

// A shutdown while a snapshot is being sent (its replica reads nothing) ends the sender before
// the engine closes, and the server exits cleanly.
TEST_F(ReplicationMasterTest, ShutdownDuringAFullResyncIsClean) {
  const std::string value(64 * 1024, 'v');
  for (int i = 0; i < 64; i++) ASSERT_EQ(Do({"SET", "k" + std::to_string(i), value}), "+OK");
  HandReplica replica(server_.port(), ReplicaDir("replica"));
  ASSERT_EQ(replica.Handshake("?", -1).rfind("+FULLRESYNC ", 0), 0u);
  EXPECT_EQ(WaitInfoField(conn_.get(), "replication", "connected_slaves", 1), 1);
  EXPECT_EQ(server_.Stop(), 0);
}

TEST_F(ReplicationMasterTest, ReplconfAndPsyncAnswerAsRedis) {
  EXPECT_EQ(Do({"REPLCONF", "listening-port"}), "-ERR syntax error");
  EXPECT_EQ(Do({"REPLCONF", "listening-port", "x"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"REPLCONF", "nonsense", "1"}), "-ERR Unrecognized REPLCONF option: nonsense");
  EXPECT_EQ(Do({"REPLCONF", "capa", "eof", "capa", "psync2"}), "+OK");
  EXPECT_EQ(Do({"PSYNC", "?"}), "-ERR wrong number of arguments for 'psync' command");
  EXPECT_EQ(Do({"PSYNC", "?", "x"}), "-ERR value is not an integer or out of range");
  EXPECT_EQ(R({"ROLE"}), "1) \"master\"\n2) (integer) 0\n3) (empty array)");
}

}  // namespace
}  // namespace ebb::test
