// ebb-check: verifies an ebb data directory offline and prints what is damaged; with --repair,
// salvages what is readable.
//
//   ebb-check [-v] <data-dir>
//   ebb-check --repair <data-dir>
//
// Checking prints one line per problem ("damaged: <file>: <what> at offset <n>", "warning:
// ..."), with -v also one line per intact file, then a summary. Exit status: 0 when nothing is
// damaged (warnings such as a torn WAL tail allowed), 1 when something is damaged, 2 on bad
// usage. Run it on a stopped server's directory (storage/check/data_dir_checker.h says what it
// checks).
//
// --repair (storage/check/data_dir_repairer.h) keeps every table entry and WAL record that
// reads intact, moves what it replaced or could not use to <data-dir>/lost/, writes a new
// manifest, prints what it did, then checks the result. Exit status: 0 when the repaired
// directory checks clean, 1 otherwise or when the repair failed (a server holds the directory,
// an I/O error), 2 on bad usage.
#include <cstdio>
#include <cstring>
#include <string>

#include "storage/check/data_dir_checker.h"
#include "storage/check/data_dir_repairer.h"

namespace {

constexpr char kUsage[] =
    "usage: ebb-check [-v] <data-dir>\n       ebb-check --repair <data-dir>\n";

int Check(const std::string& dir, bool verbose) {
  ebb::storage::DataDirChecker checker(dir);
  const ebb::storage::CheckReport report = checker.Run();
  std::fputs(report.ToString(verbose).c_str(), stdout);
  return report.damaged() ? 1 : 0;
}

int Repair(const std::string& dir) {
  ebb::storage::RepairReport report;
  const ebb::storage::Status s = ebb::storage::DataDirRepairer(dir).Run(&report);
  std::fputs(report.ToString().c_str(), stdout);
  if (!s.ok()) {
    std::fprintf(stderr, "repair failed: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("checking the repaired directory:\n");
  return Check(dir, false);
}

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false, repair = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-v") == 0 || std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
    } else if (std::strcmp(argv[i], "--repair") == 0) {
      repair = true;
    } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (dir.empty()) {
      dir = argv[i];
    } else {
      dir.clear();
      break;
    }
  }
  if (dir.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  return repair ? Repair(dir) : Check(dir, verbose);
}
