#include "agent/datasets/registry/curl_file_downloader.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/datasets/registry/dataset_cache.h"
#include "common/http/curl_status.h"

namespace kvbench::datasets {
namespace {

constexpr char kAllowedProtocols[] = "http,https";
constexpr char kLoopbackNoProxy[] = "localhost,127.0.0.1,::1";
constexpr size_t kErrorBodyBytes = 512;  // of an error response, kept for the message

// What the callbacks of one transfer share.
struct Transfer {
  const DownloadRequest* request = nullptr;
  CURL* curl = nullptr;
  FILE* file = nullptr;      // opened at the first body byte, once the status is known
  bool decided = false;      // whether the status was looked at
  bool writing = false;      // body goes to the file (200/206)
  int64_t written_base = 0;  // bytes in the file before this body
  int64_t written = 0;
  std::string etag;
  std::string raw_etag;  // as sent, for If-Range
  std::string linked_etag;
  std::string error_body;
  std::string file_error;
};

std::string Unquote(absl::string_view value) {
  value = absl::StripAsciiWhitespace(value);
  if (absl::StartsWith(value, "W/")) value.remove_prefix(2);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  return std::string(value);
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  const absl::string_view line = absl::StripTrailingAsciiWhitespace(absl::string_view(data, bytes));
  if (absl::StartsWith(line, "HTTP/")) {  // a new response (after a redirect): start over
    transfer->etag.clear();
    transfer->raw_etag.clear();
    transfer->linked_etag.clear();
    return bytes;
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return bytes;
  const absl::string_view name = absl::StripAsciiWhitespace(line.substr(0, colon));
  const absl::string_view value = line.substr(colon + 1);
  if (absl::EqualsIgnoreCase(name, "ETag")) {
    transfer->etag = Unquote(value);
    transfer->raw_etag = std::string(absl::StripAsciiWhitespace(value));
  }
  if (absl::EqualsIgnoreCase(name, "X-Linked-Etag")) transfer->linked_etag = Unquote(value);
  return bytes;
}

// Opens the file as the final status says: append on 206, rewrite on 200, nothing otherwise.
bool Decide(Transfer* transfer) {
  transfer->decided = true;
  long status = 0;
  curl_easy_getinfo(transfer->curl, CURLINFO_RESPONSE_CODE, &status);
  const DownloadRequest& request = *transfer->request;
  if (status != 200 && status != 206) return true;
  const bool append = status == 206 && request.offset > 0;
  transfer->file = std::fopen(request.path.c_str(), append ? "ab" : "wb");
  if (transfer->file == nullptr) {
    transfer->file_error = absl::StrCat("cannot open ", request.path, ": ", std::strerror(errno));
    return false;
  }
  transfer->writing = true;
  if (request.on_etag) request.on_etag(transfer->raw_etag);
  transfer->written_base = append ? request.offset : 0;
  return true;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  if (!transfer->decided && !Decide(transfer)) return CURL_WRITEFUNC_ERROR;
  if (!transfer->writing) {
    const size_t keep =
        std::min(bytes, kErrorBodyBytes - std::min(kErrorBodyBytes, transfer->error_body.size()));
    transfer->error_body.append(data, keep);
    return bytes;
  }
  if (std::fwrite(data, 1, bytes, transfer->file) != bytes) {
    transfer->file_error =
        absl::StrCat("cannot write ", transfer->request->path, ": ", std::strerror(errno));
    return CURL_WRITEFUNC_ERROR;
  }
  transfer->written += static_cast<int64_t>(bytes);
  if (transfer->request->on_progress) {
    curl_off_t length = -1;
    curl_easy_getinfo(transfer->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    std::optional<int64_t> total;
    if (length >= 0) total = transfer->written_base + static_cast<int64_t>(length);
    transfer->request->on_progress(transfer->written_base + transfer->written, total);
  }
  return bytes;
}

CURLcode ApplyOptions(CURL* curl, const DownloadRequest& request, Transfer* transfer,
                      char* error_buffer, curl_slist* headers, const std::string& range) {
  // curl would read no_proxy itself; setting the option replaces it, so keep it and add loopback.
  std::string no_proxy = kLoopbackNoProxy;
  for (const char* name : {"no_proxy", "NO_PROXY"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
      no_proxy = absl::StrCat(value, ",", no_proxy);
      break;
    }
  }
  CURLcode result = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    if (result == CURLE_OK) result = curl_easy_setopt(curl, option, value);
  };
  set(CURLOPT_ERRORBUFFER, error_buffer);
  set(CURLOPT_URL, request.url.c_str());
  set(CURLOPT_PROTOCOLS_STR, kAllowedProtocols);
  set(CURLOPT_REDIR_PROTOCOLS_STR, kAllowedProtocols);
  set(CURLOPT_FOLLOWLOCATION, 1L);
  set(CURLOPT_MAXREDIRS, kDownloadMaxRedirects);
  set(CURLOPT_NOPROXY, no_proxy.c_str());
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_CONNECTTIMEOUT_MS,
      static_cast<long>(absl::ToInt64Milliseconds(kDownloadConnectTimeout)));
  set(CURLOPT_LOW_SPEED_LIMIT, kDownloadStallBytesPerSecond);
  set(CURLOPT_LOW_SPEED_TIME, static_cast<long>(absl::ToInt64Seconds(kDownloadStallTimeout)));
  set(CURLOPT_HEADERFUNCTION, &OnHeader);
  set(CURLOPT_HEADERDATA, transfer);
  set(CURLOPT_WRITEFUNCTION, &OnBody);
  set(CURLOPT_WRITEDATA, transfer);
  if (headers != nullptr) set(CURLOPT_HTTPHEADER, headers);
  if (!range.empty()) set(CURLOPT_RANGE, range.c_str());
  return result;
}

}  // namespace

absl::StatusOr<DownloadResult> CurlFileDownloader::Download(const DownloadRequest& request) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return absl::InternalError("curl_easy_init failed");
  Transfer transfer;
  transfer.request = &request;
  transfer.curl = curl.get();
  const std::string range = request.offset > 0 ? absl::StrCat(request.offset, "-") : "";
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr,
                                                                      &curl_slist_free_all);
  if (!range.empty() && !request.if_range.empty()) {
    headers.reset(curl_slist_append(nullptr, absl::StrCat("If-Range: ", request.if_range).c_str()));
  }
  char error_buffer[CURL_ERROR_SIZE] = {0};
  const std::string what = absl::StrCat("GET ", request.url);
  if (CURLcode code =
          ApplyOptions(curl.get(), request, &transfer, error_buffer, headers.get(), range);
      code != CURLE_OK) {
    return CurlCodeToStatus(code, what, error_buffer);
  }
  const CURLcode code = curl_easy_perform(curl.get());
  // A body-less 200/206 (an empty file) still rewrites or keeps the file as the status says.
  if (code == CURLE_OK && !transfer.decided && !Decide(&transfer)) {
    return absl::InternalError(transfer.file_error);
  }
  if (transfer.file != nullptr && std::fclose(transfer.file) != 0 && code == CURLE_OK) {
    return absl::InternalError(absl::StrCat("cannot write ", request.path));
  }
  if (!transfer.file_error.empty()) return absl::InternalError(transfer.file_error);
  if (code != CURLE_OK) return CurlCodeToStatus(code, what, error_buffer);
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  DownloadResult result;
  result.http_status = static_cast<int>(status);
  result.resumed = status == 206 && request.offset > 0;
  result.etag = transfer.linked_etag.empty() ? transfer.etag : transfer.linked_etag;
  result.bytes_in_file = FileSize(request.path).value_or(0);
  return result;
}

}  // namespace kvbench::datasets
