// INFO's sections: one function each, appending "# Title\r\n" and its "field:value\r\n" lines to
// *out. cmd_info.cc lists them in Redis 7's order and says which belong to `default`; a new
// section is its function (in a file of its own when it belongs to one area) and its row there.
// Thread-safety: the command (io) thread only.
#pragma once

#include <string>

namespace ebb::server {

class ServerContext;

void InfoServer(ServerContext& ctx, std::string* out);
void InfoClients(ServerContext& ctx, std::string* out);
void InfoMemory(ServerContext& ctx, std::string* out);
void InfoPersistence(ServerContext& ctx, std::string* out);
void InfoStats(ServerContext& ctx, std::string* out);
void InfoCpu(ServerContext& ctx, std::string* out);  // info_commandstats.cc
void InfoModules(ServerContext& ctx, std::string* out);
void InfoCommandStats(ServerContext& ctx, std::string* out);  // info_commandstats.cc
void InfoErrorStats(ServerContext& ctx, std::string* out);    // info_commandstats.cc
void InfoLatencyStats(ServerContext& ctx, std::string* out);  // info_commandstats.cc
void InfoCluster(ServerContext& ctx, std::string* out);
void InfoKeyspace(ServerContext& ctx, std::string* out);
void InfoStorage(ServerContext& ctx, std::string* out);  // the engine: levels, caches, WAL

}  // namespace ebb::server
