#include "tests/support/child_process.h"

#include <fcntl.h>
#include <unistd.h>

namespace ebb::test {

pid_t SpawnProcess(const std::vector<std::string>& argv, const SpawnOptions& options) {
  // Built before the fork: the child only calls what is safe after it.
  std::vector<char*> cargs;
  for (const std::string& arg : argv) cargs.push_back(const_cast<char*>(arg.c_str()));
  cargs.push_back(nullptr);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  if (!options.log_path.empty()) {
    const int flags = O_WRONLY | O_CREAT | (options.append_log ? O_APPEND : O_TRUNC);
    const int fd = open(options.log_path.c_str(), flags, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
  }
  close_range(STDERR_FILENO + 1, ~0U, 0);
  if (options.before_exec && !options.before_exec()) _exit(126);
  if (options.search_path) {
    execvp(cargs[0], cargs.data());
  } else {
    execv(cargs[0], cargs.data());
  }
  _exit(127);
}

}  // namespace ebb::test
