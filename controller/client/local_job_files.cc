#include "controller/client/local_job_files.h"

#include <sys/stat.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/files/atomic_file.h"
#include "common/json/proto_json.h"
#include "common/status/status_macros.h"

namespace kvbench::client {
namespace {

namespace fs = std::filesystem;

template <typename Message>
absl::StatusOr<Message> ReadJson(const std::string& path) {
  Message message;
  KV_RETURN_IF_ERROR(LoadProtoFromJsonFile(path, &message));
  return message;
}

bool IsFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// The job folder `dir` names: itself, or its most recently submitted job.
absl::StatusOr<fs::path> JobFolder(const std::string& dir) {
  if (IsFile(fs::path(dir) / kJobFileName)) return fs::path(dir);
  std::error_code error;
  fs::directory_iterator entries(dir, error);
  if (error)
    return absl::NotFoundError(absl::StrCat("cannot read folder ", dir, ": ", error.message()));
  fs::path newest;
  int64_t newest_submit = -1;
  for (const fs::directory_entry& entry : entries) {
    const fs::path file = entry.path() / kJobFileName;
    if (!IsFile(file)) continue;
    KV_ASSIGN_OR_RETURN(v1::Job job, ReadJson<v1::Job>(file.string()));
    if (job.submit_unix_ms() > newest_submit ||
        (job.submit_unix_ms() == newest_submit && entry.path() > newest)) {
      newest_submit = job.submit_unix_ms();
      newest = entry.path();
    }
  }
  if (newest.empty()) {
    return absl::NotFoundError(absl::StrCat(dir, " holds no kvbench job (no ", kJobFileName,
                                            " in it or in a folder below it)"));
  }
  return newest;
}

}  // namespace

absl::Status WriteLocalJob(const std::string& job_dir, const v1::Job& job) {
  v1::Job stored = job;
  for (v1::ScenarioStatus& status : *stored.mutable_scenarios()) status.clear_result();
  return WriteFileAtomically(absl::StrCat(job_dir, "/", kJobFileName),
                             absl::StrCat(ProtoToJson(stored, /*pretty=*/true), "\n"));
}

absl::StatusOr<v1::Job> LoadLocalJob(const std::string& dir) {
  KV_ASSIGN_OR_RETURN(fs::path folder, JobFolder(dir));
  KV_ASSIGN_OR_RETURN(v1::Job job, ReadJson<v1::Job>((folder / kJobFileName).string()));
  for (v1::ScenarioStatus& status : *job.mutable_scenarios()) {
    const fs::path result = folder / status.scenario().scenario_id() / kResultFileName;
    if (!IsFile(result)) continue;
    KV_ASSIGN_OR_RETURN(*status.mutable_result(), ReadJson<v1::ScenarioResult>(result.string()));
  }
  return job;
}

absl::StatusOr<std::string> LocalJobFolder(const std::string& dir) {
  KV_ASSIGN_OR_RETURN(fs::path folder, JobFolder(dir));
  return folder.string();
}

}  // namespace kvbench::client
