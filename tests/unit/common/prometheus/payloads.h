#pragma once

// Real-shaped /metrics payloads for the parser tests, written the way the servers write them:
// vLLM V1 through prometheus_client (counters declared with `_total`, `_created` as separate
// gauge families, histogram labels then `le`, floats as "1.0" / "+Inf"), per
// vllm/v1/metrics/loggers.py; LMCache MP through the OpenTelemetry Prometheus exporter, per
// LMCache's docs/source/mp/observability/metrics.rst.

namespace kvbench::prometheus_text::testing {

// vLLM ≈0.10.x with a KV connector: engine="0", the deprecated vllm:gpu_cache_usage_perc still
// emitted beside vllm:kv_cache_usage_perc, one finished request.
inline constexpr char kVllmV1[] =
    R"(# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 12345.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.125
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.125
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 4096.0
# HELP vllm:prefix_cache_queries_created Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_created gauge
vllm:prefix_cache_queries_created{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.7526184713e+09
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3072.0
# HELP vllm:prefix_cache_hits_created Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_created gauge
vllm:prefix_cache_hits_created{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.7526184713e+09
# HELP vllm:external_prefix_cache_queries_total External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.
# TYPE vllm:external_prefix_cache_queries_total counter
vllm:external_prefix_cache_queries_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1024.0
# HELP vllm:external_prefix_cache_hits_total External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.
# TYPE vllm:external_prefix_cache_hits_total counter
vllm:external_prefix_cache_hits_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 512.0
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.0
vllm:request_success_total{engine="0",finished_reason="abort",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
# HELP vllm:request_prefill_time_seconds Histogram of time spent in PREFILL phase for request.
# TYPE vllm:request_prefill_time_seconds histogram
vllm:request_prefill_time_seconds_bucket{engine="0",le="0.3",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.0
vllm:request_prefill_time_seconds_bucket{engine="0",le="0.5",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
vllm:request_prefill_time_seconds_bucket{engine="0",le="1.0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 4.0
vllm:request_prefill_time_seconds_bucket{engine="0",le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 4.0
vllm:request_prefill_time_seconds_count{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 4.0
vllm:request_prefill_time_seconds_sum{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.625
# HELP vllm:request_prefill_time_seconds_created Histogram of time spent in PREFILL phase for request.
# TYPE vllm:request_prefill_time_seconds_created gauge
vllm:request_prefill_time_seconds_created{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.7526184713e+09
# HELP vllm:iteration_tokens_total Histogram of number of tokens per engine_step.
# TYPE vllm:iteration_tokens_total histogram
vllm:iteration_tokens_total_bucket{engine="0",le="1.0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 10.0
vllm:iteration_tokens_total_bucket{engine="0",le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 12.0
vllm:iteration_tokens_total_count{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 12.0
vllm:iteration_tokens_total_sum{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 4200.0
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",calculate_kv_scales="False",cpu_offload_gb="0",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",is_attention_free="False",num_cpu_blocks="None",num_gpu_blocks="29257",num_gpu_blocks_override="None",prefix_caching_hash_algo="builtin",sliding_window="None",swap_space="4",swap_space_bytes="4294967296"} 1.0
)";

// vLLM ≈0.8.x (early V1): only the old vllm:gpu_cache_usage_perc, two data-parallel engines.
inline constexpr char kVllmEarlyV1TwoEngines[] =
    R"(# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="qwen"} 0.25
vllm:gpu_cache_usage_perc{engine="1",model_name="qwen"} 0.5
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried blocks.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="qwen"} 100.0
vllm:prefix_cache_queries_total{engine="1",model_name="qwen"} 300.0
# HELP vllm:request_prefill_time_seconds Histogram of time spent in PREFILL phase for request.
# TYPE vllm:request_prefill_time_seconds histogram
vllm:request_prefill_time_seconds_bucket{engine="0",le="0.3",model_name="qwen"} 1.0
vllm:request_prefill_time_seconds_bucket{engine="0",le="0.5",model_name="qwen"} 2.0
vllm:request_prefill_time_seconds_bucket{engine="0",le="+Inf",model_name="qwen"} 2.0
vllm:request_prefill_time_seconds_count{engine="0",model_name="qwen"} 2.0
vllm:request_prefill_time_seconds_sum{engine="0",model_name="qwen"} 0.5
vllm:request_prefill_time_seconds_bucket{engine="1",le="0.3",model_name="qwen"} 0.0
vllm:request_prefill_time_seconds_bucket{engine="1",le="0.5",model_name="qwen"} 1.0
vllm:request_prefill_time_seconds_bucket{engine="1",le="+Inf",model_name="qwen"} 3.0
vllm:request_prefill_time_seconds_count{engine="1",model_name="qwen"} 3.0
vllm:request_prefill_time_seconds_sum{engine="1",model_name="qwen"} 4.25
)";

// LMCache MP server (`lmcache server`), current names: units in the names, GB/s histograms as
// `_GB_per_second`, an L2 tier labelled by l2_name, OTel's target_info.
inline constexpr char kLmcacheMp[] = R"(# HELP target_info Target metadata
# TYPE target_info gauge
target_info{service_name="lmcache",telemetry_sdk_language="python",telemetry_sdk_name="opentelemetry",telemetry_sdk_version="1.36.0"} 1.0
# HELP lmcache_mp_l1_usage_ratio L1 memory usage ratio
# TYPE lmcache_mp_l1_usage_ratio gauge
lmcache_mp_l1_usage_ratio 0.8125
# HELP lmcache_mp_l1_memory_usage_bytes L1 memory usage in bytes
# TYPE lmcache_mp_l1_memory_usage_bytes gauge
lmcache_mp_l1_memory_usage_bytes 8.72415232e+09
# HELP lmcache_mp_l1_evicted_chunks_total Number of chunks evicted from L1
# TYPE lmcache_mp_l1_evicted_chunks_total counter
lmcache_mp_l1_evicted_chunks_total{cache_salt=""} 64.0
# HELP lmcache_mp_lookup_requested_tokens_total Number of tokens requested in lookups
# TYPE lmcache_mp_lookup_requested_tokens_total counter
lmcache_mp_lookup_requested_tokens_total{cache_salt="",model_name="Qwen/Qwen3-8B"} 8192.0
lmcache_mp_lookup_requested_tokens_total{cache_salt="tenant-b",model_name="Qwen/Qwen3-8B"} 2048.0
# HELP lmcache_mp_lookup_hit_tokens_total Number of tokens hit in lookups
# TYPE lmcache_mp_lookup_hit_tokens_total counter
lmcache_mp_lookup_hit_tokens_total{cache_salt="",model_name="Qwen/Qwen3-8B"} 6144.0
lmcache_mp_lookup_hit_tokens_total{cache_salt="tenant-b",model_name="Qwen/Qwen3-8B"} 256.0
# HELP lmcache_mp_l2_store_completed_requests_total Number of completed L2 store requests
# TYPE lmcache_mp_l2_store_completed_requests_total counter
lmcache_mp_l2_store_completed_requests_total{l2_name="fs_0"} 40.0
lmcache_mp_l2_store_completed_requests_total{l2_name="nixl_1"} 2.0
# HELP lmcache_mp_l0_l1_store_throughput_GB_per_second Throughput of L0 to L1 stores
# TYPE lmcache_mp_l0_l1_store_throughput_GB_per_second histogram
lmcache_mp_l0_l1_store_throughput_GB_per_second_bucket{device="cuda:0",engine_id="0",model_name="Qwen/Qwen3-8B",le="1.0"} 1.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_bucket{device="cuda:0",engine_id="0",model_name="Qwen/Qwen3-8B",le="10.0"} 5.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_bucket{device="cuda:0",engine_id="0",model_name="Qwen/Qwen3-8B",le="+Inf"} 6.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_count{device="cuda:0",engine_id="0",model_name="Qwen/Qwen3-8B"} 6.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_sum{device="cuda:0",engine_id="0",model_name="Qwen/Qwen3-8B"} 48.5
lmcache_mp_l0_l1_store_throughput_GB_per_second_bucket{device="cuda:1",engine_id="1",model_name="Qwen/Qwen3-8B",le="1.0"} 0.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_bucket{device="cuda:1",engine_id="1",model_name="Qwen/Qwen3-8B",le="10.0"} 2.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_bucket{device="cuda:1",engine_id="1",model_name="Qwen/Qwen3-8B",le="+Inf"} 2.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_count{device="cuda:1",engine_id="1",model_name="Qwen/Qwen3-8B"} 2.0
lmcache_mp_l0_l1_store_throughput_GB_per_second_sum{device="cuda:1",engine_id="1",model_name="Qwen/Qwen3-8B"} 11.0
)";

// An older LMCache MP build: throughput instruments named `..._gbs` with unit "GB/s", which the
// OTel Prometheus exporter suffixes: `..._gbs_GB_per_second`.
inline constexpr char kLmcacheMpOld[] =
    R"(# HELP lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second Throughput of L0 to L1 stores
# TYPE lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second histogram
lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second_bucket{device="cuda:0",engine_id="0",model_name="m",le="1.0"} 2.0
lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second_bucket{device="cuda:0",engine_id="0",model_name="m",le="+Inf"} 3.0
lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second_count{device="cuda:0",engine_id="0",model_name="m"} 3.0
lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second_sum{device="cuda:0",engine_id="0",model_name="m"} 7.5
# HELP lmcache_mp_lookup_hit_tokens_total Number of tokens hit in lookups
# TYPE lmcache_mp_lookup_hit_tokens_total counter
lmcache_mp_lookup_hit_tokens_total{model_name="m"} 512.0
)";

}  // namespace kvbench::prometheus_text::testing
