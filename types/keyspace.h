// Keyspace: the data types (strings with timestamps and TTL, TREG, TLOG) over one engine.
//
// This is the entry point the server holds: it opens the engine with the types' compaction
// filter installed and offers typed operations (no RESP here). The key layout is
// docs/key-encoding.md. Databases (SELECT n) are separate keyspaces inside one engine.
// Thread-safety: operations run on the server's command thread; the engine's background threads
// only call the compaction filter.
#pragma once

#include <memory>
#include <string>

#include "storage/clock.h"
#include "storage/db.h"
#include "storage/options.h"
#include "storage/status.h"

namespace ebb::types {

class Keyspace {
 public:
  // Opens the engine in `dir` with `options` (its clock must be set), installing the types'
  // compaction filter.
  static storage::Status Open(storage::Options options, const std::string& dir,
                              std::unique_ptr<Keyspace>* keyspace);

  storage::DB& db() { return *db_; }
  const storage::Clock& clock() const { return *clock_; }

 private:
  Keyspace(std::unique_ptr<storage::DB> db, std::shared_ptr<storage::Clock> clock)
      : db_(std::move(db)), clock_(std::move(clock)) {}

  std::unique_ptr<storage::DB> db_;
  std::shared_ptr<storage::Clock> clock_;
};

}  // namespace ebb::types
