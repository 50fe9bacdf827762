#include "tests/fakes/fake_process_launcher.h"

#include <signal.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kvbench::testing {
namespace {

// The Process the code under test owns: forwards to the shared FakeProcess and tells it when the
// owner lets go.
class FakeProcessHandle : public Process {
 public:
  explicit FakeProcessHandle(std::shared_ptr<FakeProcess> process) : process_(std::move(process)) {}
  ~FakeProcessHandle() override { process_->Release(); }

  int pid() const override { return process_->pid(); }
  const std::string& name() const override { return process_->name(); }
  std::optional<ExitStatus> TryWait() override { return process_->TryWait(); }
  absl::StatusOr<ExitStatus> Wait(absl::Duration timeout) override {
    return process_->Wait(timeout);
  }
  absl::Status Signal(int signal) override { return process_->Signal(signal); }
  absl::StatusOr<ExitStatus> Stop(absl::Duration grace) override { return process_->Stop(grace); }
  std::vector<std::string> LogTail(size_t max_lines) const override {
    return process_->LogTail(max_lines);
  }

 private:
  std::shared_ptr<FakeProcess> process_;
};

ExitStatus KilledBy(int signal) { return ExitStatus{true, 0, signal}; }

}  // namespace

FakeProcess::FakeProcess(ProcessSpec spec, int pid) : spec_(std::move(spec)), pid_(pid) {}

std::optional<ExitStatus> FakeProcess::TryWait() {
  std::lock_guard<std::mutex> lock(mu_);
  return exit_status_;
}

absl::StatusOr<ExitStatus> FakeProcess::Wait(absl::Duration timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  if (exit_status_) return *exit_status_;
  return absl::DeadlineExceededError(absl::StrCat("process ", spec_.name, " (pid ", pid_,
                                                  ") still running after ",
                                                  absl::FormatDuration(timeout)));
}

absl::Status FakeProcess::Signal(int signal) {
  std::lock_guard<std::mutex> lock(mu_);
  SignalLocked(signal);
  return absl::OkStatus();
}

absl::StatusOr<ExitStatus> FakeProcess::Stop(absl::Duration grace) {
  std::lock_guard<std::mutex> lock(mu_);
  stop_graces_.push_back(grace);
  if (!stop_error_.ok()) return stop_error_;
  SignalLocked(SIGTERM);
  if (!exit_status_) SignalLocked(SIGKILL);
  return *exit_status_;
}

std::vector<std::string> FakeProcess::LogTail(size_t max_lines) const {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t count = std::min(max_lines, log_tail_.size());
  return std::vector<std::string>(log_tail_.end() - static_cast<std::ptrdiff_t>(count),
                                  log_tail_.end());
}

void FakeProcess::Exit(ExitStatus status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!exit_status_) exit_status_ = status;
}

void FakeProcess::IgnoreTerm(bool ignore) {
  std::lock_guard<std::mutex> lock(mu_);
  ignore_term_ = ignore;
}

void FakeProcess::SetLogTail(std::vector<std::string> lines) {
  std::lock_guard<std::mutex> lock(mu_);
  log_tail_ = std::move(lines);
}

void FakeProcess::SetStopError(absl::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  stop_error_ = std::move(status);
}

bool FakeProcess::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !exit_status_.has_value();
}

std::optional<ExitStatus> FakeProcess::exit_status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return exit_status_;
}

std::vector<int> FakeProcess::signals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return signals_;
}

std::vector<absl::Duration> FakeProcess::stop_graces() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_graces_;
}

bool FakeProcess::released() const {
  std::lock_guard<std::mutex> lock(mu_);
  return released_;
}

void FakeProcess::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  released_ = true;
  if (!exit_status_) SignalLocked(SIGKILL);
}

void FakeProcess::SignalLocked(int signal) {
  if (signal == 0) return;
  signals_.push_back(signal);
  if (exit_status_) return;
  if (signal == SIGKILL || (signal == SIGTERM && !ignore_term_)) exit_status_ = KilledBy(signal);
}

absl::StatusOr<std::unique_ptr<Process>> FakeProcessLauncher::Launch(const ProcessSpec& spec) {
  std::lock_guard<std::mutex> lock(mu_);
  launched_.push_back(spec);
  if (spec.argv.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("process ", spec.name, ": empty argv"));
  }
  const auto scripted = programs_.find(spec.argv[0]);
  const Program program = scripted == programs_.end() ? Program{} : scripted->second;
  if (!program.launch_error.ok()) return program.launch_error;
  auto process = std::make_shared<FakeProcess>(spec, next_pid_++);
  process->IgnoreTerm(program.ignore_term);
  process->SetLogTail(program.log_tail);
  if (program.exit_on_launch) process->Exit(*program.exit_on_launch);
  processes_.push_back(process);
  return std::unique_ptr<Process>(std::make_unique<FakeProcessHandle>(std::move(process)));
}

void FakeProcessLauncher::SetProgram(const std::string& argv0, Program program) {
  std::lock_guard<std::mutex> lock(mu_);
  programs_[argv0] = std::move(program);
}

void FakeProcessLauncher::SetLaunchError(const std::string& argv0, absl::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  programs_[argv0].launch_error = std::move(status);
}

std::vector<ProcessSpec> FakeProcessLauncher::launched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return launched_;
}

std::vector<std::shared_ptr<FakeProcess>> FakeProcessLauncher::processes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return processes_;
}

std::shared_ptr<FakeProcess> FakeProcessLauncher::last_process() const {
  std::lock_guard<std::mutex> lock(mu_);
  return processes_.empty() ? nullptr : processes_.back();
}

std::shared_ptr<FakeProcess> FakeProcessLauncher::last_process(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto process = processes_.rbegin(); process != processes_.rend(); ++process) {
    if ((*process)->name() == name) return *process;
  }
  return nullptr;
}

}  // namespace kvbench::testing
