#include "agent/link/controller_link.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/link/failover_link_transport.h"
#include "agent/link/grpc_link_transport.h"
#include "agent/link/reconnect_backoff.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

bool IsAuthError(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnauthenticated ||
         status.code() == absl::StatusCode::kPermissionDenied;
}

// What a failed connection most likely means, from gRPC's text (a certificate of
// another CA, or plaintext against the TLS port, shows only as "Socket closed").
// Empty when nothing points at TLS. Neither case gets better by retrying soon.
std::string TlsFailureHint(const absl::Status& status, bool insecure) {
  if (status.code() != absl::StatusCode::kUnavailable) return "";
  const absl::string_view text = status.message();
  if (absl::StrContains(text, "Ssl handshake failed") ||
      absl::StrContains(text, "CERTIFICATE_VERIFY_FAILED")) {
    return "the TLS handshake failed: this agent does not trust the controller's certificate "
           "(is tls.ca_cert_path the CA that signed it, and does it name the address dialled?)";
  }
  if (absl::StrContains(text, "Socket closed")) {
    return insecure
               ? "the controller closed the connection at once: if it serves TLS, this agent "
                 "(\"insecure\": true) cannot talk to it"
               : "the controller closed the connection during the TLS handshake: it most likely "
                 "refused this agent's certificate (signed by a CA it does not trust, or not a "
                 "client certificate), or it serves plaintext";
  }
  return "";
}

}  // namespace

absl::StatusOr<std::unique_ptr<ControllerLink>> ControllerLink::Create(
    ControllerLinkOptions options, v1::AgentCapabilities capabilities, EventSpool* spool,
    ScenarioWorker* worker, Clock* clock, Executor* executor) {
  if (options.controller_address.empty()) {
    return absl::InvalidArgumentError("controller_address is empty");
  }
  KV_ASSIGN_OR_RETURN(ControllerAddresses addresses,
                      ControllerAddresses::Parse(options.controller_address));
  KV_ASSIGN_OR_RETURN(std::unique_ptr<LinkTransport> transport,
                      FailoverLinkTransport::Create(
                          std::move(addresses), [tls = options.tls, insecure = options.insecure](
                                                    const std::string& address) {
                            return CreateGrpcLinkTransport(address, tls, insecure);
                          }));
  return CreateWithTransport(std::move(options), std::move(capabilities), spool, worker, clock,
                             executor, std::move(transport));
}

std::unique_ptr<ControllerLink> ControllerLink::CreateWithTransport(
    ControllerLinkOptions options, v1::AgentCapabilities capabilities, EventSpool* spool,
    ScenarioWorker* worker, Clock* clock, Executor* executor,
    std::unique_ptr<LinkTransport> transport) {
  return std::unique_ptr<ControllerLink>(new ControllerLink(std::move(options),
                                                            std::move(capabilities), spool, worker,
                                                            clock, executor, std::move(transport)));
}

ControllerLink::ControllerLink(ControllerLinkOptions options, v1::AgentCapabilities capabilities,
                               EventSpool* spool, ScenarioWorker* worker, Clock* clock,
                               Executor* executor, std::unique_ptr<LinkTransport> transport)
    : options_(std::move(options)),
      capabilities_(std::move(capabilities)),
      spool_(spool),
      worker_(worker),
      clock_(clock),
      executor_(executor),
      transport_(std::move(transport)),
      heartbeat_interval_(options_.heartbeat_interval) {
  KV_CHECK(executor_ != nullptr && clock_ != nullptr);
}

ControllerLink::~ControllerLink() { Stop(); }

Executor::Task ControllerLink::Guarded(std::function<void()> task) {
  return [life = life_, task = std::move(task)] {
    std::lock_guard<std::mutex> lock(life->mu);
    if (!life->stopped) task();
  };
}

void ControllerLink::PostGuarded(absl::string_view name, std::function<void()> task) {
  executor_->Post(name, Guarded(std::move(task)));
}

void ControllerLink::Start() {
  std::lock_guard<std::mutex> lock(life_->mu);
  if (life_->started || life_->stopped) return;
  life_->started = true;
  KV_LOG(INFO) << "controller link starting agent_id=" << options_.agent_id
               << " controller=" << options_.controller_address
               << " insecure=" << (options_.insecure ? "true" : "false");
  PostGuarded("link.connect", [this] { Connect(); });
}

void ControllerLink::Stop() {
  std::unique_ptr<LinkStream> stream;
  {
    std::lock_guard<std::mutex> lock(life_->mu);
    if (life_->stopped) return;
    life_->stopped = true;
    CancelTimers();
    executor_->Cancel(reconnect_task_);
    reconnect_task_ = TaskId{};
    stream = std::move(stream_);
    registered_ = false;
    if (!life_->started) return;
  }
  stream.reset();  // cancels if still live and waits until it is done; its callbacks are dropped
  KV_LOG(INFO) << "controller link stopped agent_id=" << options_.agent_id;
}

bool ControllerLink::connected() const { return registered_.load(); }

int64_t ControllerLink::acked_seq() const { return acked_seq_.load(); }

int ControllerLink::connects() const { return connects_.load(); }

void ControllerLink::Connect() {
  reconnect_task_ = TaskId{};
  const uint64_t id = ++stream_id_;
  registered_ = false;
  // The transport's threads only post to the executor, tagged so a late callback of an old
  // stream is dropped.
  LinkStreamCallbacks callbacks;
  callbacks.on_message = [this, id](v1::ControllerMessage message) {
    PostGuarded("link.message",
                [this, id, message = std::move(message)] { OnStreamMessage(id, message); });
  };
  callbacks.on_done = [this, id](absl::Status status) {
    PostGuarded("link.stream_done",
                [this, id, status = std::move(status)] { OnStreamDone(id, status); });
  };
  stream_address_ = transport_->address();
  if (stream_address_.empty()) stream_address_ = options_.controller_address;
  stream_ = transport_->Open(std::move(callbacks));
  stream_->Write(MakeRegister());
  register_timeout_ = executor_->RunAfter("link.register_timeout", kRegisterTimeout,
                                          Guarded([this, id] { OnRegisterTimeout(id); }));
}

void ControllerLink::OnRegisterTimeout(uint64_t stream_id) {
  register_timeout_ = TaskId{};
  if (stream_id != stream_id_ || registered_ || stream_ == nullptr) return;
  KV_LOG(WARNING) << "controller did not answer Register in time controller=" << stream_address_;
  stream_->Cancel();  // on_done follows
}

void ControllerLink::OnStreamMessage(uint64_t stream_id, const v1::ControllerMessage& message) {
  if (stream_id != stream_id_ || stream_ == nullptr) return;
  switch (message.message_case()) {
    case v1::ControllerMessage::kRegistered:
      OnRegistered(message.registered());
      break;
    case v1::ControllerMessage::kAssignment:
      OnAssignment(message.assignment());
      break;
    case v1::ControllerMessage::kCancel:
      OnCancel(message.cancel());
      break;
    case v1::ControllerMessage::kAck:
      OnAck(message.ack().acked_seq());
      break;
    case v1::ControllerMessage::MESSAGE_NOT_SET:
      KV_LOG_EVERY_N_SEC(WARNING, 60) << "empty message from the controller ignored";
      break;
  }
}

void ControllerLink::OnStreamDone(uint64_t stream_id, const absl::Status& status) {
  if (stream_id != stream_id_ || stream_ == nullptr) return;
  const bool was_registered = registered_.exchange(false);
  // Only a stream that held for a while resets the backoff: one that fails right after each
  // registration (a controller that refuses at once, a proxy cutting streams) must not be
  // redialled every initial delay forever.
  if (was_registered && clock_->Monotonic() - registered_at_ >= options_.backoff_max) failures_ = 0;
  CancelTimers();
  stream_.reset();
  LogStreamEnd(status, was_registered);
  reconnect_task_ =
      executor_->RunAfter("link.reconnect", NextBackoff(status), Guarded([this] { Connect(); }));
}

void ControllerLink::CancelTimers() {
  executor_->Cancel(register_timeout_);
  executor_->Cancel(heartbeat_task_);
  register_timeout_ = TaskId{};
  heartbeat_task_ = TaskId{};
}

v1::AgentMessage ControllerLink::MakeRegister() const {
  v1::AgentMessage message;
  v1::Register* reg = message.mutable_register_();
  *reg->mutable_capabilities() = capabilities_;
  // Each attempt once: those with events still to replay, then the one running.
  for (const v1::ScenarioAttempt& attempt : spool_->AttemptsWithUnacknowledgedEvents()) {
    *reg->add_running() = attempt;
  }
  const v1::ScenarioAttempt now_running = worker_->running();
  const bool listed = std::any_of(
      reg->running().begin(), reg->running().end(),
      [&](const v1::ScenarioAttempt& attempt) { return SameAttempt(attempt, now_running); });
  if (!now_running.scenario_id().empty() && !listed) *reg->add_running() = now_running;
  return message;
}

void ControllerLink::OnRegistered(const v1::Registered& registered) {
  absl::Status acked = spool_->Acknowledge(registered.acked_seq());
  if (!acked.ok()) KV_LOG(ERROR) << "event spool acknowledge failed: " << acked;
  acked_seq_ = std::max(acked_seq_.load(), registered.acked_seq());
  if (registered.heartbeat_interval_s() > 0) {
    heartbeat_interval_ = absl::Seconds(registered.heartbeat_interval_s());
  }
  // Replay everything spooled so far; an event whose send task is still queued is skipped by
  // its seq (SendSpooled), one spooled after this is sent by it.
  size_t replayed = 0;
  sent_seq_ = registered.acked_seq();
  for (v1::Event& event : spool_->UnacknowledgedAfter(registered.acked_seq())) {
    sent_seq_ = std::max(sent_seq_, event.seq());
    v1::AgentMessage message;
    *message.mutable_event() = std::move(event);
    stream_->Write(std::move(message));
    ++replayed;
  }
  executor_->Cancel(register_timeout_);
  register_timeout_ = TaskId{};
  executor_->Cancel(heartbeat_task_);
  heartbeat_task_ = executor_->RunEvery("link.heartbeat", heartbeat_interval_,
                                        Guarded([this] { SendHeartbeat(); }));
  registered_ = true;
  ++connects_;
  registered_at_ = clock_->Monotonic();
  last_auth_error_.clear();
  KV_LOG(INFO) << "registered with controller controller=" << stream_address_
               << " acked_seq=" << registered.acked_seq() << " replayed=" << replayed
               << " heartbeat_interval_s=" << registered.heartbeat_interval_s();
}

void ControllerLink::OnCancel(const v1::CancelScenario& cancel) {
  KV_LOG(INFO) << "cancel from controller job=" << cancel.job_id()
               << " scenario=" << cancel.scenario_id() << " attempt=" << cancel.attempt()
               << " reason=" << cancel.reason();
  v1::ScenarioAttempt target;
  target.set_job_id(cancel.job_id());
  target.set_scenario_id(cancel.scenario_id());
  target.set_attempt(cancel.attempt());
  worker_->Cancel(target);
}

void ControllerLink::OnAssignment(const v1::Assignment& assignment) {
  const std::string& scenario_id = assignment.scenario().scenario_id();
  KV_LOG(INFO) << "assignment from controller job=" << assignment.scenario().job_id()
               << " scenario=" << scenario_id << " attempt=" << assignment.attempt();
  absl::Status started =
      worker_->Start(assignment, [this](v1::Event event) { EmitEvent(std::move(event)); });
  if (started.ok()) return;
  KV_LOG(WARNING) << "assignment refused scenario=" << scenario_id << " reason=" << started;
  v1::Event event;
  event.set_job_id(assignment.scenario().job_id());
  event.set_scenario_id(scenario_id);
  event.set_attempt(assignment.attempt());
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
  acked_seq_ = std::max(acked_seq_.load(), acked_seq);
}

void ControllerLink::SendHeartbeat() {
  if (!registered_ || stream_ == nullptr) return;
  v1::AgentMessage message;
  message.mutable_heartbeat()->set_unix_ms(absl::ToUnixMillis(clock_->Now()));
  message.mutable_heartbeat()->set_running_scenario_id(worker_->running_scenario_id());
  if (options_.nvme_free_bytes) {
    if (std::optional<int64_t> free = options_.nvme_free_bytes()) {
      message.mutable_heartbeat()->set_nvme_free_bytes(*free);
    }
  }
  if (options_.preflight) {
    for (v1::PreflightCheck& check : options_.preflight()) {
      *message.mutable_heartbeat()->add_preflight() = std::move(check);
    }
  }
  stream_->Write(std::move(message));
}

void ControllerLink::SendSpooled(v1::Event event) {
  if (!registered_ || stream_ == nullptr || event.seq() <= sent_seq_) return;
  sent_seq_ = event.seq();
  v1::AgentMessage message;
  *message.mutable_event() = std::move(event);
  stream_->Write(std::move(message));
}

void ControllerLink::EmitEvent(v1::Event event) {
  event.set_agent_id(options_.agent_id);
  event.set_unix_ms(absl::ToUnixMillis(clock_->Now()));
  // Spooled durably first (even once stopped: the next start sends it), then sent from the
  // executor; under emit_mu_ so the sends are posted in seq order.
  std::lock_guard<std::mutex> lock(emit_mu_);
  absl::StatusOr<int64_t> seq = spool_->Append(&event);
  if (!seq.ok()) {
    // Without a seq the controller cannot store it once; it is lost (counted in the log).
    KV_LOG_EVERY_N_SEC(ERROR, 30) << "event spool append failed scenario=" << event.scenario_id()
                                  << ": " << seq.status();
    return;
  }
  PostGuarded("link.event", [this, event = std::move(event)] { SendSpooled(event); });
}

absl::Duration ControllerLink::NextBackoff(const absl::Status& status) {
  if (IsAuthError(status) || !TlsFailureHint(status, options_.insecure).empty()) {
    return options_.backoff_max;
  }
  ++failures_;
  const absl::Duration cap = BackoffCap(options_.backoff_initial, options_.backoff_max, failures_);
  return FullJitter(cap, absl::Uniform<double>(absl::IntervalClosed, random_, 0.0, 1.0));
}

void ControllerLink::LogStreamEnd(const absl::Status& status, bool was_registered) {
  if (IsAuthError(status)) {
    const std::string text = status.ToString();
    if (text != last_auth_error_) {
      KV_LOG(ERROR) << "the controller refused this agent controller=" << stream_address_
                    << " status=" << text << " (check the agent's certificate; retrying every "
                    << absl::FormatDuration(options_.backoff_max) << ")";
      last_auth_error_ = text;
    }
    return;
  }
  if (was_registered) {
    KV_LOG(WARNING) << "controller link lost controller=" << stream_address_
                    << " status=" << status;
    return;
  }
  if (const std::string hint = TlsFailureHint(status, options_.insecure); !hint.empty()) {
    const std::string text = status.ToString();
    if (text != last_auth_error_) {
      KV_LOG(ERROR) << "cannot connect to the controller controller=" << stream_address_ << ": "
                    << hint
                    << "; this will not succeed until the certificates or the config change "
                       "(retrying every "
                    << absl::FormatDuration(options_.backoff_max) << ") status=" << text;
      last_auth_error_ = text;
    }
    return;
  }
  KV_LOG_EVERY_N_SEC(WARNING, 30) << "cannot reach the controller controller=" << stream_address_
                                  << " status=" << status;
}

}  // namespace kvbench::agent
