#include "controller/kvctl/embedded_controller.h"

#include <csignal>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::kvctl {
namespace {

const char* SignalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace

// One Follow call's state, owned by the loop's tasks.
struct EmbeddedController::Follower {
  std::string job_id;
  EventFn on_event;
  int64_t position = 0;
  uint64_t watcher = 0;
  bool done = false;
  std::promise<absl::Status> ended;
};

absl::StatusOr<std::unique_ptr<EmbeddedController>> EmbeddedController::Start(
    controller::Store* store, Clock* clock, controller::JobManagerOptions options) {
  options.fail_unplaceable = true;  // no other agent will join
  auto loop = std::make_unique<EventLoop>("kvctl-run");
  KV_ASSIGN_OR_RETURN(std::unique_ptr<controller::JobManager> manager,
                      controller::JobManager::Create(store, clock, loop.get(), options));
  std::unique_ptr<EmbeddedController> embedded(new EmbeddedController(clock, std::move(loop)));
  embedded->manager_ = std::move(manager);
  embedded->loop_->OnSignals({SIGINT, SIGTERM, SIGHUP}, [raw = embedded.get()](int signal) {
    raw->interrupted_ = absl::StrCat("interrupted (", SignalName(signal), ")");
    raw->CancelIfInterrupted();
  });
  embedded->thread_ = std::thread([loop = embedded->loop_.get()] { loop->Run(); });
  return embedded;
}

EmbeddedController::EmbeddedController(Clock* clock, std::unique_ptr<EventLoop> loop)
    : clock_(clock), loop_(std::move(loop)) {}

EmbeddedController::~EmbeddedController() { Stop(); }

absl::StatusOr<v1::SubmitJobResponse> EmbeddedController::Submit(const v1::JobSpec& spec) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  return Call<absl::StatusOr<v1::SubmitJobResponse>>("kvctl.submit",
                                                     [&] { return manager_->SubmitJob(request); });
}

absl::StatusOr<v1::Job> EmbeddedController::GetJob(const std::string& job_id) {
  return Call<absl::StatusOr<v1::Job>>("kvctl.get_job", [&] { return manager_->GetJob(job_id); });
}

void EmbeddedController::Attach(v1::AgentCapabilities capabilities, agent::EventSpool* spool,
                                agent::ScenarioRunner* runner) {
  agent::ControllerLinkOptions options;
  options.agent_id = capabilities.agent_id();
  options.controller_address = "in-process";
  link_ = agent::ControllerLink::CreateWithTransport(
      std::move(options), std::move(capabilities), spool, runner, clock_, loop_.get(),
      std::make_unique<InProcessAgentBridge>(manager_.get(), loop_.get()));
  link_->Start();
}

absl::StatusOr<v1::Job> EmbeddedController::Follow(const std::string& job_id, EventFn on_event) {
  auto follower = std::make_shared<Follower>();
  follower->job_id = job_id;
  follower->on_event = std::move(on_event);
  std::future<absl::Status> ended = follower->ended.get_future();
  loop_->Post("kvctl.follow", [this, follower] {
    following_ = follower;
    CancelIfInterrupted();
    Pump(follower);
  });
  const absl::Status status = ended.get();
  Call<bool>("kvctl.unfollow", [this] {
    following_.reset();
    return true;
  });
  if (!status.ok()) return status;
  return GetJob(job_id);
}

void EmbeddedController::Interrupt(const std::string& why) {
  loop_->Post("kvctl.interrupt", [this, why] {
    interrupted_ = why;
    CancelIfInterrupted();
  });
}

void EmbeddedController::CancelIfInterrupted() {
  if (interrupted_.empty() || cancel_sent_ || following_ == nullptr || following_->done) return;
  cancel_sent_ = true;
  KV_LOG(WARNING) << "cancelling the job job=" << following_->job_id << " reason=\"" << interrupted_
                  << "\"";
  v1::CancelJobRequest request;
  request.set_job_id(following_->job_id);
  request.set_reason(interrupted_);
  // Already ended: nothing to cancel, the follower sees the end.
  (void)manager_->CancelJob(request);
}

void EmbeddedController::Pump(const std::shared_ptr<Follower>& follower) {
  if (follower->done) return;
  absl::StatusOr<controller::WatchBatch> batch =
      manager_->WatchEvents(follower->job_id, follower->position);
  if (!batch.ok()) {
    follower->done = true;
    follower->ended.set_value(batch.status());
    return;
  }
  for (const v1::WatchJobResponse& response : batch->events) {
    follower->position = response.position();
    if (follower->on_event) follower->on_event(response.event());
  }
  if (batch->job_done) {
    follower->done = true;
    follower->ended.set_value(absl::OkStatus());
    return;
  }
  if (static_cast<int>(batch->events.size()) >= controller::kWatchBatch) {
    loop_->Post("kvctl.follow", [this, follower] { Pump(follower); });
    return;
  }
  follower->watcher = manager_->AddWatcher(follower->job_id, [this, follower] { Pump(follower); });
}

void EmbeddedController::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (link_ != nullptr) link_->Stop();
  Call<bool>("kvctl.shutdown", [this] {
    manager_->Shutdown();
    return true;
  });
  loop_->Stop();
  if (thread_.joinable()) thread_.join();
  link_.reset();
  manager_.reset();
}

}  // namespace kvbench::kvctl
