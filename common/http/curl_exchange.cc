#include "common/http/curl_exchange.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/http/curl_policy.h"
#include "common/http/curl_status.h"
#include "common/status/status_macros.h"

namespace kvbench {
namespace {

// Calls curl_easy_setopt until one fails; `result` is the first failure.
class OptionSetter {
 public:
  explicit OptionSetter(CURL* easy, CURLcode result = CURLE_OK) : easy_(easy), result_(result) {}
  template <typename T>
  void operator()(CURLoption option, T value) {
    if (result_ == CURLE_OK) result_ = curl_easy_setopt(easy_, option, value);
  }
  absl::Status result() const {
    if (result_ == CURLE_OK) return absl::OkStatus();
    return absl::InternalError(absl::StrCat("curl_easy_setopt: ", curl_easy_strerror(result_)));
  }

 private:
  CURL* easy_;
  CURLcode result_;
};

}  // namespace

CurlExchange::~CurlExchange() {
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
  curl_slist_free_all(headers_);
}

CurlExchange* CurlExchange::FromHandle(CURL* easy) {
  char* exchange = nullptr;  // CURLINFO_PRIVATE comes back as a char*
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, &exchange);
  return static_cast<CurlExchange*>(static_cast<void*>(exchange));
}

void CurlExchange::Prepare(const AsyncHttpRequest& request, AsyncHttpObserver* observer) {
  observer_ = observer;
  post_ = request.method == "POST";
  url_.assign(request.url);
  headers_reported_ = false;
  aborted_by_observer_ = false;
  error_[0] = '\0';
  failure_ = PrepareOrFail(request);
}

absl::Status CurlExchange::PrepareOrFail(const AsyncHttpRequest& request) {
  KV_RETURN_IF_ERROR(
      CheckCurlRequest(request.method, request.url, request.body.empty(), request.headers));
  KV_ASSIGN_OR_RETURN(const long timeout_ms, ToCurlMillis(request.timeout, "timeout"));
  KV_ASSIGN_OR_RETURN(const long connect_timeout_ms,
                      ToCurlMillis(request.connect_timeout, "connect timeout"));
  if (easy_ == nullptr) KV_RETURN_IF_ERROR(MakeHandle());
  KV_RETURN_IF_ERROR(AppendCurlHeaders(request.headers, &headers_));
  const bool chunked = post_ && request.chunked_body;
  if (chunked) KV_RETURN_IF_ERROR(AppendCurlHeaderLine("Transfer-Encoding: chunked", &headers_));
  OptionSetter set(easy_);
  set(CURLOPT_URL, request.url.c_str());
  set(CURLOPT_TIMEOUT_MS, timeout_ms);
  set(CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
  set(CURLOPT_HTTPHEADER, headers_);
  if (chunked) {
    upload_ = request.body;
    set(CURLOPT_POST, 1L);
    set(CURLOPT_POSTFIELDS, static_cast<const char*>(nullptr));
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(-1));
    set(CURLOPT_READFUNCTION, &CurlExchange::OnUploadBytes);
    set(CURLOPT_READDATA, this);
  } else if (post_) {
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    // Never null: with null POSTFIELDS curl would read the body from stdin.
    set(CURLOPT_POSTFIELDS, request.body.data() != nullptr ? request.body.data() : "");
  } else {
    set(CURLOPT_HTTPGET, 1L);
  }
  return set.result();
}

size_t CurlExchange::OnUploadBytes(char* buffer, size_t size, size_t count, void* user) {
  auto* self = static_cast<CurlExchange*>(user);
  const size_t n = std::min(size * count, self->upload_.size());
  std::memcpy(buffer, self->upload_.data(), n);
  self->upload_.remove_prefix(n);
  return n;  // 0 once all is sent: curl then writes the terminating chunk
}

absl::Status CurlExchange::MakeHandle() {
  easy_ = curl_easy_init();
  if (easy_ == nullptr) return absl::InternalError("curl_easy_init failed");
  // Once, before the first transfer allocates the receive buffer (curl 7.88 refuses to resize it).
  OptionSetter set(easy_, ApplyCurlPolicy(easy_, error_));
  set(CURLOPT_PRIVATE, static_cast<void*>(this));
  set(CURLOPT_HEADERFUNCTION, &CurlExchange::OnHeaderLine);
  set(CURLOPT_HEADERDATA, static_cast<void*>(this));
  set(CURLOPT_WRITEFUNCTION, &CurlExchange::OnBodyBytes);
  set(CURLOPT_WRITEDATA, static_cast<void*>(this));
  absl::Status status = set.result();
  if (!status.ok()) curl_easy_cleanup(std::exchange(easy_, nullptr));
  return status;
}

AsyncHttpObserver* CurlExchange::Finish() {
  curl_slist_free_all(std::exchange(headers_, nullptr));
  return std::exchange(observer_, nullptr);
}

void CurlExchange::ReportHeaders(MonotonicTime arrival) {
  long status = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  headers_reported_ = true;
  observer_->OnHeaders(static_cast<int>(status), arrival);
}

// Called once per header line; a blank line ends a block: an interim 1xx response's, the final
// response's, or the trailers after a chunked body.
size_t CurlExchange::OnHeaderLine(char* data, size_t size, size_t count, void* user) {
  const MonotonicTime arrival = std::chrono::steady_clock::now();
  auto* self = static_cast<CurlExchange*>(user);
  const size_t bytes = size * count;
  const absl::string_view line(data, bytes);
  if (self->headers_reported_ || (line != "\r\n" && line != "\n")) return bytes;
  long status = 0;
  curl_easy_getinfo(self->easy_, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 100 && status < 200) return bytes;  // interim: the final response follows
  self->ReportHeaders(arrival);
  return bytes;
}

size_t CurlExchange::OnBodyBytes(char* data, size_t size, size_t count, void* user) {
  const MonotonicTime arrival = std::chrono::steady_clock::now();
  auto* self = static_cast<CurlExchange*>(user);
  const size_t bytes = size * count;
  if (!self->headers_reported_) self->ReportHeaders(arrival);
  if (self->observer_->OnBody(absl::string_view(data, bytes), arrival)) return bytes;
  self->aborted_by_observer_ = true;
  return CURL_WRITEFUNC_ERROR;  // curl fails the transfer with CURLE_WRITE_ERROR
}

std::string CurlExchange::Describe() const { return absl::StrCat(post_ ? "POST " : "GET ", url_); }

absl::Status CurlExchange::CancelledStatus(absl::string_view why) const {
  return absl::CancelledError(absl::StrCat(Describe(), ": ", why));
}

absl::Status CurlExchange::ResultStatus(CURLcode code) const {
  if (code == CURLE_OK) return absl::OkStatus();
  if (aborted_by_observer_) return CancelledStatus("aborted by OnBody");
  return CurlCodeToStatus(code, Describe(), error_);
}

}  // namespace kvbench
