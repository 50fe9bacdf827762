#include "agent/sim/engine/scheduler.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/log/logging.h"

namespace kvbench::sim {

Scheduler::Scheduler(Limits limits, KvBlockManager* blocks, PrefixLookup* lookup)
    : limits_(limits), blocks_(blocks), lookup_(lookup) {}

void Scheduler::AddWaiting(RequestState* request) { waiting_.push_back(request); }

void Scheduler::Remove(RequestState* request) {
  if (auto it = std::find(running_.begin(), running_.end(), request); it != running_.end()) {
    running_.erase(it);
  } else if (auto wit = std::find(waiting_.begin(), waiting_.end(), request);
             wit != waiting_.end()) {
    waiting_.erase(wit);
  }
  blocks_->Free(&request->blocks);
  request->num_cached_blocks = 0;
}

double Scheduler::EarliestStart(double now) const {
  if (!running_.empty() || waiting_.empty()) return now;
  return std::max(now, waiting_.front()->timings.arrival_s);
}

std::vector<RequestState*> Scheduler::AllRequests() const {
  std::vector<RequestState*> all(running_.begin(), running_.end());
  all.insert(all.end(), waiting_.begin(), waiting_.end());
  return all;
}

SchedulerOutput Scheduler::Schedule(double now) {
  SchedulerOutput out;
  int64_t budget = limits_.max_num_batched_tokens;
  const bool preempted = ScheduleRunning(&budget, &out);
  if (!preempted) ScheduleWaiting(now, &budget, &out);
  return out;
}

bool Scheduler::ScheduleRunning(int64_t* budget, SchedulerOutput* out) {
  bool preempted = false;
  size_t index = 0;
  while (index < running_.size() && *budget > 0) {
    RequestState* request = running_[index];
    const int64_t new_tokens = std::min(request->num_tokens() - request->num_computed, *budget);
    KV_CHECK(new_tokens > 0) << "a running request with nothing to compute id=" << request->id;
    bool preempted_self = false;
    while (!blocks_->Allocate({}, request->num_computed + new_tokens, &request->blocks)) {
      RequestState* victim = running_.back();
      running_.pop_back();
      Preempt(victim);
      ++out->num_preempted;
      preempted = true;
      if (victim == request) {
        preempted_self = true;
        break;
      }
    }
    if (preempted_self) break;  // it was the last running request
    Commit(request, new_tokens, out);
    *budget -= new_tokens;
    ++index;
  }
  return preempted;
}

void Scheduler::ScheduleWaiting(double now, int64_t* budget, SchedulerOutput* out) {
  while (!waiting_.empty() && *budget > 0 &&
         static_cast<int>(running_.size()) < limits_.max_num_seqs) {
    RequestState* request = waiting_.front();
    if (request->timings.arrival_s > now) break;
    const PrefixHit hit = lookup_->Find(request);
    const int64_t new_tokens = std::min(request->num_tokens() - hit.computed_tokens(), *budget);
    if (!blocks_->Allocate(hit.local_blocks, hit.computed_tokens() + new_tokens,
                           &request->blocks)) {
      break;  // FIFO: nobody overtakes the head of the queue
    }
    waiting_.pop_front();
    running_.push_back(request);
    *budget -= Admit(request, hit, *budget, out);
  }
}

int64_t Scheduler::Admit(RequestState* request, const PrefixHit& hit, int64_t budget,
                         SchedulerOutput* out) {
  Admission admission;
  admission.request = request;
  admission.local_hit_tokens = hit.local_tokens;
  admission.external_hit_tokens = hit.external_tokens;
  int64_t computed = hit.computed_tokens();
  if (hit.external_tokens > 0) {
    absl::StatusOr<ExternalLoad> load = lookup_->Load(*request, hit);
    if (load.ok()) {
      admission.load = *load;
      admission.external_loaded_tokens = hit.external_tokens;
    } else {
      // Recompute instead; the blocks allocated for the hit cover the longer prefill too.
      KV_LOG_EVERY_N_SEC(WARNING, 30)
          << "external cache load failed, recomputing request=" << request->id
          << " error=" << load.status().ToString();
      computed = hit.local_tokens;
    }
  }
  request->num_computed = computed;
  request->num_cached_blocks = static_cast<int64_t>(hit.local_blocks.size());
  request->external_hit_chunks = hit.external_hit_chunks;
  request->pending_lookup.reset();  // admitted: the connector drops its lookup (prefix_lookup.h)
  request->stored_external = false;
  const int64_t new_tokens = std::min(request->num_tokens() - computed, budget);
  Commit(request, new_tokens, out);
  out->admissions.push_back(admission);
  return new_tokens;
}

void Scheduler::Preempt(RequestState* request) {
  blocks_->Free(&request->blocks);
  request->num_computed = 0;
  request->num_cached_blocks = 0;
  ++request->num_preemptions;
  waiting_.push_front(request);
}

void Scheduler::Commit(RequestState* request, int64_t new_tokens, SchedulerOutput* out) {
  out->chunks.push_back({request, request->num_computed, new_tokens});
  out->scheduled_tokens += new_tokens;
  request->num_computed += new_tokens;
  const int64_t full_blocks = request->num_computed / blocks_->block_size();
  if (full_blocks > request->num_cached_blocks) {
    blocks_->CacheBlocks(request->blocks, request->block_hashes, request->num_cached_blocks,
                         full_blocks);
    request->num_cached_blocks = full_blocks;
  }
}

}  // namespace kvbench::sim
