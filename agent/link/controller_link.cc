#include "agent/link/controller_link.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/link/grpc_link_transport.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

SteadyTime SteadyAfter(absl::Duration delay) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             absl::ToChronoNanoseconds(delay));
}

bool IsAuthError(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnauthenticated ||
         status.code() == absl::StatusCode::kPermissionDenied;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ControllerLink>> ControllerLink::Create(
    ControllerLinkOptions options, v1::AgentCapabilities capabilities, EventSpool* spool,
    ScenarioRunner* runner, Clock* clock) {
  if (options.controller_address.empty()) {
    return absl::InvalidArgumentError("controller_address is empty");
  }
  KV_ASSIGN_OR_RETURN(
      std::unique_ptr<LinkTransport> transport,
      CreateGrpcLinkTransport(options.controller_address, options.tls, options.insecure));
  return CreateWithTransport(std::move(options), std::move(capabilities), spool, runner, clock,
                             std::move(transport));
}

std::unique_ptr<ControllerLink> ControllerLink::CreateWithTransport(
    ControllerLinkOptions options, v1::AgentCapabilities capabilities, EventSpool* spool,
    ScenarioRunner* runner, Clock* clock, std::unique_ptr<LinkTransport> transport) {
  return std::unique_ptr<ControllerLink>(new ControllerLink(
      std::move(options), std::move(capabilities), spool, runner, clock, std::move(transport)));
}

ControllerLink::ControllerLink(ControllerLinkOptions options, v1::AgentCapabilities capabilities,
                               EventSpool* spool, ScenarioRunner* runner, Clock* clock,
                               std::unique_ptr<LinkTransport> transport)
    : options_(std::move(options)),
      capabilities_(std::move(capabilities)),
      spool_(spool),
      runner_(runner),
      clock_(clock),
      transport_(std::move(transport)),
      heartbeat_interval_(options_.heartbeat_interval) {}

ControllerLink::~ControllerLink() { Stop(); }

void ControllerLink::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || stopping_) return;
  KV_LOG(INFO) << "controller link starting agent_id=" << options_.agent_id
               << " controller=" << options_.controller_address
               << " insecure=" << (options_.insecure ? "true" : "false");
  thread_ = std::thread([this] { Run(); });
}

void ControllerLink::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    KV_LOG(INFO) << "controller link stopped agent_id=" << options_.agent_id;
  }
}

bool ControllerLink::connected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return registered_;
}

int64_t ControllerLink::acked_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return acked_seq_;
}

int ControllerLink::connects() const {
  std::lock_guard<std::mutex> lock(mu_);
  return connects_;
}

void ControllerLink::Run() {
  while (true) {
    const int connects_before = connects();
    const absl::Status status = RunStream();
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    const bool was_registered = connects_ > connects_before;
    lock.unlock();
    if (was_registered) failures_ = 0;
    LogStreamEnd(status, was_registered);
    const SteadyTime retry_at = SteadyAfter(NextBackoff(status));
    lock.lock();
    if (cv_.wait_until(lock, retry_at, [this] { return stopping_; })) return;
  }
}

absl::Status ControllerLink::RunStream() {
  std::unique_ptr<LinkStream> stream = OpenStream();
  active_stream_ = stream.get();
  stream->Write(MakeRegister());
  absl::Status status = ServeStream(stream.get());
  {
    std::lock_guard<std::mutex> send_lock(send_mu_);
    send_stream_ = nullptr;
  }
  active_stream_ = nullptr;
  stream.reset();  // cancels if still live and waits until it is done
  return status;
}

std::unique_ptr<LinkStream> ControllerLink::OpenStream() {
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = ++stream_id_;
    stream_done_ = false;
    stream_status_ = absl::OkStatus();
    inbox_.clear();
    registered_ = false;
  }
  // The transport's threads only post to the link thread (tagged, so a late message of an old
  // stream is dropped).
  LinkStreamCallbacks callbacks;
  callbacks.on_message = [this, id](v1::ControllerMessage message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (id != stream_id_) return;
    inbox_.push_back(Inbound{id, std::move(message)});
    cv_.notify_all();
  };
  callbacks.on_done = [this, id](absl::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (id != stream_id_) return;
    stream_done_ = true;
    stream_status_ = std::move(status);
    cv_.notify_all();
  };
  return transport_->Open(std::move(callbacks));
}

absl::Status ControllerLink::ServeStream(LinkStream* stream) {
  const SteadyTime register_deadline = SteadyAfter(kRegisterTimeout);
  SteadyTime next_heartbeat = register_deadline;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    const SteadyTime wake = registered_ ? next_heartbeat : register_deadline;
    cv_.wait_until(lock, wake, [&] { return stopping_ || stream_done_ || !inbox_.empty(); });
    if (!inbox_.empty()) {
      std::deque<Inbound> messages;
      messages.swap(inbox_);
      const bool was_registered = registered_;
      lock.unlock();
      for (const Inbound& inbound : messages) Handle(inbound.message);
      lock.lock();
      if (!was_registered && registered_) next_heartbeat = SteadyAfter(heartbeat_interval_);
      continue;
    }
    if (stopping_ || stream_done_) break;
    if (std::chrono::steady_clock::now() < wake) continue;
    if (!registered_) {
      KV_LOG(WARNING) << "controller did not answer Register in time controller="
                      << options_.controller_address;
      stream->Cancel();
      cv_.wait(lock, [this] { return stopping_ || stream_done_; });
      break;
    }
    next_heartbeat = SteadyAfter(heartbeat_interval_);
    lock.unlock();
    SendHeartbeat();
    lock.lock();
  }
  registered_ = false;
  return stream_done_ ? stream_status_ : absl::CancelledError("link stopping");
}

v1::AgentMessage ControllerLink::MakeRegister() const {
  v1::AgentMessage message;
  v1::Register* reg = message.mutable_register_();
  *reg->mutable_capabilities() = capabilities_;
  std::set<std::string> running = spool_->ScenariosWithUnacknowledgedEvents();
  const std::string now_running = runner_->running_scenario_id();
  if (!now_running.empty()) running.insert(now_running);
  for (const std::string& id : running) reg->add_running_scenario_ids(id);
  return message;
}

void ControllerLink::Handle(const v1::ControllerMessage& message) {
  switch (message.message_case()) {
    case v1::ControllerMessage::kRegistered:
      OnRegistered(message.registered());
      break;
    case v1::ControllerMessage::kAssignment:
      OnAssignment(message.assignment());
      break;
    case v1::ControllerMessage::kCancel:
      KV_LOG(INFO) << "cancel from controller scenario=" << message.cancel().scenario_id()
                   << " reason=" << message.cancel().reason();
      runner_->Cancel(message.cancel().scenario_id());
      break;
    case v1::ControllerMessage::kAck:
      OnAck(message.ack().acked_seq());
      break;
    case v1::ControllerMessage::MESSAGE_NOT_SET:
      KV_LOG_EVERY_N_SEC(WARNING, 60) << "empty message from the controller ignored";
      break;
  }
}

void ControllerLink::OnRegistered(const v1::Registered& registered) {
  absl::Status acked = spool_->Acknowledge(registered.acked_seq());
  if (!acked.ok()) KV_LOG(ERROR) << "event spool acknowledge failed: " << acked;
  {
    std::lock_guard<std::mutex> lock(mu_);
    acked_seq_ = std::max(acked_seq_, registered.acked_seq());
    if (registered.heartbeat_interval_s() > 0) {
      heartbeat_interval_ = absl::Seconds(registered.heartbeat_interval_s());
    }
  }
  // Replay, then let new events through: under send_mu_, so none is sent twice or skipped.
  size_t replayed = 0;
  {
    std::lock_guard<std::mutex> send_lock(send_mu_);
    for (v1::Event& event : spool_->UnacknowledgedAfter(registered.acked_seq())) {
      v1::AgentMessage message;
      *message.mutable_event() = std::move(event);
      active_stream_->Write(std::move(message));
      ++replayed;
    }
    send_stream_ = active_stream_;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    registered_ = true;
    ++connects_;
  }
  failures_ = 0;
  last_auth_error_.clear();
  KV_LOG(INFO) << "registered with controller controller=" << options_.controller_address
               << " acked_seq=" << registered.acked_seq() << " replayed=" << replayed
               << " heartbeat_interval_s=" << registered.heartbeat_interval_s();
}

void ControllerLink::OnAssignment(const v1::Assignment& assignment) {
  const std::string& scenario_id = assignment.scenario().scenario_id();
  if (!scenario_id.empty() && runner_->running_scenario_id() == scenario_id) {
    KV_LOG(INFO) << "assignment of the scenario already running ignored scenario=" << scenario_id;
    return;
  }
  KV_LOG(INFO) << "assignment from controller job=" << assignment.scenario().job_id()
               << " scenario=" << scenario_id << " attempt=" << assignment.attempt();
  absl::Status started =
      runner_->Start(assignment, [this](v1::Event event) { EmitEvent(std::move(event)); });
  if (started.ok()) return;
  KV_LOG(WARNING) << "assignment refused scenario=" << scenario_id << " reason=" << started;
  v1::Event event;
  event.set_job_id(assignment.scenario().job_id());
  event.set_scenario_id(scenario_id);
  v1::StateChange* state = event.mutable_state_change();
  state->set_state(v1::SCENARIO_STATE_FAILED);
  state->set_reason(
      absl::StrCat("agent ", options_.agent_id, " refused the assignment: ", started.message()));
  EmitEvent(std::move(event));
}

void ControllerLink::OnAck(int64_t acked_seq) {
  absl::Status acked = spool_->Acknowledge(acked_seq);
  if (!acked.ok()) {
    KV_LOG_EVERY_N_SEC(ERROR, 60) << "event spool acknowledge failed: " << acked;
  }
  std::lock_guard<std::mutex> lock(mu_);
  acked_seq_ = std::max(acked_seq_, acked_seq);
}

void ControllerLink::SendHeartbeat() {
  v1::AgentMessage message;
  message.mutable_heartbeat()->set_unix_ms(absl::ToUnixMillis(clock_->Now()));
  message.mutable_heartbeat()->set_running_scenario_id(runner_->running_scenario_id());
  std::lock_guard<std::mutex> send_lock(send_mu_);
  if (send_stream_ != nullptr) send_stream_->Write(std::move(message));
}

void ControllerLink::EmitEvent(v1::Event event) {
  event.set_agent_id(options_.agent_id);
  event.set_unix_ms(absl::ToUnixMillis(clock_->Now()));
  // Spooled durably first, then sent; under send_mu_ so the stream sees seqs in order.
  std::lock_guard<std::mutex> send_lock(send_mu_);
  absl::StatusOr<int64_t> seq = spool_->Append(&event);
  if (!seq.ok()) {
    // Without a seq the controller cannot store it once; it is lost (counted in the log).
    KV_LOG_EVERY_N_SEC(ERROR, 30) << "event spool append failed scenario=" << event.scenario_id()
                                  << ": " << seq.status();
    return;
  }
  if (send_stream_ == nullptr) return;
  v1::AgentMessage message;
  *message.mutable_event() = std::move(event);
  send_stream_->Write(std::move(message));
}

absl::Duration ControllerLink::NextBackoff(const absl::Status& status) {
  if (IsAuthError(status)) return options_.backoff_max;
  ++failures_;
  absl::Duration cap = options_.backoff_initial;
  for (int i = 1; i < failures_ && cap < options_.backoff_max; ++i) cap *= 2;
  cap = std::min(cap, options_.backoff_max);
  const absl::Duration low = std::min(options_.backoff_initial, cap);
  if (cap <= low) return low;
  return low + absl::Nanoseconds(
                   absl::Uniform<int64_t>(random_, 0, absl::ToInt64Nanoseconds(cap - low) + 1));
}

void ControllerLink::LogStreamEnd(const absl::Status& status, bool was_registered) {
  if (IsAuthError(status)) {
    const std::string text = status.ToString();
    if (text != last_auth_error_) {
      KV_LOG(ERROR) << "the controller refused this agent controller="
                    << options_.controller_address << " status=" << text
                    << " (check the agent's certificate; retrying every "
                    << absl::FormatDuration(options_.backoff_max) << ")";
      last_auth_error_ = text;
    }
    return;
  }
  if (was_registered) {
    KV_LOG(WARNING) << "controller link lost controller=" << options_.controller_address
                    << " status=" << status;
    return;
  }
  KV_LOG_EVERY_N_SEC(WARNING, 30) << "cannot reach the controller controller="
                                  << options_.controller_address << " status=" << status;
}

}  // namespace kvbench::agent
