#include "tests/component/agent/link/fake_agent_link_service.h"

#include <chrono>

#include "absl/strings/str_cat.h"

namespace kvbench::testing {

grpc::Status FakeAgentLinkService::Attach(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ControllerMessage, v1::AgentMessage>* stream) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++attaches_;
    if (!refuse_.ok()) return refuse_;
    context_ = context;
    stream_ = stream;
  }
  v1::AgentMessage message;
  std::string agent_id;
  while (stream->Read(&message)) {
    std::lock_guard<std::mutex> lock(mu_);
    if (message.has_register_()) {
      agent_id = message.register_().capabilities().agent_id();
      registrations_.push_back(message.register_());
      v1::ControllerMessage reply;
      reply.mutable_registered()->set_heartbeat_interval_s(heartbeat_interval_s_);
      reply.mutable_registered()->set_acked_seq(
          registered_acked_seq_ >= 0 ? registered_acked_seq_ : highest_seq_[agent_id]);
      SendLocked(reply);
    } else if (message.has_heartbeat()) {
      heartbeats_.push_back(message.heartbeat());
    } else if (message.has_event()) {
      OnEvent(message.event());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  context_ = nullptr;
  stream_ = nullptr;
  return grpc::Status::OK;
}

void FakeAgentLinkService::OnEvent(const v1::Event& event) {
  raw_events_.push_back(event);
  stored_.emplace(EventKey{event.agent_id(), event.scenario_id(), event.seq()}, event);
  int64_t& highest = highest_seq_[event.agent_id()];
  highest = std::max(highest, event.seq());
  if (auto_ack_) {
    v1::ControllerMessage ack;
    ack.mutable_ack()->set_acked_seq(highest);
    SendLocked(ack);
  }
}

bool FakeAgentLinkService::SendLocked(const v1::ControllerMessage& message) {
  if (stream_ == nullptr) return false;
  return stream_->Write(message);
}

bool FakeAgentLinkService::Send(const v1::ControllerMessage& message) {
  std::lock_guard<std::mutex> lock(mu_);
  return SendLocked(message);
}

bool FakeAgentLinkService::SendAssignment(const v1::Assignment& assignment) {
  v1::ControllerMessage message;
  *message.mutable_assignment() = assignment;
  return Send(message);
}

bool FakeAgentLinkService::SendCancel(const v1::Assignment& assignment) {
  v1::ControllerMessage message;
  message.mutable_cancel()->set_job_id(assignment.scenario().job_id());
  message.mutable_cancel()->set_scenario_id(assignment.scenario().scenario_id());
  message.mutable_cancel()->set_attempt(assignment.attempt());
  message.mutable_cancel()->set_reason("test");
  return Send(message);
}

bool FakeAgentLinkService::SendAck(int64_t acked_seq) {
  v1::ControllerMessage message;
  message.mutable_ack()->set_acked_seq(acked_seq);
  return Send(message);
}

void FakeAgentLinkService::CutStream() {
  std::lock_guard<std::mutex> lock(mu_);
  if (context_ != nullptr) context_->TryCancel();
}

void FakeAgentLinkService::set_heartbeat_interval_s(double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  heartbeat_interval_s_ = seconds;
}
void FakeAgentLinkService::set_auto_ack(bool auto_ack) {
  std::lock_guard<std::mutex> lock(mu_);
  auto_ack_ = auto_ack;
}
void FakeAgentLinkService::set_registered_acked_seq(int64_t acked_seq) {
  std::lock_guard<std::mutex> lock(mu_);
  registered_acked_seq_ = acked_seq;
}
void FakeAgentLinkService::set_refuse(grpc::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  refuse_ = std::move(status);
}
int FakeAgentLinkService::attaches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return attaches_;
}
bool FakeAgentLinkService::stream_open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stream_ != nullptr;
}
std::vector<v1::Register> FakeAgentLinkService::registrations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return registrations_;
}
std::vector<v1::Heartbeat> FakeAgentLinkService::heartbeats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heartbeats_;
}
std::vector<v1::Event> FakeAgentLinkService::raw_events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return raw_events_;
}
std::map<FakeAgentLinkService::EventKey, v1::Event> FakeAgentLinkService::stored_events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stored_;
}
std::vector<v1::Event> FakeAgentLinkService::StoredEventsOf(const std::string& scenario_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<int64_t, v1::Event> by_seq;
  for (const auto& [key, event] : stored_) {
    if (std::get<1>(key) == scenario_id) by_seq.emplace(std::get<2>(key), event);
  }
  std::vector<v1::Event> events;
  for (auto& [seq, event] : by_seq) events.push_back(event);
  return events;
}

FakeControllerServer::FakeControllerServer(int port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::StrCat("127.0.0.1:", port), grpc::InsecureServerCredentials(),
                           &port_);
  builder.RegisterService(&service_);
  server_ = builder.BuildAndStart();
}

FakeControllerServer::~FakeControllerServer() {
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server_->Wait();
}

std::string FakeControllerServer::address() const { return absl::StrCat("127.0.0.1:", port_); }

}  // namespace kvbench::testing
