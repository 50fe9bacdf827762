#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
// GCC 12 with -fsanitize=address sees a boost::optional in Beast's parser as maybe-uninitialized
// (a false positive, fatal under -Werror); the warning is located in these headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#pragma GCC diagnostic pop

#include "absl/functional/function_ref.h"
#include "common/http/http_router.h"
#include "common/http/http_server_gate.h"
#include "common/http/http_write_queue.h"

namespace kvbench {

// One accepted connection of an HttpServer: reads a request, hands it to its handler with an
// HttpSessionResponder, writes the response the responder queues, and then reads the next request
// (keep-alive) or closes. All I/O and all state but the write queue live on the socket's strand.
//
// While a handler works on a request the session keeps a read pending, so a client that hangs up
// is noticed at once (closed() turns true) even before anything is written; bytes a client sends
// meanwhile (pipelining) are kept for the next request. A half-close by the client therefore
// counts as hanging up, as it does for vLLM's server.
//
// Lifetime: the server's registry and pending operations hold it; responders hold a weak_ptr.
class HttpServerSession : public std::enable_shared_from_this<HttpServerSession> {
 public:
  // Shared by all sessions of one server, which outlives every strand callback of theirs.
  struct Context {
    const HttpRouter* router = nullptr;
    std::shared_ptr<HttpServerGate> gate;
    size_t max_body_bytes = 0;
    // Strand: the connection is closed; called once.
    std::function<void(uint64_t id)> on_closed;
  };

  // Request headers larger than this get 431.
  static constexpr uint32_t kMaxHeaderBytes = 64 * 1024;
  // While a handler works, bytes the client sends are buffered up to this much, then no longer
  // read (hang-ups are then noticed only when a write fails).
  static constexpr size_t kMaxBufferedWhileBusy = 64 * 1024;
  // After a final response on a connection that closes (413, Connection: close...), the rest of
  // the request is read and dropped up to this much, so the client sees the response rather
  // than a reset.
  static constexpr size_t kMaxDrainBytes = 16u << 20;

  // `socket` must be bound to a strand of its own.
  HttpServerSession(uint64_t id, boost::asio::ip::tcp::socket socket, const Context* context);
  HttpServerSession(const HttpServerSession&) = delete;
  HttpServerSession& operator=(const HttpServerSession&) = delete;

  uint64_t id() const { return id_; }

  // Any thread: starts reading requests.
  void Start();
  // Any thread: closes the connection (pending writes are dropped). Idempotent.
  void Close();
  // Any thread: appends bytes of the current response (see HttpWriteQueue::Append) and schedules
  // their write. False once the connection is closed.
  bool Enqueue(absl::FunctionRef<void(std::string*)> fill, HttpWriteQueue::End end);
  // True once the connection is closed (client gone, server stopping, or after the last response).
  bool closed() const { return closed_.load(std::memory_order_relaxed); }

 private:
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  // Everything below runs on the strand.
  void ReadRequest();
  void OnHeader(boost::beast::error_code error);
  void ReadBody();
  void OnRequest(boost::beast::error_code error);
  void OnReadError(boost::beast::error_code error);
  void Dispatch();
  // Answers `status` with an empty body and closes the connection afterwards.
  void RespondAndClose(int status);
  void ArmWatch();
  void OnWatchRead(boost::beast::error_code error, size_t bytes);
  void Flush();
  void OnWritten(boost::beast::error_code error);
  void OnResponseDone(HttpWriteQueue::End end);
  // Stops sending, then drops what the client still sends until it closes (or kMaxDrainBytes).
  void CloseGracefully();
  void Drain();
  void OnDrainRead(boost::beast::error_code error, size_t bytes);
  void CloseNow();

  const uint64_t id_;
  boost::asio::ip::tcp::socket socket_;
  const Context* const context_;
  HttpWriteQueue queue_;
  std::atomic<bool> closed_{false};
  // True once the handler's responder queued the end of the current response.
  std::atomic<bool> response_queued_{false};

  // Strand state.
  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  HttpWriteQueue::Batch batch_;  // being written
  bool writing_ = false;
  bool watching_ = false;           // a read is pending while a handler works
  bool awaiting_request_ = false;   // the response is out: the watch was cancelled, read next
  bool draining_ = false;           // the last response is out: dropping what the client sends
  bool close_done_ = false;         // the socket is closed
  size_t drained_bytes_ = 0;
};

}  // namespace kvbench
