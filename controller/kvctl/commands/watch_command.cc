// kvctl watch JOB: the job's progress live, from its first event, until it ends; resumes after
// a broken stream where it left off.

#include "controller/kvctl/commands/watch_command.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/cli/stop_signals.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/print/watch_progress.h"
#include "controller/kvctl/verdict_gate.h"

namespace kvbench::kvctl {
namespace {

// Waits out a backoff of `duration` unless a stop of `cancel` (may be null) is requested first,
// which ends the wait at once; false when it was.
bool WaitUnlessCancelled(absl::Duration duration, StopSource* cancel) {
  if (cancel != nullptr) return !cancel->WaitFor(duration);
  StopSource never;
  never.WaitFor(duration);
  return true;
}

absl::Status FinalStatus(const v1::Job& job, VerdictGate gate) {
  switch (job.state()) {
    case v1::JOB_STATE_SUCCEEDED:
      return InvalidComparisonsStatus(job, gate);  // exit 8 when one is invalid, as kvctl run
    case v1::JOB_STATE_CANCELLED:
      return absl::CancelledError(absl::StrCat("job ", job.job_id(), " was cancelled"));
    default:
      return absl::AbortedError(absl::StrCat("job ", job.job_id(), " failed",
                                             job.error().empty() ? "" : ": ", job.error()));
  }
}

// Streams until the job is terminal; returns its final view.
absl::StatusOr<v1::Job> Follow(client::ControllerClient& client, const std::string& job_id,
                               WatchProgress& progress, StopSource* cancel,
                               const WatchOptions& options) {
  int resumes = 0;
  absl::Duration backoff = options.initial_backoff;
  while (true) {
    v1::WatchJobRequest request;
    request.set_job_id(job_id);
    request.set_after_position(progress.last_position());
    const int64_t position_before = progress.last_position();
    absl::Status status = client.WatchJob(
        request,
        [&progress](const v1::WatchJobResponse& response) {
          progress.OnResponse(response);
          return true;
        },
        cancel);
    if (cancel != nullptr && cancel->stop_requested()) {
      return absl::CancelledError(
          absl::StrCat("watch interrupted; job ", job_id, " goes on (kvctl watch ", job_id, ")"));
    }
    if (status.ok() || status.code() == absl::StatusCode::kUnavailable) {
      absl::StatusOr<v1::Job> job = client.GetJob(job_id);
      if (job.ok() && IsJobEnded(job->state())) return job;
      if (status.ok()) {
        status =
            job.ok() ? absl::UnavailableError("the stream ended before the job did") : job.status();
      }
      if (status.code() != absl::StatusCode::kUnavailable) return status;
    } else {
      return status;
    }
    if (progress.last_position() > position_before) {
      resumes = 0;
      backoff = options.initial_backoff;
    }
    if (++resumes > options.max_resumes) {
      return absl::UnavailableError(absl::StrCat("lost the controller after ", options.max_resumes,
                                                 " resumes: ", status.message()));
    }
    progress.Resuming(status, backoff);
    if (!WaitUnlessCancelled(backoff, cancel)) {
      return absl::CancelledError(absl::StrCat("watch interrupted; job ", job_id, " goes on"));
    }
    backoff = std::min(backoff * 2, options.max_backoff);
  }
}

}  // namespace

absl::Status WatchJobToEnd(client::ControllerClient& client, const std::string& job_id,
                           KvctlContext* context, StopSource* cancel, const WatchOptions& options) {
  absl::StatusOr<v1::Job> job = client.GetJob(job_id);
  if (!job.ok()) return job.status();
  const bool terminal = ::isatty(STDOUT_FILENO) == 1 && context->out == &std::cout;
  WatchProgress progress(context->out, context->err, terminal);
  progress.Begin(*job);
  absl::StatusOr<v1::Job> final_job = Follow(client, job_id, progress, cancel, options);
  if (!final_job.ok()) return final_job.status();
  progress.End(*final_job);
  return FinalStatus(*final_job, options.gate);
}

void AddWatchCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command =
      app->add_subcommand("watch", "Follow a job's progress until it ends (exit code: outcome)");
  auto job_id = std::make_shared<std::string>();
  auto connection = std::make_shared<ConnectionFlags>();
  auto options = std::make_shared<WatchOptions>();
  command->add_option("job", *job_id, "Job id")->required();
  AddRequireValidFlag(command, &options->gate);
  AddConnectionFlags(command, connection.get());
  command->callback([context, job_id, connection, options] {
    context->action = [context, job_id, connection, options]() -> absl::Status {
      absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
          ConnectController(*connection, *context);
      if (!client.ok()) return client.status();
      return WatchJobToEnd(**client, *job_id, context, StopOnSignals({SIGINT, SIGTERM}), *options);
    };
  });
}

}  // namespace kvbench::kvctl
