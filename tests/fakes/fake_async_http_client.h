#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/http/async_http_client.h"

namespace kvbench::testing {

// An AsyncHttpClient that answers inside Start, on the caller's thread, from a responder the test
// sets, and records every request (body copied). The observer sees OnHeaders, one OnBody per
// scripted chunk (stamped with steady_clock now) and OnComplete, as a real client would deliver
// them; a chunk refused by OnBody ends the exchange with CANCELLED. Without a responder, or after
// Shutdown, exchanges complete at once: UNAVAILABLE, resp. CANCELLED. Thread-safe.
class FakeAsyncHttpClient : public AsyncHttpClient {
 public:
  struct Request {
    std::string method;
    std::string url;
    HttpHeaders headers;
    std::string body;

    // The first header named `name` (case-insensitive), or "".
    std::string Header(const std::string& name) const;
  };
  struct Reply {
    absl::Status status;    // OnComplete's status after the chunks
    int http_status = 200;  // 0: no OnHeaders (a transport failure before any response)
    std::vector<std::string> chunks;
  };
  using Responder = std::function<Reply(const Request&)>;

  void SetResponder(Responder responder);
  std::vector<Request> requests() const;

  void Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) override;
  void Shutdown() override;
  int in_flight() const override { return 0; }

 private:
  mutable std::mutex mu_;
  Responder responder_;            // guarded by mu_
  std::vector<Request> requests_;  // guarded by mu_
  bool shut_down_ = false;         // guarded by mu_
};

}  // namespace kvbench::testing
