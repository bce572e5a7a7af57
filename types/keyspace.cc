#include "types/keyspace.h"

namespace ebb::types {

storage::Status Keyspace::Open(storage::Options options, const std::string& dir,
                               std::unique_ptr<Keyspace>* keyspace) {
  if (!options.clock) return storage::Status::InvalidArgument("Keyspace::Open needs a clock");
  std::unique_ptr<storage::DB> db;
  storage::Status s = storage::DB::Open(options, dir, &db);
  if (!s.ok()) return s;
  keyspace->reset(new Keyspace(std::move(db), options.clock));
  return s;
}

}  // namespace ebb::types
