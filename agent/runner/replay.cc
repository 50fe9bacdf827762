#include "agent/runner/replay.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/runner/replay_clock.h"
#include "agent/runner/request_body.h"
#include "agent/runner/round_sender.h"

namespace kvbench::runner {

Replay::Replay(HttpClient* client, const RunnerOptions& options, RecordWriter* writer,
               const std::atomic<bool>* stop)
    : client_(client), options_(options), writer_(writer), stop_(stop) {}

absl::Status Replay::Warmup() {
  RoundSender sender(client_, options_.base_url, options_.request_timeout, stop_, ReplayClock());
  for (int i = 0; i < options_.warmup && !stop_->load(); ++i) {
    std::string body =
        BuildChatBody(options_.model, WarmupMessages(i, options_.seed), 0, kWarmupMaxTokens);
    RoundSender::Outcome outcome = sender.Send(absl::StrCat("warmup-", i), body, 0);
    if (outcome.cancelled) break;
    if (outcome.record.error) {
      return absl::UnavailableError(absl::StrCat("warmup request ", i, " to ", options_.base_url,
                                                 " failed: ", *outcome.record.error));
    }
  }
  return absl::OkStatus();
}

std::vector<Replay::PreparedUser> Replay::Prepare(
    const std::vector<datasets::VirtualUser>& users) const {
  std::vector<PreparedUser> prepared(users.size());
  for (size_t i = 0; i < users.size(); ++i) {
    prepared[i].user = &users[i];
    for (const datasets::Round* round : users[i].rounds) {
      prepared[i].bodies.push_back(
          BuildChatBody(options_.model, round->messages, options_.osl, round->output_tokens));
      if (options_.isl > 0) {
        prepared[i].tokenize_bodies.push_back(BuildTokenizeBody(options_.model, round->messages));
      }
    }
  }
  return prepared;
}

ReplayResult Replay::Run(const std::vector<datasets::VirtualUser>& users) {
  std::vector<PreparedUser> prepared = Prepare(users);
  ReplayResult result;
  for (const datasets::VirtualUser& user : users) {
    result.planned_users.push_back({user.user_id, static_cast<int>(user.rounds.size())});
  }
  ReplayClock clock;  // the run's start: after warmup and serialization
  result.clock_origin_s = clock.origin_s();
  RoundSender sender(client_, options_.base_url, options_.request_timeout, stop_, clock);
  std::atomic<size_t> next{0};
  size_t slots = std::min(static_cast<size_t>(std::max(options_.concurrency, 1)), users.size());
  std::vector<std::thread> threads;
  threads.reserve(slots);
  for (size_t i = 0; i < slots; ++i) {
    threads.emplace_back([&] { RunSlot(prepared, &next, sender, clock); });
  }
  for (std::thread& thread : threads) thread.join();
  result.stopped = stop_->load();
  std::lock_guard<std::mutex> lock(mu_);
  result.records = std::move(records_);
  records_.clear();
  return result;
}

void Replay::RunSlot(const std::vector<PreparedUser>& prepared, std::atomic<size_t>* next,
                     const RoundSender& sender, const ReplayClock& clock) {
  while (!stop_->load()) {
    size_t index = next->fetch_add(1);
    if (index >= prepared.size()) return;
    RunUser(prepared[index], sender, clock);
  }
}

void Replay::RunUser(const PreparedUser& user, const RoundSender& sender,
                     const ReplayClock& clock) {
  const datasets::VirtualUser& virtual_user = *user.user;
  double scheduled_s = clock.Now();
  for (size_t round = 0; round < user.bodies.size(); ++round) {
    if (stop_->load()) return;
    if (options_.isl > 0) {
      absl::StatusOr<int> tokens = sender.CountTokens(virtual_user.user_id,
                                                      user.tokenize_bodies[round]);
      if (!tokens.ok()) {
        RequestRecord failed;
        failed.user_id = virtual_user.user_id;
        failed.session_id = virtual_user.session_id;
        failed.round = static_cast<int>(round) + 1;
        failed.scheduled_s = scheduled_s;
        failed.sent_s = failed.end_s = clock.Now();
        failed.error = absl::StrCat("tokenize: ", tokens.status().message());
        Finish(std::move(failed));
        return;
      }
      if (*tokens > options_.isl) return;  // depth limit reached: the user ends incomplete
    }
    RoundSender::Outcome outcome = sender.Send(virtual_user.user_id, user.bodies[round],
                                               scheduled_s);
    if (outcome.cancelled) return;
    outcome.record.user_id = virtual_user.user_id;
    outcome.record.session_id = virtual_user.session_id;
    outcome.record.round = static_cast<int>(round) + 1;
    bool failed = !outcome.record.ok();
    scheduled_s = outcome.record.end_s;
    Finish(std::move(outcome.record));
    if (failed) return;
  }
}

void Replay::Finish(RequestRecord record) {
  if (writer_ != nullptr) writer_->Write(record);
  std::lock_guard<std::mutex> lock(mu_);
  records_.push_back(std::move(record));
}

}  // namespace kvbench::runner
