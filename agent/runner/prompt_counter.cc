#include "agent/runner/prompt_counter.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/results/reuse_opportunity.h"
#include "common/sync/stop_callback.h"

namespace kvbench::runner {
namespace {

// Reads /tokenize's answer ({"count", "tokens": [ids], ...}) into a PromptCount.
absl::StatusOr<PromptCount> ParseTokenizeAnswer(int http_status, const std::string& body) {
  if (http_status != 200) {
    return absl::UnavailableError(
        absl::StrCat("answered HTTP ", http_status, ": ", body.substr(0, 200)));
  }
  nlohmann::json answer = nlohmann::json::parse(body, nullptr, false);
  if (!answer.is_object() || !answer.contains("tokens") || !answer["tokens"].is_array()) {
    return absl::UnavailableError("answer has no \"tokens\" list");
  }
  std::vector<std::int32_t> ids;
  ids.reserve(answer["tokens"].size());
  for (const nlohmann::json& id : answer["tokens"]) {
    if (!id.is_number_integer()) return absl::UnavailableError("a token id is not an integer");
    ids.push_back(id.get<std::int32_t>());
  }
  PromptCount count;
  count.tokens = static_cast<int64_t>(ids.size());
  count.chunk_keys = agent::results::PromptChunkKeys(ids);
  return count;
}

// Shared state of one Count call: workers chain requests from their OnComplete.
class CountRun {
 public:
  CountRun(AsyncHttpClient* client, AsyncHttpRequest base, const std::vector<std::string>* bodies,
           StopSource* stop)
      : client_(client),
        base_(std::move(base)),
        bodies_(bodies),
        stop_(stop),
        counts_(bodies->size()) {}

  class Worker final : public AsyncHttpObserver {
   public:
    explicit Worker(CountRun* run) : run_(run) {}
    void Next() { run_->StartNext(this); }
    void OnHeaders(int http_status, MonotonicTime) override { status_ = http_status; }
    bool OnBody(absl::string_view bytes, MonotonicTime) override {
      body_.append(bytes.data(), bytes.size());
      return !run_->stop_->stop_requested();
    }
    void OnComplete(absl::Status status, MonotonicTime) override {
      absl::StatusOr<PromptCount> count =
          status.ok() ? ParseTokenizeAnswer(status_, body_) : absl::StatusOr<PromptCount>(status);
      body_.clear();
      status_ = 0;
      run_->Finish(index_, std::move(count), this);
    }
    size_t index_ = 0;

   private:
    CountRun* run_;
    int status_ = 0;
    std::string body_;
  };

  void StartNext(Worker* worker) {
    size_t index = next_.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (index >= bodies_->size() || !error_.ok() || stop_->stop_requested()) {
        if (--active_ == 0) done_.notify_all();
        return;
      }
    }
    worker->index_ = index;
    AsyncHttpRequest request = base_;
    request.body = (*bodies_)[index];
    client_->Start(request, worker);
  }

  void Finish(size_t index, absl::StatusOr<PromptCount> count, Worker* worker) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (count.ok()) {
        counts_[index] = std::move(*count);
      } else if (error_.ok()) {
        error_ =
            count.status().code() == absl::StatusCode::kCancelled
                ? count.status()
                : absl::UnavailableError(absl::StrCat("POST ", base_.url, " for prompt ", index + 1,
                                                      ": ", count.status().message()));
      }
    }
    StartNext(worker);
  }

  absl::StatusOr<std::vector<PromptCount>> Run(int concurrency) {
    std::vector<std::unique_ptr<Worker>> workers;
    active_ = concurrency;
    for (int i = 0; i < concurrency; ++i) workers.push_back(std::make_unique<Worker>(this));
    for (auto& worker : workers) worker->Next();
    // A stop shuts the client down (aborting what is in flight); each worker then finishes.
    StopCallback shutdown_on_stop(stop_, [this] { client_->Shutdown(); });
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return active_ == 0; });
    if (stop_->stop_requested())
      return absl::CancelledError("stopped while counting prompt tokens");
    if (!error_.ok()) return error_;
    return std::move(counts_);
  }

 private:
  AsyncHttpClient* client_;
  AsyncHttpRequest base_;
  const std::vector<std::string>* bodies_;
  StopSource* stop_;
  std::atomic<size_t> next_{0};

  std::mutex mu_;
  std::condition_variable done_;
  int active_ = 0;                   // guarded by mu_
  absl::Status error_;               // guarded by mu_
  std::vector<PromptCount> counts_;  // guarded by mu_
};

}  // namespace

PromptCounter::PromptCounter(AsyncHttpClient* client, std::string base_url, absl::Duration timeout,
                             StopSource* stop)
    : client_(client), url_(std::move(base_url) + "/tokenize"), timeout_(timeout), stop_(stop) {}

absl::StatusOr<std::vector<PromptCount>> PromptCounter::Count(
    const std::vector<std::string>& bodies) {
  if (bodies.empty()) return std::vector<PromptCount>();
  AsyncHttpRequest base;
  base.url = url_;
  base.headers = {{"Content-Type", "application/json"}};
  base.timeout = timeout_;
  base.chunked_body = true;  // as the replay's requests (async_http_client.h)
  CountRun run(client_, std::move(base), &bodies, stop_);
  return run.Run(std::min<int>(kPromptCountConcurrency, static_cast<int>(bodies.size())));
}

}  // namespace kvbench::runner
