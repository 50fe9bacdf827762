#include "common/http/curl_policy.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace kvbench {
namespace {

// Schemes a URL may use; anything else (file://, ftp://...) is INVALID_ARGUMENT.
constexpr char kAllowedProtocols[] = "http,https";

}  // namespace

CURLcode ApplyCurlPolicy(CURL* curl, char* error_buffer) {
  CURLcode result = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    if (result == CURLE_OK) result = curl_easy_setopt(curl, option, value);
  };
  set(CURLOPT_ERRORBUFFER, error_buffer);
  set(CURLOPT_PROTOCOLS_STR, kAllowedProtocols);
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_PROXY, "");  // "" overrides http_proxy and friends from the environment
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_TCP_NODELAY, 1L);
  set(CURLOPT_TCP_KEEPALIVE, 1L);
  set(CURLOPT_TCP_KEEPIDLE, CurlPolicy::kTcpKeepAliveIdleSeconds);
  set(CURLOPT_TCP_KEEPINTVL, CurlPolicy::kTcpKeepAliveIntervalSeconds);
  if (result == CURLE_OK) {
    curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, CurlPolicy::kReceiveBufferBytes);  // best effort
  }
  return result;
}

absl::Status AppendCurlHeaderLine(const std::string& line, curl_slist** list) {
  curl_slist* appended = curl_slist_append(*list, line.c_str());
  if (appended == nullptr) return absl::InternalError("curl_slist_append failed");
  *list = appended;
  return absl::OkStatus();
}

absl::Status AppendCurlHeaders(const HttpHeaders& headers, curl_slist** list) {
  bool has_expect = false;
  for (const auto& [name, value] : headers) {
    has_expect = has_expect || absl::EqualsIgnoreCase(name, "Expect");
    KV_RETURN_IF_ERROR(AppendCurlHeaderLine(
        value.empty() ? absl::StrCat(name, ";") : absl::StrCat(name, ": ", value), list));
  }
  return has_expect ? absl::OkStatus() : AppendCurlHeaderLine("Expect:", list);
}

}  // namespace kvbench
