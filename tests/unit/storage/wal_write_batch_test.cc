// WriteBatch: meta resolution, encoding round trip, validation of damaged encodings.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "storage/write_batch.h"

namespace ebb::storage {
namespace {

// "k<n>" (snprintf: GCC 12's -Wrestrict misfires on short string concatenations at -O2).
std::string KeyName(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%llu", static_cast<unsigned long long>(n));
  return buf;
}

struct Collected {
  WriteBatch::Op op;
  std::string key;
  std::string value;
  RowMeta meta;
};

class Collector final : public WriteBatch::Handler {
 public:
  void Apply(const WriteBatch::Entry& e) override {
    entries.push_back({e.op, std::string(e.key), std::string(e.value), e.meta});
  }
  std::vector<Collected> entries;
};

WriteOptions Opts(std::optional<int64_t> ts, std::optional<int64_t> ttl,
                  std::optional<int64_t> expire_at) {
  WriteOptions o;
  o.timestamp_ms = ts;
  o.ttl_ms = ttl;
  o.expire_at_ms = expire_at;
  return o;
}

TEST(WalWriteBatchTest, ResolvesExpiry) {
  WriteBatch batch;
  EXPECT_TRUE(batch.Empty());
  batch.Put(Opts(std::nullopt, std::nullopt, std::nullopt), "plain", "v0", 1000);
  batch.Put(Opts(std::nullopt, 50, std::nullopt), "ttl-now", "v1", 1000);  // now + ttl
  batch.Put(Opts(200, 50, std::nullopt), "ttl-ts", "v2", 1000);            // ts + ttl
  batch.Put(Opts(200, 50, 7777), "abs", "v3", 1000);                       // absolute wins
  batch.Put(Opts(-5, std::nullopt, std::nullopt), "neg-ts", "", 1000);
  batch.Put(Opts(std::numeric_limits<int64_t>::max() - 1, 10, std::nullopt), "sat", "x", 0);
  batch.Delete(Opts(300, 99, 99), "gone");  // a tombstone keeps only its timestamp
  EXPECT_EQ(batch.Count(), 7u);
  EXPECT_EQ(batch.ByteSize(), batch.rep().size());

  Collector c;
  ASSERT_TRUE(batch.Iterate(&c).ok());
  ASSERT_EQ(c.entries.size(), 7u);
  EXPECT_EQ(c.entries[0].key, "plain");
  EXPECT_EQ(c.entries[0].value, "v0");
  EXPECT_EQ(c.entries[0].meta, RowMeta{});
  EXPECT_EQ(c.entries[1].meta, (RowMeta{std::nullopt, 1050}));
  EXPECT_EQ(c.entries[2].meta, (RowMeta{200, 250}));
  EXPECT_EQ(c.entries[3].meta, (RowMeta{200, 7777}));
  EXPECT_EQ(c.entries[4].meta, (RowMeta{-5, std::nullopt}));
  EXPECT_EQ(c.entries[4].value, "");
  EXPECT_EQ(*c.entries[5].meta.expire_at_ms, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(c.entries[6].op, WriteBatch::Op::kDelete);
  EXPECT_EQ(c.entries[6].key, "gone");
  EXPECT_EQ(c.entries[6].meta, (RowMeta{300, std::nullopt}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.entries[i].op, WriteBatch::Op::kPut);
}

TEST(WalWriteBatchTest, FromRepRoundTripAcrossCountVarintGrowth) {
  WriteBatch batch;
  for (int i = 0; i < 20000; ++i) {  // the count's varint grows from 1 to 3 bytes
    if (i % 3 == 0) {
      batch.Delete(Opts(i, std::nullopt, std::nullopt), KeyName(i));
    } else {
      batch.Put(Opts(std::nullopt, std::nullopt, i), KeyName(i), std::to_string(i), 0);
    }
  }
  WriteBatch copy;
  ASSERT_TRUE(WriteBatch::FromRep(batch.rep(), &copy).ok());
  EXPECT_EQ(copy.Count(), 20000u);
  EXPECT_EQ(copy.rep(), batch.rep());
  Collector c;
  ASSERT_TRUE(copy.Iterate(&c).ok());
  ASSERT_EQ(c.entries.size(), 20000u);
  EXPECT_EQ(c.entries[19999].key, "k19999");
  EXPECT_EQ(c.entries[19999].value, "19999");
  EXPECT_EQ(c.entries[19997].meta.timestamp_ms, std::nullopt);
  EXPECT_EQ(c.entries[19997].meta.expire_at_ms, 19997);
  EXPECT_EQ(c.entries[19998].op, WriteBatch::Op::kDelete);
  batch.Clear();
  EXPECT_EQ(batch.Count(), 0u);
  ASSERT_TRUE(WriteBatch::FromRep(batch.rep(), &copy).ok());
  EXPECT_TRUE(copy.Empty());
}

// A position taken with EntryBytes stays where it is as entries follow, the count's varint
// growing in front of them included: IterateFrom gives exactly the entries written since.
TEST(WalWriteBatchTest, IterateFromGivesTheEntriesWrittenSinceAPosition) {
  WriteBatch batch;
  std::vector<size_t> positions;
  for (int i = 0; i < 20000; ++i) {  // the count's varint grows from 1 to 3 bytes
    positions.push_back(batch.EntryBytes());
    if (i % 1000 == 999) {
      batch.DeleteRange(KeyRange{KeyName(i), KeyName(i + 1)});
    } else {
      batch.Put(Opts(i, std::nullopt, std::nullopt), KeyName(i), std::to_string(i), 0);
    }
  }
  EXPECT_EQ(positions[0], 0u);
  for (int from : {0, 1, 127, 128, 129, 16383, 16384, 19999}) {
    Collector c;
    ASSERT_TRUE(batch.IterateFrom(positions[from], &c).ok()) << from;
    ASSERT_EQ(c.entries.size(), static_cast<size_t>(20000 - from)) << from;
    EXPECT_EQ(c.entries.front().key, KeyName(from)) << from;
    EXPECT_EQ(c.entries.back().op, WriteBatch::Op::kDeleteRange) << from;
  }
  Collector none;
  ASSERT_TRUE(batch.IterateFrom(batch.EntryBytes(), &none).ok());
  EXPECT_TRUE(none.entries.empty());
  // EntryAtBytes reads the one entry at each position, and says where the next one begins.
  for (int at : {0, 1, 127, 128, 999, 16384, 19998, 19999}) {
    WriteBatch::Entry entry;
    size_t next = 0;
    ASSERT_TRUE(batch.EntryAtBytes(positions[at], &entry, &next).ok()) << at;
    EXPECT_EQ(entry.key, KeyName(at)) << at;
    EXPECT_EQ(next, at + 1 < 20000 ? positions[at + 1] : batch.EntryBytes()) << at;
  }
  WriteBatch::Entry entry;
  size_t next = 0;
  EXPECT_TRUE(batch.EntryAtBytes(batch.EntryBytes(), &entry, &next).IsCorruption());
}

// Append takes another batch as AppendRep takes its rep(), past the count's growth too; AppendRep
// leaves a batch unchanged when the rep does not decode.
TEST(WalWriteBatchTest, AppendAndAppendRepBuildTheSameBatch) {
  WriteBatch other;
  for (int i = 0; i < 200; ++i) other.Put(Opts(i, std::nullopt, std::nullopt), KeyName(i), "v", 0);
  other.DeleteRange({"k1", "k2"});
  WriteBatch by_append, by_rep;
  by_append.Delete(Opts(1, std::nullopt, std::nullopt), "first");
  by_rep.Delete(Opts(1, std::nullopt, std::nullopt), "first");
  by_append.Append(other);
  ASSERT_TRUE(by_rep.AppendRep(other.rep()).ok());
  EXPECT_EQ(by_append.rep(), by_rep.rep());
  EXPECT_EQ(by_append.Count(), 202u);
  EXPECT_TRUE(by_append.HasRangeDeletions());
  WriteBatch copy;
  ASSERT_TRUE(WriteBatch::FromRep(by_append.rep(), &copy).ok());
  EXPECT_TRUE(by_rep.AppendRep(other.rep() + "x").IsCorruption());
  EXPECT_EQ(by_rep.rep(), by_append.rep());
}

TEST(WalWriteBatchTest, DamagedEncodingsAreCorruption) {
  WriteBatch batch;
  batch.Put(Opts(1, 2, std::nullopt), "key", "value", 0);
  batch.Delete(Opts(3, std::nullopt, std::nullopt), "other");
  const std::string rep = batch.rep();
  WriteBatch out;
  // Every strict prefix is damaged.
  for (size_t n = 0; n < rep.size(); ++n) {
    EXPECT_TRUE(WriteBatch::FromRep(rep.substr(0, n), &out).IsCorruption()) << n;
  }
  EXPECT_TRUE(WriteBatch::FromRep(rep + "x", &out).IsCorruption());  // trailing bytes
  std::string bad_op = rep;
  bad_op[1] = 7;
  EXPECT_TRUE(WriteBatch::FromRep(bad_op, &out).IsCorruption());
  std::string bad_count = rep;
  bad_count[0] = 3;
  EXPECT_TRUE(WriteBatch::FromRep(bad_count, &out).IsCorruption());
}

TEST(WalWriteBatchTest, RangeDeletionsRoundTripInOrder) {
  WriteBatch batch;
  batch.Put(WriteOptions{}, "a", "1", 0);
  batch.DeleteRange({"a", "b"});
  batch.Put(WriteOptions{}, "a", "2", 0);
  EXPECT_EQ(batch.Count(), 3u);
  EXPECT_TRUE(batch.HasRangeDeletions());
  WriteBatch copy;
  ASSERT_TRUE(WriteBatch::FromRep(batch.rep(), &copy).ok());
  EXPECT_TRUE(copy.HasRangeDeletions());
  Collector c;
  ASSERT_TRUE(copy.Iterate(&c).ok());
  ASSERT_EQ(c.entries.size(), 3u);
  EXPECT_EQ(c.entries[1].op, WriteBatch::Op::kDeleteRange);
  EXPECT_EQ(c.entries[1].key, "a");
  EXPECT_EQ(c.entries[1].value, "b");
  EXPECT_EQ(c.entries[2].value, "2");
  // The documented bytes (docs/wal-format.md): op 3, begin and end length-prefixed.
  WriteBatch only;
  only.DeleteRange({"a", "b"});
  EXPECT_EQ(only.rep(), std::string("\x01\x03\x01"
                                    "a\x01"
                                    "b",
                                    6));
  for (size_t n = 1; n < only.rep().size(); ++n) {
    EXPECT_TRUE(WriteBatch::FromRep(only.rep().substr(0, n), &copy).IsCorruption()) << n;
  }
  WriteBatch plain;
  plain.Put(WriteOptions{}, "a", "1", 0);
  ASSERT_TRUE(WriteBatch::FromRep(plain.rep(), &copy).ok());
  EXPECT_FALSE(copy.HasRangeDeletions());
}

// Every part of each entry, the encoded row included, as Iterate gives it.
struct EntryParts {
  WriteBatch::Op op;
  std::string key;
  std::string value;
  RowMeta meta;
  std::string encoded_row;
  bool operator==(const EntryParts&) const = default;
};

std::vector<EntryParts> PartsOf(const WriteBatch& batch) {
  struct Gather final : WriteBatch::Handler {
    void Apply(const WriteBatch::Entry& e) override {
      parts.push_back(
          {e.op, std::string(e.key), std::string(e.value), e.meta, std::string(e.encoded_row)});
    }
    std::vector<EntryParts> parts;
  } gather;
  EXPECT_TRUE(batch.Iterate(&gather).ok());
  return gather.parts;
}

// The entries Iterate gives from what Put, Delete and Wipe noted (a batch of a few rows) are the
// ones it decodes from the same bytes (FromRep's copy), whatever the ops, the metas, the sizes
// (a value past the batch's first allocation moves its bytes) and however the batch was built.
TEST(WalWriteBatchTest, NotedEntriesAreTheDecodedOnes) {
  const std::string large(5000, 'v');
  const std::vector<std::function<void(WriteBatch&)>> writes = {
      [](WriteBatch& b) { b.Put(Opts(std::nullopt, std::nullopt, std::nullopt), "a", "1", 7); },
      [](WriteBatch& b) { b.Put(Opts(std::nullopt, 50, std::nullopt), "ttl", "x", 1000); },
      [&](WriteBatch& b) { b.Put(Opts(-3, 10, 99), "big", large, 0); },
      [](WriteBatch& b) { b.Delete(Opts(300, std::nullopt, std::nullopt), "gone", "rank"); },
      [](WriteBatch& b) { b.Delete(WriteOptions{}, ""); },
      [](WriteBatch& b) { b.Wipe(Opts(12, std::nullopt, std::nullopt), "wiped"); },
      [](WriteBatch& b) {
        b.DeleteRange({"a", "c"});
      },
  };
  for (size_t first = 0; first < writes.size(); first++) {
    for (size_t count = 0; count <= 6; count++) {
      WriteBatch batch;
      for (size_t i = 0; i < count; i++) writes[(first + i) % writes.size()](batch);
      WriteBatch decoded;
      ASSERT_TRUE(WriteBatch::FromRep(batch.rep(), &decoded).ok());
      EXPECT_EQ(PartsOf(batch), PartsOf(decoded)) << first << " " << count;
      EXPECT_EQ(PartsOf(batch).size(), count);
      // A copy notes the same offsets into its own bytes; Append and Clear leave it right.
      WriteBatch copy = batch;
      EXPECT_EQ(PartsOf(copy), PartsOf(decoded));
      copy.Append(decoded);
      copy.Put(WriteOptions{}, "after", "append", 0);
      ASSERT_TRUE(WriteBatch::FromRep(copy.rep(), &decoded).ok());
      EXPECT_EQ(PartsOf(copy), PartsOf(decoded));
      copy.Clear();
      copy.Put(WriteOptions{}, "fresh", "1", 0);
      ASSERT_EQ(PartsOf(copy).size(), 1u);
      EXPECT_EQ(PartsOf(copy)[0].key, "fresh");
    }
  }
}

TEST(WalWriteBatchTest, DocumentedBytes) {
  // The example of docs/wal-format.md.
  WriteBatch batch;
  batch.Put(Opts(5, std::nullopt, std::nullopt), "k", "v", 0);
  batch.Delete(WriteOptions{}, "x");
  EXPECT_EQ(batch.rep(), std::string("\x02\x01\x01k\x03\x01\x0av\x00\x01x\x01\x00", 13));
}

}  // namespace
}  // namespace ebb::storage
