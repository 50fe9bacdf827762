#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "absl/functional/function_ref.h"
#include "common/http/http_server.h"
#include "common/http/http_server_gate.h"
#include "common/http/http_write_queue.h"

namespace kvbench {

class HttpServerSession;

// The HttpResponder of one request on an HttpServerSession. It formats the response (status
// line, the handler's headers, Content-Length or chunked framing) on the calling thread into the
// session's write queue; the session's strand writes it. It holds the session weakly and touches
// it only inside the server's gate, so it outlives the connection and the server harmlessly.
//
// The server sets the framing headers itself: Content-Length, Transfer-Encoding and Connection
// passed by a handler are dropped (a "Connection: close" among them is honoured), as are headers
// whose name or value holds CR or LF.
class HttpSessionResponder final : public HttpResponder {
 public:
  // `version` is the request's (11 for HTTP/1.1); `keep_alive` whether the request allows the
  // connection to serve another one.
  HttpSessionResponder(std::shared_ptr<HttpServerGate> gate,
                       std::weak_ptr<HttpServerSession> session, unsigned version,
                       bool keep_alive);
  // Answers 500 if nothing was sent; ends the stream if one was started.
  ~HttpSessionResponder() override;
  HttpSessionResponder(const HttpSessionResponder&) = delete;
  HttpSessionResponder& operator=(const HttpSessionResponder&) = delete;

  void Respond(int status, HttpHeaders headers, std::string body) override;
  void StartStream(int status, HttpHeaders headers) override;
  void SendChunk(std::string data) override;
  void EndStream() override;
  bool closed() const override;

 private:
  enum class State { kIdle, kStreaming, kDone };

  void RespondLocked(int status, const HttpHeaders& headers, absl::string_view body);
  void EndStreamLocked();
  // Appends to the live session's queue inside the gate; false if the session or server is gone.
  bool Enqueue(absl::FunctionRef<void(std::string*)> fill, HttpWriteQueue::End end) const;
  HttpWriteQueue::End EndOfResponse() const;

  const std::shared_ptr<HttpServerGate> gate_;
  const std::weak_ptr<HttpServerSession> session_;
  const unsigned version_;

  std::mutex mu_;
  State state_ = State::kIdle;  // guarded by mu_
  bool keep_alive_;             // guarded by mu_: false once a handler said Connection: close
  bool chunked_ = false;        // guarded by mu_: the stream uses chunked framing (HTTP/1.1)
};

}  // namespace kvbench
