// ConfigWriter: writes the cluster-config-file off the io thread, so a burst of changes (a
// reshard's SETSLOTs: several per slot, on every master) costs the clients no fsync each.
//
// The node hands it the whole new file text after every change it saves. A writer thread
// replaces the file atomically and fsynced (common/atomic_file.h) with the LATEST text it was
// given: texts handed over while a write is in progress are coalesced into the next write, so
// the file always moves forward to a state the node was in, never back. Write() also waits for
// a write that includes its text (what must be on disk before a message leaves: a vote, a new
// epoch, CLUSTER SAVECONFIG's reply).
// Thread-safety: Submit/Write/Flush from one thread (the io thread); the writer thread is
// internal.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "server/cluster/cluster_code.h"

namespace ebb::server::cluster {

class ConfigWriter {
 public:
  explicit ConfigWriter(std::string path);
  // Writes what was submitted and not yet written, then stops the thread.
  ~ConfigWriter();
  ConfigWriter(const ConfigWriter&) = delete;
  ConfigWriter& operator=(const ConfigWriter&) = delete;

  // Queues `text` as the file's next contents and returns at once; an error is logged.
  void Submit(std::string text);
  // Queues `text` and returns once a write including it is on disk. Refusal: kSaveFailed, with
  // what failed.
  Result<ClusterCode> Write(std::string text);
  // Returns once everything submitted so far is written. Refusal: kSaveFailed, the last write's.
  Result<ClusterCode> Flush();

 private:
  void Run();
  uint64_t Queue(std::string text);  // REQUIRES: mu_ held; returns the text's number
  Result<ClusterCode> WaitWritten(uint64_t number);  // waits for a write of `number` or later

  const std::string path_;
  std::mutex mu_;
  std::condition_variable changed_;  // a text queued, a write done, or stopping
  std::string pending_;              // the latest text not yet handed to a write
  uint64_t queued_ = 0;              // number of the latest text queued
  uint64_t written_ = 0;             // number of the latest text on disk (or failed)
  std::string last_error_;           // of the write that set written_
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ebb::server::cluster
