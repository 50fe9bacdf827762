#include "tests/fakes/fake_async_http_client.h"

#include <chrono>
#include <utility>

#include "absl/strings/match.h"

namespace kvbench::testing {

std::string FakeAsyncHttpClient::Request::Header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

void FakeAsyncHttpClient::SetResponder(Responder responder) {
  std::lock_guard<std::mutex> lock(mu_);
  responder_ = std::move(responder);
}

std::vector<FakeAsyncHttpClient::Request> FakeAsyncHttpClient::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void FakeAsyncHttpClient::Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) {
  Request recorded{request.method, request.url, request.headers, std::string(request.body)};
  Responder responder;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) {
      observer->OnComplete(absl::CancelledError("client shut down"),
                           std::chrono::steady_clock::now());
      return;
    }
    requests_.push_back(recorded);
    responder = responder_;
  }
  if (!responder) {
    observer->OnComplete(absl::UnavailableError("FakeAsyncHttpClient: no responder"),
                         std::chrono::steady_clock::now());
    return;
  }
  Reply reply = responder(recorded);
  if (reply.http_status > 0)
    observer->OnHeaders(reply.http_status, std::chrono::steady_clock::now());
  for (const std::string& chunk : reply.chunks) {
    if (!observer->OnBody(chunk, std::chrono::steady_clock::now())) {
      observer->OnComplete(absl::CancelledError("aborted by the observer"),
                           std::chrono::steady_clock::now());
      return;
    }
  }
  observer->OnComplete(reply.status, std::chrono::steady_clock::now());
}

void FakeAsyncHttpClient::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  shut_down_ = true;
}

}  // namespace kvbench::testing
