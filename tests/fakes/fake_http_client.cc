#include "tests/fakes/fake_http_client.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace kvbench::testing {

HttpResponse FakeHttpClient::MakeResponse(int status, std::string body, HttpHeaders headers) {
  HttpResponse response;
  response.status = status;
  response.headers = std::move(headers);
  response.body = std::move(body);
  return response;
}

void FakeHttpClient::EnqueueResponse(const std::string& url,
                                     absl::StatusOr<HttpResponse> response) {
  std::lock_guard<std::mutex> lock(mu_);
  queued_[url].push_back(std::move(response));
}

void FakeHttpClient::SetDefaultResponse(const std::string& url,
                                        absl::StatusOr<HttpResponse> response) {
  std::lock_guard<std::mutex> lock(mu_);
  defaults_.insert_or_assign(url, std::move(response));
}

void FakeHttpClient::SetStreamChunks(const std::string& url, std::vector<std::string> chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  stream_chunks_[url] = std::move(chunks);
}

std::vector<HttpRequest> FakeHttpClient::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

absl::StatusOr<HttpResponse> FakeHttpClient::Send(const HttpRequest& request) {
  KV_RETURN_IF_ERROR(Record(request));
  return NextResponse(request.url, /*streaming=*/false);
}

absl::StatusOr<HttpResponse> FakeHttpClient::SendStreaming(const HttpRequest& request,
                                                           const HttpChunkCallback& on_chunk) {
  KV_RETURN_IF_ERROR(Record(request));
  absl::StatusOr<HttpResponse> response = NextResponse(request.url, /*streaming=*/true);
  std::vector<std::string> chunks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto found = stream_chunks_.find(request.url);
    if (found != stream_chunks_.end()) chunks = found->second;
  }
  if (response.ok() && chunks.empty() && !response->body.empty()) {
    chunks.push_back(std::move(response->body));
  }
  if (!response.ok() && chunks.empty()) return response;
  // The callback runs without the lock: it may call back into this fake.
  for (const std::string& chunk : chunks) {
    if (!on_chunk(chunk)) {
      return absl::CancelledError(
          absl::StrCat(request.method, " ", request.url, ": aborted by the chunk callback"));
    }
  }
  if (response.ok()) response->body.clear();
  return response;
}

absl::Status FakeHttpClient::Record(const HttpRequest& request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
  }
  if (request.method != "GET" && request.method != "POST") {
    return absl::InvalidArgumentError(absl::StrCat("unsupported HTTP method \"", request.method,
                                                   "\" for ", request.url, " (GET or POST)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<HttpResponse> FakeHttpClient::NextResponse(const std::string& url,
                                                          bool streaming) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto queue = queued_.find(url); queue != queued_.end() && !queue->second.empty()) {
    absl::StatusOr<HttpResponse> response = std::move(queue->second.front());
    queue->second.pop_front();
    return response;
  }
  if (auto found = defaults_.find(url); found != defaults_.end()) return found->second;
  if (streaming && stream_chunks_.count(url) > 0) return MakeResponse(200, "");
  return absl::UnavailableError(absl::StrCat("FakeHttpClient: nothing set up for ", url));
}

}  // namespace kvbench::testing
