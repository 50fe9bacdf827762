#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "agent/link/link_transport.h"
#include "common/time/clock.h"
#include "kvbench/v1/agent_link.pb.h"

namespace kvbench::testing {

// A LinkTransport without a network: every Open makes a stream the test drives (Deliver a
// controller message, Finish it) and inspects (what the link wrote, whether it cancelled).
// Callbacks run on the caller's thread; the link only posts from them. Thread-safe.
class FakeLinkTransport : public agent::LinkTransport {
 public:
  // `clock` (may be null) stamps each Open with its monotonic time.
  explicit FakeLinkTransport(Clock* clock = nullptr);

  std::unique_ptr<agent::LinkStream> Open(agent::LinkStreamCallbacks callbacks) override;

  // Streams opened so far.
  int opens() const;
  // The clock's monotonic time at each Open, in order.
  std::vector<absl::Duration> open_times() const;
  // What the link wrote on stream `index` (0 = first opened; -1 = the last).
  std::vector<v1::AgentMessage> writes(int index = -1) const;
  // True when the link cancelled the stream (Cancel, or destroying it while live).
  bool cancelled(int index = -1) const;
  bool done(int index = -1) const;

  // The controller sends `message` on the last stream.
  void Deliver(v1::ControllerMessage message);
  // The last stream ends with `status` (on_done), unless it is already done.
  void Finish(absl::Status status);

  // Shared by a stream and the transport, so the test sees a stream the link destroyed.
  struct StreamState {
    agent::LinkStreamCallbacks callbacks;
    std::vector<v1::AgentMessage> writes;
    bool cancelled = false;
    bool done = false;
  };

 private:
  std::shared_ptr<StreamState> Stream(int index) const;

  Clock* const clock_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<StreamState>> streams_;
  std::vector<absl::Duration> open_times_;
};

}  // namespace kvbench::testing
