// socket_loop_probe: a PING responder with two event loops, to measure what the loop's system
// calls cost a server on this machine apart from everything a real server does per request
// (docs/performance.md, "Socket I/O through io_uring, measured"). bench/socket_loop_bench.py
// runs it beside redis-server and reads each process's CPU per request.
//
//   epoll  level-triggered epoll_wait, then one recv and one send per ready client: the loop
//          redis-server and ebb-server run (two system calls per client per pass).
//   uring  io_uring: a multishot recv per client into a ring of provided buffers, and the sends
//          of a pass queued and submitted together with the wait for the next completions, in
//          one io_uring_enter per pass (IORING_SETUP_DEFER_TASKRUN runs the receives inside
//          it). `uring-plain` is the same ring without DEFER_TASKRUN (completions by task work
//          the kernel interrupts the loop for).
//
// Requests are parsed and answered with ebb-server's own parser and reply writer: a PING gets
// "+PONG", any other request Redis's unknown-command error (redis-benchmark's CONFIG GET), and
// bytes the parser refuses drop the client. Listens on 127.0.0.1 only.
//
// `socket_loop_probe syscall` prints instead what one system call that does nothing (getppid)
// costs here, the floor of every call the loops make.
//
// Usage: socket_loop_probe epoll|uring|uring-plain PORT
//        socket_loop_probe syscall
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/core/errors.h"

namespace ebb {
namespace {

struct Client {
  std::string in;  // bytes not yet parsed into a whole request
  protocol::RequestParser parser;
  std::string out;              // replies not yet handed to a send
  std::string sending;          // uring: the bytes of the send in flight
  bool send_in_flight = false;  // uring: `sending` is the kernel's until its completion
  bool wants_writable = false;  // epoll: EPOLLOUT is asked for (a reply waits for room)
};

// Answers every whole request in the client's bytes, parsed and answered as ebb-server does
// (its request parser, reply writer and unknown-command error): +PONG to a PING, the error to
// anything else. False when the bytes are not a request (the client is dropped).
bool Consume(Client& c, std::string_view data) {
  static const protocol::ParserLimits kLimits;
  c.in.append(data);
  protocol::ReplyWriter reply(&c.out);
  size_t done = 0;
  for (;;) {
    size_t consumed = 0;
    const protocol::ParseStatus status =
        c.parser.Parse(std::string_view(c.in).substr(done), kLimits, &consumed);
    if (status == protocol::ParseStatus::kError) return false;
    if (status == protocol::ParseStatus::kNeedMore) break;
    done += consumed;
    const std::span<const std::string_view> args = c.parser.args();
    if (args.empty()) continue;  // an empty inline line
    if (args.size() == 1 && EqualsIgnoreCase(args[0], "ping")) {
      reply.SimpleString("PONG");
    } else {
      reply.Error(server::UnknownCommandError(args[0], args.subspan(1)));
    }
  }
  c.in.erase(0, done);
  return true;
}

void SetNoDelay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int Listen(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 512) != 0) {
    perror("listen");
    exit(1);
  }
  return fd;
}

// ---- epoll: recv and send per ready client; EPOLLOUT only while a reply waits for room.

void RunEpoll(int listener) {
  const int ep = epoll_create1(0);
  epoll_event listen_event{.events = EPOLLIN, .data = {.fd = listener}};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &listen_event);
  std::unordered_map<int, Client> clients;
  char buffer[16 << 10];
  epoll_event events[1024];
  auto drop = [&](int fd) {
    close(fd);  // also leaves the epoll set
    clients.erase(fd);
  };
  for (;;) {
    const int ready = epoll_wait(ep, events, 1024, -1);
    for (int i = 0; i < ready; i++) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        const int accepted = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
        if (accepted < 0) continue;
        SetNoDelay(accepted);
        clients[accepted];
        epoll_event event{.events = EPOLLIN, .data = {.fd = accepted}};
        epoll_ctl(ep, EPOLL_CTL_ADD, accepted, &event);
        continue;
      }
      Client& c = clients[fd];
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
        if (got == 0 || (got < 0 && errno != EAGAIN) ||
            (got > 0 && !Consume(c, std::string_view(buffer, static_cast<size_t>(got))))) {
          drop(fd);
          continue;
        }
      }
      if (c.out.empty()) continue;
      const ssize_t sent = send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (sent < 0 && errno != EAGAIN) {
        drop(fd);
        continue;
      }
      c.out.erase(0, sent > 0 ? static_cast<size_t>(sent) : 0);
      if (c.wants_writable == !c.out.empty()) continue;  // the interest stays as it is
      c.wants_writable = !c.out.empty();
      epoll_event event{.events = c.wants_writable ? EPOLLIN | EPOLLOUT : EPOLLIN,
                        .data = {.fd = fd}};
      epoll_ctl(ep, EPOLL_CTL_MOD, fd, &event);
    }
  }
}

// ---- uring: one io_uring_enter per pass submits the pass's sends and waits for completions.
// Completions name a client by an id that is never reused (a socket's number is), so that a
// completion still in the ring for a dropped client finds nothing.

enum class Op : uint32_t { kAccept = 1, kRecv = 2, kSend = 3 };
uint64_t Tag(Op op, uint32_t id) { return (uint64_t{static_cast<uint32_t>(op)} << 32) | id; }

class UringLoop {
 public:
  UringLoop(int listener, unsigned flags) : listener_(listener) {
    io_uring_params params{};
    params.flags = flags;
    if (int e = io_uring_queue_init_params(4096, &ring_, &params); e < 0) Fail("ring", e);
    // The provided buffers' ring, page-aligned as the kernel requires (liburing 2.3 has no
    // io_uring_setup_buf_ring).
    void* ring_memory = mmap(nullptr, kBuffers * sizeof(io_uring_buf), PROT_READ | PROT_WRITE,
                             MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (ring_memory == MAP_FAILED) Fail("buffer ring", -errno);
    buffers_ = static_cast<io_uring_buf_ring*>(ring_memory);
    io_uring_buf_reg registration{};
    registration.ring_addr = reinterpret_cast<uintptr_t>(ring_memory);
    registration.ring_entries = kBuffers;
    registration.bgid = kGroup;
    if (int e = io_uring_register_buf_ring(&ring_, &registration, 0); e < 0) {
      Fail("buffer ring", e);
    }
    io_uring_buf_ring_init(buffers_);
    memory_.resize(size_t{kBuffers} * kBufferBytes);
    for (unsigned id = 0; id < kBuffers; id++) GiveBack(id, static_cast<int>(id));
    io_uring_buf_ring_advance(buffers_, kBuffers);
  }

  [[noreturn]] void Run() {
    ArmAccept();
    for (;;) {
      QueueSends();
      io_uring_submit_and_wait(&ring_, 1);
      unsigned head, seen = 0;
      io_uring_cqe* cqe;
      returned_ = 0;
      io_uring_for_each_cqe(&ring_, head, cqe) {
        seen++;
        Complete(*cqe);
      }
      io_uring_buf_ring_advance(buffers_, returned_);
      io_uring_cq_advance(&ring_, seen);
    }
  }

 private:
  static constexpr unsigned kBuffers = 1024;
  static constexpr unsigned kBufferBytes = 4096;
  static constexpr int kGroup = 1;

  struct Connection {
    int fd = -1;
    Client client;
    bool dropped = false;  // closed once its send in flight completes
  };

  [[noreturn]] static void Fail(const char* what, int error) {
    fprintf(stderr, "%s: %s\n", what, strerror(-error));
    exit(1);
  }

  io_uring_sqe* Sqe(Op op, uint32_t id) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {  // the queue is full: hand it to the kernel first
      io_uring_submit(&ring_);
      sqe = io_uring_get_sqe(&ring_);
    }
    io_uring_sqe_set_data64(sqe, Tag(op, id));
    return sqe;
  }

  void GiveBack(unsigned buffer, int offset) {
    io_uring_buf_ring_add(buffers_, memory_.data() + size_t{buffer} * kBufferBytes, kBufferBytes,
                          static_cast<unsigned short>(buffer), io_uring_buf_ring_mask(kBuffers),
                          offset);
  }

  void ArmAccept() {
    io_uring_prep_multishot_accept(Sqe(Op::kAccept, 0), listener_, nullptr, nullptr, 0);
  }

  void ArmRecv(uint32_t id, int fd) {
    io_uring_sqe* sqe = Sqe(Op::kRecv, id);
    io_uring_prep_recv_multishot(sqe, fd, nullptr, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = kGroup;
  }

  void QueueSends() {
    for (uint32_t id : dirty_) {
      auto it = connections_.find(id);
      if (it == connections_.end() || it->second.dropped) continue;
      Client& c = it->second.client;
      if (c.send_in_flight || c.out.empty()) continue;
      c.sending.swap(c.out);
      c.out.clear();
      io_uring_prep_send(Sqe(Op::kSend, id), it->second.fd, c.sending.data(), c.sending.size(),
                         MSG_NOSIGNAL);
      c.send_in_flight = true;
    }
    dirty_.clear();
  }

  // Closes the socket; the entry goes once no send of it is in flight (the kernel reads its
  // buffer until then). The ring holds the socket while its multishot receive is armed, so
  // close alone would end nothing: shutdown ends the receive and tells the client.
  void Drop(uint32_t id) {
    auto it = connections_.find(id);
    if (it == connections_.end() || it->second.dropped) return;
    shutdown(it->second.fd, SHUT_RDWR);
    close(it->second.fd);
    it->second.dropped = true;
    if (!it->second.client.send_in_flight) connections_.erase(it);
  }

  void Complete(const io_uring_cqe& cqe) {
    const uint64_t tag = io_uring_cqe_get_data64(&cqe);
    const auto id = static_cast<uint32_t>(tag);
    switch (static_cast<Op>(tag >> 32)) {
      case Op::kAccept:
        if (cqe.res >= 0) {
          SetNoDelay(cqe.res);
          const uint32_t new_id = next_id_++;
          connections_[new_id].fd = cqe.res;
          ArmRecv(new_id, cqe.res);
        }
        if (!(cqe.flags & IORING_CQE_F_MORE)) ArmAccept();
        return;
      case Op::kRecv: {
        auto it = connections_.find(id);
        const bool live = it != connections_.end() && !it->second.dropped;
        if (cqe.res > 0) {
          const unsigned buffer = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
          const std::string_view data(memory_.data() + size_t{buffer} * kBufferBytes,
                                      static_cast<size_t>(cqe.res));
          const bool keep = live && Consume(it->second.client, data);
          GiveBack(buffer, returned_++);
          if (!keep) return Drop(id);
          dirty_.push_back(id);
          if (!(cqe.flags & IORING_CQE_F_MORE)) ArmRecv(id, it->second.fd);
        } else if (cqe.res == -ENOBUFS && live) {
          ArmRecv(id, it->second.fd);  // every buffer was taken: ask again once some are back
        } else if (!(cqe.flags & IORING_CQE_F_MORE)) {
          Drop(id);  // end of stream or an error
        }
        return;
      }
      case Op::kSend: {
        auto it = connections_.find(id);
        if (it == connections_.end()) return;
        Client& c = it->second.client;
        c.send_in_flight = false;
        if (it->second.dropped) {
          connections_.erase(it);
          return;
        }
        if (cqe.res < 0) return Drop(id);
        if (static_cast<size_t>(cqe.res) < c.sending.size()) {
          c.out.insert(0, c.sending, static_cast<size_t>(cqe.res));  // the rest goes first
        }
        dirty_.push_back(id);
        return;
      }
    }
  }

  int listener_;
  io_uring ring_{};
  io_uring_buf_ring* buffers_ = nullptr;
  std::vector<char> memory_;
  int returned_ = 0;  // buffers given back in this pass
  uint32_t next_id_ = 1;
  std::unordered_map<uint32_t, Connection> connections_;
  std::vector<uint32_t> dirty_;  // connections that may have replies to send
};

// The mean time of a getppid() over a million, in ns.
double NullSyscallNs() {
  constexpr int kCalls = 1000000;
  timespec start{}, end{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < kCalls; i++) syscall(SYS_getppid);
  clock_gettime(CLOCK_MONOTONIC, &end);
  return (double(end.tv_sec - start.tv_sec) * 1e9 + double(end.tv_nsec - start.tv_nsec)) / kCalls;
}

}  // namespace
}  // namespace ebb

int main(int argc, char** argv) {
  using ebb::NullSyscallNs, ebb::Listen, ebb::RunEpoll, ebb::UringLoop;
  if (argc == 2 && std::string_view(argv[1]) == "syscall") {
    printf("%.1f ns a system call\n", NullSyscallNs());
    return 0;
  }
  const std::string_view mode = argc == 3 ? argv[1] : "";
  if (mode != "epoll" && mode != "uring" && mode != "uring-plain") {
    fprintf(stderr, "usage: socket_loop_probe epoll|uring|uring-plain PORT\n");
    return 2;
  }
  const int listener = Listen(atoi(argv[2]));
  if (mode == "epoll") {
    RunEpoll(listener);
  } else {
    const unsigned flags =
        mode == "uring" ? IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN : 0;
    UringLoop(listener, flags).Run();
  }
}
