#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/lmcache_protocol.h"

namespace kvbench::sim::lmcache {

// Turns one encoded request into its encoded reply over a ChunkStore (lmcache_protocol.h): the
// business logic of the ZMQ service, without ZMQ. Thread-safe (the store is).
class RequestHandler {
 public:
  // `store` must outlive the handler (it records the metrics).
  explicit RequestHandler(ChunkStore* store);

  std::string Handle(absl::string_view request_bytes);
  Reply HandleRequest(const Request& request);

 private:
  ChunkStore* const store_;
};

}  // namespace kvbench::sim::lmcache
