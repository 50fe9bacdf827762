#include "agent/supervisor/supervisor.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/supervisor/pid_file.h"
#include "agent/supervisor/process_group.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

// How often KillOrphans checks whether the groups it killed are gone.
constexpr absl::Duration kOrphanPollInterval = absl::Milliseconds(10);
// A group leader that started this long after its pid file was written is not the process the
// file was written for (process start times from /proc are precise to about a second).
constexpr absl::Duration kStartTimeSlack = absl::Seconds(2);

absl::Status ValidateName(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid child name \"", name, "\": it names its log and pid files"));
  }
  return absl::OkStatus();
}

absl::Status CreateDirectory(const std::string& path, absl::string_view what) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (!error) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("cannot create ", what, " ", path, ": ", error.message()));
}

// True when GET `url` passes `probe`; otherwise `*outcome` says what it got instead.
bool UrlPasses(HttpClient& http, const ReadinessProbe& probe, const std::string& url,
               absl::Duration timeout, std::string* outcome) {
  HttpRequest request;
  request.url = url;
  request.timeout = timeout;
  request.connect_timeout = timeout;
  absl::StatusOr<HttpResponse> response = http.Send(request);
  if (!response.ok()) {
    *outcome = response.status().ToString();
  } else if (response->status != 200) {
    *outcome = absl::StrCat("HTTP ", response->status);
  } else if (probe.require_body && response->body.empty()) {
    *outcome = "HTTP 200 with an empty body";
  } else {
    return true;
  }
  return false;
}

// The URL of `probe` that passes (its url, else the first alternative that does), or nullopt
// with `*outcome` naming what each answered.
std::optional<std::string> ProbePasses(HttpClient& http, const ReadinessProbe& probe,
                                       absl::Duration timeout, std::string* outcome) {
  if (UrlPasses(http, probe, probe.url, timeout, outcome)) return probe.url;
  for (const std::string& url : probe.alternative_urls) {
    std::string other;
    if (UrlPasses(http, probe, url, timeout, &other)) return url;
    absl::StrAppend(outcome, "; GET ", url, ": ", other);
  }
  return std::nullopt;
}

// Whether group `pgid` must not be killed on the word of the pid file at `path`.
bool RefuseToKill(const std::string& path, const PidFileRecord& file) {
  if (file.pid == ::getpgrp() || file.pid == ::getpid()) {
    KV_LOG(WARNING) << "pid file names the agent's own process group, not killing path=" << path
                    << " pgid=" << file.pid;
    return true;
  }
  // The process this file was written for: the same start ticks and program (older files: the
  // process started before the file was written).
  if (file.start_ticks.has_value()) {
    const std::optional<int64_t> ticks = ProcessStartTicks(file.pid);
    const std::string executable = ProcessExecutable(file.pid);
    if ((ticks && *ticks != *file.start_ticks) ||
        (!executable.empty() && !file.executable.empty() && executable != file.executable)) {
      KV_LOG(WARNING) << "pid file names another process than the one now holding its pid, not "
                         "killing path="
                      << path << " pgid=" << file.pid << " recorded_program=" << file.executable
                      << " program=" << executable;
      return true;
    }
    return false;
  }
  const std::optional<absl::Time> started = ProcessStartTime(file.pid);
  if (started && *started > file.written + kStartTimeSlack) {
    KV_LOG(WARNING) << "pid file is older than the process now holding its pid, not killing path="
                    << path << " pgid=" << file.pid;
    return true;
  }
  return false;
}

// SIGKILL to the group named by the pid file at `path` (unless refused); true if it was sent.
bool KillOrphanGroup(const std::string& path, const PidFileRecord& file) {
  if (RefuseToKill(path, file)) return false;
  if (::kill(-file.pid, SIGKILL) == 0) {
    KV_LOG(WARNING) << "killed orphaned process group path=" << path << " pgid=" << file.pid;
    return true;
  }
  const int error = errno;
  if (error == ESRCH) {
    KV_LOG(INFO) << "stale pid file, its process group is gone path=" << path;
  } else {
    KV_LOG(WARNING) << "cannot kill orphaned process group path=" << path << " pgid=" << file.pid
                    << " error=" << std::strerror(error);
  }
  return false;
}

// Waits up to Supervisor::kOrphanKillTimeout of `clock` time for `groups` to be gone, reaping our
// children.
void AwaitGroupsGone(std::vector<int> groups, Clock& clock, Sleeper& sleeper) {
  const absl::Duration deadline = clock.Monotonic() + Supervisor::kOrphanKillTimeout;
  for (;;) {
    groups.erase(std::remove_if(groups.begin(), groups.end(),
                                [](int pgid) {
                                  ReapProcessGroupChildren(pgid);
                                  return !ProcessGroupExists(pgid);
                                }),
                 groups.end());
    if (groups.empty()) return;
    if (clock.Monotonic() >= deadline) {
      KV_LOG(WARNING) << "orphaned process groups still present after SIGKILL pgids="
                      << absl::StrJoin(groups, ",");
      return;
    }
    sleeper.SleepFor(kOrphanPollInterval);
  }
}

}  // namespace

Supervisor::Supervisor(ProcessLauncher* launcher, HttpClient* http, Clock* clock,
                       std::string log_dir, std::string run_dir, absl::Duration stop_grace,
                       const std::atomic<bool>* cancelled, Sleeper* sleeper)
    : launcher_(launcher),
      http_(http),
      clock_(clock),
      sleeper_(sleeper),
      log_dir_(std::move(log_dir)),
      run_dir_(std::move(run_dir)),
      stop_grace_(stop_grace),
      cancelled_(cancelled) {
  KV_CHECK(launcher_ != nullptr && http_ != nullptr && clock_ != nullptr && sleeper_ != nullptr);
}

Supervisor::~Supervisor() {
  absl::Status stopped = StopAll();
  if (!stopped.ok()) KV_LOG(ERROR) << "stopping children failed: " << stopped.message();
}

absl::Status Supervisor::Start(const std::string& name, const std::vector<std::string>& argv,
                               const std::map<std::string, std::string>& env,
                               const std::vector<std::string>& unset_env) {
  KV_RETURN_IF_ERROR(ValidateName(name));
  std::lock_guard<std::mutex> lock(mu_);
  if (Find(name) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("a child named ", name, " is already supervised (stop it first)"));
  }
  KV_RETURN_IF_ERROR(CreateDirectory(log_dir_, "log dir"));
  KV_RETURN_IF_ERROR(CreateDirectory(run_dir_, "run dir"));
  ProcessSpec spec;
  spec.name = name;
  spec.argv = argv;
  spec.env = env;
  spec.unset_env = unset_env;
  spec.stdout_path = LogPath(name);  // stderr too
  KV_ASSIGN_OR_RETURN(std::unique_ptr<Process> process, launcher_->Launch(spec));
  if (absl::Status written = WritePidFile(PidFile(name), process->pid()); !written.ok()) {
    // Without its pid file, a crash of the agent would leave the child running for good.
    process->Stop(absl::ZeroDuration()).IgnoreError();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", name, ": ", written.message()));
  }
  KV_LOG(INFO) << "child started name=" << name << " pid=" << process->pid()
               << " log=" << spec.stdout_path;
  children_.push_back(Child{name, std::move(process), std::nullopt});
  return absl::OkStatus();
}

absl::Status Supervisor::AwaitReady(const std::string& name, const ReadinessProbe& probe,
                                    absl::Duration deadline) {
  const absl::Duration deadline_at = clock_->Monotonic() + deadline;
  std::string outcome = "no answer yet";
  for (;;) {
    if (Cancelled()) {
      return absl::CancelledError(WithLogTail(name, absl::StrCat(name, " not ready: cancelled")));
    }
    KV_ASSIGN_OR_RETURN(std::optional<ExitStatus> exit, PollExit(name));
    if (exit) {
      return absl::FailedPreconditionError(
          WithLogTail(name, absl::StrCat(name, " ", exit->ToString(), " during start-up")));
    }
    const absl::Duration left = deadline_at - clock_->Monotonic();
    const absl::Duration timeout = std::min(kProbeTimeout, std::max(left, kProbePeriod));
    if (std::optional<std::string> url = ProbePasses(*http_, probe, timeout, &outcome)) {
      // Another process on the port may have answered: ready only if the child still runs.
      KV_ASSIGN_OR_RETURN(exit, PollExit(name));
      if (!exit) {
        KV_LOG(INFO) << "child ready name=" << name << " url=" << *url;
        return absl::OkStatus();
      }
      continue;  // reported as an exit during start-up
    }
    const absl::Duration remaining = deadline_at - clock_->Monotonic();
    if (remaining <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          WithLogTail(name, absl::StrCat(name, " not ready after ", absl::FormatDuration(deadline),
                                         " (GET ", probe.url, ": ", outcome, ")")));
    }
    if (wait_hook_) wait_hook_();
    // `cancelled` has no notification to wait on: it is checked again after one period.
    sleeper_->SleepFor(std::min(kProbePeriod, remaining));
  }
}

std::vector<std::string> Supervisor::ExitedChildren() {
  std::vector<std::string> exits;
  std::lock_guard<std::mutex> lock(mu_);
  for (Child& child : children_) {
    if (!PollExitLocked(child) || child.exit_reported) continue;
    child.exit_reported = true;
    exits.push_back(absl::StrCat(child.name, " ", child.exit->ToString()));
  }
  return exits;
}

absl::Status Supervisor::Stop(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto found = std::find_if(children_.begin(), children_.end(),
                                  [&](const Child& child) { return child.name == name; });
  if (found == children_.end()) {
    return absl::NotFoundError(absl::StrCat("no child named ", name, " to stop"));
  }
  Child child = std::move(*found);
  children_.erase(found);
  return StopChild(child);
}

absl::Status Supervisor::StopAll() {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status first_error;
  while (!children_.empty()) {
    Child child = std::move(children_.back());
    children_.pop_back();
    absl::Status stopped = StopChild(child);
    if (first_error.ok()) first_error = stopped;
    if (wait_hook_) wait_hook_();
  }
  return first_error;
}

std::vector<std::string> Supervisor::LogTail(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Child* child = Find(name);
  if (child == nullptr) return {};
  return child->process->LogTail(kLogTailLines);
}

std::vector<std::string> Supervisor::names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  names.reserve(children_.size());
  for (const Child& child : children_) names.push_back(child.name);
  return names;
}

std::optional<int> Supervisor::pid(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Child* child = Find(name);
  if (child == nullptr) return std::nullopt;
  return child->process->pid();
}

int Supervisor::KillOrphans(const std::string& run_dir, Clock* clock, Sleeper* sleeper) {
  std::vector<int> killed;
  for (const std::string& path : ListPidFiles(run_dir)) {
    absl::StatusOr<PidFileRecord> file = ReadPidFile(path);
    if (!file.ok()) {
      KV_LOG(WARNING) << "removing unusable pid file: " << file.status().message();
    } else if (KillOrphanGroup(path, *file)) {
      killed.push_back(file->pid);
    }
    RemovePidFile(path);
  }
  AwaitGroupsGone(killed, *clock, *sleeper);
  return static_cast<int>(killed.size());
}

Supervisor::Child* Supervisor::Find(const std::string& name) {
  for (Child& child : children_) {
    if (child.name == name) return &child;
  }
  return nullptr;
}

const Supervisor::Child* Supervisor::Find(const std::string& name) const {
  return const_cast<Supervisor*>(this)->Find(name);
}

std::string Supervisor::PidFile(const std::string& name) const {
  return absl::StrCat(run_dir_, "/", name, ".pid");
}

std::string Supervisor::LogPath(const std::string& name) const {
  return absl::StrCat(log_dir_, "/", name, ".log");
}

std::optional<ExitStatus> Supervisor::PollExitLocked(Child& child) {
  if (child.exit) return child.exit;
  child.exit = child.process->TryWait();
  if (!child.exit) return std::nullopt;
  const int pgid = child.process->pid();
  KV_LOG(WARNING) << "child exited name=" << child.name << " pid=" << pgid
                  << " how=" << child.exit->ToString();
  // Members that outlive the leader keep the pid file, for KillOrphans, until Stop.
  if (!ProcessGroupExists(pgid)) RemovePidFile(PidFile(child.name));
  return child.exit;
}

absl::StatusOr<std::optional<ExitStatus>> Supervisor::PollExit(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  Child* child = Find(name);
  if (child == nullptr) return absl::NotFoundError(absl::StrCat("no child named ", name));
  return PollExitLocked(*child);
}

std::string Supervisor::WithLogTail(const std::string& name, const std::string& message) const {
  const std::vector<std::string> lines = LogTail(name);
  if (lines.empty()) return absl::StrCat(message, "; ", LogPath(name), " is empty");
  return absl::StrCat(message, "; last lines of ", LogPath(name), ":\n",
                      absl::StrJoin(lines, "\n"));
}

bool Supervisor::Cancelled() const { return cancelled_ != nullptr && cancelled_->load(); }

absl::Status Supervisor::StopChild(Child& child) {
  absl::StatusOr<ExitStatus> stopped = child.process->Stop(stop_grace_);
  if (!stopped.ok()) {
    KV_LOG(ERROR) << "cannot stop child, keeping its pid file name=" << child.name
                  << " error=" << stopped.status().message();
    return absl::Status(stopped.status().code(),
                        absl::StrCat("stopping ", child.name, ": ", stopped.status().message()));
  }
  RemovePidFile(PidFile(child.name));
  KV_LOG(INFO) << "child stopped name=" << child.name << " pid=" << child.process->pid()
               << " how=" << stopped->ToString();
  return absl::OkStatus();
}

}  // namespace kvbench::agent
