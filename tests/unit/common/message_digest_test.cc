// SHA-1 and SHA-256 (common/message_digest.h) against the published test vectors, called over and
// over on one thread (the reused context starts each digest afresh) and from several threads.
#include "common/message_digest.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace ebb {
namespace {

std::string Hex(const unsigned char* digest, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; i++) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

std::string Sha1Of(std::string_view data) {
  unsigned char digest[kSha1Size];
  Sha1(data, digest);
  return Hex(digest, kSha1Size);
}

std::string Sha256Of(std::string_view data) {
  unsigned char digest[kSha256Size];
  Sha256(data, digest);
  return Hex(digest, kSha256Size);
}

constexpr std::string_view kAbcSha1 = "a9993e364706816aba3e25717850c26c9cd0d89d";
constexpr std::string_view kAbcSha256 =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(MessageDigestTest, MatchesThePublishedVectors) {
  EXPECT_EQ(Sha1Of("abc"), kAbcSha1);
  EXPECT_EQ(Sha1Of(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha256Of("abc"), kAbcSha256);
  EXPECT_EQ(Sha256Of(""), kEmptySha256);
  EXPECT_EQ(Sha256Of(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(MessageDigestTest, EachDigestStartsAfreshOnTheThreadsContext) {
  for (int i = 0; i < 100; i++) {
    ASSERT_EQ(Sha256Of("abc"), kAbcSha256);
    ASSERT_EQ(Sha1Of("abc"), kAbcSha1);  // the other algorithm between two of one
    ASSERT_EQ(Sha256Of(""), kEmptySha256);
  }
}

TEST(MessageDigestTest, ThreadsDigestAtOnce) {
  constexpr int kThreads = 4;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < 1000; i++) {
        if (Sha256Of("abc") != kAbcSha256 || Sha1Of("abc") != kAbcSha1) wrong[t]++;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; t++) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace ebb
