#include "common/http/curl_status.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace kvbench {

absl::Status CurlCodeToStatus(CURLcode code, absl::string_view what,
                              absl::string_view error_buffer) {
  if (code == CURLE_OK) return absl::OkStatus();
  const std::string message = absl::StrCat(
      what, ": ", error_buffer.empty() ? absl::string_view(curl_easy_strerror(code)) : error_buffer,
      " (curl error ", static_cast<int>(code), ")");
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:  // the peer closed the connection before the body ended
      return absl::UnavailableError(message);
    case CURLE_OPERATION_TIMEDOUT:
      return absl::DeadlineExceededError(message);
    case CURLE_ABORTED_BY_CALLBACK:
      return absl::CancelledError(message);
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<long> ToCurlMillis(absl::Duration duration, absl::string_view what) {
  if (duration < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative ", what, ": ", absl::FormatDuration(duration)));
  }
  if (duration == absl::ZeroDuration() || duration == absl::InfiniteDuration()) return 0L;
  const int64_t millis = absl::ToInt64Milliseconds(absl::Ceil(duration, absl::Milliseconds(1)));
  return static_cast<long>(std::max<int64_t>(millis, 1));
}

absl::Status CheckCurlRequest(absl::string_view method, absl::string_view url, bool body_empty,
                              const HttpHeaders& headers) {
  if (method != "GET" && method != "POST") {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported HTTP method \"", method, "\" for ", url, " (GET or POST)"));
  }
  if (method == "GET" && !body_empty) {
    return absl::InvalidArgumentError(absl::StrCat("GET ", url, " with a body"));
  }
  for (const auto& [name, value] : headers) {
    if (name.empty() || name.find_first_of(":\r\n") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad request header \"", name, "\" for ", url));
    }
  }
  return absl::OkStatus();
}

}  // namespace kvbench
