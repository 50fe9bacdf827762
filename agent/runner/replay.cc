#include "agent/runner/replay.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/runner/gpt_oss_agentic.h"
#include "agent/runner/request_body.h"
#include "agent/runner/round_exchange.h"
#include "agent/runner/served_models.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::runner {

// How long /tokenize may take for one prompt while prompts are counted.
constexpr absl::Duration kPromptCountTimeout = absl::Minutes(5);

struct Replay::Slot {
  std::unique_ptr<RoundExchange> exchange;
  // The slot's chat request, built once: each round sets only its user and body (a fresh request
  // per round cost allocations on the I/O thread's hot path).
  AsyncHttpRequest request;
  size_t user = 0;   // index into prepared_
  size_t round = 0;  // 0-based round of that user
  int attempt = 1;
  double scheduled_s = 0;
};

namespace {

BodyOptions BodyOptionsFrom(const RunnerOptions& options) {
  BodyOptions body;
  body.model = options.model;
  body.osl = options.osl;
  body.sanitize_harmony_tokens = options.sanitize_harmony_tokens;
  body.ask_mode = options.ask_mode;
  return body;
}

// Where ChatRequest puts x-user-id among the headers.
constexpr size_t kUserIdHeader = 1;

AsyncHttpRequest ChatRequest(const RunnerOptions& options, const std::string& user_id,
                             absl::string_view body) {
  AsyncHttpRequest request;
  request.url = options.base_url + "/v1/chat/completions";
  request.headers = {{"Content-Type", "application/json"}, {"x-user-id", user_id}};
  request.body = body;
  request.chunked_body = true;  // never truncated by a Go proxy in front (async_http_client.h)
  request.timeout = options.request_timeout;
  return request;
}

}  // namespace

Replay::Replay(AsyncHttpClient* client, const RunnerOptions& options, RecordWriter* writer,
               StopSource* stop, sim::SimClock* sim_clock)
    : client_(client),
      options_(options),
      writer_(writer),
      stop_(stop),
      sim_clock_(sim_clock),
      clock_(sim_clock),
      shutdown_on_stop_(stop, [client] { client->Shutdown(); }) {}

Replay::~Replay() = default;

absl::Status Replay::Warmup() {
  std::mutex mu;
  std::condition_variable finished;
  std::optional<std::pair<RequestRecord, bool>> outcome;  // guarded by mu
  RoundExchange exchange(&clock_, stop_, [&](RequestRecord record, bool cancelled) {
    std::lock_guard<std::mutex> lock(mu);
    outcome.emplace(std::move(record), cancelled);
    finished.notify_all();
  });
  BodyOptions body_options = BodyOptionsFrom(options_);
  body_options.osl = 0;  // a warmup asks for kWarmupMaxTokens, never OSL
  for (int i = 0; i < options_.warmup && !stop_->stop_requested(); ++i) {
    const std::string body = BuildChatBody(body_options, WarmupMessages(i, options_.seed),
                                           nlohmann::json::array(), kWarmupMaxTokens);
    const std::string user_id = absl::StrCat("warmup-", i);
    outcome.reset();
    exchange.Send(client_, ChatRequest(options_, user_id, body), RequestRecord());
    std::unique_lock<std::mutex> lock(mu);
    finished.wait(lock, [&] { return outcome.has_value(); });
    if (outcome->second) break;  // cancelled by stop
    if (outcome->first.error) {
      if (outcome->first.http_status == 404) KV_RETURN_IF_ERROR(CheckModelServed());
      return absl::UnavailableError(absl::StrCat("warmup request ", i, " to ", options_.base_url,
                                                 " failed: ", *outcome->first.error));
    }
  }
  return absl::OkStatus();
}

absl::Status Replay::CheckModelServed() {
  absl::StatusOr<std::vector<std::string>> served =
      FetchServedModels(client_, options_.base_url, kServedModelsTimeout);
  if (!served.ok()) return absl::OkStatus();  // no model list: the 404 is all there is to say
  if (std::find(served->begin(), served->end(), options_.model) != served->end()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      UnknownModelMessage(options_.model, options_.base_url, *served));
}

std::vector<Replay::PreparedUser> Replay::Prepare(const std::vector<datasets::VirtualUser>& users,
                                                  std::vector<std::string>* tokenize_bodies) const {
  const BodyOptions body_options = BodyOptionsFrom(options_);
  std::vector<PreparedUser> prepared(users.size());
  for (size_t i = 0; i < users.size(); ++i) {
    prepared[i].user = &users[i];
    prepared[i].sendable_rounds = users[i].rounds.size();
    nlohmann::json tools = options_.enable_agentic_tools ? DeclareRecordedTools(users[i].rounds)
                                                         : nlohmann::json::array();
    for (const datasets::Round* round : users[i].rounds) {
      prepared[i].bodies.push_back(
          BuildChatBody(body_options, round->messages, tools, round->output_tokens));
      if (tokenize_bodies != nullptr) {
        tokenize_bodies->push_back(BuildTokenizeBody(body_options, round->messages, tools));
      }
    }
  }
  return prepared;
}

size_t Replay::SendableRounds(const std::vector<PromptCount>& counts) const {
  if (options_.isl <= 0) return counts.size();
  auto over = std::find_if(counts.begin(), counts.end(),
                           [&](const PromptCount& c) { return c.tokens > options_.isl; });
  return static_cast<size_t>(over - counts.begin());
}

absl::Status Replay::CountPrompts(const std::vector<std::string>& tokenize_bodies) {
  PromptCounter counter(client_, options_.base_url, kPromptCountTimeout, stop_);
  KV_ASSIGN_OR_RETURN(std::vector<PromptCount> counts, counter.Count(tokenize_bodies));
  size_t next = 0;
  for (PreparedUser& user : prepared_) {
    for (size_t round = 0; round < user.bodies.size(); ++round) {
      user.counts.push_back(std::move(counts[next++]));
    }
    user.sendable_rounds = SendableRounds(user.counts);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<bool>> Replay::FitUnderIsl(
    const std::vector<datasets::VirtualUser>& users) {
  std::vector<std::string> tokenize_bodies;
  Prepare(users, &tokenize_bodies);
  PromptCounter counter(client_, options_.base_url, kPromptCountTimeout, stop_);
  KV_ASSIGN_OR_RETURN(std::vector<PromptCount> counts, counter.Count(tokenize_bodies));
  std::vector<bool> fits;
  size_t next = 0;
  for (const datasets::VirtualUser& user : users) {
    const std::vector<PromptCount> rounds(
        counts.begin() + static_cast<long>(next),
        counts.begin() + static_cast<long>(next + user.rounds.size()));
    next += user.rounds.size();
    fits.push_back(SendableRounds(rounds) == user.rounds.size());
  }
  return fits;
}

std::vector<agent::results::CountedPrompt> Replay::CountedPrompts() const {
  std::vector<agent::results::CountedPrompt> prompts;
  for (const PreparedUser& user : prepared_) {
    for (size_t round = 0; round < user.counts.size(); ++round) {
      prompts.push_back({user.user->user_id, static_cast<int>(round) + 1, user.counts[round].tokens,
                         user.counts[round].chunk_keys});
    }
  }
  return prompts;
}

absl::StatusOr<ReplayResult> Replay::Run(const std::vector<datasets::VirtualUser>& users,
                                         bool count_prompts, const BeforeClockHook& before_clock) {
  count_prompts = count_prompts || options_.isl > 0;
  std::vector<std::string> tokenize_bodies;
  prepared_ = Prepare(users, count_prompts ? &tokenize_bodies : nullptr);
  ReplayResult result;
  if (count_prompts) {
    absl::Status counted = CountPrompts(tokenize_bodies);
    if (!counted.ok()) {
      if (options_.isl > 0 || counted.code() == absl::StatusCode::kCancelled) return counted;
      KV_LOG(WARNING) << "prompts not counted, reuse opportunity unknown: " << counted.message();
      for (PreparedUser& user : prepared_) user.counts.clear();
    }
  }
  for (const PreparedUser& user : prepared_) {
    result.planned_users.push_back({user.user->user_id, static_cast<int>(user.user->rounds.size()),
                                    user.user->session_id, static_cast<int>(user.sendable_rounds)});
  }
  if (before_clock) KV_RETURN_IF_ERROR(before_clock(CountedPrompts()));
  clock_ = ReplayClock(sim_clock_);  // the run's start: after warmup, serialization and counting
  result.clock_origin_s = clock_.origin_s();
  probe_ = std::make_unique<LoopLagProbe>(client_, &clock_);
  probe_->Start();
  const size_t slots =
      std::min(static_cast<size_t>(std::max(options_.concurrency, 1)), prepared_.size());
  for (size_t i = 0; i < slots; ++i) {
    auto slot = std::make_unique<Slot>();
    Slot* raw = slot.get();
    slot->exchange = std::make_unique<RoundExchange>(
        &clock_, stop_, [this, raw](RequestRecord record, bool cancelled) {
          OnRoundDone(raw, std::move(record), cancelled);
        });
    slots_.push_back(std::move(slot));
  }
  size_t planned_requests = 0;
  for (const PreparedUser& user : prepared_) planned_requests += user.sendable_rounds;
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_slots_ = static_cast<int>(slots);
    // Room for every planned request: growing the vector mid-run moved every record so far on
    // the I/O thread (retries beyond the plan still fit, by growing).
    records_.reserve(planned_requests);
  }
  // On a shared simulated clock every slot's first request goes out at the same instant: a hold
  // counted in flight keeps time still until all of them are sent.
  if (sim_clock_ != nullptr) sim_clock_->Sent();
  for (auto& slot : slots_) TakeNextUser(slot.get());
  if (sim_clock_ != nullptr) sim_clock_->Received();
  WaitForSlots();
  probe_->Stop();
  result.stopped = stop_->stop_requested();
  std::lock_guard<std::mutex> lock(mu_);
  result.records = std::move(records_);
  records_.clear();
  if (!prepared_.empty() && !prepared_.front().counts.empty()) {
    result.reuse = ComputeReuse(result.records);
  }
  return result;
}

void Replay::WaitForSlots() {
  std::unique_lock<std::mutex> lock(mu_);
  slots_ended_.wait(lock, [&] { return active_slots_ == 0; });
}

void Replay::TakeNextUser(Slot* slot) {
  while (!stop_->stop_requested()) {
    size_t index = next_user_.fetch_add(1);
    if (index >= prepared_.size()) break;
    if (prepared_[index].sendable_rounds == 0) continue;  // round 1 already over ISL
    slot->user = index;
    slot->round = 0;
    slot->attempt = 1;
    slot->scheduled_s = clock_.Now();
    StartRound(slot);
    return;
  }
  EndSlot();
}

void Replay::StartRound(Slot* slot) {
  const PreparedUser& user = prepared_[slot->user];
  RequestRecord record;
  record.user_id = user.user->user_id;
  record.session_id = user.user->session_id;
  record.round = static_cast<int>(slot->round) + 1;
  record.scheduled_s = slot->scheduled_s;
  record.attempts = slot->attempt;
  if (!user.counts.empty())
    record.prompt_tokens = static_cast<int>(user.counts[slot->round].tokens);
  if (slot->request.url.empty()) slot->request = ChatRequest(options_, "", "");
  slot->request.headers[kUserIdHeader].second = record.user_id;
  slot->request.body = user.bodies[slot->round];
  slot->exchange->Send(client_, slot->request, std::move(record));
}

void Replay::OnRoundDone(Slot* slot, RequestRecord record, bool cancelled) {
  if (cancelled || stop_->stop_requested()) {
    EndSlot();  // aborted: no result; the user ends incomplete
    return;
  }
  if (record.error && options_.enable_agentic_tools &&
      slot->attempt < options_.agentic_max_attempts && IsRetryableAgenticFailure(*record.error)) {
    ++slot->attempt;  // same round again; latency still counts from its scheduled time
    StartRound(slot);
    return;
  }
  const bool failed = !record.ok();
  slot->scheduled_s = record.end_s;
  record.loop_lag_s = StampLag(record);
  if (writer_ != nullptr) writer_->Write(record);
  {
    std::lock_guard<std::mutex> lock(mu_);
    records_.push_back(std::move(record));
  }
  ++slot->round;
  slot->attempt = 1;
  if (failed || slot->round >= prepared_[slot->user].sendable_rounds) {
    TakeNextUser(slot);
  } else {
    StartRound(slot);
  }
}

std::optional<double> Replay::StampLag(const RequestRecord& record) const {
  std::optional<double> lag = probe_->MaxLag(record.end_s, record.end_s);
  if (record.first_token_s) {
    if (std::optional<double> first =
            probe_->MaxLag(*record.first_token_s, *record.first_token_s)) {
      lag = std::max(lag.value_or(0.0), *first);
    }
  }
  return lag;
}

void Replay::EndSlot() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--active_slots_ == 0) slots_ended_.notify_all();
}

agent::results::ReuseOpportunity Replay::ComputeReuse(
    const std::vector<RequestRecord>& records) const {
  std::unordered_map<std::string, const PreparedUser*> by_id;
  for (const PreparedUser& user : prepared_) by_id[user.user->user_id] = &user;
  std::vector<const RequestRecord*> sent;
  for (const RequestRecord& record : records) sent.push_back(&record);
  std::sort(sent.begin(), sent.end(),
            [](const RequestRecord* a, const RequestRecord* b) { return a->sent_s < b->sent_s; });
  std::vector<agent::results::PromptTokens> prompts;
  prompts.reserve(sent.size());
  for (const RequestRecord* record : sent) {
    const PromptCount& count = by_id.at(record->user_id)->counts[record->round - 1];
    agent::results::PromptTokens prompt;
    prompt.user_id = record->user_id;
    prompt.token_count = count.tokens;
    prompt.chunk_keys = count.chunk_keys;
    prompts.push_back(std::move(prompt));
  }
  return agent::results::ComputeReuseOpportunity(prompts);
}

}  // namespace kvbench::runner
