#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/sim/engine/external_kv_cache.h"
#include "agent/sim/lmcache/lmcache_protocol.h"

namespace kvbench::sim::lmcache {

// kvsim-vllm's LMCacheMPConnector stand-in: the ExternalKvCache of one engine thread, talking to
// kvsim-lmcache over ZMQ (a DEALER socket; protocol in lmcache_protocol.h). Every call is one
// blocking round trip bounded by mq_timeout. Not thread-safe: one client per engine thread; it
// may be created on one thread and handed to another (thread start orders the two), as ZMQ
// sockets allow, but never used from two at once.
//
// Errors: UNAVAILABLE when the server does not answer within mq_timeout (the socket is then
// rebuilt, so a late reply is dropped with it and the next call starts clean); the server's own
// code for requests it refused; INTERNAL for a reply that does not parse or does not match.
class LmcacheClient : public ExternalKvCache {
 public:
  // Connects to `host` ("tcp://127.0.0.1", or a bare host) at `port` and performs the HELLO
  // handshake, learning the server's chunk size. UNAVAILABLE when the server does not answer
  // within `mq_timeout` ("cannot reach the LMCache server at tcp://127.0.0.1:5555 within 300 s"):
  // kvsim-vllm then exits non-zero, as vLLM's connector raises ConnectionError.
  // INVALID_ARGUMENT for a bad host, port or timeout.
  static absl::StatusOr<std::unique_ptr<LmcacheClient>> Connect(const std::string& host, int port,
                                                                absl::Duration mq_timeout,
                                                                const std::string& model_name);
  ~LmcacheClient() override;
  LmcacheClient(const LmcacheClient&) = delete;
  LmcacheClient& operator=(const LmcacheClient&) = delete;

  int chunk_size() const override { return chunk_size_; }
  absl::StatusOr<ExternalLookup> Lookup(const std::vector<uint64_t>& chunk_hashes) override;
  absl::StatusOr<ExternalLoad> Load(const std::vector<uint64_t>& chunk_hashes) override;
  absl::Status Store(const std::vector<uint64_t>& chunk_hashes, int64_t bytes_per_chunk) override;

  // tcp://host:port
  const std::string& address() const { return address_; }

 private:
  LmcacheClient(std::string address, absl::Duration mq_timeout, std::string model_name);

  // Sends `request` (numbered here) and waits for its reply. A reply with a non-OK status is
  // returned as that status.
  absl::StatusOr<Reply> Call(Request request);
  // A fresh DEALER connected to address_, replacing the current one.
  void ResetSocket();

  const std::string address_;
  const absl::Duration mq_timeout_;
  const std::string model_name_;
  zmq::context_t context_;
  std::unique_ptr<zmq::socket_t> socket_;
  uint32_t next_request_id_ = 1;
  int chunk_size_ = 0;
};

}  // namespace kvbench::sim::lmcache
