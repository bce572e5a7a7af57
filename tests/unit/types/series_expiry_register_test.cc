// Active-active mode's expiry register of a series (types/series_codec.h, types/series_purge.h):
// its metadata extension, the floor it puts under the samples once its expiry has passed, the
// key's expiry it gives while nothing keeps the key, and the purge floor it adds.
#include <gtest/gtest.h>

#include <string>

#include "types/series_codec.h"
#include "types/series_purge.h"

namespace ebb::types {
namespace {

SeriesMeta Registered(int64_t newest, int64_t ts, std::optional<int64_t> expire_at) {
  SeriesMeta meta;
  meta.newest = Sample{newest, 1.0};
  meta.expiry_register = SeriesMeta::ExpiryRegister{.ts = ts, .expire_at = expire_at};
  return meta;
}

TEST(SeriesExpiryRegisterTest, TheExtensionRoundTripsAfterTheOthersAndDamageIsRefused) {
  SeriesMeta meta = Registered(900, 1000, 5000);
  meta.tail_count = 1;
  meta.tail_from = 900;
  meta.hidden = {{10'000, 500}};
  meta.expiry_register->settings_after = true;
  const std::string bytes = EncodeSeriesMeta(meta);
  SeriesMeta back;
  ASSERT_TRUE(DecodeSeriesMeta(bytes, &back));
  EXPECT_EQ(back.expiry_register, meta.expiry_register);
  EXPECT_EQ(back.hidden, meta.hidden);
  EXPECT_FALSE(DecodeSeriesMeta(bytes + "x", &back));
  EXPECT_FALSE(DecodeSeriesMeta(bytes.substr(0, bytes.size() - 1), &back));
  // PERSIST: no expiry; alone, without the hidden extension before it.
  SeriesMeta persisted = Registered(900, 1000, std::nullopt);
  ASSERT_TRUE(DecodeSeriesMeta(EncodeSeriesMeta(persisted), &back));
  EXPECT_EQ(back.expiry_register, persisted.expiry_register);
  EXPECT_TRUE(back.hidden.empty());
  // The flags byte: an unknown bit, or an expire_at given without its bit.
  std::string damaged = EncodeSeriesMeta(persisted);
  const size_t flags = damaged.size() - 9;
  damaged[flags] = 4;
  EXPECT_FALSE(DecodeSeriesMeta(damaged, &back));
  damaged[flags] = 0;
  damaged[flags + 1] = 1;
  EXPECT_FALSE(DecodeSeriesMeta(damaged, &back));
}

TEST(SeriesExpiryRegisterTest, TheRegisterHidesWhatIsAtOrBeforeItsTOnceItsExpiryPassed) {
  const SeriesMeta meta = Registered(1200, 1000, 5000);
  EXPECT_EQ(SeriesRegisterFloor(meta, 4999), 0);
  EXPECT_EQ(SeriesRegisterFloor(meta, 5000), 1001);
  EXPECT_EQ(SeriesReadFloor(meta, 5000), 1001);
  EXPECT_EQ(SeriesRegisterFloor(Registered(1200, 1000, std::nullopt), 9000), 0);
  // Retention's floor wins when it is higher.
  SeriesMeta retained = meta;
  retained.settings.retention_ms = 100;
  EXPECT_EQ(SeriesReadFloor(retained, 5000), 1100);
  EXPECT_EQ(SeriesReadFloor(retained, 10), 1100);
}

TEST(SeriesExpiryRegisterTest, TheKeyExpiresWholeOnlyWhileNothingKeepsIt) {
  EXPECT_EQ(SeriesKeyExpiry(Registered(1000, 1000, 5000)), 5000);
  EXPECT_EQ(SeriesKeyExpiry(Registered(1001, 1000, 5000)), std::nullopt);  // a sample after T
  SeriesMeta empty;
  empty.expiry_register = SeriesMeta::ExpiryRegister{.ts = 1000, .expire_at = 5000};
  EXPECT_EQ(SeriesKeyExpiry(empty), 5000);
  empty.expiry_register->settings_after = true;  // a TS.CREATE made after the expiry
  EXPECT_EQ(SeriesKeyExpiry(empty), std::nullopt);
  EXPECT_EQ(SeriesKeyExpiry(Registered(900, 1000, std::nullopt)), std::nullopt);
  EXPECT_EQ(SeriesKeyExpiry(SeriesMeta()), std::nullopt);
}

// Compaction (its clock half a deadline behind) purges what the register hides once its clock
// has passed the expiry; a rule's source keeps everything.
TEST(SeriesExpiryRegisterTest, ThePurgeFloorFollowsTheRegisterAtTheCompactionsClock) {
  SeriesMeta meta = Registered(1200, 1000, 5000);
  EXPECT_EQ(SeriesPurgeFloor(meta, 4999), 0);
  EXPECT_EQ(SeriesPurgeFloor(meta, 5000), 1001);
  meta.rules.push_back(SeriesRule{.dest = "d"});
  EXPECT_EQ(SeriesPurgeFloor(meta, 5000), 0);
}

}  // namespace
}  // namespace ebb::types
