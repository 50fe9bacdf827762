#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/support/test_http_server.h"

namespace kvbench::testing {

// A loopback HTTP mirror serving one file's bytes at `/<name>` with Range support (206 +
// Content-Range for `bytes=N-`, ignored when an If-Range does not match), an ETag, and faults
// on demand: the first response cut after some bytes, or one byte flipped in every response.
// Records the Range and If-Range headers of each request.
class DatasetFileServer {
 public:
  static absl::StatusOr<std::unique_ptr<DatasetFileServer>> Create(std::string name,
                                                                   std::string content);

  // The next request gets only `bytes` of its body, then the connection closes.
  void CutFirstResponseAfter(size_t bytes) { cut_after_ = static_cast<long>(bytes); }
  // Every response has the byte at `offset` (of the file) flipped.
  void FlipByteAt(size_t offset) { flip_at_ = static_cast<long>(offset); }
  // The ETag header value from now on (quotes included; default "\"tau2-v1\"").
  void SetEtag(std::string etag);

  // "http://127.0.0.1:<port>": a mirror base URL.
  std::string base_url() const { return server_->url(""); }
  int requests() const { return server_->requests_received(); }
  // The Range header of each request ("" when none), in order.
  std::vector<std::string> ranges() const;
  // The If-Range header of each request ("" when none), in order.
  std::vector<std::string> if_ranges() const;

 private:
  DatasetFileServer(std::string name, std::string content)
      : name_(std::move(name)), content_(std::move(content)) {}
  void Serve(const TestHttpServer::Request& request, TestHttpServer::StreamWriter& writer);

  std::string name_;
  const std::string content_;
  std::atomic<long> cut_after_{-1};
  std::atomic<long> flip_at_{-1};
  mutable std::mutex mu_;
  std::string etag_ = "\"tau2-v1\"";    // guarded by mu_
  std::vector<std::string> ranges_;     // guarded by mu_
  std::vector<std::string> if_ranges_;  // guarded by mu_
  // Last: its threads run Serve and stop before the state above goes.
  std::unique_ptr<TestHttpServer> server_;
};

}  // namespace kvbench::testing
