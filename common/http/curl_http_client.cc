#include "common/http/curl_http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/http/curl_policy.h"
#include "common/http/curl_status.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench {
namespace {

// What the callbacks of one transfer write into.
struct Transfer {
  const HttpChunkCallback* on_chunk = nullptr;  // null: buffer the body into `response`
  HttpResponse response;
  bool aborted_by_callback = false;
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  if (transfer->on_chunk == nullptr) {
    transfer->response.body.append(data, bytes);
    return bytes;
  }
  if (!(*transfer->on_chunk)(absl::string_view(data, bytes))) {
    transfer->aborted_by_callback = true;
    return CURL_WRITEFUNC_ERROR;  // curl fails the transfer with CURLE_WRITE_ERROR
  }
  return bytes;
}

// Called once per header line, status lines included.
size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  const absl::string_view line = absl::StripTrailingAsciiWhitespace(absl::string_view(data, bytes));
  if (absl::StartsWith(line, "HTTP/")) {
    // A new header block (after a 1xx interim response): keep only the final one.
    transfer->response.headers.clear();
    return bytes;
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return bytes;  // the blank line ending the block
  transfer->response.headers.emplace_back(
      std::string(absl::StripAsciiWhitespace(line.substr(0, colon))),
      std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  return bytes;
}

// The request headers as curl wants them (AppendCurlHeaders), freed with the object.
class CurlHeaderList {
 public:
  explicit CurlHeaderList(const HttpHeaders& headers)
      : status_(AppendCurlHeaders(headers, &list_)) {}
  ~CurlHeaderList() { curl_slist_free_all(list_); }
  CurlHeaderList(const CurlHeaderList&) = delete;
  CurlHeaderList& operator=(const CurlHeaderList&) = delete;

  curl_slist* get() const { return list_; }
  const absl::Status& status() const { return status_; }

 private:
  curl_slist* list_ = nullptr;
  absl::Status status_;
};

struct CurlOptions {
  long timeout_ms = 0;
  long connect_timeout_ms = 0;
  curl_slist* headers = nullptr;
  char* error_buffer = nullptr;  // CURL_ERROR_SIZE bytes
  Transfer* transfer = nullptr;
};

// Applies every option of one call to a freshly reset handle; the first failure wins.
CURLcode ApplyOptions(CURL* curl, const HttpRequest& request, const CurlOptions& options) {
  CURLcode result = ApplyCurlPolicy(curl, options.error_buffer);
  auto set = [&](CURLoption option, auto value) {
    if (result == CURLE_OK) result = curl_easy_setopt(curl, option, value);
  };
  set(CURLOPT_URL, request.url.c_str());
  set(CURLOPT_TIMEOUT_MS, options.timeout_ms);
  set(CURLOPT_CONNECTTIMEOUT_MS, options.connect_timeout_ms);
  set(CURLOPT_HTTPHEADER, options.headers);
  set(CURLOPT_HEADERFUNCTION, &OnHeader);
  set(CURLOPT_HEADERDATA, static_cast<void*>(options.transfer));
  set(CURLOPT_WRITEFUNCTION, &OnBody);
  set(CURLOPT_WRITEDATA, static_cast<void*>(options.transfer));
  if (request.method == "POST") {
    set(CURLOPT_POST, 1L);
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    set(CURLOPT_POSTFIELDS, request.body.data());
  } else {
    set(CURLOPT_HTTPGET, 1L);
  }
  return result;
}

absl::Status ToStatus(CURLcode code, const Transfer& transfer, const HttpRequest& request,
                      const char* error_buffer) {
  if (transfer.aborted_by_callback) {
    return absl::CancelledError(
        absl::StrCat(request.method, " ", request.url, ": aborted by the chunk callback"));
  }
  return CurlCodeToStatus(code, absl::StrCat(request.method, " ", request.url), error_buffer);
}

std::once_flag g_curl_init_once;
CURLcode g_curl_init_result = CURLE_OK;

}  // namespace

absl::StatusOr<std::unique_ptr<CurlHttpClient>> CurlHttpClient::Create() {
  std::call_once(g_curl_init_once, [] { g_curl_init_result = curl_global_init(CURL_GLOBAL_ALL); });
  if (g_curl_init_result != CURLE_OK) {
    return absl::InternalError(
        absl::StrCat("curl_global_init failed: ", curl_easy_strerror(g_curl_init_result)));
  }
  return std::unique_ptr<CurlHttpClient>(new CurlHttpClient());
}

CurlHttpClient::~CurlHttpClient() {
  std::lock_guard<std::mutex> lock(mu_);
  KV_CHECK(handles_in_use_ == 0) << "CurlHttpClient destroyed with calls in flight";
  for (void* handle : idle_handles_) curl_easy_cleanup(handle);
}

absl::StatusOr<HttpResponse> CurlHttpClient::Send(const HttpRequest& request) {
  return Perform(request, nullptr);
}

absl::StatusOr<HttpResponse> CurlHttpClient::SendStreaming(const HttpRequest& request,
                                                           const HttpChunkCallback& on_chunk) {
  return Perform(request, &on_chunk);
}

absl::StatusOr<HttpResponse> CurlHttpClient::Perform(const HttpRequest& request,
                                                     const HttpChunkCallback* on_chunk) {
  KV_RETURN_IF_ERROR(
      CheckCurlRequest(request.method, request.url, request.body.empty(), request.headers));
  CurlOptions options;
  KV_ASSIGN_OR_RETURN(options.timeout_ms, ToCurlMillis(request.timeout, "timeout"));
  KV_ASSIGN_OR_RETURN(options.connect_timeout_ms,
                      ToCurlMillis(request.connect_timeout, "connect timeout"));
  const CurlHeaderList headers(request.headers);
  KV_RETURN_IF_ERROR(headers.status());
  options.headers = headers.get();
  char error_buffer[CURL_ERROR_SIZE] = {};
  options.error_buffer = error_buffer;
  Transfer transfer;
  transfer.on_chunk = on_chunk;
  options.transfer = &transfer;

  CURL* curl = AcquireHandle();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  CURLcode code = ApplyOptions(curl, request, options);
  if (code == CURLE_OK) code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  // A handle whose transfer failed may keep state from it (an allocated receive buffer, a
  // half-used connection): close it rather than pool it.
  ReleaseHandle(curl, /*reusable=*/code == CURLE_OK);

  if (code != CURLE_OK) return ToStatus(code, transfer, request, error_buffer);
  transfer.response.status = static_cast<int>(status);
  return std::move(transfer.response);
}

void* CurlHttpClient::AcquireHandle() {
  CURL* handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++handles_in_use_;
    if (!idle_handles_.empty()) {
      handle = idle_handles_.back();  // the most recently used: its connections are the warmest
      idle_handles_.pop_back();
      return handle;
    }
  }
  handle = curl_easy_init();
  if (handle == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    --handles_in_use_;
  }
  return handle;
}

void CurlHttpClient::ReleaseHandle(void* handle, bool reusable) {
  // Forgets this call's options (and its pointers into our stack); keeps open connections.
  if (reusable) curl_easy_reset(handle);
  {
    std::lock_guard<std::mutex> lock(mu_);
    --handles_in_use_;
    if (reusable && idle_handles_.size() < kMaxIdleHandles) {
      idle_handles_.push_back(handle);
      return;
    }
  }
  curl_easy_cleanup(handle);
}

}  // namespace kvbench
