// kv-rogue-agent: an agent that says what it likes, for tests/e2e/rogue_agents.sh. It dials a
// controller's AgentLink with a client certificate (its own, CA-signed: the controller lets it
// register under the certificate's name), registers as a sim-capable agent, and sends the events
// of a script as written: forged ones for another agent's job, a controller-only payload, seqs
// out of range or out of order. Everything the controller answers is printed, one line each:
//   registered acked_seq=N | ack N | assignment job=J scenario=S attempt=N |
//   cancel job=J scenario=S attempt=N reason=... | closed CODE: message
// The script (--script) has one JSON object a line: {"event": EVENT} sends a kvbench.v1.Event
// (proto JSON; agent_id filled in when empty), {"wait_ack": SEQ} waits (5 s at most) for an ack
// of SEQ or the stream's end, {"reconnect": true} ends the stream and attaches again. After the
// script, --hold_s keeps the stream that long, heartbeating each second as running the last
// scenario assigned (and never starting it; with --start, it sends that attempt's RUNNING, then
// nothing but heartbeats). Exit 0 when the script ran, 2 on bad flags or a
// script it cannot read, 1 when the controller could not be reached.

#include <grpcpp/grpcpp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/grpc/grpc_credentials.h"
#include "common/json/proto_json.h"
#include "kvbench/v1/agent_link.grpc.pb.h"

namespace {

using kvbench::v1::AgentLink;
using kvbench::v1::AgentMessage;
using kvbench::v1::ControllerMessage;

// One Attach stream: a reader thread prints what comes and records acks and the end.
class RogueStream {
 public:
  RogueStream(AgentLink::Stub* stub, const AgentMessage& reg)
      : agent_id_(reg.register_().capabilities().agent_id()) {
    stream_ = stub->Attach(&context_);
    reader_ = std::thread([this] { ReadAll(); });
    Write(reg);
  }
  ~RogueStream() {
    context_.TryCancel();
    reader_.join();
  }

  bool Write(const AgentMessage& message) {
    if (message.has_event()) {
      std::lock_guard<std::mutex> lock(mu_);
      last_seq_ = message.event().seq();
    }
    return stream_->Write(message);
  }
  // The RUNNING of the last assignment, once, numbered after the last event sent or acked.
  void StartAssigned() {
    AgentMessage message;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!assignment_.has_scenario() || started_ == assignment_.SerializeAsString()) return;
      started_ = assignment_.SerializeAsString();
      kvbench::v1::Event* event = message.mutable_event();
      event->set_seq(std::max(last_seq_, acked_) + 1);
      event->set_job_id(assignment_.scenario().job_id());
      event->set_scenario_id(assignment_.scenario().scenario_id());
      event->set_attempt(assignment_.attempt());
      event->mutable_state_change()->set_state(kvbench::v1::SCENARIO_STATE_RUNNING);
    }
    message.mutable_event()->set_agent_id(agent_id_);
    Write(message);
    std::cout << "started seq=" << message.event().seq() << std::endl;
  }
  // Until `seq` is acknowledged or the stream ends, at most 5 s.
  void WaitAck(int64_t seq) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return acked_ >= seq || done_; });
  }
  void WaitRegistered() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return registered_ || done_; });
  }
  bool done() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  std::string running() {
    std::lock_guard<std::mutex> lock(mu_);
    return running_;
  }

 private:
  void ReadAll() {
    ControllerMessage message;
    while (stream_->Read(&message)) {
      std::lock_guard<std::mutex> lock(mu_);
      if (message.has_registered()) {
        registered_ = true;
        acked_ = message.registered().acked_seq();
        std::cout << "registered acked_seq=" << acked_ << std::endl;
      } else if (message.has_ack()) {
        acked_ = std::max(acked_, message.ack().acked_seq());
        std::cout << "ack " << message.ack().acked_seq() << std::endl;
      } else if (message.has_assignment()) {
        running_ = message.assignment().scenario().scenario_id();
        assignment_ = message.assignment();
        std::cout << "assignment job=" << message.assignment().scenario().job_id()
                  << " scenario=" << running_ << " attempt=" << message.assignment().attempt()
                  << std::endl;
      } else if (message.has_cancel()) {
        std::cout << "cancel job=" << message.cancel().job_id()
                  << " scenario=" << message.cancel().scenario_id()
                  << " attempt=" << message.cancel().attempt()
                  << " reason=" << message.cancel().reason() << std::endl;
      }
      cv_.notify_all();
    }
    const grpc::Status status = stream_->Finish();
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    std::cout << "closed " << status.error_code() << ": " << status.error_message() << std::endl;
    cv_.notify_all();
  }

  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<AgentMessage, ControllerMessage>> stream_;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool registered_ = false;
  bool done_ = false;
  int64_t acked_ = -1;
  int64_t last_seq_ = 0;
  std::string running_;
  kvbench::v1::Assignment assignment_;
  std::string started_;  // the assignment StartAssigned started, serialized
  const std::string agent_id_;
};

AgentMessage Registration(const std::string& agent_id, const std::vector<std::string>& labels) {
  AgentMessage message;
  kvbench::v1::AgentCapabilities* capabilities =
      message.mutable_register_()->mutable_capabilities();
  capabilities->set_agent_id(agent_id);
  capabilities->add_profiles("sim-vllm");
  capabilities->add_profiles("sim-lmcache");
  capabilities->set_cpu_memory_bytes(int64_t{64} << 30);
  for (const std::string& label : labels) {
    const size_t eq = label.find('=');
    (*capabilities->mutable_labels())[label.substr(0, eq)] =
        eq == std::string::npos ? "" : label.substr(eq + 1);
  }
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  std::string address, agent_id, script_path;
  kvbench::v1::TlsConfig tls;
  std::vector<std::string> labels;
  double hold_s = 0;
  bool start = false;
  CLI::App app("An agent that sends forged events (tests)");
  app.add_option("--address", address, "The controller's host:port")->required();
  app.add_option("--agent_id", agent_id, "The id to register (a name of the certificate)")
      ->required();
  app.add_option("--ca", *tls.mutable_ca_cert_path(), "The controller's CA")->required();
  app.add_option("--cert", *tls.mutable_cert_path(), "This agent's certificate")->required();
  app.add_option("--key", *tls.mutable_key_path(), "Its key")->required();
  app.add_option("--script", script_path, "JSON lines: event, wait_ack, reconnect");
  app.add_option("--label", labels, "KEY=VALUE labels to register with");
  app.add_option("--hold_s", hold_s, "Seconds to stay attached after the script")
      ->check(CLI::Range(0.0, 600.0));
  app.add_flag("--start", start, "While holding, send each assignment's RUNNING, then go silent");
  CLI11_PARSE(app, argc, argv);

  std::vector<nlohmann::json> steps;
  if (!script_path.empty()) {
    std::ifstream in(script_path);
    if (!in) {
      std::cerr << "kv-rogue-agent: cannot read " << script_path << "\n";
      return 2;
    }
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      nlohmann::json step = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (step.is_discarded() || !step.is_object()) {
        std::cerr << "kv-rogue-agent: not a JSON object: " << line << "\n";
        return 2;
      }
      steps.push_back(std::move(step));
    }
  }
  auto credentials = kvbench::MakeAgentChannelCredentials(tls, /*insecure=*/false);
  if (!credentials.ok()) {
    std::cerr << "kv-rogue-agent: " << credentials.status() << "\n";
    return 2;
  }
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(address, *credentials);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    std::cerr << "kv-rogue-agent: cannot reach " << address << "\n";
    return 1;
  }
  std::unique_ptr<AgentLink::Stub> stub = AgentLink::NewStub(channel);
  const AgentMessage reg = Registration(agent_id, labels);
  auto stream = std::make_unique<RogueStream>(stub.get(), reg);
  stream->WaitRegistered();
  for (const nlohmann::json& step : steps) {
    if (step.contains("reconnect")) {
      stream.reset();
      stream = std::make_unique<RogueStream>(stub.get(), reg);
      stream->WaitRegistered();
    } else if (step.contains("wait_ack")) {
      stream->WaitAck(step["wait_ack"].get<int64_t>());
    } else if (step.contains("event")) {
      AgentMessage message;
      kvbench::FieldErrors errors =
          kvbench::ParseJsonToProto(step["event"].dump(), message.mutable_event());
      if (!errors.empty()) {
        std::cerr << "kv-rogue-agent: not an Event: " << step["event"].dump() << "\n";
        return 2;
      }
      if (message.event().agent_id().empty()) message.mutable_event()->set_agent_id(agent_id);
      stream->Write(message);
    }
  }
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(hold_s * 1000));
  while (std::chrono::steady_clock::now() < until && !stream->done()) {
    AgentMessage beat;
    beat.mutable_heartbeat()->set_running_scenario_id(stream->running());
    if (start) stream->StartAssigned();
    stream->Write(beat);
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  stream.reset();
  return 0;
}
