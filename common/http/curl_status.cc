#include "common/http/curl_status.h"

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

}  // namespace kvbench
