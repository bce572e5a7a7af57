// The keyspace the options describe: the engine's options, the types' settings, and keeping both
// in step with CONFIG SET. ebb-server (main.cc) and the in-process test runner open and wire
// their keyspace with these.
// Thread-safety: called on the command thread (or before the server runs).
#pragma once

#include <memory>
#include <string_view>

#include "server/config/config.h"
#include "storage/clock.h"
#include "storage/options.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

class ServerContext;

// The engine options of `config` (memtable, blocks, cache, compression, wal-fsync, expiry),
// with a fresh EngineLatency the server's latency monitor is to drain (LatencyMonitor::
// set_engine).
storage::Options EngineOptions(const Config& config, std::shared_ptr<storage::Clock> clock);

// The types' settings of `config`: TTL policy, default retrieval grace, group commit.
void ApplyTypeSettings(const Config& config, types::Keyspace* keyspace);

// Indexes the series' labels of a data directory written before the label index, once
// (types::BuildSeriesIndex), logging what it did; on a replica (`replicaof` set) it does nothing,
// since its engine takes only its master's writes (until then queries walk the database). False
// (after logging why) when the build failed: queries then walk, as before the index.
bool IndexSeriesLabels(const Config& config, types::Keyspace* keyspace);

// After CONFIG SET `name`: the engine's and the types' settings that follow options at run time.
// Does nothing without a keyspace.
void ApplyRuntimeChange(std::string_view name, const Config& config, ServerContext* ctx);

}  // namespace ebb::server
