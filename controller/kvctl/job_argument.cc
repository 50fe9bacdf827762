#include "controller/kvctl/job_argument.h"

#include <filesystem>
#include <memory>

#include "controller/client/local_job_files.h"
#include "controller/results/validity.h"

namespace kvbench::kvctl {

absl::StatusOr<v1::Job> FetchJob(const std::string& job_or_dir, const ConnectionFlags& connection,
                                 const KvctlContext& context) {
  absl::StatusOr<v1::Job> job;
  std::error_code error;
  if (std::filesystem::is_directory(job_or_dir, error)) {
    job = client::LoadLocalJob(job_or_dir);
  } else {
    absl::StatusOr<std::unique_ptr<client::ControllerClient>> controller =
        ConnectController(connection, context);
    if (!controller.ok()) return controller.status();
    job = (*controller)->GetJob(job_or_dir);
  }
  if (job.ok() && job->validity().empty()) {
    for (v1::Validity& validity : results::ComputeValidity(results::RunsOfJob(*job))) {
      *job->add_validity() = std::move(validity);
    }
  }
  return job;
}

}  // namespace kvbench::kvctl
