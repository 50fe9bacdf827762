#pragma once

#include <vector>

#include "controller/core/agent_channel.h"

namespace kvbench::testing {

// Records what the job manager sends to one agent.
class FakeAgentChannel : public controller::AgentChannel {
 public:
  void Send(v1::ControllerMessage message) override { sent.push_back(std::move(message)); }
  void Close(const absl::Status& status) override { closed = status; }

  // The assignments sent so far, in order.
  std::vector<v1::Assignment> Assignments() const {
    std::vector<v1::Assignment> assignments;
    for (const auto& message : sent) {
      if (message.has_assignment()) assignments.push_back(message.assignment());
    }
    return assignments;
  }
  // The cancels sent so far, in order.
  std::vector<v1::CancelScenario> Cancels() const {
    std::vector<v1::CancelScenario> cancels;
    for (const auto& message : sent) {
      if (message.has_cancel()) cancels.push_back(message.cancel());
    }
    return cancels;
  }
  int64_t LastAck() const {
    int64_t acked = -1;
    for (const auto& message : sent) {
      if (message.has_ack()) acked = message.ack().acked_seq();
    }
    return acked;
  }

  std::vector<v1::ControllerMessage> sent;
  absl::Status closed;
};

}  // namespace kvbench::testing
