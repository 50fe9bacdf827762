#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent {

// What a job's dataset allows, known before anything starts (`kvctl plan` prints it
// and `kvctl plan` / `kvctl run` refuse a job none of whose cells would have a virtual user).
// The dataset is found as `kvctl run` finds it (LocalRunConfig::DatasetRoots, the user's own paths
// accepted), read by the runner's loader and chunked as kv-runner chunks it (ChunkIntoUsers, min
// chunk rounds 5). With ISL > 0 on the sim engine, every prompt is counted as kvsim-vllm's
// /tokenize counts it (the body kv-runner's PromptCounter sends, runner::BuildTokenizeBody; the
// sim's chat template and tokenizer, the same functions its /tokenize handler calls); a real
// engine's tokenizer is not here, so the ceiling under ISL is counted at run time.
class DatasetCeiling {
 public:
  // NOT an error when the dataset cannot be found here (a remote job's dataset is pulled on the
  // agent): readable() is then false and unreadable_reason() says why. A dataset found but
  // malformed is the loader's error.
  static absl::StatusOr<DatasetCeiling> Compute(const v1::JobSpec& spec,
                                                const std::string& dataset_mirror);

  bool readable() const { return readable_; }
  const std::string& unreadable_reason() const { return unreadable_reason_; }
  const std::string& path() const { return path_; }
  // Virtual users at the job's num_rounds.
  int virtual_users() const { return virtual_users_; }
  // Sim engine and ISL > 0: the virtual users every round's prompt of which is <= ISL tokens.
  const std::optional<int>& virtual_users_under_isl() const { return under_isl_; }
  // The users a cell asking for `requested` runs: min(requested, the ceiling under ISL when
  // counted, else the ceiling). Meaningful only when readable().
  int SessionsToRun(int requested) const;

  // The largest prompt, counted as kvsim-vllm counts it (sim engine, with ISL > 0 or a forced
  // num_gpu_blocks); nullopt when not counted.
  struct LargestPrompt {
    int64_t tokens = 0;
    std::string user_id;
    int round = 0;  // 1-based
  };
  const std::optional<LargestPrompt>& largest_prompt() const { return largest_prompt_; }
  // A line saying that the largest prompt does not fit one replica's forced KV capacity (with
  // num_gpu_blocks 64 every request would fail: say so before the run), e.g.
  // "num_gpu_blocks 64: the largest prompt (2,107 tokens, user u3 round 5) needs 136 KV blocks
  // ..."; nullopt when it fits or was not counted.
  std::optional<std::string> KvCapacityWarning(const v1::JobSpec& spec) const;

  // INVALID_ARGUMENT, one line naming num_rounds (or ISL), the dataset and the ceiling, when the
  // dataset was read and no cell would have a virtual user; OK otherwise (also when unreadable).
  absl::Status CheckCellsHaveUsers(const v1::JobSpec& spec) const;

 private:
  bool readable_ = false;
  std::string unreadable_reason_;
  std::string path_;
  int virtual_users_ = 0;
  std::optional<int> under_isl_;
  std::optional<LargestPrompt> largest_prompt_;
};

}  // namespace kvbench::agent
