// VersionChooser: a pinned offer is kept as a view of the caller's bytes, a plain one as a copy,
// and the choice among them follows the read rule whichever way each came.
#include "storage/db/version_chooser.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::storage {
namespace {

RowMeta At(int64_t ts) {
  RowMeta meta;
  meta.timestamp_ms = ts;
  return meta;
}

TEST(VersionChooserTest, PinnedOfferIsAViewAndPlainOfferACopy) {
  const std::string pinned_bytes = "a value longer than a short string's inline buffer";
  VersionChooser pinned(0);
  EXPECT_FALSE(pinned.OfferPinned(RowKind::kValue, At(1), pinned_bytes, 7));
  EXPECT_TRUE(pinned.value_pinned());
  EXPECT_EQ(pinned.value().data(), pinned_bytes.data());

  VersionChooser copied(0);
  EXPECT_FALSE(copied.Offer(RowKind::kValue, At(1), pinned_bytes, 7));
  EXPECT_FALSE(copied.value_pinned());
  EXPECT_NE(copied.value().data(), pinned_bytes.data());
  EXPECT_EQ(copied.value(), pinned_bytes);
}

// Under a grace the chosen version may come either way, in either order.
TEST(VersionChooserTest, GraceChoosesAcrossPinnedAndCopiedVersions) {
  const std::string newer_written = "written last, ts 100";
  const std::string older_written = "written first, ts 150";
  VersionChooser copy_wins(1000);
  EXPECT_TRUE(copy_wins.OfferPinned(RowKind::kValue, At(100), newer_written, 9));
  EXPECT_TRUE(copy_wins.Offer(RowKind::kValue, At(150), older_written, 8));
  EXPECT_FALSE(copy_wins.value_pinned());
  EXPECT_EQ(copy_wins.value(), older_written);
  EXPECT_EQ(copy_wins.TakeValue(), older_written);

  VersionChooser pin_wins(1000);
  EXPECT_TRUE(pin_wins.Offer(RowKind::kValue, At(100), newer_written, 9));
  EXPECT_TRUE(pin_wins.OfferPinned(RowKind::kValue, At(150), older_written, 8));
  EXPECT_TRUE(pin_wins.value_pinned());
  EXPECT_EQ(pin_wins.TakeValue(), older_written);
  EXPECT_FALSE(pin_wins.value_pinned());
  EXPECT_EQ(pin_wins.value(), "");
}

}  // namespace
}  // namespace ebb::storage
