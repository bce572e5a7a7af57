// Helpers for the config tests: a scratch directory and whole-file read/write.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "server/config/config.h"

namespace ebb::server::config_test {

// A start-up outcome (ConfigRegistry::LoadFile, ParseCommandLine) as the tests check it: true on
// success, else false with what ebb-server would print (ConfigErrorText) in *error.
inline bool Succeeded(const Result<ConfigCode>& r, std::string* error) {
  *error = r.ok() ? std::string() : ConfigErrorText(r);
  return r.ok();
}

// A fresh directory under the test temp dir, removed when the object dies.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "ebb_config_XXXXXX";
    char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ebb::server::config_test
