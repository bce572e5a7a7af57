#include "bench/engine_workloads.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <numeric>
#include <random>
#include <string_view>
#include <vector>

namespace ebb::bench {
namespace {

// 100-byte values cut at rotating offsets from 1 MiB of random letters.
class ValueSource {
 public:
  ValueSource() : data_(1 << 20, '\0') {
    std::mt19937_64 rng(301);
    for (char& c : data_) c = static_cast<char>('a' + rng() % 26);
  }
  std::string_view Next() {
    if (pos_ + kValueSize > data_.size()) pos_ = 0;
    std::string_view v(data_.data() + pos_, kValueSize);
    pos_ += 97;  // not a multiple of the value size: consecutive values differ
    return v;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

void FormatKey(uint64_t i, bool miss, char* out) {
  for (size_t d = kKeySize; d-- > 0;) {
    out[d] = static_cast<char>('0' + i % 10);
    i /= 10;
  }
  if (miss) out[kKeySize - 1] = ':';
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <typename Body>
Measurement Timed(uint64_t ops, Body&& body) {
  Measurement m;
  m.ops = ops;
  const double cpu_start = ProcessCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  m.found = body();
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.cpu_seconds = ProcessCpuSeconds() - cpu_start;
  return m;
}

std::vector<uint64_t> Permutation(uint64_t num, uint64_t seed) {
  std::vector<uint64_t> order(num);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

}  // namespace

std::string MakeKey(uint64_t i, bool miss) {
  std::string key(kKeySize, '0');
  FormatKey(i, miss, key.data());
  return key;
}

Measurement FillSeq(BenchEngine& e, uint64_t num) {
  ValueSource values;
  char key[kKeySize];
  return Timed(num, [&] {
    for (uint64_t i = 0; i < num; i++) {
      FormatKey(i, false, key);
      e.Put(std::string_view(key, kKeySize), values.Next(), 0);
    }
    return num;
  });
}

Measurement FillRandom(BenchEngine& e, uint64_t num, uint64_t seed, int64_t ttl_ms,
                       uint64_t live_every, bool group_live) {
  const std::vector<uint64_t> order = Permutation(num, seed);
  ValueSource values;
  char key[kKeySize];
  return Timed(num, [&] {
    for (uint64_t i : order) {
      const bool live = live_every > 0 && i % live_every == 0;
      FormatKey(live && group_live ? num + i : i, false, key);
      e.Put(std::string_view(key, kKeySize), values.Next(), live ? 0 : ttl_ms);
    }
    return num;
  });
}

Measurement Overwrite(BenchEngine& e, uint64_t num, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ValueSource values;
  char key[kKeySize];
  return Timed(num, [&] {
    for (uint64_t i = 0; i < num; i++) {
      FormatKey(rng() % num, false, key);
      e.Put(std::string_view(key, kKeySize), values.Next(), 0);
    }
    return num;
  });
}

Measurement ReadRandom(BenchEngine& e, uint64_t reads, uint64_t num, bool miss, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string value;
  char key[kKeySize];
  return Timed(reads, [&] {
    uint64_t found = 0;
    for (uint64_t i = 0; i < reads; i++) {
      FormatKey(rng() % num, miss, key);
      if (e.Get(std::string_view(key, kKeySize), &value)) found++;
    }
    return found;
  });
}

Measurement ReadSeq(BenchEngine& e) {
  Measurement m = Timed(0, [&] { return e.ScanAll(); });
  m.ops = m.found;
  return m;
}

Measurement SeekRandom(BenchEngine& e, uint64_t seeks, uint64_t num, uint64_t seed) {
  std::mt19937_64 rng(seed);
  char key[kKeySize];
  uint64_t bytes = 0;
  std::unique_ptr<BenchCursor> cursor = e.NewCursor();
  return Timed(seeks, [&] {
    uint64_t found = 0;
    for (uint64_t i = 0; i < seeks; i++) {
      FormatKey(rng() % num, false, key);
      if (cursor->Seek(std::string_view(key, kKeySize), &bytes)) found++;
    }
    return found;
  });
}

DiskUsage BytesOnDisk(const std::string& dir) {
  namespace fs = std::filesystem;
  DiskUsage u;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    const uintmax_t size = it->file_size(size_ec);
    if (size_ec) continue;  // a directory, or a file deleted meanwhile
    u.total += size;
    if (it->path().extension() == ".sst") u.sst += size;
  }
  return u;
}

}  // namespace ebb::bench
