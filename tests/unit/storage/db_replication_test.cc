// The engine's side of replication (docs/replication.md): the stream records, the replication
// tap, Checkpoint, and a replica built from a checkpoint plus the stream ending equal to the
// master, sequence for sequence and version for version.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "storage/replication_record.h"
#include "tests/support/engine_dump.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

TEST(ReplicationRecordTest, RoundTripsAndWaitsForWholeRecords) {
  std::string stream;
  const std::string batch_payload("\x01\x01\x01k\x01\x00", 6);  // not decoded here
  AppendReplicationRecord(&stream, {ReplicationRecord::Kind::kBatch, 7, batch_payload});
  WriteBatch ranges;
  ranges.DeleteRange({"a", "b"});
  ranges.DeleteRange({std::string("\0x", 2), "zz"});
  AppendReplicationRecord(&stream, {ReplicationRecord::Kind::kBatch, 9, ranges.rep()});
  // kind, fixed64 sequence, varint32 length, payload.
  EXPECT_EQ(stream.substr(0, 10), std::string("\x01\x07\0\0\0\0\0\0\0\x06", 10));

  // Every proper prefix is incomplete and consumes nothing.
  const size_t first_size = 1 + 8 + 1 + batch_payload.size();
  for (size_t n = 0; n < first_size; n++) {
    std::string_view in(stream.data(), n);
    ReplicationRecord record;
    bool complete = true;
    ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
    EXPECT_FALSE(complete) << n;
    EXPECT_EQ(in.size(), n);
  }
  std::string_view in = stream;
  ReplicationRecord record;
  bool complete = false;
  ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
  ASSERT_TRUE(complete);
  EXPECT_EQ(record.kind, ReplicationRecord::Kind::kBatch);
  EXPECT_EQ(record.first_sequence, 7u);
  EXPECT_EQ(record.payload, batch_payload);
  ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
  ASSERT_TRUE(complete);
  EXPECT_EQ(record.kind, ReplicationRecord::Kind::kBatch);
  EXPECT_EQ(record.first_sequence, 9u);
  EXPECT_EQ(record.payload, ranges.rep());
  EXPECT_TRUE(in.empty());

  std::string_view bad = "\x05rest";
  EXPECT_TRUE(ParseReplicationRecord(&bad, &record, &complete).IsCorruption());
}

// The control record: kind 3, sequence 0, the word as its payload, parsed like any record and
// counted in the stream's bytes (so in the offsets) like any other.
TEST(ReplicationRecordTest, ControlRecordsCarryPingAndGetAck) {
  std::string stream;
  AppendReplicationRecord(&stream, ControlRecord(kControlPing));
  AppendReplicationRecord(&stream, ControlRecord(kControlGetAck));
  EXPECT_EQ(stream, std::string("\x03\0\0\0\0\0\0\0\0\x04ping"
                                "\x03\0\0\0\0\0\0\0\0\x06getack",
                                14 + 16));
  for (size_t n = 0; n < 14; n++) {  // a part of the first is not a record yet
    std::string_view in(stream.data(), n);
    ReplicationRecord record;
    bool complete = true;
    ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
    EXPECT_FALSE(complete) << n;
  }
  std::string_view in = stream;
  ReplicationRecord record;
  bool complete = false;
  ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
  ASSERT_TRUE(complete);
  EXPECT_EQ(record.kind, ReplicationRecord::Kind::kControl);
  EXPECT_EQ(record.first_sequence, 0u);
  EXPECT_EQ(record.payload, "ping");
  EXPECT_EQ(in.size(), 16u);
  ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
  ASSERT_TRUE(complete);
  EXPECT_EQ(record.payload, "getack");
  EXPECT_TRUE(in.empty());
}

// A master DB whose tap collects the stream, and replica DBs in directories of their own.
class DBReplicationTest : public DBTest {
 protected:
  ~DBReplicationTest() override {
    if (db_) db_->SetReplicationTap(nullptr);
    replica_.reset();
    std::error_code ec;
    for (const auto& d : extra_dirs_) std::filesystem::remove_all(d, ec);
  }

  std::string NewDir() {
    char tmpl[] = "/tmp/ebb_repl_test_XXXXXX";
    extra_dirs_.push_back(::mkdtemp(tmpl));
    return extra_dirs_.back();
  }

  void StartTap() {
    db_->SetReplicationTap([this](const ReplicationRecord& record) {
      std::lock_guard lock(stream_mu_);
      AppendReplicationRecord(&stream_, record);
    });
  }

  // Applies every record of the collected stream to replica_; returns how many it applied.
  int ApplyStream() {
    std::string stream;
    {
      std::lock_guard lock(stream_mu_);
      stream = stream_;
    }
    std::string_view in = stream;
    int applied_count = 0;
    for (;;) {
      ReplicationRecord record;
      bool complete = false;
      EXPECT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
      if (!complete) break;
      bool applied = false;
      Status s = ApplyReplicationRecord(replica_.get(), WriteOptions(), record, &applied);
      EXPECT_TRUE(s.ok()) << s.ToString();
      applied_count += applied;
    }
    EXPECT_TRUE(in.empty());
    return applied_count;
  }

  static std::string Dump(DB* db) { return test::EngineDump(db); }

  void OpenReplica(const std::string& dir) {
    Options options = options_;
    ASSERT_TRUE(DB::Open(options, dir, &replica_).ok());
  }

  std::mutex stream_mu_;
  std::string stream_;
  std::unique_ptr<DB> replica_;
  std::vector<std::string> extra_dirs_;
};

TEST_F(DBReplicationTest, TapReportsEveryWriteInSequenceOrder) {
  Open();
  StartTap();
  Put("a", "1", 100, 5'000);
  Del("b", 50);
  WriteBatch batch;
  WriteOptions wo;
  wo.expire_at_ms = 2'000'000;
  batch.Put(wo, "c", "3", clock_->NowMs());
  batch.Put(WriteOptions(), "d", "4", clock_->NowMs());
  ASSERT_TRUE(db_->Write(WriteOptions(), batch).ok());
  ASSERT_TRUE(db_->DeleteRange({{"c", "d"}}).ok());

  std::string_view in = stream_;
  std::vector<std::pair<ReplicationRecord::Kind, uint64_t>> seen;
  ReplicationRecord record;
  bool complete = false;
  while (ParseReplicationRecord(&in, &record, &complete).ok() && complete) {
    seen.emplace_back(record.kind, record.first_sequence);
  }
  using K = ReplicationRecord::Kind;
  EXPECT_EQ(seen, (std::vector<std::pair<K, uint64_t>>{
                      {K::kBatch, 1}, {K::kBatch, 2}, {K::kBatch, 3}, {K::kBatch, 5}}));
  EXPECT_EQ(db_->LastSequence(), 5u);
}

// Each side's background work runs when its own threads get to it, and it may change two things
// (docs/replication.md, "Applying a record on a replica"): a bounded-grace answer converges to the
// full-grace one when a compaction holds a key's whole history, and a dead version that is
// forgotten no longer hides a later write with an older timestamp. So the writes here never go
// below a dead version's timestamp (deletes at 900, expiries due after the last write), the
// full-grace answers are compared at once, and every answer once both engines are compacted whole.
TEST_F(DBReplicationTest, ReplicaAppliesTheStreamAsItIsWhateverItsClock) {
  Open();
  StartTap();
  for (int i = 0; i < 300; i++) {
    // expire_at = ts + ttl: between 1'010'000 and 1'011'800, after every comparison but the last.
    Put("k" + std::to_string(i % 97), "v" + std::to_string(i), 1'000 + (i * 37) % 500,
        i % 3 == 0 ? std::optional<int64_t>(1'009'000 + i) : std::nullopt);
    if (i % 11 == 0) Del("k" + std::to_string(i % 13), 900);
  }
  ASSERT_TRUE(db_->DeleteRange({{"k5", "k6"}}).ok());
  Put("k55", "after", std::nullopt, 60'000);  // relative ttl: resolved with the master's clock
  WriteBatch transaction;  // a write, a FLUSHDB, a write: one record, applied whole
  transaction.Put(WriteOptions(), "k70", "gone", 0);
  transaction.DeleteRange({"k7", "k8"});
  transaction.Put(WriteOptions(), "k71", "kept", 0);
  ASSERT_TRUE(db_->Write(WriteOptions(), transaction).ok());

  // The replica's clock is elsewhere: nothing it decides depends on it.
  auto replica_clock = std::make_shared<ManualClock>(1'000'000);
  Options options = options_;
  options.clock = replica_clock;
  ASSERT_TRUE(DB::Open(options, NewDir(), &replica_).ok());
  replica_clock->Advance(123);
  EXPECT_GT(ApplyStream(), 300);
  EXPECT_EQ(replica_->LastSequence(), db_->LastSequence());
  Row row;
  EXPECT_TRUE(replica_->Get(ReadOptions(), "k70", &row).IsNotFound());
  EXPECT_TRUE(replica_->Get(ReadOptions(), "k7", &row).IsNotFound());
  ASSERT_TRUE(replica_->Get(ReadOptions(), "k71", &row).ok());
  EXPECT_EQ(row.value, "kept");
  const auto full_grace = [](DB* db) {
    const std::string dump = Dump(db);
    return dump.substr(dump.find('|'));
  };
  EXPECT_EQ(full_grace(replica_.get()), full_grace(db_.get()));
  ASSERT_TRUE(db_->CompactAll().ok());
  ASSERT_TRUE(replica_->CompactAll().ok());
  EXPECT_EQ(Dump(replica_.get()), Dump(db_.get()));
  EXPECT_NE(Dump(db_.get()).find("k55=after@-1/1060000"), std::string::npos);
  EXPECT_NE(Dump(db_.get()).find("/1010"), std::string::npos);  // rows that expire next

  // Expiry hides the same rows on both once both clocks pass the same expire_at.
  clock_->Advance(20'000);
  replica_clock->Advance(20'000 - 123);
  EXPECT_EQ(Dump(db_.get()).find("/1010"), std::string::npos);
  EXPECT_EQ(Dump(replica_.get()), Dump(db_.get()));

  // Applying the stream again changes nothing: every record is at or below the replica's.
  EXPECT_EQ(ApplyStream(), 0);
  EXPECT_EQ(Dump(replica_.get()), Dump(db_.get()));
}

TEST_F(DBReplicationTest, ReplicaRefusesAGap) {
  Open();
  StartTap();
  Put("a", "1");
  Put("b", "2");
  OpenReplica(NewDir());
  std::string_view in = stream_;
  ReplicationRecord record;
  bool complete = false;
  ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
  ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());  // the second: sequence 2
  bool applied = true;
  Status s = ApplyReplicationRecord(replica_.get(), WriteOptions(), record, &applied);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(applied);
  EXPECT_EQ(replica_->LastSequence(), 0u);
}

// A replica may gather many records into one batch and write it once
// (GatherReplicationRecord): the entries keep the master's sequence numbers, the records it
// already holds are skipped, a gap or a payload that does not decode leaves the batch as it was.
TEST_F(DBReplicationTest, RecordsGatheredIntoOneWriteEndEqualToTheMaster) {
  Open();
  StartTap();
  for (int i = 0; i < 40; i++)
    Put("k" + std::to_string(i % 17), "v" + std::to_string(i), 1'000 + i);
  Del("k3", 2'000);
  ASSERT_TRUE(db_->DeleteRange({{"k1", "k2"}}).ok());
  WriteBatch transaction;  // a write, a range deletion, a write: one record
  transaction.Put(WriteOptions(), "k50", "gone", 0);
  transaction.DeleteRange({"k5", "k6"});
  transaction.Put(WriteOptions(), "k51", "kept", 0);
  ASSERT_TRUE(db_->Write(WriteOptions(), transaction).ok());
  AppendReplicationRecord(&stream_, ControlRecord(kControlPing));
  Put("k9", "last", 3'000);

  OpenReplica(NewDir());
  std::vector<ReplicationRecord> records;
  for (std::string_view in = stream_;;) {
    ReplicationRecord record;
    bool complete = false;
    ASSERT_TRUE(ParseReplicationRecord(&in, &record, &complete).ok());
    if (!complete) break;
    records.push_back(record);
  }
  // The first five applied one by one: gathering the whole stream skips them.
  for (size_t i = 0; i < 5; i++) {
    bool applied = false;
    ASSERT_TRUE(ApplyReplicationRecord(replica_.get(), WriteOptions(), records[i], &applied).ok());
  }
  ASSERT_EQ(replica_->LastSequence(), 5u);
  WriteBatch batch;
  int gathered_count = 0;
  for (const ReplicationRecord& record : records) {
    bool gathered = false;
    Status s = GatherReplicationRecord(replica_->LastSequence() + batch.Count(), record, &batch,
                                       &gathered);
    ASSERT_TRUE(s.ok()) << s.ToString();
    gathered_count += gathered;
  }
  EXPECT_EQ(gathered_count, static_cast<int>(records.size()) - 5 - 1);  // held, and the ping
  EXPECT_TRUE(batch.HasRangeDeletions());

  // What does not come next, or does not decode, leaves the batch as it was.
  const std::string before = batch.rep();
  const size_t count = batch.Count();
  bool gathered = true;
  ReplicationRecord gap = records.back();
  gap.first_sequence = db_->LastSequence() + 2;
  EXPECT_TRUE(GatherReplicationRecord(db_->LastSequence(), gap, &batch, &gathered).IsCorruption());
  EXPECT_FALSE(gathered);
  const std::string garbage("\x01\x09", 2);  // one entry of an unknown op
  ReplicationRecord bad{ReplicationRecord::Kind::kBatch, db_->LastSequence() + 1, garbage};
  EXPECT_TRUE(GatherReplicationRecord(db_->LastSequence(), bad, &batch, &gathered).IsCorruption());
  EXPECT_FALSE(gathered);
  EXPECT_EQ(batch.rep(), before);
  EXPECT_EQ(batch.Count(), count);

  ASSERT_TRUE(replica_->Write(WriteOptions(), batch).ok());
  EXPECT_EQ(replica_->LastSequence(), db_->LastSequence());
  Row row;
  EXPECT_TRUE(replica_->Get(ReadOptions(), "k50", &row).IsNotFound());
  ASSERT_TRUE(replica_->Get(ReadOptions(), "k51", &row).ok());
  EXPECT_EQ(row.value, "kept");
  ASSERT_TRUE(db_->CompactAll().ok());
  ASSERT_TRUE(replica_->CompactAll().ok());
  EXPECT_EQ(Dump(replica_.get()), Dump(db_.get()));
}

// A control record between batches changes nothing on the replica and does not disturb the
// sequence rule: the batch after it applies as if it were not there.
TEST_F(DBReplicationTest, ReplicaAppliesControlRecordsAsNothing) {
  Open();
  StartTap();
  Put("a", "1");
  AppendReplicationRecord(&stream_, ControlRecord(kControlGetAck));
  Put("b", "2");
  OpenReplica(NewDir());
  std::string_view in = stream_;
  ReplicationRecord record;
  bool complete = false;
  int records = 0;
  while (ParseReplicationRecord(&in, &record, &complete).ok() && complete) {
    bool applied = false;
    ASSERT_TRUE(ApplyReplicationRecord(replica_.get(), WriteOptions(), record, &applied).ok());
    EXPECT_EQ(applied, record.kind != ReplicationRecord::Kind::kControl);
    records++;
  }
  EXPECT_EQ(records, 3);
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(replica_->LastSequence(), 2u);
  EXPECT_EQ(Dump(replica_.get()), Dump(db_.get()));
}

// A full resynchronisation: checkpoint taken while another thread writes, the stream collected
// from before the checkpoint; the replica opens the checkpoint and applies the stream.
TEST_F(DBReplicationTest, CheckpointPlusStreamEqualsTheMaster) {
  Open();
  for (int i = 0; i < 2'000; i++) Put("base" + std::to_string(i), std::string(40, 'x'), i);
  ASSERT_GT(TotalFiles(), 1);  // more than the memtable holds
  StartTap();                  // the FULLRESYNC point: the stream from here on
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; i < 3'000 && !stop.load(); i++) {
      WriteOptions wo;
      wo.timestamp_ms = 5'000 + i;
      wo.ttl_ms = i % 2 ? std::optional<int64_t>(1'000) : std::nullopt;
      EXPECT_TRUE(db_->Put(wo, "w" + std::to_string(i % 500), std::to_string(i)).ok());
      if (i == 1'500) {
        EXPECT_TRUE(db_->DeleteRange({{"base1", "base2"}}).ok());
      }
    }
  });
  const std::string checkpoint = NewDir() + "/snapshot";
  uint64_t sequence = 0;
  std::vector<std::string> files;
  Status s = db_->Checkpoint(checkpoint, &sequence, &files);
  stop = true;
  writer.join();
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_GE(files.size(), 3u);
  EXPECT_EQ(files.back(), "CURRENT");
  for (const auto& name : files) {
    EXPECT_TRUE(std::filesystem::exists(checkpoint + "/" + name)) << name;
  }
  // Hard links, not copies: every table file the master still names is the same file as the
  // checkpoint's (a background compaction may already have dropped the master's name of some,
  // then the checkpoint's link is the file's last name).
  size_t tables = 0;
  for (const auto& name : files) {
    if (!name.ends_with(".sst")) continue;
    tables++;
    // One stat per name: a table file's number is never reused, so a master name that still
    // exists is that table.
    struct stat in_checkpoint, in_master;
    ASSERT_EQ(::stat((checkpoint + "/" + name).c_str(), &in_checkpoint), 0) << name;
    if (::stat((dir_ + "/" + name).c_str(), &in_master) != 0) continue;  // dropped meanwhile
    EXPECT_EQ(in_checkpoint.st_ino, in_master.st_ino) << name << " is a copy, not a link";
  }
  EXPECT_GE(tables, 1u);

  // Compaction on the master may drop the files now; the checkpoint keeps its links.
  ASSERT_TRUE(db_->CompactAll().ok());
  OpenReplica(checkpoint);
  EXPECT_EQ(replica_->LastSequence(), sequence);
  ApplyStream();
  EXPECT_EQ(replica_->LastSequence(), db_->LastSequence());
  EXPECT_EQ(Dump(replica_.get()), Dump(db_.get()));
  clock_->Advance(10'000);  // the ttl'd rows expire on both (the fixture shares one clock)
  EXPECT_EQ(Dump(replica_.get()), Dump(db_.get()));
}

}  // namespace
}  // namespace ebb::storage
