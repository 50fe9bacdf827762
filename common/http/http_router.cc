#include "common/http/http_router.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kvbench {

void HttpRouter::Handle(const std::string& method, const std::string& path, HttpHandler handler) {
  auto& methods = routes_[path];
  for (auto& [known_method, known_handler] : methods) {
    if (known_method == method) {
      known_handler = std::move(handler);
      return;
    }
  }
  methods.emplace_back(method, std::move(handler));
}

void HttpRouter::SetFallback(HttpHandler handler) { fallback_ = std::move(handler); }

HttpRouter::Route HttpRouter::Find(const std::string& method, const std::string& path) const {
  Route route;
  auto methods = routes_.find(path);
  if (methods != routes_.end()) {
    for (const auto& [known_method, handler] : methods->second) {
      if (known_method == method) {
        route.handler = &handler;
        return route;
      }
    }
  }
  if (fallback_) {
    route.handler = &fallback_;
    return route;
  }
  if (methods == routes_.end()) {
    route.status = 404;
    return route;
  }
  route.status = 405;
  for (const auto& [known_method, handler] : methods->second) {
    absl::StrAppend(&route.allow, route.allow.empty() ? "" : ", ", known_method);
  }
  return route;
}

}  // namespace kvbench
