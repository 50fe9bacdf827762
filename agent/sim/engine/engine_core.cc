#include "agent/sim/engine/engine_core.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/sim/engine/block_hasher.h"
#include "common/log/logging.h"

namespace kvbench::sim {
namespace {

class NullObserver : public EngineObserver {
 public:
  void OnStep(const StepStats&) override {}
  void OnPrefixCacheLookup(int64_t, int64_t) override {}
  void OnExternalCacheLookup(int64_t, int64_t) override {}
  void OnPreemption() override {}
  void OnRequestFinished(const FinishedRequest&) override {}
};

EngineObserver* OrNull(EngineObserver* observer) {
  static NullObserver* const null_observer = new NullObserver();
  return observer != nullptr ? observer : null_observer;
}

int64_t MaxModelLen(const EngineConfig& config) {
  return config.max_model_len > 0 ? config.max_model_len : config.model.max_model_len;
}

bool IsDecode(const ScheduledChunk& chunk) {
  const RequestState& request = *chunk.request;
  return request.output_tokens() > 0 && chunk.new_tokens == 1 &&
         chunk.context_tokens + 1 == request.num_tokens();
}

const std::string& SampleKey(const EngineRequest& request) {
  return request.sample_key.empty() ? request.id : request.sample_key;
}

}  // namespace

EngineCore::EngineCore(const EngineConfig& config, ExternalKvCache* external,
                       EngineObserver* observer)
    : config_(config),
      observer_(OrNull(observer)),
      external_(external),
      max_model_len_(MaxModelLen(config)),
      chunk_bytes_(external != nullptr
                       ? int64_t{external->chunk_size()} * config.model.KvBytesPerToken()
                       : 0),
      blocks_(config.num_gpu_blocks, config.block_size, config.enable_prefix_caching),
      lookup_(&blocks_, external),
      scheduler_({config.max_num_seqs, config.max_num_batched_tokens}, &blocks_, &lookup_),
      latency_(config.model, config.latency, config.tensor_parallel_size, chunk_bytes_),
      sampler_(config.seed, config.mean_output_tokens) {}

PendingOutput EngineCore::Rejection(const EngineRequest& request, double arrival_s,
                                    std::string error) {
  PendingOutput pending;
  pending.callback = std::make_shared<const OutputCallback>(request.on_output);
  pending.output.finished = true;
  pending.output.finish_reason = FinishReason::kAbort;
  pending.output.prompt_tokens = static_cast<int>(request.prompt.size());
  pending.output.timings.arrival_s = arrival_s;
  pending.output.timings.finished_s = arrival_s;
  pending.output.error = std::move(error);
  return pending;
}

std::optional<PendingOutput> EngineCore::Submit(EngineRequest request, double arrival_s) {
  const int64_t prompt = static_cast<int64_t>(request.prompt.size());
  if (requests_.count(request.id) > 0) {
    return Rejection(request, arrival_s, absl::StrCat("duplicate request id ", request.id));
  }
  if (prompt == 0) return Rejection(request, arrival_s, "the prompt is empty");
  if (max_model_len_ > 0 && prompt >= max_model_len_) {
    return Rejection(
        request, arrival_s,
        absl::StrCat("the prompt has ", prompt, " tokens; max_model_len is ", max_model_len_));
  }
  auto state = std::make_unique<RequestState>();
  const OutputSampler::Length length =
      sampler_.OutputLength(SampleKey(request), request.max_tokens, request.ignore_eos);
  state->target_output_tokens = length.tokens;
  state->ends_by_length = length.hits_max;
  if (max_model_len_ > 0 && prompt + length.tokens > max_model_len_) {
    state->target_output_tokens = static_cast<int>(max_model_len_ - prompt);  // as vLLM clamps
    state->ends_by_length = true;
  }
  // The last generated token is never fed back, so the KV holds prompt + output - 1 tokens.
  const int64_t kv_tokens = prompt + state->target_output_tokens - 1;
  const int64_t blocks_needed = (kv_tokens + config_.block_size - 1) / config_.block_size;
  if (blocks_needed > blocks_.num_blocks()) {
    return Rejection(
        request, arrival_s,
        absl::StrCat("the request needs ", blocks_needed, " KV blocks (", prompt, " prompt + ",
                     state->target_output_tokens, " output tokens) but the GPU cache holds only ",
                     blocks_.num_blocks()));
  }
  state->id = request.id;
  state->sample_key = SampleKey(request);
  state->prompt_tokens = static_cast<int>(prompt);
  state->max_tokens = request.max_tokens;
  state->tokens = std::move(request.prompt);
  state->block_hashes = BlockHasher::ChainHashes(state->tokens, config_.block_size);
  if (lookup_.has_external()) {
    state->chunk_hashes = BlockHasher::ChainHashes(state->tokens, lookup_.chunk_size());
  }
  state->on_output = std::make_shared<const OutputCallback>(std::move(request.on_output));
  state->timings.arrival_s = arrival_s;
  RequestState* raw = state.get();
  requests_.emplace(raw->id, std::move(state));
  scheduler_.AddWaiting(raw);
  return std::nullopt;
}

std::optional<PendingOutput> EngineCore::Abort(const std::string& request_id, double now_s) {
  const auto it = requests_.find(request_id);
  if (it == requests_.end()) return std::nullopt;
  RequestState* request = it->second.get();
  request->timings.finished_s = now_s;
  PendingOutput pending{request->on_output, MakeOutput(*request)};
  pending.output.finished = true;
  pending.output.finish_reason = FinishReason::kAbort;
  Finish(request, FinishReason::kAbort);
  return pending;
}

std::vector<PendingOutput> EngineCore::AbortAll(double now_s) {
  std::vector<PendingOutput> outputs;
  for (RequestState* request : scheduler_.AllRequests()) {
    if (auto output = Abort(request->id, now_s)) outputs.push_back(std::move(*output));
  }
  return outputs;
}

StepResult EngineCore::Step(double now_s) {
  const SchedulerOutput scheduled = scheduler_.Schedule(now_s);
  for (int i = 0; i < scheduled.num_preempted; ++i) observer_->OnPreemption();
  for (const Admission& admission : scheduled.admissions) RecordAdmission(admission, now_s);

  StepResult result;
  if (!scheduled.chunks.empty()) result.duration_s = latency_.StepSeconds(Compose(scheduled));
  const double end_s = now_s + result.duration_s;
  for (const ScheduledChunk& chunk : scheduled.chunks) {
    if (chunk.request->num_computed == chunk.request->num_tokens()) {
      EmitToken(chunk.request, end_s, &result);
    }
  }
  EngineObserver::StepStats stats;
  stats.running = scheduler_.num_running();
  stats.waiting = scheduler_.num_waiting();
  stats.kv_cache_usage = blocks_.Usage();
  stats.scheduled_tokens = static_cast<int>(scheduled.scheduled_tokens);
  observer_->OnStep(stats);
  return result;
}

void EngineCore::RecordAdmission(const Admission& admission, double now_s) {
  RequestState* request = admission.request;
  if (request->ever_scheduled) return;  // a preempted request's re-lookup is not reported
  request->ever_scheduled = true;
  request->timings.scheduled_s = now_s;
  request->local_cached_tokens = static_cast<int>(admission.local_hit_tokens);
  request->external_cached_tokens = static_cast<int>(admission.external_loaded_tokens);
  observer_->OnPrefixCacheLookup(request->num_tokens(), admission.local_hit_tokens);
  if (lookup_.has_external()) {
    const int64_t queries = config_.external_query_counting == ExternalQueryCounting::kWholePrompt
                                ? request->num_tokens()
                                : request->num_tokens() - admission.local_hit_tokens;
    observer_->OnExternalCacheLookup(queries, admission.external_hit_tokens);
  }
}

StepComposition EngineCore::Compose(const SchedulerOutput& scheduled) const {
  StepComposition step;
  for (const ScheduledChunk& chunk : scheduled.chunks) {
    if (IsDecode(chunk)) {
      ++step.num_decodes;
      step.decode_context_tokens += chunk.context_tokens + 1;
    } else {
      step.prefills.push_back({chunk.context_tokens, chunk.new_tokens});
    }
    if (chunk.request->num_computed == chunk.request->num_tokens()) {
      step.stored_chunks += static_cast<int>(ChunksToStore(*chunk.request));
    }
  }
  for (const Admission& admission : scheduled.admissions) {
    step.external_l1_chunks += admission.load.l1_chunks;
    step.external_l2_chunks += admission.load.l2_chunks;
  }
  return step;
}

int64_t EngineCore::ChunksToStore(const RequestState& request) const {
  if (external_ == nullptr || request.stored_external) return 0;
  return std::max<int64_t>(
      static_cast<int64_t>(request.chunk_hashes.size()) - request.external_hit_chunks, 0);
}

void EngineCore::StoreChunks(RequestState* request) {
  const int64_t count = ChunksToStore(*request);
  request->stored_external = true;
  if (count == 0) return;
  const std::vector<uint64_t> chunks(request->chunk_hashes.end() - count,
                                     request->chunk_hashes.end());
  if (absl::Status status = external_->Store(chunks, chunk_bytes_); !status.ok()) {
    KV_LOG_EVERY_N_SEC(WARNING, 30) << "external cache store failed request=" << request->id
                                    << " chunks=" << count << " error=" << status.ToString();
  }
}

void EngineCore::EmitToken(RequestState* request, double end_s, StepResult* result) {
  StoreChunks(request);
  request->AppendToken(sampler_.Token(request->sample_key, request->output_tokens()),
                       config_.block_size);
  if (request->output_tokens() == 1) {
    request->timings.first_token_s = end_s;
  } else {
    request->inter_token_s.push_back(end_s - request->last_token_s);
  }
  request->last_token_s = end_s;
  PendingOutput pending{request->on_output, MakeOutput(*request)};
  pending.output.new_tokens = {request->tokens.back()};
  pending.output.first = request->output_tokens() == 1;
  if (request->output_tokens() >= request->target_output_tokens) {
    const FinishReason reason =
        request->ends_by_length ? FinishReason::kLength : FinishReason::kStop;
    request->timings.finished_s = end_s;
    pending.output.finished = true;
    pending.output.finish_reason = reason;
    pending.output.timings = request->timings;
    Finish(request, reason);  // `request` is gone after this
  }
  result->outputs.push_back(std::move(pending));
}

RequestOutput EngineCore::MakeOutput(const RequestState& request) const {
  RequestOutput output;
  output.prompt_tokens = request.prompt_tokens;
  output.output_tokens = request.output_tokens();
  output.local_cached_tokens = request.local_cached_tokens;
  output.external_cached_tokens = request.external_cached_tokens;
  output.timings = request.timings;
  return output;
}

void EngineCore::Finish(RequestState* request, FinishReason reason) {
  scheduler_.Remove(request);
  EngineObserver::FinishedRequest finished;
  finished.prompt_tokens = request->prompt_tokens;
  finished.generation_tokens = request->output_tokens();
  finished.max_tokens = request->max_tokens;
  finished.reason = reason;
  finished.timings = request->timings;
  finished.inter_token_s = std::move(request->inter_token_s);
  observer_->OnRequestFinished(finished);
  requests_.erase(request->id);
}

}  // namespace kvbench::sim
