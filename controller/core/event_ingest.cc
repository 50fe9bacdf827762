#include "controller/core/event_ingest.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/log/logging.h"

namespace kvbench::controller {

EventIngest::EventIngest(Store* store, Executor* executor,
                         std::function<void(const v1::Event&)> apply)
    : store_(store), executor_(executor), apply_(std::move(apply)) {}

void EventIngest::Queue(AgentChannel* channel, const v1::Event& event) {
  pending_.push_back(Pending{channel, event, false});
  PostCommit();
}

void EventIngest::QueueRefused(AgentChannel* channel, int64_t seq) {
  Pending refused{channel, v1::Event(), true};
  refused.event.set_seq(seq);
  pending_.push_back(std::move(refused));
  PostCommit();
}

void EventIngest::PostCommit() {
  if (commit_posted_ || pending_.empty()) return;
  commit_posted_ = true;
  executor_->Post("controller.ingest", [this] {
    commit_posted_ = false;
    CommitBatch();
    PostCommit();  // what is left goes after what the loop holds now
  });
}

void EventIngest::Flush() {
  while (!pending_.empty()) CommitBatch();
}

void EventIngest::Forget(AgentChannel* channel) {
  pending_.erase(
      std::remove_if(pending_.begin(), pending_.end(),
                     [channel](const Pending& entry) { return entry.channel == channel; }),
      pending_.end());
}

void EventIngest::CommitBatch() {
  std::vector<AgentChannel*> channels;
  std::vector<v1::Event> events;  // moved out of the queue: request chunks are large
  // Acknowledged after the commit, in queue order with the stored ones: (channel, seq).
  std::vector<std::pair<AgentChannel*, int64_t>> refused;
  int64_t rows = 0;
  while (!pending_.empty() && events.size() + refused.size() < kMaxEventsPerCommit) {
    Pending& front = pending_.front();
    const int64_t event_rows = front.event.requests().rows_size();
    if (!events.empty() && rows + event_rows > kMaxRowsPerCommit) break;
    rows += event_rows;
    if (front.refused) {
      refused.emplace_back(front.channel, front.event.seq());
    } else {
      channels.push_back(front.channel);
      events.push_back(std::move(front.event));
    }
    pending_.pop_front();
  }
  if (events.empty() && refused.empty()) return;
  absl::StatusOr<std::vector<bool>> stored = std::vector<bool>();
  if (!events.empty()) stored = store_->Events().AppendEvents(events);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot store events count=" << events.size() << " error=" << stored.status();
    std::set<AgentChannel*> failed(channels.begin(), channels.end());
    for (const auto& entry : refused) failed.insert(entry.first);
    for (AgentChannel* channel : failed) {
      channel->Close(absl::UnavailableError("the controller could not store events; replay them"));
    }
    // Their later events go too: the agents replay from the first one not acknowledged.
    std::deque<Pending> rest;
    for (Pending& entry : pending_) {
      if (failed.count(entry.channel) == 0) rest.push_back(std::move(entry));
    }
    pending_.swap(rest);
    return;
  }
  if (!events.empty()) ++counters_.commits;
  // A stream's events are in seq order (AgentReconciler::AcceptEvent), so its highest seq of the
  // batch covers the batch.
  std::map<AgentChannel*, int64_t> acks;
  for (const auto& [channel, seq] : refused) acks[channel] = std::max(acks[channel], seq);
  for (size_t i = 0; i < events.size(); ++i) {
    acks[channels[i]] = std::max(acks[channels[i]], events[i].seq());
    if (!(*stored)[i]) {
      ++counters_.duplicate;
      continue;
    }
    ++counters_.stored;
    apply_(events[i]);
  }
  for (const auto& [channel, seq] : acks) {
    v1::ControllerMessage ack;
    ack.mutable_ack()->set_acked_seq(seq);
    channel->Send(std::move(ack));
  }
}

}  // namespace kvbench::controller
