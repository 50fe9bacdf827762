#pragma once

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "agent/link/link_transport.h"
#include "common/loop/event_loop.h"
#include "common/time/clock.h"
#include "controller/core/job_manager.h"
#include "controller/store/store.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// `kvctl run`'s embedded controller (DESIGN.md: an embedded controller and agent): the real
// JobManager over `store`, on one EventLoop thread, which is also the embedded agent's executor;
// the agent's ControllerLink reaches the manager through AgentTransport (an InProcessAgentBridge).
// The job runs exactly as on kv-controller: scheduling, the agent's events stored once and
// acknowledged, cancels, and the one outcome rule (controller/core/job_outcome.h). The embedded
// agent is the only one there will ever be: a scenario it cannot run fails with the scheduler's
// reason when its turn comes (JobManagerOptions::fail_unplaceable) instead of waiting for an
// agent that never comes.
//
// SIGINT (Ctrl-C), SIGTERM and SIGHUP (a closed terminal) cancel the followed job once, on the
// loop (EventLoop::OnSignals): its running scenario is torn down and what finished is kept.
//
// Use from one thread (not the loop's): Create, AgentTransport, Start, Submit, Follow, Stop. The
// agent is made on executor() before Start (it locks the results folder before the store is
// made there) and started after it.
class EmbeddedController {
 public:
  using EventFn = std::function<void(const v1::Event& event)>;

  // The loop, not running yet. `clock` is borrowed and must outlive the controller.
  static std::unique_ptr<EmbeddedController> Create(Clock* clock);
  // Stop().
  ~EmbeddedController();
  EmbeddedController(const EmbeddedController&) = delete;
  EmbeddedController& operator=(const EmbeddedController&) = delete;

  // The loop: the embedded agent's executor.
  Executor* executor() const { return loop_.get(); }
  // The embedded agent's link to the manager; its streams open once Start has made the manager.
  std::unique_ptr<agent::LinkTransport> AgentTransport();
  // Makes the JobManager over `store` (borrowed; it must outlive the controller) and runs the
  // loop's thread. Errors are the manager's (a store it cannot recover from).
  absl::Status Start(controller::Store* store, controller::JobManagerOptions options = {});

  absl::StatusOr<v1::SubmitJobResponse> Submit(const v1::JobSpec& spec);
  absl::StatusOr<v1::Job> GetJob(const std::string& job_id);
  // Hands each of the job's stored events to `on_event` (on the loop thread, in order) until the
  // job has ended, and returns it as GetJob reads it. NOT_FOUND for no such job.
  absl::StatusOr<v1::Job> Follow(const std::string& job_id, EventFn on_event);
  // What a signal does, from any thread: cancels the followed job once (CancelJob with reason
  // `why`), or the next one Follow is given if none is followed yet.
  void Interrupt(const std::string& why);
  // Shuts the manager down and ends the loop thread (stop the agent first: ControllerLink's
  // rule). Idempotent.
  void Stop();

 private:
  EmbeddedController(Clock* clock, std::unique_ptr<EventLoop> loop);

  // Runs `task` on the loop and waits for its answer.
  template <typename T>
  T Call(const std::string& name, std::function<T()> task) {
    std::promise<T> answer;
    std::future<T> future = answer.get_future();
    loop_->Post(name, [&answer, &task] { answer.set_value(task()); });
    return future.get();
  }

  // Follow's steps, on the loop.
  struct Follower;
  void Pump(const std::shared_ptr<Follower>& follower);
  // On the loop: cancels the followed job once `interrupted_` is set.
  void CancelIfInterrupted();

  Clock* const clock_;
  const std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<controller::JobManager> manager_;
  std::thread thread_;
  bool stopped_ = false;
  // On the loop.
  std::shared_ptr<Follower> following_;
  std::string interrupted_;  // why; empty until a signal or Interrupt()
  bool cancel_sent_ = false;
};

}  // namespace kvbench::kvctl
