// LogWriter / LogReader: round trips across block boundaries, torn tails, corruption.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "storage/util/coding.h"
#include "storage/wal/log_format.h"
#include "storage/wal/log_reader.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {
namespace {

// In-memory files sharing one std::string.
class StringSink final : public WritableFile {
 public:
  explicit StringSink(std::string* contents) : contents_(contents) {}
  Status Append(std::string_view data) override {
    if (fail_) return Status::IOError("write mem: injected");
    contents_->append(data);
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  uint64_t Size() const override { return contents_->size(); }
  bool fail_ = false;

 private:
  std::string* contents_;
};

class StringSource final : public SequentialFile {
 public:
  explicit StringSource(std::string contents) : contents_(std::move(contents)) {}
  Status Read(size_t n, std::string_view* result, char* scratch) override {
    n = std::min(n, contents_.size() - pos_);
    n = std::min<size_t>(n, 1000);  // short reads exercise the reader's loop
    contents_.copy(scratch, n, pos_);
    pos_ += n;
    *result = std::string_view(scratch, n);
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    pos_ = std::min<size_t>(contents_.size(), pos_ + n);
    return Status::OK();
  }

 private:
  std::string contents_;
  size_t pos_ = 0;
};

std::string Write(const std::vector<std::string>& records) {
  std::string file;
  LogWriter writer(std::make_unique<StringSink>(&file));
  for (const auto& r : records) EXPECT_TRUE(writer.AddRecord(r).ok());
  EXPECT_TRUE(writer.Sync().ok());
  EXPECT_EQ(writer.Size(), file.size());
  return file;
}

struct ReadResult {
  std::vector<std::string> records;
  Status status;
  bool torn = false;
  uint64_t torn_offset = 0;
};

ReadResult ReadAll(std::string file) {
  ReadResult out;
  LogReader reader(std::make_unique<StringSource>(std::move(file)), "/db/000007.log");
  std::string record;
  for (int i = 0; i < 100000 && reader.ReadRecord(&record, &out.status); ++i) {
    out.records.push_back(record);
    EXPECT_EQ(out.records.size() == 0, reader.LastRecordEndOffset() == 0);
  }
  out.torn = reader.torn_tail();
  out.torn_offset = reader.torn_tail_offset();
  std::string extra;
  Status again;
  EXPECT_FALSE(reader.ReadRecord(&extra, &again));  // stays at the end
  return out;
}

std::string BigString(const std::string& seed, size_t n) {
  std::string out;
  while (out.size() < n) out += seed;
  out.resize(n);
  return out;
}

std::vector<std::string> RandomRecords(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    const int kind = rng() % 10;
    const size_t len = kind < 6 ? rng() % 100 : kind < 9 ? rng() % 5000 : rng() % 100000;
    std::string r(len, '\0');
    for (char& c : r) c = static_cast<char>(rng());
    out.push_back(std::move(r));
  }
  return out;
}

TEST(WalLogTest, EmptyFile) {
  const ReadResult r = ReadAll("");
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.status.ok());
  EXPECT_FALSE(r.torn);
}

TEST(WalLogTest, SmallRecordBytes) {
  // The worked example of docs/wal-format.md.
  const std::string file = Write({"abc"});
  ASSERT_EQ(file.size(), log::kHeaderSize + 3);
  EXPECT_EQ(file[4], 3);
  EXPECT_EQ(file[5], 0);
  EXPECT_EQ(file[6], static_cast<char>(log::RecordType::kFull));
  EXPECT_EQ(file.substr(7), "abc");
  EXPECT_EQ(DecodeFixed32(file.data()), 0x9de870f2u) << std::hex << DecodeFixed32(file.data());
}

TEST(WalLogTest, RoundTripManySizes) {
  std::vector<std::string> records = {"", "a", BigString("xyz", log::kBlockSize - log::kHeaderSize),
                                      BigString("m", 3 * log::kBlockSize + 17), "tail"};
  for (int i = 0; i < 200; ++i) records.push_back(BigString(std::to_string(i), i * 37));
  const ReadResult r = ReadAll(Write(records));
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_FALSE(r.torn);
  EXPECT_EQ(r.records, records);
}

TEST(WalLogTest, RandomRecordsRoundTrip) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const auto records = RandomRecords(seed, 300);
    const ReadResult r = ReadAll(Write(records));
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.records, records) << "seed " << seed;
  }
}

TEST(WalLogTest, TrailerPaddingAtBlockEnd) {
  // Leave exactly 6 bytes in the first block: the writer pads them and starts a new block.
  const std::string first = BigString("p", log::kBlockSize - log::kHeaderSize - 6);
  const std::string file = Write({first, "next"});
  EXPECT_EQ(file.size(), log::kBlockSize + log::kHeaderSize + 4);
  const ReadResult r = ReadAll(file);
  EXPECT_EQ(r.records, (std::vector<std::string>{first, "next"}));
  EXPECT_TRUE(r.status.ok());
  // A file ending right after the padded trailer is a clean end.
  const ReadResult padded_end = ReadAll(file.substr(0, log::kBlockSize));
  EXPECT_EQ(padded_end.records.size(), 1u);
  EXPECT_FALSE(padded_end.torn);
}

TEST(WalLogTest, HeaderOnlyFirstFragmentWhenSevenBytesRemain) {
  // 7 bytes left: the writer emits an empty FIRST fragment there, then continues.
  const std::string first = BigString("q", log::kBlockSize - 2 * log::kHeaderSize);
  const std::string second = BigString("r", 100);
  const std::string file = Write({first, second});
  EXPECT_EQ(file[log::kBlockSize - 1], static_cast<char>(log::RecordType::kFirst));
  EXPECT_EQ(file.size(), log::kBlockSize + log::kHeaderSize + second.size());
  const ReadResult r = ReadAll(file);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.records, (std::vector<std::string>{first, second}));
}

TEST(WalLogTest, AppendingContinuesTheFraming) {
  std::string file;
  {
    LogWriter writer(std::make_unique<StringSink>(&file));
    ASSERT_TRUE(writer.AddRecord(BigString("a", 20000)).ok());
  }
  {
    LogWriter writer(std::make_unique<StringSink>(&file), file.size());
    ASSERT_TRUE(writer.AddRecord(BigString("b", 20000)).ok());
  }
  {
    LogWriter writer(std::make_unique<StringSink>(&file));  // 0: takes the file's size
    ASSERT_TRUE(writer.AddRecord("c").ok());
  }
  const ReadResult r = ReadAll(file);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.records,
            (std::vector<std::string>{BigString("a", 20000), BigString("b", 20000), "c"}));
}

TEST(WalLogTest, TornTailAtEveryByteOfTheLastRecord) {
  // The last record spans a block boundary, so cuts hit FIRST and LAST fragments and headers.
  const std::vector<std::string> records = {"one", BigString("two", 32700),
                                            BigString("three", 3000)};
  const std::string file = Write(records);
  const std::string prefix = Write({records[0], records[1]});
  ASSERT_EQ(file.compare(0, prefix.size(), prefix), 0);
  for (size_t cut = prefix.size(); cut < file.size(); ++cut) {
    const ReadResult r = ReadAll(file.substr(0, cut));
    ASSERT_TRUE(r.status.ok()) << "cut " << cut << ": " << r.status.ToString();
    ASSERT_EQ(r.records, (std::vector<std::string>{records[0], records[1]})) << "cut " << cut;
    if (cut == prefix.size()) {
      EXPECT_FALSE(r.torn);
    } else {
      ASSERT_TRUE(r.torn) << "cut " << cut;
      ASSERT_EQ(r.torn_offset, prefix.size()) << "cut " << cut;
    }
  }
}

// Zeros written ahead of the records (WritableFile::ZeroFillAhead) and left by a crash: the end
// of the log, whatever their length and wherever they stop.
TEST(WalLogTest, ZeroFilledRestIsTheEnd) {
  const std::string file = Write({"one", "two"});
  for (size_t zeros : {size_t{3}, size_t{5000}, 3 * log::kBlockSize + 11}) {
    SCOPED_TRACE(zeros);
    const ReadResult r = ReadAll(file + std::string(zeros, '\0'));
    EXPECT_TRUE(r.status.ok());
    EXPECT_FALSE(r.torn);
    EXPECT_EQ(r.records, (std::vector<std::string>{"one", "two"}));
  }
}

TEST(WalLogTest, FragmentedRecordCutByZerosIsTorn) {
  const std::string whole = Write({"one", BigString("f", 2 * log::kBlockSize)});
  const std::string first_part = whole.substr(0, log::kBlockSize);  // "one" and the FIRST part
  const ReadResult r = ReadAll(first_part + std::string(log::kBlockSize + 100, '\0'));
  EXPECT_TRUE(r.status.ok());
  EXPECT_TRUE(r.torn);
  EXPECT_EQ(r.torn_offset, Write({"one"}).size());
  EXPECT_EQ(r.records, (std::vector<std::string>{"one"}));
}

TEST(WalLogTest, ZerosFollowedByARecordAreCorruption) {
  const std::string head = Write({"one"});
  std::string file = head + std::string(log::kBlockSize - head.size(), '\0');
  file += Write({"later"});  // a valid record at the start of the next block
  const ReadResult r = ReadAll(file);
  EXPECT_TRUE(r.status.IsCorruption()) << r.status.ToString();
  EXPECT_NE(r.status.ToString().find("zero-filled region at offset " + std::to_string(head.size())),
            std::string::npos)
      << r.status.ToString();
}

TEST(WalLogTest, GarbageLastRecordIsTorn) {
  std::string file = Write({"one", "two", "three"});
  file[file.size() - 2] ^= 0x40;  // damage inside the last record, nothing after it
  const ReadResult r = ReadAll(file);
  EXPECT_TRUE(r.status.ok());
  EXPECT_TRUE(r.torn);
  EXPECT_EQ(r.torn_offset, Write({"one", "two"}).size());
}

TEST(WalLogTest, FlippedByteFollowedByValidRecordsIsCorruption) {
  const std::vector<std::string> records = RandomRecords(11, 60);
  const std::string file = Write(records);
  const std::string last = Write({records.back()});
  std::mt19937 rng(5);
  // Flip a byte somewhere before the final record (which therefore follows the damage).
  for (int trial = 0; trial < 40; ++trial) {
    const size_t limit = file.size() - last.size();
    const size_t at = rng() % limit;
    std::string damaged = file;
    damaged[at] ^= static_cast<char>(1 + rng() % 255);
    const ReadResult r = ReadAll(damaged);
    ASSERT_TRUE(r.status.IsCorruption()) << "flip at " << at << " torn=" << r.torn;
    EXPECT_NE(r.status.message().find("/db/000007.log"), std::string::npos);
    EXPECT_NE(r.status.message().find("at offset "), std::string::npos);
    EXPECT_FALSE(r.torn);
    // Everything returned before the error is a correct prefix.
    ASSERT_LE(r.records.size(), records.size());
    for (size_t i = 0; i < r.records.size(); ++i) ASSERT_EQ(r.records[i], records[i]);
  }
}

TEST(WalLogTest, CorruptionNamesTheDamagedOffset) {
  const std::string a = Write({"first"});
  std::string file = Write({"first", "second", "third"});
  file[a.size() + log::kHeaderSize + 1] ^= 1;  // inside "second"
  const ReadResult r = ReadAll(file);
  ASSERT_TRUE(r.status.IsCorruption());
  EXPECT_EQ(r.status.message(),
            "/db/000007.log: checksum mismatch at offset " + std::to_string(a.size()));
  EXPECT_EQ(r.records, std::vector<std::string>{"first"});
}

TEST(WalLogTest, WriterErrorIsSticky) {
  std::string file;
  auto sink = std::make_unique<StringSink>(&file);
  StringSink* raw = sink.get();
  LogWriter writer(std::move(sink));
  ASSERT_TRUE(writer.AddRecord("ok").ok());
  raw->fail_ = true;
  EXPECT_TRUE(writer.AddRecord("lost").IsIOError());
  raw->fail_ = false;
  EXPECT_TRUE(writer.AddRecord("after").IsIOError());
  EXPECT_TRUE(writer.Sync().IsIOError());
  EXPECT_EQ(ReadAll(file).records, std::vector<std::string>{"ok"});
}

}  // namespace
}  // namespace ebb::storage
