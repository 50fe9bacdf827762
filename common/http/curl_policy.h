#pragma once

#include <curl/curl.h>

#include <string>

#include "absl/status/status.h"
#include "common/http/http_client.h"

namespace kvbench {

// How kvbench's curl client (CurlHttpClient) talks to its peers and to the servers under test,
// set in one place:
//   - http and https only (file://, ftp://... fail as INVALID_ARGUMENT);
//   - HTTP/1.1, redirects not followed (a 3xx is the response);
//   - no proxy: http_proxy, ALL_PROXY and friends from the environment are ignored, since a proxy
//     would hijack loopback scrapes and distort the latencies being measured;
//   - no signals (CURLOPT_NOSIGNAL: the clients run on many threads);
//   - TCP_NODELAY, and TCP keep-alive probes so a long quiet stream notices a vanished peer;
//   - a large receive buffer, so a streaming body arrives in few callbacks.
// The dataset downloader (agent/datasets/registry/curl_file_downloader.cc) has a policy of its own
// on purpose: it fetches from the internet, so it follows redirects and honours proxies.
struct CurlPolicy {
  // TCP keep-alive: the first probe after this long idle, then one every interval.
  static constexpr long kTcpKeepAliveIdleSeconds = 60;
  static constexpr long kTcpKeepAliveIntervalSeconds = 30;
  // libcurl's receive buffer: large, so a streaming body arrives in few callbacks.
  static constexpr long kReceiveBufferBytes = 256 * 1024;
};

// Sets the policy above on `curl` (a fresh or reset handle), and `error_buffer`
// (CURL_ERROR_SIZE bytes) as its CURLOPT_ERRORBUFFER. The first failing option's code, else
// CURLE_OK. The receive buffer is best effort: curl 7.88 refuses (BAD_FUNCTION_ARGUMENT) to resize
// one an earlier transfer on a reset handle left allocated.
CURLcode ApplyCurlPolicy(CURL* curl, char* error_buffer);

// Appends `headers` to `*list` as curl wants them ("Name;" for an empty value, since "Name:"
// would make curl drop it), plus an empty "Expect:" unless the caller set Expect: curl would
// otherwise send "Expect: 100-continue" before a large body and wait up to a second for a 100
// that many servers never send. INTERNAL when curl_slist_append fails; `*list` stays the
// caller's to free either way.
absl::Status AppendCurlHeaders(const HttpHeaders& headers, curl_slist** list);

// Appends one header line to `*list`; INTERNAL when curl_slist_append fails.
absl::Status AppendCurlHeaderLine(const std::string& line, curl_slist** list);

}  // namespace kvbench
