#include "tests/support/test_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "tests/support/child_process.h"

#ifndef EBB_SERVER_PATH
#define EBB_SERVER_PATH ""
#endif

namespace ebb::test {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string Shell(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    *status = -1;
    return out;
  }
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) out.append(buf, n);
  *status = ::pclose(pipe);
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

// A Connect()ion's reply timeout, and DEBUG DIGEST's.
constexpr timeval kReplyTimeout{5, 0};
constexpr timeval kDigestTimeout{120, 0};

}  // namespace

Reply Cmd(redisContext* c, const std::vector<std::string>& args) {
  // A test goes on after a helper's ASSERT failed (a server that did not start): its commands
  // fail, the test does not crash.
  if (c == nullptr) return ReplyFromHiredis(nullptr, nullptr);
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  void* raw = redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data());
  return ReplyFromHiredis(c, raw);
}

Reply Cmd(redisContext* c, std::initializer_list<std::string_view> args) {
  std::vector<std::string> v;
  for (auto a : args) v.emplace_back(a);
  return Cmd(c, v);
}

void Append(redisContext* c, const std::vector<std::string>& args) {
  if (c == nullptr) return;
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data());
}

long long InfoField(redisContext* c, const std::string& section, const std::string& field) {
  return InfoField(Cmd(c, {"INFO", section}).str(), field);
}

std::string InfoText(redisContext* c, const std::string& section, const std::string& field) {
  const std::string info = Cmd(c, {"INFO", section}).str();
  const std::string key = "\r\n" + field + ":";
  const size_t at = info.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  return info.substr(from, info.find("\r\n", from) - from);
}

std::string WaitCaughtUp(redisContext* replica, redisContext* master) {
  const long long want = InfoField(master, "replication", "master_repl_offset");
  if (want < 0) return "the master's INFO replication has no master_repl_offset";
  std::string link;
  long long got = -1;
  for (int i = 0; i < 1000; i++) {
    link = InfoText(replica, "replication", "master_link_status");
    got = InfoField(replica, "replication", "slave_repl_offset");
    if (link == "up" && got >= want) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "replica at " + std::to_string(got) + " (link " + link + "), master at " +
         std::to_string(want);
}

std::string DigestReply(redisContext* c, const std::vector<std::string>& command) {
  if (c == nullptr) return {};
  redisSetTimeout(c, kDigestTimeout);
  std::string digest = Cmd(c, command).str();
  redisSetTimeout(c, kReplyTimeout);
  return digest;
}

std::string Digest(redisContext* c) { return DigestReply(c, {"DEBUG", "DIGEST"}); }

bool DirContains(const std::string& dir, const std::string& needle) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.find(needle) != std::string::npos) return true;
  }
  return false;
}

long long WaitInfoField(redisContext* c, const std::string& section, const std::string& field,
                        long long want, std::chrono::milliseconds timeout) {
  constexpr auto kPoll = std::chrono::milliseconds(20);
  long long v = -1;
  for (auto waited = std::chrono::milliseconds(0); waited < timeout; waited += kPoll) {
    v = InfoField(c, section, field);
    if (v == want) break;
    std::this_thread::sleep_for(kPoll);
  }
  return v;
}

Reply ReadReply(redisContext* c) {
  void* raw = nullptr;
  if (c == nullptr || redisGetReply(c, &raw) != REDIS_OK) return ReplyFromHiredis(c, nullptr);
  return ReplyFromHiredis(c, raw);
}

RawConnection::RawConnection(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd_);
    fd_ = -1;
  }
}

std::unique_ptr<RawConnection> RawConnection::Accept(int listen_fd, int timeout_ms) {
  pollfd p{listen_fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) != 1) return nullptr;
  const int fd = accept(listen_fd, nullptr, nullptr);
  if (fd < 0) return nullptr;
  std::unique_ptr<RawConnection> c(new RawConnection());
  c->fd_ = fd;
  return c;
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) close(fd_);
}

bool RawConnection::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool RawConnection::ReadSome(int timeout_ms) {
  if (fd_ < 0 || eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return false;
  char buf[16384];
  ssize_t n = recv(fd_, buf, sizeof(buf), 0);
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(buf, static_cast<size_t>(n));
  return true;
}

std::string RawConnection::ReadExactly(size_t n, int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (buffer_.size() < n && Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (!ReadSome(static_cast<int>(left.count()) + 1) && eof_) break;
  }
  std::string out = buffer_.substr(0, n);
  buffer_.erase(0, out.size());
  return out;
}

std::string RawConnection::ReadUntil(std::string_view needle, int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    size_t pos = buffer_.find(needle);
    if (pos != std::string::npos) {
      std::string out = buffer_.substr(0, pos + needle.size());
      buffer_.erase(0, out.size());
      return out;
    }
    if (Clock::now() >= deadline) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (!ReadSome(static_cast<int>(left.count()) + 1) && eof_) break;
  }
  std::string out;
  out.swap(buffer_);
  return out;
}

bool RawConnection::WaitClosed(int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!eof_ && Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    ReadSome(static_cast<int>(left.count()) + 1);
    buffer_.clear();
  }
  return eof_;
}

namespace {

// The ports a test hands out: a range outside the kernel's ephemeral one
// (/proc/sys/net/ipv4/ip_local_port_range), so that no outgoing connection is given one. Below it
// (its lower half) where it starts high enough, else above it, else [16384, 32768) as on a
// default kernel.
struct PortRange {
  int low;
  int high;  // past the last
};
PortRange TestPortRange() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int first = 0;
  int last = 0;
  if (in >> first >> last) {
    if (first > 2048) return {first / 2, first};
    if (last <= 65535 - 2048) return {last + 1, 65536};
  }
  return {16384, 32768};
}

bool BindLoopback(int fd, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
}

// The ports every test process on this machine handed out in the last kPortReuseMs, in a file
// they share under flock(2): `<port> <wall ms>` per line. A server a test left following a port
// (a replica its master's, a peer or a cluster node another's) knocks on it until it stops; a
// test in another process that took the port meanwhile would receive what was not its own.
constexpr int64_t kPortReuseMs = 10 * 60 * 1000;

int64_t WallMsNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Claims `port` in the shared file: false when another process (or this one) handed it out
// within kPortReuseMs. Without the file (it cannot be opened) every port is free to claim.
bool ClaimPortAcrossProcesses(int port) {
  static const std::string path =
      (std::filesystem::temp_directory_path() / "ebb-test-ports").string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return true;
  if (::flock(fd, LOCK_EX) != 0) {
    ::close(fd);
    return true;
  }
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  const int64_t now = WallMsNow();
  std::string kept;
  bool taken = false;
  std::istringstream in(text);
  for (long long p = 0, ms = 0; in >> p >> ms;) {
    if (now - ms >= kPortReuseMs || ms > now) continue;  // aged out (or a clock that moved back)
    taken = taken || p == port;
    kept += std::to_string(p) + " " + std::to_string(ms) + "\n";
  }
  if (!taken) kept += std::to_string(port) + " " + std::to_string(now) + "\n";
  if (::ftruncate(fd, 0) == 0 && ::lseek(fd, 0, SEEK_SET) == 0) {
    for (std::string_view rest = kept; !rest.empty();) {
      const ssize_t n = ::write(fd, rest.data(), rest.size());
      if (n <= 0) break;
      rest.remove_prefix(static_cast<size_t>(n));
    }
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return !taken;
}

}  // namespace

int BindFreeLoopbackPort(int* port) {
  // Outside the ephemeral range (TestPortRange): a port the test releases before its server
  // listens there is never taken meanwhile by an outgoing connection (a peer link, a client) of
  // a test running beside it, as a kernel-chosen port (bind to 0) can be. The start is random per
  // call, so tests side by side rarely probe the same ports.
  *port = 0;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const auto [low, high] = TestPortRange();
  // Never the same port twice in one process: a test takes several (a client port, a bus port)
  // before anything listens on them. Nor one another test process took lately: the claim comes
  // before the probe by binding, so no process binds, even for a moment, a port another was
  // handed, whose server may be binding it just then (ClaimPortAcrossProcesses).
  static std::mutex mu;
  static std::set<int> handed_out;
  static std::atomic<uint64_t> calls{0};
  const uint64_t start =
      static_cast<uint64_t>(getpid()) * 7919 + calls++ * 104729 +
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int i = 0; i < 256; i++) {
    const int candidate = low + static_cast<int>((start + static_cast<uint64_t>(i)) %
                                                 static_cast<uint64_t>(high - low));
    {
      std::lock_guard lock(mu);
      if (!handed_out.insert(candidate).second) continue;
    }
    if (ClaimPortAcrossProcesses(candidate) && BindLoopback(fd, candidate)) {
      *port = candidate;
      return fd;
    }
  }
  // Every probe taken: the kernel's choice, as before.
  sockaddr_in addr{};
  socklen_t len = sizeof(addr);
  if (BindLoopback(fd, 0) && getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    *port = ntohs(addr.sin_port);
  }
  return fd;
}

int TestServer::FreePort() {
  int port = 0;
  const int fd = BindFreeLoopbackPort(&port);
  if (fd >= 0) close(fd);
  return port;
}

LoopbackListener::LoopbackListener() : fd_(BindFreeLoopbackPort(&port_)) {
  listening_ = fd_ >= 0 && listen(fd_, 4) == 0;
}

LoopbackListener::~LoopbackListener() {
  if (fd_ >= 0) close(fd_);
}

std::unique_ptr<RawConnection> LoopbackListener::Accept(int timeout_ms) const {
  return RawConnection::Accept(fd_, timeout_ms);
}

bool EnsureFileLimit(uint64_t fds) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return false;
  if (lim.rlim_cur >= fds) return true;
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < fds) return false;
  lim.rlim_cur = fds;
  return setrlimit(RLIMIT_NOFILE, &lim) == 0;
}

TestServer::TestServer() : reserved_fd_(BindFreeLoopbackPort(&port_)) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "ebb-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) != nullptr) root_ = tmpl;
  data_dir_ = root_ + "/data";
}

TestServer::~TestServer() {
  Stop();
  ReleasePort();
  // EBB_KEEP_TEST_DIRS=1 keeps each server's directory (data and server.log) for a post-mortem.
  const char* keep = std::getenv("EBB_KEEP_TEST_DIRS");
  if (!root_.empty() && (keep == nullptr || std::string_view(keep) != "1")) {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
}

bool TestServer::Start(std::vector<std::string> extra_args) {
  error_.clear();
  args_ = std::move(extra_args);
  std::string server_path = EBB_SERVER_PATH;
  if (server_path.empty()) {
    error_ = "EBB_SERVER_PATH is not defined (ebb-server is not built)";
    return false;
  }
  if (root_.empty()) {
    error_ = "could not create a temporary directory";
    return false;
  }
  std::vector<std::string> argv = {server_path};
  // A configuration file comes first, as redis-server reads it; the options after it win.
  auto rest = args_.begin();
  if (rest != args_.end() && !rest->starts_with("-")) argv.push_back(*rest++);
  const std::vector<std::string> harness = {"--port",  std::to_string(port_),    "--dir",
                                            data_dir_, "--enable-debug-command", "yes"};
  argv.insert(argv.end(), harness.begin(), harness.end());
  argv.insert(argv.end(), rest, args_.end());
  std::string log = log_path();

  SpawnOptions spawn{.log_path = log};
  ReleasePort();
  if (open_files_limit_ > 0) {
    spawn.before_exec = [limit = open_files_limit_] {
      const rlimit lim{limit, limit};
      prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0);  // no raising it back after exec
      return setrlimit(RLIMIT_NOFILE, &lim) == 0;
    };
  }
  pid_ = SpawnProcess(argv, spawn);
  if (pid_ < 0) {
    error_ = "fork failed";
    return false;
  }

  auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    if (!Running()) {
      error_ = "ebb-server exited during startup; log:\n" + ReadLog();
      return false;
    }
    RedisConnection c = Connect();
    if (c && !c->err) {
      Reply r = Cmd(c.get(), {"PING"});
      if (r.is_status() && r.str() == "PONG") return true;
      // A server started with requirepass answers NOAUTH: it is up.
      if (r.is_error() && r.str().rfind("NOAUTH", 0) == 0) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  error_ = "ebb-server did not answer PING within 10 s; log:\n" + ReadLog();
  Kill();
  return false;
}

bool TestServer::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    Reaped();
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return false;
  }
  return true;
}

int TestServer::WaitExit(int timeout_ms) {
  if (pid_ <= 0) return -1;
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (Clock::now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      Reaped();
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (r < 0) {
      Reaped();
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -2;  // still running
}

int TestServer::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int code = WaitExit(10000);
  if (code == -2) {
    Kill();
    return -1;
  }
  return code;
}

void TestServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  Reaped();
}

void TestServer::Reaped() {
  pid_ = -1;
  if (reserved_fd_ >= 0) return;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  // The server's accepted connections may linger in TIME_WAIT on the port: they do not keep a
  // socket with SO_REUSEADDR from binding it.
  const int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 && BindLoopback(fd, port_)) {
    reserved_fd_ = fd;
    return;
  }
  ::close(fd);
}

void TestServer::ReleasePort() {
  if (reserved_fd_ < 0) return;
  ::close(reserved_fd_);
  reserved_fd_ = -1;
}

bool TestServer::Restart() {
  Stop();
  return Start(args_);
}

RedisConnection TestServer::Connect() const {
  RedisConnection c(redisConnectWithTimeout("127.0.0.1", port_, kReplyTimeout));
  if (c && !c->err) redisSetTimeout(c.get(), kReplyTimeout);
  return c;
}

std::string TestServer::ReadLog() const {
  std::ifstream in(log_path());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string LogTails(const std::vector<std::unique_ptr<TestServer>>& servers) {
  std::string out;
  for (size_t i = 0; i < servers.size(); i++) {
    const std::string log = servers[i]->ReadLog();
    out += "\n--- node " + std::to_string(i) + "'s log, last lines:\n" +
           log.substr(log.size() > 3000 ? log.size() - 3000 : 0);
  }
  return out;
}

size_t CountOccurrences(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) {
    n++;
  }
  return n;
}

}  // namespace ebb::test
