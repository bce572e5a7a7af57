// What a cluster node says of itself, read through its commands: CLUSTER INFO's fields and
// CLUSTER NODES's lines, for the tests that spawn cluster nodes.
// Thread-safety: none; one test thread.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {

// A CLUSTER NODES line's fields, split at its spaces.
inline std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

// CLUSTER INFO's value of `field` ("" when absent).
inline std::string ClusterInfo(redisContext* c, const std::string& field) {
  for (const std::string& line : Lines(Cmd(c, {"CLUSTER", "INFO"}).str())) {
    if (line.rfind(field + ":", 0) == 0) return line.substr(field.size() + 1);
  }
  return "";
}

// CLUSTER NODES's line about `id` ("" when absent).
inline std::string NodeLine(redisContext* c, const std::string& id) {
  for (const std::string& line : Lines(Cmd(c, {"CLUSTER", "NODES"}).str())) {
    if (line.rfind(id + " ", 0) == 0) return line;
  }
  return "";
}

}  // namespace ebb::test
