#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "absl/status/statusor.h"
#include "agent/sim/lmcache/request_handler.h"

namespace kvbench::sim::lmcache {

// The ZMQ face of kvsim-lmcache: a ROUTER socket serving every client (kvsim-vllm replicas, one
// DEALER per engine thread) with the protocol of lmcache_protocol.h.
//
// Threads: one poller owns the ROUTER; it hands each request to a pool of --max-workers worker
// threads (LMCache's worker pool), which run the RequestHandler and pass the reply back to the
// poller over an inproc PUSH/PULL pair; only the poller ever touches the ROUTER. Envelopes are
// kept whole, so REQ clients (with their empty delimiter frame) work as well as DEALERs.
class ZmqService {
 public:
  // Binds a ROUTER at `endpoint` ("tcp://127.0.0.1:5555"; port "*" picks a free one). Binding
  // happens here, so a port in use is an UNAVAILABLE naming the endpoint before anything runs.
  // `handler` must outlive the service.
  static absl::StatusOr<std::unique_ptr<ZmqService>> Create(const std::string& endpoint,
                                                            int num_workers,
                                                            RequestHandler* handler);
  ~ZmqService();  // Stop()
  ZmqService(const ZmqService&) = delete;
  ZmqService& operator=(const ZmqService&) = delete;

  // Starts serving.
  void Start();
  // Stops the poller, then the workers (a request in progress finishes; its reply is dropped).
  // Idempotent.
  void Stop();

  // The bound endpoint, e.g. tcp://127.0.0.1:5555, and its port.
  const std::string& endpoint() const { return endpoint_; }
  int port() const { return port_; }

 private:
  struct Job {
    std::vector<std::string> envelope;  // every frame before the request
    std::string request;
  };

  ZmqService(int num_workers, RequestHandler* handler);

  void PollLoop();
  // Forwards one multipart reply from a worker to the ROUTER; false on the stop signal.
  bool ForwardReply();
  void ReceiveRequest();
  void WorkerLoop();

  const int num_workers_;
  RequestHandler* const handler_;
  const std::string replies_address_;
  zmq::context_t context_;  // first: outlives every socket
  zmq::socket_t router_;    // the poller's, once started
  zmq::socket_t replies_;   // PULL, the poller's
  std::string endpoint_;
  int port_ = 0;

  std::mutex mu_;
  std::condition_variable jobs_cv_;
  std::deque<Job> jobs_;       // guarded by mu_
  bool workers_stop_ = false;  // guarded by mu_
  bool started_ = false;
  bool stopped_ = false;
  std::thread poller_;
  std::vector<std::thread> workers_;
};

}  // namespace kvbench::sim::lmcache
