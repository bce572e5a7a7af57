// ebb-check: verifies an ebb data directory offline and prints what is damaged.
//
//   ebb-check [-v] <data-dir>
//
// Prints one line per problem ("damaged: <file>: <what> at offset <n>", "warning: ..."), with
// -v also one line per intact file, then a summary. Exit status: 0 when nothing is damaged
// (warnings such as a torn WAL tail allowed), 1 when something is damaged, 2 on bad usage.
// Run it on a stopped server's directory (storage/check/data_dir_checker.h says what it checks).
#include <cstdio>
#include <cstring>
#include <string>

#include "storage/check/data_dir_checker.h"

int main(int argc, char** argv) {
  bool verbose = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-v") == 0 || std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
    } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: ebb-check [-v] <data-dir>\n");
      return 0;
    } else if (dir.empty()) {
      dir = argv[i];
    } else {
      dir.clear();
      break;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: ebb-check [-v] <data-dir>\n");
    return 2;
  }
  ebb::storage::DataDirChecker checker(dir);
  const ebb::storage::CheckReport report = checker.Run();
  std::fputs(report.ToString(verbose).c_str(), stdout);
  return report.damaged() ? 1 : 0;
}
