// SharedSlot<T>: one std::shared_ptr<const T> that a writer replaces now and then while readers
// take copies of it all the time (DBImpl's read state: replaced at each memtable switch, flush
// and compaction, copied by every point read).
//
// A spin lock guards the pointer, held only to copy or swap it (an uncontended lock costs one
// atomic exchange and one store, less than a std::mutex's lock and unlock); a waiter yields its
// core to the holder. The value a Store replaces is released after the lock. (std::atomic<
// std::shared_ptr> of GCC 12's libstdc++ does the same, but its load releases its lock with
// relaxed order: a data race with the next store, which ThreadSanitizer reports.)
// Thread-safety: Load and Store from any threads.
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <utility>

namespace ebb::storage {

template <typename T>
class SharedSlot {
 public:
  SharedSlot() = default;
  SharedSlot(const SharedSlot&) = delete;
  SharedSlot& operator=(const SharedSlot&) = delete;

  // A copy of the value held (nullptr before the first Store).
  std::shared_ptr<const T> Load() const {
    Lock();
    std::shared_ptr<const T> copy = value_;
    Unlock();
    return copy;
  }

  // Replaces the value; the caller's reference to the old one goes after the lock is released.
  void Store(std::shared_ptr<const T> value) {
    Lock();
    value_.swap(value);
    Unlock();
  }

 private:
  void Lock() const {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void Unlock() const { locked_.store(false, std::memory_order_release); }

  mutable std::atomic<bool> locked_{false};
  std::shared_ptr<const T> value_;
};

}  // namespace ebb::storage
