#pragma once

// A local run's files (kvctl run's --out): <out>/<job_id>/job.json holds the job (spec,
// scenarios, their states and errors), <out>/<job_id>/<scenario_id>/result.json each result.

#include <string>

#include "absl/status/statusor.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::client {

inline constexpr char kJobFileName[] = "job.json";
inline constexpr char kResultFileName[] = "result.json";

// Writes <job_dir>/job.json (atomically: a temp file renamed), without the scenarios' results.
absl::Status WriteLocalJob(const std::string& job_dir, const v1::Job& job);

// The job in `dir`: a job folder (it holds job.json), or an --out folder, whose most recently
// submitted job is read. Each scenario's result.json, where present, fills its result.
// NOT_FOUND naming `dir` when it holds no job; INVALID_ARGUMENT naming the file for one that
// does not parse.
absl::StatusOr<v1::Job> LoadLocalJob(const std::string& dir);

// The job folder LoadLocalJob reads for `dir` (the folder itself, or the --out folder's most
// recently submitted job): where its scenarios' folders (requests.jsonl, ...) are.
absl::StatusOr<std::string> LocalJobFolder(const std::string& dir);

}  // namespace kvbench::client
