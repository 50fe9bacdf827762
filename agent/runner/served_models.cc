#include "agent/runner/served_models.h"

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::runner {
namespace {

// Collects one exchange's status and body; Wait blocks until it completed.
class BodyCollector final : public AsyncHttpObserver {
 public:
  void OnHeaders(int http_status, MonotonicTime) override { http_status_ = http_status; }
  bool OnBody(absl::string_view bytes, MonotonicTime) override {
    body_.append(bytes.data(), bytes.size());
    return true;
  }
  void OnComplete(absl::Status status, MonotonicTime) override {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = std::move(status);
    done_.notify_all();
  }

  // The transport's status; then http_status() and body() are the answer's.
  absl::Status Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return status_.has_value(); });
    return *status_;
  }
  int http_status() const { return http_status_; }
  const std::string& body() const { return body_; }

 private:
  int http_status_ = 0;  // written and read on the client's thread, then after Wait
  std::string body_;
  std::mutex mu_;
  std::condition_variable done_;
  std::optional<absl::Status> status_;  // guarded by mu_
};

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseServedModels(absl::string_view body) {
  const nlohmann::json answer = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
  if (!answer.is_object() || !answer.contains("data") || !answer["data"].is_array()) {
    return absl::InvalidArgumentError("not a model list: no \"data\" array");
  }
  std::vector<std::string> ids;
  for (const nlohmann::json& model : answer["data"]) {
    if (!model.is_object() || !model.contains("id") || !model["id"].is_string()) {
      return absl::InvalidArgumentError("not a model list: an entry has no string \"id\"");
    }
    ids.push_back(model["id"].get<std::string>());
  }
  return ids;
}

absl::StatusOr<std::vector<std::string>> FetchServedModels(AsyncHttpClient* client,
                                                           const std::string& base_url,
                                                           absl::Duration timeout) {
  AsyncHttpRequest request;
  request.method = "GET";
  request.url = base_url + "/v1/models";
  request.timeout = timeout;
  BodyCollector collector;
  client->Start(request, &collector);
  if (absl::Status status = collector.Wait(); !status.ok()) {
    return absl::UnavailableError(absl::StrCat("GET ", request.url, ": ", status.message()));
  }
  if (collector.http_status() != 200) {
    return absl::UnavailableError(
        absl::StrCat("GET ", request.url, " answered HTTP ", collector.http_status()));
  }
  absl::StatusOr<std::vector<std::string>> ids = ParseServedModels(collector.body());
  if (!ids.ok()) {
    return absl::UnavailableError(absl::StrCat("GET ", request.url, ": ", ids.status().message()));
  }
  return ids;
}

std::string UnknownModelMessage(const std::string& model, const std::string& base_url,
                                const std::vector<std::string>& served) {
  const std::string refused = absl::StrCat("--model ", model, ": ", base_url,
                                           " answered 404: it serves no model of that name");
  if (served.empty()) return absl::StrCat(refused, " (GET /v1/models lists none)");
  return absl::StrCat(refused, "; it serves ", absl::StrJoin(served, ", "),
                      " (GET /v1/models): pass ", served.size() == 1 ? "that" : "one of them",
                      " as --model");
}

}  // namespace kvbench::runner
