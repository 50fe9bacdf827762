#include "agent/work_dir_layout.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace kvbench::agent {

std::string AttemptDirName(const std::string& scenario_id, int attempt) {
  if (attempt <= 1) return scenario_id;
  return absl::StrCat(scenario_id, ".attempt-", attempt);
}

WorkDirLayout::WorkDirLayout(std::string work_dir) : root_(std::move(work_dir)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string WorkDirLayout::scenarios_dir() const { return absl::StrCat(root_, "/scenarios"); }

std::string WorkDirLayout::ScenarioDir(const std::string& job_id, const std::string& scenario_id,
                                       int attempt) const {
  return absl::StrCat(scenarios_dir(), "/", job_id, "/", AttemptDirName(scenario_id, attempt));
}

std::string WorkDirLayout::ScenarioLogDir(const std::string& job_id, const std::string& scenario_id,
                                          int attempt) const {
  return absl::StrCat(ScenarioDir(job_id, scenario_id, attempt), "/logs");
}

std::string WorkDirLayout::run_dir() const { return absl::StrCat(root_, "/run"); }

std::string WorkDirLayout::spool_dir() const { return absl::StrCat(root_, "/spool"); }

absl::Status WorkDirLayout::EnsureCreated() const {
  for (const std::string& dir : {root_, scenarios_dir(), run_dir(), spool_dir()}) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create work dir ", dir, ": ", error.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace kvbench::agent
