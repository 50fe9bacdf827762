#include "common/http/http_client.h"

#include <utility>

#include "absl/strings/match.h"

namespace kvbench {

std::optional<std::string> HttpResponse::Header(absl::string_view name) const {
  for (const auto& [header_name, value] : headers) {
    if (absl::EqualsIgnoreCase(header_name, name)) return value;
  }
  return std::nullopt;
}

absl::StatusOr<HttpResponse> HttpClient::Get(const std::string& url, absl::Duration timeout) {
  HttpRequest request;
  request.method = "GET";
  request.url = url;
  request.timeout = timeout;
  return Send(request);
}

absl::StatusOr<HttpResponse> HttpClient::PostJson(const std::string& url, std::string json_body,
                                                  absl::Duration timeout) {
  HttpRequest request;
  request.method = "POST";
  request.url = url;
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = std::move(json_body);
  request.timeout = timeout;
  return Send(request);
}

}  // namespace kvbench
