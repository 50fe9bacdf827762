#include "controller/core/event_ingest.h"

#include <map>
#include <set>

#include "common/log/logging.h"

namespace kvbench::controller {

EventIngest::EventIngest(Store* store, Executor* executor,
                         std::function<void(const v1::Event&)> apply)
    : store_(store), executor_(executor), apply_(std::move(apply)) {}

void EventIngest::Queue(AgentChannel* channel, const v1::Event& event) {
  pending_.emplace_back(channel, event);
  if (flush_posted_) return;
  flush_posted_ = true;
  executor_->Post("controller.ingest", [this] { Flush(); });
}

void EventIngest::Flush() {
  flush_posted_ = false;
  if (pending_.empty()) return;
  std::vector<std::pair<AgentChannel*, v1::Event>> batch;
  batch.swap(pending_);
  std::vector<v1::Event> events;
  events.reserve(batch.size());
  for (const auto& [channel, event] : batch) events.push_back(event);
  absl::StatusOr<std::vector<bool>> stored = store_->Events().AppendEvents(events);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot store events count=" << events.size() << " error=" << stored.status();
    std::set<AgentChannel*> channels;
    for (const auto& [channel, event] : batch) channels.insert(channel);
    for (AgentChannel* channel : channels) {
      channel->Close(absl::UnavailableError("the controller could not store events; replay them"));
    }
    return;
  }
  ++counters_.commits;
  std::map<AgentChannel*, int64_t> acks;
  for (size_t i = 0; i < batch.size(); ++i) {
    const v1::Event& event = batch[i].second;
    acks[batch[i].first] = event.seq();
    if (!(*stored)[i]) {
      ++counters_.duplicate;
      continue;
    }
    ++counters_.stored;
    apply_(event);
  }
  for (const auto& [channel, seq] : acks) {
    v1::ControllerMessage ack;
    ack.mutable_ack()->set_acked_seq(seq);
    channel->Send(std::move(ack));
  }
}

}  // namespace kvbench::controller
