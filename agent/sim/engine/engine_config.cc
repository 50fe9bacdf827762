#include "agent/sim/engine/engine_config.h"

#include <cmath>
#include <cstdint>

namespace kvbench::sim {

int64_t GpuBlocksFromMemory(const ModelSpec& model, int block_size, double gpu_memory_bytes,
                            double gpu_memory_utilization, int tensor_parallel_size,
                            bool hybrid_kv_cache_manager) {
  if (block_size <= 0 || tensor_parallel_size <= 0 || model.KvBytesPerToken() <= 0) return 0;
  const double tp = tensor_parallel_size;
  // Each GPU holds 1/TP of the weights and 1/TP of every token's KV (its share of the KV heads),
  // so a block of `block_size` tokens costs block_size x KV bytes per token / TP on each GPU.
  const double free_bytes =
      gpu_memory_bytes * gpu_memory_utilization - static_cast<double>(model.WeightBytes()) / tp;
  const double layer_share =
      static_cast<double>(model.KvLayersPerBlock(hybrid_kv_cache_manager)) / model.num_layers;
  const double block_bytes =
      block_size * static_cast<double>(model.KvBytesPerToken()) * layer_share / tp;
  if (free_bytes <= 0) return 0;
  return static_cast<int64_t>(std::floor(free_bytes / block_bytes));
}

}  // namespace kvbench::sim
