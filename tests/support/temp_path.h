// A file name under the test temp directory that no other test process shares: ctest runs
// tests side by side, so a fixed name lets one test remove or rewrite another's file.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace ebb::test {

// TempDir()/<stem>-<pid>.<extension>; the caller removes the file.
inline std::string ProcessTempPath(const std::string& stem, const std::string& extension) {
  return ::testing::TempDir() + stem + "-" + std::to_string(::getpid()) + "." + extension;
}

}  // namespace ebb::test
