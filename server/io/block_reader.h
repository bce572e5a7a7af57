// BlockReader: reads the table blocks that waiting commands need, many at once, off the command
// thread (server/dispatch/dispatcher.h, "Restartable commands").
//
//   reader.Read(&client.block_fetch(), [self] { self->OnBlocksRead(); });
//
// Read takes every block the fetch wants and reads them all concurrently: through io_uring
// (liburing; the reads of one turn of the event loop go to the kernel in one system call, which
// also collects the completions ready by then; the kernel posts completions only when the io
// thread asks for them (DEFER_TASKRUN) and tells it through an eventfd the io_context watches;
// at most kCompletionsPerTurn of them are handled per turn), or, where the kernel refuses io_uring
// (an old kernel, a seccomp profile) and for files that are not a plain descriptor, on a pool of
// reader threads. It Fills each block, or the error its read gave, into the fetch as the block
// arrives — on the io thread — and calls `done` once the last has. A failed read reaches only the
// fetch that wanted the block. Reads of a file opened for direct I/O use aligned buffers; reads
// end early only at the end of a file (short reads are resubmitted for the rest).
//
// Lifetime. The caller keeps the fetch alive until `done` runs; a connection does by holding a
// reference to itself in `done`, so a client that disconnects meanwhile is freed when its reads
// end, not before. idle() is false while any Read has not called `done`: the server waits for it
// before it stops (shutdown waits for in-flight reads). The destructor waits for reads the
// kernel or a reader thread still has (their buffers must outlive them) and drops the rest
// without calling their `done`.
//
// Thread-safety: every method on the io thread, the constructor and destructor included (the
// ring accepts submissions from the thread that made it only); the reader threads only read
// files into the buffers they are handed and post the result back. The io thread Fills a
// fetch's arrived blocks while reader threads may still read its other wants: Fill changes the
// fetch's pins, never wants(), which is all a reader thread reads of it.
#pragma once

#include <liburing.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "storage/disk_read_latency.h"
#include "storage/env/aligned_buffer.h"
#include "storage/status.h"
#include "storage/table/block_fetch.h"

namespace ebb::server {

struct ServerStats;

class BlockReader {
 public:
  enum class Backend { kIoUring, kThreads };
  // Reads a submission may have at the kernel at once; more wait their turn.
  static constexpr unsigned kRingEntries = 256;
  // Completions handled per turn of the event loop; the rest wait for the next turn, after the
  // sockets ready meanwhile. Taking them all at once (every client's reply, then every client's
  // next request) made the loop alternate between the two while the disk idled: with 50
  // clients at one request each, 8 per turn gave 30-60% more GETs/s than all at once.
  static constexpr size_t kCompletionsPerTurn = 8;
  // Reader threads, for the threads backend and for files without a descriptor.
  static constexpr size_t kThreads = 16;
  // Read buffers are reused, not allocated per read: a read of up to kSlotBytes (a block of the
  // default 4 KiB with its trailer, across two pages when the block is not aligned to one) gets
  // one of kSlots slots of that size, aligned for any direct I/O, in one arena allocated with
  // the reader (2 MiB). A read takes its slot when it goes to the kernel (io_uring) or to a
  // reader thread and gives it back as soon as its block is Filled into the fetch, so there are
  // slots for every read the ring holds. With io_uring the arena is registered with the ring
  // (fixed buffers, pinned once: the kernel then does not pin each read's pages, a tenth of the
  // time io_uring_enter spent on a direct read here), when the kernel and RLIMIT_MEMLOCK allow;
  // otherwise it is used unregistered. A larger read, or one that finds every slot taken, gets
  // a buffer of its own.
  static constexpr size_t kSlotBytes = 8 << 10;
  static constexpr size_t kSlotAlignment = 4096;
  static constexpr size_t kSlots = kRingEntries;
  // The bookkeeping of a Read is reused too: up to kSpareBatches of them are kept.
  static constexpr size_t kSpareBatches = 64;

  // Uses io_uring when `preferred` is kIoUring and the kernel allows it, else reader threads.
  // Counts reads, their bytes and failed reads in *stats (disk_reads, disk_read_bytes,
  // disk_read_errors).
  // REQUIRES: io and stats outlive the reader.
  BlockReader(boost::asio::io_context& io, ServerStats* stats,
              Backend preferred = Backend::kIoUring);
  ~BlockReader();
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;

  // Reads every block fetch->wants() lists, Fills each into *fetch as it arrives, then calls
  // `done` when the last has (on the io thread, never inside Read). REQUIRES: fetch->incomplete();
  // *fetch is not changed and stays alive until `done` runs.
  void Read(storage::BlockFetch* fetch, std::function<void()> done);

  Backend backend() const { return backend_; }
  std::string_view backend_name() const;
  bool idle() const { return batches_.empty(); }
  size_t reads_in_flight() const { return reads_in_flight_; }
  // Commands (Read calls) whose blocks have not all arrived.
  size_t waiting() const { return batches_.size(); }

  // The longest time a Read took from its call to its `done`, in microseconds, since the last
  // call (0: no Read finished); LATENCY's `disk-read` event (server/services/latency_monitor.h).
  uint64_t TakeLongestWaitUs() { return std::exchange(longest_wait_us_, 0); }

  // Where each block read's duration is recorded, from the Read call to its completion on the
  // io thread (a resubmitted short read counts once); nullptr: not recorded.
  void set_read_latency(std::shared_ptr<storage::DiskReadLatency> latency) {
    read_latency_ = std::move(latency);
  }

  // Tests (DEBUG BLOCK-READ-DELAY): every Read calls `done` no sooner than `delay` after it
  // was made. 0: at once.
  void set_completion_delay(std::chrono::milliseconds delay) { delay_ = delay; }
  std::chrono::milliseconds completion_delay() const { return delay_; }

 private:
  struct Batch;
  // One block read: its range, its buffer and how much of it arrived.
  struct Request {
    Batch* batch = nullptr;
    size_t index = 0;  // in batch->fetch->wants()
    const storage::BlockFetch::Want* want = nullptr;
    char* data = nullptr;        // where the read goes: an arena slot or `own`
    uint32_t slot = kNoSlot;     // the arena slot, or kNoSlot
    storage::AlignedBuffer own;  // when no slot was taken
    size_t got = 0;
    storage::Status status;
  };
  struct Batch {
    storage::BlockFetch* fetch = nullptr;
    std::function<void()> done;
    std::vector<Request> requests;
    size_t pending = 0;                             // requests not completed
    std::chrono::steady_clock::time_point started;  // for the completion delay
    std::chrono::steady_clock::time_point began;    // when Read was called
    size_t slot = 0;                                // its place in batches_
  };

  static constexpr uint32_t kNoSlot = UINT32_MAX;

  bool InitRing();
  // Registers arena_ with the ring (arena_registered_); false if the kernel refused.
  bool RegisterArena();
  // Sets request->data: a free arena slot when the read fits, else a buffer of its own.
  // REQUIRES: request->data is nullptr.
  void TakeBuffer(Request* request);
  // Frees request's buffer or slot for later reads.
  void GiveBack(Request* request);
  // io_uring: prepares the rest of `request`'s read (submitted at the end of the turn).
  void Prepare(Request* request);
  // Hands the prepared reads to the kernel and collects the completions it has finished, in one
  // system call; retries shortly if the kernel took not all of them.
  void SubmitPrepared();
  void WaitForCompletions();
  // Handles up to kCompletionsPerTurn completions. `woken`: the eventfd said there are some (it
  // is then drained; a call posted for the rest of the queue leaves it alone).
  void OnCompletions(bool woken);
  // Reader threads.
  void StartThreads();
  void ThreadLoop();
  // A request's read ended (done, failed or at the end of the file).
  void Complete(Request* request);
  void Finish(Batch* batch);

  boost::asio::io_context& io_;
  ServerStats* const stats_;
  // Handlers posted to io_ (thread completions, timers, the eventfd wait) check it: none runs
  // after the reader is gone.
  std::shared_ptr<bool> alive_;
  Backend backend_ = Backend::kThreads;
  std::chrono::milliseconds delay_{0};
  uint64_t longest_wait_us_ = 0;
  std::shared_ptr<storage::DiskReadLatency> read_latency_;
  std::vector<std::unique_ptr<Batch>> batches_;        // every Read not done, in no order
  std::vector<std::unique_ptr<Batch>> spare_batches_;  // done, kept for the next Reads
  storage::AlignedBuffer arena_;                       // kSlots slots
  std::vector<uint32_t> free_slots_;                   // arena slots no read holds
  bool arena_registered_ = false;                      // arena_ is the ring's fixed buffer 0
  size_t reads_in_flight_ = 0;

  // io_uring
  io_uring ring_{};
  bool ring_ready_ = false;
  int event_fd_ = -1;
  std::unique_ptr<boost::asio::posix::stream_descriptor> event_;
  bool waiting_for_event_ = false;
  std::deque<Request*> queued_;  // waiting for a slot at the kernel
  unsigned at_kernel_ = 0;       // requests submitted or prepared, not completed
  unsigned prepared_ = 0;        // prepared, not yet submitted
  bool submit_posted_ = false;
  bool reap_posted_ = false;  // an OnCompletions for the rest of the queue is posted

  // Reader threads
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Request*> work_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
};

}  // namespace ebb::server
