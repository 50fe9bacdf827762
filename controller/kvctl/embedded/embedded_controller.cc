#include "controller/kvctl/embedded/embedded_controller.h"

#include <csignal>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/kvctl/embedded/in_process_agent_bridge.h"

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

std::unique_ptr<EmbeddedController> EmbeddedController::Create(Clock* clock) {
  return std::unique_ptr<EmbeddedController>(
      new EmbeddedController(clock, std::make_unique<EventLoop>("kvctl-run")));
}

std::unique_ptr<agent::LinkTransport> EmbeddedController::AgentTransport() {
  return std::make_unique<InProcessAgentBridge>([this] { return manager_.get(); }, loop_.get());
}

absl::Status EmbeddedController::Start(controller::Store* store,
                                       controller::JobManagerOptions options) {
  options.fail_unplaceable = true;  // no other agent will join
  KV_ASSIGN_OR_RETURN(manager_,
                      controller::JobManager::Create(store, clock_, loop_.get(), options));
  loop_->OnSignals({SIGINT, SIGTERM, SIGHUP}, [this](int signal) {
    interrupted_ = absl::StrCat("interrupted (", SignalName(signal), ")");
    CancelIfInterrupted();
  });
  thread_ = std::thread([loop = loop_.get()] { loop->Run(); });
  return absl::OkStatus();
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
  if (thread_.joinable()) {
    Call<bool>("kvctl.shutdown", [this] {
      manager_->Shutdown();
      return true;
    });
    loop_->Stop();
    thread_.join();
  }
  manager_.reset();
}

}  // namespace kvbench::kvctl
