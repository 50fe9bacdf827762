#pragma once

#include <grpcpp/grpcpp.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "kvbench/v1/agent_link.grpc.pb.h"

namespace kvbench::testing {

// The controller's side of AgentLink as the tests need it: answers Register with Registered,
// records everything, stores events once per (agent, scenario, seq) like the controller, and can
// be told to send messages, cut the stream or refuse agents. Runs on a real gRPC server on
// 127.0.0.1 port 0 (insecure). Thread-safe.
class FakeAgentLinkService final : public v1::AgentLink::Service {
 public:
  using EventKey = std::tuple<std::string, std::string, int64_t>;  // agent, scenario, seq

  grpc::Status Attach(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ControllerMessage, v1::AgentMessage>* stream) override;

  // Control.
  void set_heartbeat_interval_s(double seconds);
  void set_auto_ack(bool auto_ack);  // Ack every stored event (default on)
  // What Registered says as acked_seq: the highest stored seq of the agent when unset.
  void set_registered_acked_seq(int64_t acked_seq);
  void set_refuse(grpc::Status status);  // non-OK: every Attach ends with it at once
  // False when no stream is open.
  bool Send(const v1::ControllerMessage& message);
  bool SendAssignment(const v1::Assignment& assignment);
  // Cancels that attempt of the assignment's scenario.
  bool SendCancel(const v1::Assignment& assignment);
  bool SendAck(int64_t acked_seq);
  // Ends the open stream (the agent sees it fail).
  void CutStream();

  // Observation.
  int attaches() const;
  bool stream_open() const;
  std::vector<v1::Register> registrations() const;
  std::vector<v1::Heartbeat> heartbeats() const;
  std::vector<v1::Event> raw_events() const;  // as they came, duplicates included
  std::map<EventKey, v1::Event> stored_events() const;
  std::vector<v1::Event> StoredEventsOf(const std::string& scenario_id) const;  // in seq order

 private:
  bool SendLocked(const v1::ControllerMessage& message);
  void OnEvent(const v1::Event& event);

  mutable std::mutex mu_;
  double heartbeat_interval_s_ = 0.05;
  bool auto_ack_ = true;
  int64_t registered_acked_seq_ = -1;
  grpc::Status refuse_ = grpc::Status::OK;
  int attaches_ = 0;
  grpc::ServerContext* context_ = nullptr;
  grpc::ServerReaderWriter<v1::ControllerMessage, v1::AgentMessage>* stream_ = nullptr;
  std::vector<v1::Register> registrations_;
  std::vector<v1::Heartbeat> heartbeats_;
  std::vector<v1::Event> raw_events_;
  std::map<EventKey, v1::Event> stored_;
  std::map<std::string, int64_t> highest_seq_;  // by agent
};

// A gRPC server on 127.0.0.1 with a fake AgentLink service.
class FakeControllerServer {
 public:
  // port 0: the kernel's choice.
  explicit FakeControllerServer(int port = 0);
  ~FakeControllerServer();
  std::string address() const;
  FakeAgentLinkService& service() { return service_; }

 private:
  FakeAgentLinkService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace kvbench::testing
