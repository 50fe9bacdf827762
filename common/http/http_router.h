#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/http/http_server.h"

namespace kvbench {

// HttpServer's routing table: exact method and path, a fallback, 404 and 405. Filled before the
// server starts, then only read (from every I/O thread at once, without locking).
class HttpRouter {
 public:
  // What to do with one request: run `handler`, or answer `status` (404 or 405) with `allow`
  // (the methods the path has, for 405's Allow header).
  struct Route {
    const HttpHandler* handler = nullptr;
    int status = 0;
    std::string allow;
  };

  // Replaces an earlier handler for the same method and path.
  void Handle(const std::string& method, const std::string& path, HttpHandler handler);
  void SetFallback(HttpHandler handler);

  Route Find(const std::string& method, const std::string& path) const;

 private:
  // path -> (method, handler), in registration order.
  std::unordered_map<std::string, std::vector<std::pair<std::string, HttpHandler>>> routes_;
  HttpHandler fallback_;
};

}  // namespace kvbench
