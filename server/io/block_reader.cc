#include "server/io/block_reader.h"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstring>
#include <string>

#include "server/core/server_stats.h"
#include "storage/env/file.h"
#include "storage/table/table.h"

namespace ebb::server {
namespace {

storage::Status ReadError(const storage::BlockFetch::Want& want, int err) {
  return storage::Status::IOError("pread " + want.table->name() + ": " + std::strerror(err));
}

}  // namespace

BlockReader::BlockReader(boost::asio::io_context& io, ServerStats* stats, Backend preferred)
    : io_(io),
      stats_(stats),
      alive_(std::make_shared<bool>(true)),
      arena_(kSlotAlignment, kSlots * kSlotBytes) {
  free_slots_.reserve(kSlots);
  for (uint32_t i = kSlots; i-- > 0;) free_slots_.push_back(i);  // slot 0 first
  if (preferred == Backend::kIoUring && InitRing()) {
    backend_ = Backend::kIoUring;
  } else {
    backend_ = Backend::kThreads;
  }
}

bool BlockReader::InitRing() {
  // The kernel finishes a completed read (posts its completion) when this thread next asks for
  // completions (DEFER_TASKRUN), rather than interrupting it for each one, and flags that it has
  // some to finish (TASKRUN_FLAG), so a turn of the loop enters the kernel only when it has
  // reads to submit or completions to collect (SubmitPrepared, OnCompletions). Older kernels:
  // without deferral, still without the interruption (COOP_TASKRUN); else none of these.
  static constexpr unsigned kFlagSets[] = {
      IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
      IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, 0};
  int err = -EINVAL;
  for (const unsigned flags : kFlagSets) {
    io_uring_params params{};
    params.flags = flags;
    err = io_uring_queue_init_params(kRingEntries, &ring_, &params);
    if (err != -EINVAL) break;
  }
  if (err < 0) {
    spdlog::warn("io_uring is not available ({}): table blocks are read on {} threads",
                 std::strerror(-err), kThreads);
    return false;
  }
  event_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (event_fd_ < 0 || io_uring_register_eventfd(&ring_, event_fd_) < 0) {
    spdlog::warn("io_uring eventfd: {}: table blocks are read on {} threads", std::strerror(errno),
                 kThreads);
    if (event_fd_ >= 0) ::close(event_fd_);
    event_fd_ = -1;
    io_uring_queue_exit(&ring_);
    return false;
  }
  event_ = std::make_unique<boost::asio::posix::stream_descriptor>(io_, event_fd_);
  ring_ready_ = true;
  arena_registered_ = RegisterArena();
  return true;
}

bool BlockReader::RegisterArena() {
  const iovec arena{arena_.data(), arena_.size()};
  const int err = io_uring_register_buffers(&ring_, &arena, 1);
  if (err < 0) {
    spdlog::info("io_uring: read buffers not registered ({}): reads pin their pages each time",
                 std::strerror(-err));
    return false;
  }
  return true;
}

BlockReader::~BlockReader() {
  *alive_ = false;
  if (ring_ready_) {
    // The kernel may still write into buffers of reads it has: wait for every one of them.
    if (prepared_ > 0) io_uring_submit(&ring_);
    while (at_kernel_ > 0) {
      io_uring_cqe* cqe = nullptr;
      if (io_uring_wait_cqe(&ring_, &cqe) < 0) break;
      io_uring_cqe_seen(&ring_, cqe);
      at_kernel_--;
    }
    event_.reset();  // closes event_fd_
    io_uring_queue_exit(&ring_);
  }
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    work_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();  // a thread finishes the read it has first
}

std::string_view BlockReader::backend_name() const {
  return backend_ == Backend::kIoUring ? "io_uring" : "threads";
}

void BlockReader::Read(storage::BlockFetch* fetch, std::function<void()> done) {
  std::unique_ptr<Batch> batch;
  if (spare_batches_.empty()) {
    batch = std::make_unique<Batch>();
  } else {
    batch = std::move(spare_batches_.back());
    spare_batches_.pop_back();
  }
  batch->fetch = fetch;
  batch->done = std::move(done);
  batch->began = std::chrono::steady_clock::now();
  batch->started = delay_.count() > 0 ? batch->began : std::chrono::steady_clock::time_point{};
  const auto& wants = fetch->wants();
  batch->requests.resize(wants.size());
  batch->pending = wants.size();
  Batch* b = batch.get();
  b->slot = batches_.size();
  batches_.push_back(std::move(batch));
  reads_in_flight_ += wants.size();
  stats_->disk_reads += wants.size();
  std::vector<Request*> for_threads;
  for (size_t i = 0; i < wants.size(); ++i) {
    Request& r = b->requests[i];
    r.batch = b;
    r.index = i;
    r.want = &wants[i];
    stats_->disk_read_bytes += r.want->read_length;
    if (ring_ready_ && r.want->fd >= 0) {  // the buffer is taken in Prepare
      if (at_kernel_ < kRingEntries) {
        Prepare(&r);
      } else {
        queued_.push_back(&r);
      }
    } else {
      TakeBuffer(&r);
      for_threads.push_back(&r);
    }
  }
  if (!for_threads.empty()) {
    StartThreads();
    {
      std::lock_guard lock(mu_);
      work_.insert(work_.end(), for_threads.begin(), for_threads.end());
    }
    cv_.notify_all();
  }
  if (b->pending == 0) {  // nothing to read (REQUIRES says otherwise; stay safe)
    boost::asio::post(io_, [this, b, alive = std::weak_ptr<bool>(alive_)] {
      if (alive.lock()) Finish(b);
    });
  }
}

void BlockReader::TakeBuffer(Request* request) {
  const storage::BlockFetch::Want& want = *request->want;
  if (want.read_length <= kSlotBytes && want.alignment <= kSlotAlignment && !free_slots_.empty()) {
    request->slot = free_slots_.back();
    free_slots_.pop_back();
    request->data = arena_.data() + size_t{request->slot} * kSlotBytes;
    return;
  }
  request->slot = kNoSlot;
  request->own = storage::AlignedBuffer(want.alignment, want.read_length);
  request->data = request->own.data();
}

void BlockReader::GiveBack(Request* request) {
  if (request->slot != kNoSlot) free_slots_.push_back(request->slot);
  request->slot = kNoSlot;
  request->own = storage::AlignedBuffer();
  request->data = nullptr;
}

// ---- io_uring

void BlockReader::Prepare(Request* request) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {  // the submission queue is full: hand it to the kernel first
    SubmitPrepared();
    sqe = io_uring_get_sqe(&ring_);
  }
  if (sqe == nullptr) {
    queued_.push_front(request);
    return;
  }
  if (request->data == nullptr) TakeBuffer(request);  // else a short read's rest
  const storage::BlockFetch::Want& want = *request->want;
  const auto length = static_cast<unsigned>(want.read_length - request->got);
  const uint64_t offset = want.read_offset + request->got;
  if (arena_registered_ && request->slot != kNoSlot) {
    io_uring_prep_read_fixed(sqe, want.fd, request->data + request->got, length, offset, 0);
  } else {
    io_uring_prep_read(sqe, want.fd, request->data + request->got, length, offset);
  }
  io_uring_sqe_set_data(sqe, request);
  at_kernel_++;
  prepared_++;
  if (!submit_posted_) {
    // One io_uring_submit for every read prepared in this turn of the loop.
    submit_posted_ = true;
    boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
      if (!alive.lock()) return;
      submit_posted_ = false;
      SubmitPrepared();
    });
  }
  WaitForCompletions();
}

void BlockReader::SubmitPrepared() {
  if (prepared_ == 0) return;
  int n;
  do {
    // Collects the completions the kernel has finished meanwhile in the same system call (the
    // eventfd has told, or will tell, OnCompletions about them).
    n = io_uring_submit_and_get_events(&ring_);
  } while (n == -EINTR);
  if (n > 0) prepared_ -= std::min<unsigned>(prepared_, static_cast<unsigned>(n));
  if (n < 0) spdlog::warn("io_uring_submit: {}: retrying", std::strerror(-n));
  if (prepared_ == 0) return;
  // The kernel left some in the submission queue (out of memory, or busy): try again soon.
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, std::chrono::milliseconds(1));
  timer->async_wait(
      [this, timer, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code&) {
        if (alive.lock()) SubmitPrepared();
      });
}

void BlockReader::WaitForCompletions() {
  if (waiting_for_event_) return;
  waiting_for_event_ = true;
  event_->async_wait(boost::asio::posix::stream_descriptor::wait_read,
                     [this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code&) {
                       if (!alive.lock()) return;
                       waiting_for_event_ = false;
                       OnCompletions(/*woken=*/true);
                     });
}

void BlockReader::OnCompletions(bool woken) {
  if (woken) {
    uint64_t count;  // one read takes the whole count (not a semaphore eventfd)
    [[maybe_unused]] const ssize_t n = ::read(event_fd_, &count, sizeof(count));
  }
  if (prepared_ > 0) {
    SubmitPrepared();  // and collects completions, in one system call
  } else if (IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_TASKRUN) {
    io_uring_get_events(&ring_);  // completions the kernel has yet to post
  }
  io_uring_cqe* cqe = nullptr;
  size_t taken = 0;
  while (taken < kCompletionsPerTurn && io_uring_peek_cqe(&ring_, &cqe) == 0) {
    ++taken;
    auto* request = static_cast<Request*>(io_uring_cqe_get_data(cqe));
    const int res = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);
    at_kernel_--;
    const storage::BlockFetch::Want& want = *request->want;
    if (res == -EAGAIN || res == -EINTR) {
      queued_.push_back(request);  // again
    } else if (res < 0) {
      request->status = ReadError(want, -res);
      Complete(request);
    } else {
      request->got += static_cast<size_t>(res);
      // Short: at the end of the file (a direct read stops at an unaligned end), else resume.
      const bool at_end = res == 0 || (want.alignment > 1 && request->got % want.alignment != 0);
      if (request->got < want.read_length && !at_end) {
        queued_.push_back(request);
      } else {
        Complete(request);
      }
    }
  }
  while (!queued_.empty() && at_kernel_ < kRingEntries) {
    Request* request = queued_.front();
    queued_.pop_front();
    Prepare(request);
  }
  if (taken == kCompletionsPerTurn && io_uring_cq_ready(&ring_) > 0 && !reap_posted_) {
    // The rest after the sockets that are ready now (see kCompletionsPerTurn).
    reap_posted_ = true;
    boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
      if (!alive.lock()) return;
      reap_posted_ = false;
      OnCompletions(/*woken=*/false);
    });
  }
  if (at_kernel_ > 0) WaitForCompletions();
}

// ---- reader threads

void BlockReader::StartThreads() {
  if (!threads_.empty()) return;
  for (size_t i = 0; i < kThreads; ++i) threads_.emplace_back([this] { ThreadLoop(); });
}

void BlockReader::ThreadLoop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !work_.empty(); });
    if (stopping_) return;
    Request* request = work_.front();
    work_.pop_front();
    lock.unlock();
    const storage::BlockFetch::Want& want = *request->want;
    std::string_view got;
    request->status = want.file->Read(want.read_offset, want.read_length, &got, request->data);
    if (request->status.ok() && got.data() != request->data) {
      std::memmove(request->data, got.data(), got.size());  // a mapped file's view
    }
    request->got = request->status.ok() ? got.size() : 0;
    boost::asio::post(io_, [this, request, alive = std::weak_ptr<bool>(alive_)] {
      if (alive.lock()) Complete(request);
    });
    lock.lock();
  }
}

// ---- completion

void BlockReader::Complete(Request* request) {
  reads_in_flight_--;
  if (!request->status.ok()) stats_->disk_read_errors++;
  Batch* batch = request->batch;
  if (read_latency_ != nullptr) {
    read_latency_->Record(std::chrono::steady_clock::now() - batch->began);
  }
  // Fill now, not when the batch is done: the buffer is then free for the next read at once.
  batch->fetch->Fill(request->index, request->status,
                     std::string_view(request->data, request->status.ok() ? request->got : 0));
  GiveBack(request);
  if (--batch->pending == 0) Finish(batch);
}

void BlockReader::Finish(Batch* batch) {
  const auto ready = batch->started + delay_;
  if (delay_.count() > 0 && std::chrono::steady_clock::now() < ready) {
    auto timer = std::make_shared<boost::asio::steady_timer>(io_, ready);
    timer->async_wait([this, batch, timer,
                       alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code&) {
      if (!alive.lock()) return;
      batch->started = {};  // delayed once: finish now
      Finish(batch);
    });
    return;
  }
  const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - batch->began);
  longest_wait_us_ = std::max(longest_wait_us_, static_cast<uint64_t>(waited.count()));
  // Forget the batch before `done`, which may start the next Read: the last batch takes its
  // slot (no search, no shifting; with 50 clients at P=1 some 40 Reads are pending).
  std::unique_ptr<Batch> owned = std::move(batches_[batch->slot]);
  if (batch->slot + 1 < batches_.size()) {
    batches_[batch->slot] = std::move(batches_.back());
    batches_[batch->slot]->slot = batch->slot;
  }
  batches_.pop_back();
  std::function<void()> done = std::move(owned->done);
  if (spare_batches_.size() < kSpareBatches) {
    owned->requests.clear();  // keeps its capacity for the next Read
    owned->fetch = nullptr;
    owned->done = nullptr;
    spare_batches_.push_back(std::move(owned));
  }
  done();
}

}  // namespace ebb::server
