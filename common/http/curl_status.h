#pragma once

#include <curl/curl.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/http_client.h"

namespace kvbench {

// The Status of a libcurl transfer that ended with `code`, as CurlHttpClient reports it
// (http_client.h):
//   UNAVAILABLE        resolve/connect failures, send/receive errors, nothing or part received
//   DEADLINE_EXCEEDED  the transfer's timeout
//   CANCELLED          a progress callback aborted it
//   INVALID_ARGUMENT   a malformed URL or an unsupported scheme
//   INTERNAL           anything else
// The message reads "<what>: <curl's text> (curl error <code>)", with the CURLOPT_ERRORBUFFER
// text `error_buffer` when curl wrote one, else curl_easy_strerror(code). `what` names the
// request, e.g. "GET http://127.0.0.1:8000/metrics". CURLE_OK is OK. A transfer aborted by the
// caller's own write callback is the caller's to report (its CANCELLED names the callback).
absl::Status CurlCodeToStatus(CURLcode code, absl::string_view what,
                              absl::string_view error_buffer);

// A timeout as curl's milliseconds: zero (or infinite) means no limit, which curl spells 0;
// anything else rounds up to >= 1 ms. INVALID_ARGUMENT "negative <what>: ..." below zero.
absl::StatusOr<long> ToCurlMillis(absl::Duration duration, absl::string_view what);

// What both curl clients refuse before curl sees it (INVALID_ARGUMENT naming the URL): a method
// other than GET/POST, a GET with a body, a header name empty or holding ':', CR or LF, a value
// holding CR or LF.
absl::Status CheckCurlRequest(absl::string_view method, absl::string_view url, bool body_empty,
                              const HttpHeaders& headers);

}  // namespace kvbench
