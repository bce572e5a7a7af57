// VersionEdit's encoding (docs/manifest-format.md): every field round-trips, a file body from an
// older writer decodes with safe defaults, and the document's worked example is exact.
#include "storage/db/version_edit.h"

#include <gtest/gtest.h>

#include "storage/format/internal_key.h"
#include "storage/util/coding.h"

namespace ebb::storage {
namespace {

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += ' ';
    out += digits[static_cast<uint8_t>(bytes[i]) >> 4];
    out += digits[static_cast<uint8_t>(bytes[i]) & 15];
  }
  return out;
}

// The worked example's file 11.
FileMetaData ExampleFile() {
  FileMetaData f;
  f.number = 11;
  f.file_size = 4000;
  AppendInternalKey(&f.smallest, "a", 5, RowKind::kValue);
  AppendInternalKey(&f.largest, "b", 3, RowKind::kTombstone);
  f.props.entries = 2;
  f.props.tombstones = 1;
  f.props.min_timestamp = 100;
  f.props.max_timestamp = 150;
  f.props.min_expire_at = 200;
  f.props.max_expire_at = 200;
  f.props.has_non_expiring = false;
  f.props.min_sequence = 3;
  f.props.max_sequence = 5;
  f.props.meta_features = 3;
  f.props.has_untimed_rows = false;
  return f;
}

TEST(VersionEditTest, WorkedExampleOfTheManifestDoc) {
  VersionEdit edit;
  edit.SetLogNumber(9);
  edit.SetNextFileNumber(12);
  edit.SetLastSequence(300);
  edit.RemoveFile(0, 7);
  edit.AddFile(1, ExampleFile());
  std::string encoded;
  edit.EncodeTo(&encoded);
  EXPECT_EQ(Hex(encoded),
            "01 09 02 0c 03 ac 02 04 00 07 05 2b 01 0b a0 1f 09 61 01 05 00 00 00 00 00 00 09 62 "
            "00 03 00 00 00 00 00 00 02 01 c8 01 ac 02 90 03 90 03 00 03 05 00 03 00 00 00 00");
  EXPECT_EQ(encoded.size(), 55u);

  // The second example: a FLUSHDB's range deletion, and expiration switched off.
  VersionEdit flush;
  flush.AddRangeDeletion(RangeDeletion{{std::string("\x01\x00", 2), "\x01\x01"}, 301});
  flush.SetExpiryFrozenAt(1'700'000'000'000);
  encoded.clear();
  flush.EncodeTo(&encoded);
  EXPECT_EQ(Hex(encoded), "06 02 01 00 02 01 01 ad 02 08 80 a0 ab fe f9 62");
}

TEST(VersionEditTest, EveryFieldRoundTrips) {
  VersionEdit edit;
  edit.SetLogNumber(1);
  edit.SetNextFileNumber(2);
  edit.SetLastSequence(3);
  edit.RemoveFile(4, 5);
  FileMetaData f = ExampleFile();
  f.props.has_untimed_rows = true;
  f.props.per_item_rows = 6;
  f.props.whole_file_rows = 7;
  f.props.owner_rows = 8;
  edit.AddFile(2, f);
  edit.AddRangeDeletion(RangeDeletion{{"a", "b"}, 10});
  edit.RetireRangeDeletion(RangeDeletion{{"c", "d"}, 11});
  edit.AddPurgeHint(PurgeHint{{"e", "f"}, -12});
  edit.RetirePurgeHint(PurgeHint{{"g", "h"}, 13});
  edit.SetExpiryFrozenAt(VersionEdit::kExpiryRunning);
  std::string encoded;
  edit.EncodeTo(&encoded);
  VersionEdit decoded;
  ASSERT_TRUE(decoded.DecodeFrom(encoded, "test").ok());
  EXPECT_EQ(decoded.log_number(), 1u);
  EXPECT_EQ(decoded.deleted_files(), edit.deleted_files());
  ASSERT_EQ(decoded.new_files().size(), 1u);
  EXPECT_EQ(decoded.new_files()[0].first, 2);
  EXPECT_EQ(decoded.new_files()[0].second.props.owner_rows, 8u);
  EXPECT_EQ(decoded.new_files()[0].second.props.whole_file_rows, 7u);
  EXPECT_TRUE(decoded.new_files()[0].second.props.has_untimed_rows);
  EXPECT_EQ(decoded.range_deletions(), edit.range_deletions());
  EXPECT_EQ(decoded.retired_range_deletions(), edit.retired_range_deletions());
  EXPECT_EQ(decoded.purge_hints(), edit.purge_hints());
  EXPECT_EQ(decoded.retired_purge_hints(), edit.retired_purge_hints());
  EXPECT_EQ(decoded.expiry_frozen_at(), VersionEdit::kExpiryRunning);
  // Any cut is a Corruption, never a silently shorter edit.
  for (size_t n = 1; n < encoded.size(); n++) {
    VersionEdit cut;
    Status s = cut.DecodeFrom(std::string_view(encoded).substr(0, n), "test");
    if (s.ok()) continue;  // a cut between two whole fields
    EXPECT_TRUE(s.IsCorruption()) << n;
  }
}

TEST(VersionEditTest, AFileBodyFromAnOlderWriterAssumesUntimedRows) {
  VersionEdit edit;
  edit.AddFile(1, ExampleFile());
  std::string encoded;
  edit.EncodeTo(&encoded);
  // Drop the four fields added later from the body (its last four bytes), fixing its length.
  std::string_view in(encoded);
  uint32_t tag;
  std::string_view body;
  ASSERT_TRUE(GetVarint32(&in, &tag));
  ASSERT_TRUE(GetLengthPrefixed(&in, &body));
  std::string old;
  PutVarint32(&old, tag);
  PutLengthPrefixed(&old, body.substr(0, body.size() - 4));
  VersionEdit decoded;
  ASSERT_TRUE(decoded.DecodeFrom(old, "test").ok());
  ASSERT_EQ(decoded.new_files().size(), 1u);
  EXPECT_TRUE(decoded.new_files()[0].second.props.has_untimed_rows);
  EXPECT_EQ(decoded.new_files()[0].second.props.owner_rows, 0u);
}

}  // namespace
}  // namespace ebb::storage
