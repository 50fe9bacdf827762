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
  pending_.emplace_back(channel, event);
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
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [channel](const auto& entry) { return entry.first == channel; }),
                 pending_.end());
}

void EventIngest::CommitBatch() {
  std::vector<AgentChannel*> channels;
  std::vector<v1::Event> events;  // moved out of the queue: request chunks are large
  int64_t rows = 0;
  while (!pending_.empty() && events.size() < kMaxEventsPerCommit) {
    const int64_t event_rows = pending_.front().second.requests().rows_size();
    if (!events.empty() && rows + event_rows > kMaxRowsPerCommit) break;
    rows += event_rows;
    channels.push_back(pending_.front().first);
    events.push_back(std::move(pending_.front().second));
    pending_.pop_front();
  }
  if (events.empty()) return;
  absl::StatusOr<std::vector<bool>> stored = store_->Events().AppendEvents(events);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot store events count=" << events.size() << " error=" << stored.status();
    const std::set<AgentChannel*> failed(channels.begin(), channels.end());
    for (AgentChannel* channel : failed) {
      channel->Close(absl::UnavailableError("the controller could not store events; replay them"));
    }
    // Their later events go too: the agents replay from the first one not acknowledged.
    std::deque<std::pair<AgentChannel*, v1::Event>> rest;
    for (auto& entry : pending_) {
      if (failed.count(entry.first) == 0) rest.push_back(std::move(entry));
    }
    pending_.swap(rest);
    return;
  }
  ++counters_.commits;
  std::map<AgentChannel*, int64_t> acks;
  for (size_t i = 0; i < events.size(); ++i) {
    acks[channels[i]] = events[i].seq();
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
