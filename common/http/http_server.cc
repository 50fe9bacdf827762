#include "common/http/http_server.h"

#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "common/http/beast_http_server.h"

namespace kvbench {

std::optional<std::string> HttpServerRequest::Header(absl::string_view name) const {
  for (const auto& [header_name, value] : headers) {
    if (absl::EqualsIgnoreCase(header_name, name)) return value;
  }
  return std::nullopt;
}

std::unique_ptr<HttpServer> HttpServer::Create(Options options) {
  return std::make_unique<BeastHttpServer>(std::move(options));
}

}  // namespace kvbench
