#include "agent/sim/engine/latency_model.h"

#include <algorithm>
#include <cstdint>

namespace kvbench::sim {
namespace {

// The calibration model's size (reference/sim-calibration.md: a Llama-3.1-8B shaped model).
constexpr double kCalibrationParamsBillions = 8.0;

}  // namespace

LatencyModel::LatencyModel(const ModelSpec& model, const LatencyConstants& constants,
                           int tensor_parallel_size, int64_t chunk_bytes)
    : constants_(constants),
      tensor_parallel_size_(std::max(tensor_parallel_size, 1)),
      compute_scale_(model.active_params_billions / kCalibrationParamsBillions /
                     tensor_parallel_size_),
      weight_bytes_per_gpu_(static_cast<double>(model.WeightBytes()) / tensor_parallel_size_),
      kv_bytes_per_token_per_gpu_(static_cast<double>(model.KvBytesPerToken()) /
                                  tensor_parallel_size_),
      chunk_bytes_(static_cast<double>(chunk_bytes)) {}

double LatencyModel::PrefillChunkSeconds(int64_t context_tokens, int64_t new_tokens) const {
  const double c = static_cast<double>(context_tokens);
  const double n = static_cast<double>(new_tokens);
  const double attention = (c + n) * (c + n) - c * c;
  return compute_scale_ *
         (n * constants_.prefill_per_token_s + attention * constants_.prefill_quadratic_s);
}

double LatencyModel::DecodeSeconds(int64_t decode_context_tokens) const {
  const double bytes = weight_bytes_per_gpu_ +
                       static_cast<double>(decode_context_tokens) * kv_bytes_per_token_per_gpu_;
  return bytes / (constants_.hbm_bytes_per_s * constants_.hbm_efficiency);
}

double LatencyModel::ExternalLoadSeconds(int l1_chunks, int l2_chunks) const {
  const double host_to_gpu = (l1_chunks + l2_chunks) * chunk_bytes_ / tensor_parallel_size_ /
                             constants_.host_to_gpu_bytes_per_s;
  const double disk = l2_chunks * chunk_bytes_ / constants_.disk_read_bytes_per_s;
  return host_to_gpu + disk;
}

double LatencyModel::StoreSeconds(int chunks) const {
  return constants_.store_blocking_fraction * chunks * chunk_bytes_ / tensor_parallel_size_ /
         constants_.host_to_gpu_bytes_per_s;
}

double LatencyModel::StepSeconds(const StepComposition& step) const {
  double seconds = constants_.step_overhead_s;
  for (const PrefillChunk& chunk : step.prefills) {
    seconds += PrefillChunkSeconds(chunk.context_tokens, chunk.new_tokens);
  }
  if (step.num_decodes > 0) seconds += DecodeSeconds(step.decode_context_tokens);
  seconds += ExternalLoadSeconds(step.external_l1_chunks, step.external_l2_chunks);
  seconds += StoreSeconds(step.stored_chunks);
  return seconds;
}

}  // namespace kvbench::sim
