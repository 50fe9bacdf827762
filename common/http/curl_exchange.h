#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/http/async_http_client.h"

namespace kvbench {

// One AsyncHttpClient exchange on a reusable libcurl easy handle (CurlMultiHttpClient's unit of
// work): the per-exchange options, the callbacks that stamp arrivals and hand them to the
// observer, and curl's result as a Status. The handle is made on the first Prepare with the
// options every exchange shares, then kept for the next exchanges (no curl_easy_reset: Prepare
// sets every per-exchange option). Used by one thread at a time; never added to a multi handle
// twice.
class CurlExchange {
 public:
  static constexpr size_t kNoSlot = SIZE_MAX;

  CurlExchange() = default;
  ~CurlExchange();
  CurlExchange(const CurlExchange&) = delete;
  CurlExchange& operator=(const CurlExchange&) = delete;

  // The exchange owning `easy`, a handle that Prepare made.
  static CurlExchange* FromHandle(CURL* easy);

  // Readies the handle for `request` on behalf of `observer`. When that fails the exchange
  // cannot start and failure() says why (INVALID_ARGUMENT for a bad request, else INTERNAL).
  // The request body is not copied: curl sends it from where it lies.
  void Prepare(const AsyncHttpRequest& request, AsyncHttpObserver* observer);
  const absl::Status& failure() const { return failure_; }
  void set_failure(absl::Status failure) { failure_ = std::move(failure); }

  // The Status of the finished transfer, from curl's result (see CurlMultiHttpClient).
  absl::Status ResultStatus(CURLcode code) const;
  // CANCELLED, naming the request and `why`.
  absl::Status CancelledStatus(absl::string_view why) const;
  // Ends the exchange: forgets (and returns) its observer and frees its request headers. The
  // handle stays, for the next Prepare.
  AsyncHttpObserver* Finish();

  CURL* easy() const { return easy_; }
  // Where the owner keeps the exchange while it is in flight; kNoSlot otherwise.
  size_t slot() const { return slot_; }
  void set_slot(size_t slot) { slot_ = slot; }

 private:
  // curl's CURLOPT_HEADERFUNCTION and CURLOPT_WRITEFUNCTION.
  static size_t OnHeaderLine(char* data, size_t size, size_t count, void* user);
  static size_t OnBodyBytes(char* data, size_t size, size_t count, void* user);
  // Feeds a chunked upload (AsyncHttpRequest::chunked_body) from upload_.
  static size_t OnUploadBytes(char* buffer, size_t size, size_t count, void* user);

  absl::Status PrepareOrFail(const AsyncHttpRequest& request);
  // Makes the handle, with the options every exchange shares.
  absl::Status MakeHandle();
  void ReportHeaders(MonotonicTime arrival);
  std::string Describe() const;  // "POST http://..."

  CURL* easy_ = nullptr;
  AsyncHttpObserver* observer_ = nullptr;
  bool post_ = false;
  absl::string_view upload_;  // the rest of a chunked body not yet handed to curl
  std::string url_;
  curl_slist* headers_ = nullptr;
  absl::Status failure_;
  size_t slot_ = kNoSlot;
  bool headers_reported_ = false;
  bool aborted_by_observer_ = false;
  char error_[CURL_ERROR_SIZE] = {};
};

}  // namespace kvbench
