#pragma once

#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/lmcache_protocol.h"

namespace kvbench::sim::lmcache {

// Turns one encoded request into its encoded reply over a ChunkStore (lmcache_protocol.h): the
// business logic of the ZMQ service, without ZMQ. Thread-safe (the store is).
class RequestHandler {
 public:
  // `store` must outlive the handler (it records the metrics). `before_each`, when set, runs
  // before each request is served (the eviction loop's CatchUp on the simulated clock).
  explicit RequestHandler(ChunkStore* store, std::function<void()> before_each = {});

  std::string Handle(absl::string_view request_bytes);
  Reply HandleRequest(const Request& request);

 private:
  ChunkStore* const store_;
  const std::function<void()> before_each_;
};

}  // namespace kvbench::sim::lmcache
