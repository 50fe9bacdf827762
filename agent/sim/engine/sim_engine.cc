#include "agent/sim/engine/sim_engine.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/sim/engine/lockstep_sim_engine.h"
#include "agent/sim/engine/threaded_sim_engine.h"

namespace kvbench::sim {
namespace {

// Used when the config gives no block count (no --num-gpu-blocks-override): one H200 (141 GB,
// reference/sim-calibration.md) at vLLM's default --gpu-memory-utilization.
constexpr double kDefaultGpuMemoryBytes = 141e9;
constexpr double kDefaultGpuMemoryUtilization = 0.9;

absl::Status Invalid(const char* field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("engine config: ", field, " ", what));
}

absl::Status Validate(const EngineConfig& config, const ExternalKvCache* external) {
  if (config.model.KvBytesPerToken() <= 0) return Invalid("model", "has no KV shape");
  if (config.block_size <= 0) return Invalid("block_size", "must be positive");
  if (config.num_gpu_blocks < 0) return Invalid("num_gpu_blocks", "must not be negative");
  if (config.max_num_seqs <= 0) return Invalid("max_num_seqs", "must be positive");
  if (config.max_num_batched_tokens <= 0) {
    return Invalid("max_num_batched_tokens", "must be positive");
  }
  if (config.max_model_len < 0) return Invalid("max_model_len", "must not be negative");
  if (config.tensor_parallel_size <= 0) return Invalid("tensor_parallel_size", "must be positive");
  if (!(config.time_scale > 0)) return Invalid("time_scale", "must be positive");
  const LatencyConstants& k = config.latency;
  if (!(k.hbm_bytes_per_s > 0) || !(k.hbm_efficiency > 0) || !(k.host_to_gpu_bytes_per_s > 0) ||
      !(k.disk_read_bytes_per_s > 0)) {
    return Invalid("latency", "bandwidths and efficiency must be positive");
  }
  if (k.prefill_per_token_s < 0 || k.prefill_quadratic_s < 0 || k.step_overhead_s < 0 ||
      k.store_blocking_fraction < 0) {
    return Invalid("latency", "times must not be negative");
  }
  if (external != nullptr && external->chunk_size() <= 0) {
    return Invalid("external cache", "chunk_size must be positive");
  }
  return absl::OkStatus();
}

}  // namespace

void SimEngine::AnswerStopped(const EngineRequest& request) {
  RequestOutput output;
  output.finished = true;
  output.finish_reason = FinishReason::kAbort;
  output.prompt_tokens = static_cast<int>(request.prompt.size());
  output.error = "the engine is stopped";
  if (request.on_output) request.on_output(output);
}

absl::StatusOr<std::unique_ptr<SimEngine>> SimEngine::Create(
    EngineConfig config, std::unique_ptr<ExternalKvCache> external, EngineObserver* observer,
    std::unique_ptr<SimClock> clock, int clock_rank) {
  if (absl::Status status = Validate(config, external.get()); !status.ok()) return status;
  if (clock_rank < 0 || clock_rank >= SimClock::kMaxRanks) {
    return Invalid("clock rank",
                   absl::StrCat(clock_rank, " is outside 0..", SimClock::kMaxRanks - 1));
  }
  if (config.num_gpu_blocks == 0) {
    config.num_gpu_blocks =
        GpuBlocksFromMemory(config.model, config.block_size, kDefaultGpuMemoryBytes,
                            kDefaultGpuMemoryUtilization, config.tensor_parallel_size);
    if (config.num_gpu_blocks <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("engine config: ", config.model.name, " at tensor_parallel_size ",
                       config.tensor_parallel_size, " leaves no GPU memory for KV blocks"));
    }
  }
  if (clock != nullptr) {
    return std::unique_ptr<SimEngine>(new LockstepSimEngine(
        std::move(config), std::move(external), observer, std::move(clock), clock_rank));
  }
  return std::unique_ptr<SimEngine>(
      new ThreadedSimEngine(std::move(config), std::move(external), observer));
}

}  // namespace kvbench::sim
