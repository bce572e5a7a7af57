#include "server/replication/replication_id.h"

#include "server/core/random_id.h"

namespace ebb::server {

std::string ReplicationIds::NewId() { return RandomHexId(); }

}  // namespace ebb::server
