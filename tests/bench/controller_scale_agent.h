#pragma once

// One simulated agent of the controller scale bench's fleet (ScaleFleet).

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/grpc/stream_write_queue.h"
#include "kvbench/v1/agent_link.grpc.pb.h"

namespace kvbench::bench {

class ScaleFleet;

// One simulated agent: one Attach stream, reads always outstanding, one write in flight. It
// registers, sends what the fleet asks and reports what the controller answers to the fleet.
class ScaleAgent : public grpc::ClientBidiReactor<v1::AgentMessage, v1::ControllerMessage> {
 public:
  ScaleAgent(ScaleFleet* fleet, int index, std::string agent_id);

  const std::string& agent_id() const { return agent_id_; }

  // Opens the stream on `stub` with its Register first.
  void Start(v1::AgentLink::Stub* stub);
  void SendHeartbeats(int count);
  // A Progress event numbered `seq`, of its assignment's job and scenario, or of
  // `fallback_job_id` while it has none.
  void SendProgress(int64_t seq, const std::string& fallback_job_id);
  // Builds, without sending, `events` RequestRecords events numbered first_seq, first_seq + 1,
  // ... of job `job_id` and a scenario named after the agent, `rows_per_event` rows each (the
  // last the rest of `rows`), so that the phase that sends them times the controller alone.
  void PrepareRequests(int64_t first_seq, const std::string& job_id, int rows, int rows_per_event);
  // Queues the next prepared event; false when none is left.
  bool SendNextPrepared();
  void Cancel();

  void OnWriteDone(bool ok) override;
  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  void Write(v1::AgentMessage message);

  ScaleFleet* const fleet_;
  const int index_;
  const std::string agent_id_;
  grpc::ClientContext context_;
  v1::ControllerMessage incoming_;          // touched only by the read chain
  int64_t acks_ = 0;                        // touched only by the read chain
  std::vector<v1::AgentMessage> prepared_;  // touched only by the fleet's thread
  size_t next_prepared_ = 0;                // touched only by the fleet's thread
  std::mutex mu_;
  StreamWriteQueue<v1::AgentMessage> outbox_;  // guarded by mu_
  bool cancelled_ = false;                     // guarded by mu_
  std::string job_id_;                         // guarded by mu_: the last assignment's
  std::string scenario_id_;                    // guarded by mu_
  int attempt_ = 0;                            // guarded by mu_
};

}  // namespace kvbench::bench
