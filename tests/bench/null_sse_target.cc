#include "tests/bench/null_sse_target.h"

#include <chrono>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

namespace kvbench::bench {
namespace {

constexpr char kPath[] = "/v1/chat/completions";
constexpr int kPromptTokens = 32;

std::string Event(const nlohmann::json& delta, const nlohmann::json& finish_reason) {
  nlohmann::json chunk = {{"id", "chatcmpl-null"},
                          {"object", "chat.completion.chunk"},
                          {"created", 0},
                          {"model", "null"},
                          {"choices",
                           {{{"index", 0}, {"delta", delta}, {"logprobs", nullptr},
                             {"finish_reason", finish_reason}}}}};
  return "data: " + chunk.dump() + "\n\n";
}

std::string UsageEvent(int completion_tokens) {
  nlohmann::json chunk = {{"id", "chatcmpl-null"},
                          {"object", "chat.completion.chunk"},
                          {"created", 0},
                          {"model", "null"},
                          {"choices", nlohmann::json::array()},
                          {"usage",
                           {{"prompt_tokens", kPromptTokens},
                            {"completion_tokens", completion_tokens},
                            {"total_tokens", kPromptTokens + completion_tokens}}}};
  return "data: " + chunk.dump() + "\n\n";
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

NullSseTarget::NullSseTarget(Options options)
    : options_(options),
      role_chunk_(Event({{"role", "assistant"}, {"content", ""}}, nullptr)),
      content_chunk_(Event({{"content", "tok "}}, nullptr)),
      tail_(Event(nlohmann::json::object(), "length") + UsageEvent(options.content_chunks) +
            "data: [DONE]\n\n") {
  HttpServer::Options server_options;
  server_options.port = options_.port;
  server_options.io_threads = options_.io_threads;
  server_ = HttpServer::Create(server_options);
  HttpHandler answer = [this](const HttpServerRequest& request,
                              std::shared_ptr<HttpResponder> responder) {
    Answer(request, responder);
  };
  server_->Handle("POST", kPath, answer);
  server_->Handle("GET", kPath, answer);
  server_->Handle("GET", "/stamps",
                  [this](const HttpServerRequest&, std::shared_ptr<HttpResponder> responder) {
                    responder->Respond(200, {{"Content-Type", "application/x-ndjson"}},
                                       StampsJsonLines());
                  });
}

absl::Status NullSseTarget::Start() { return server_->Start(); }

void NullSseTarget::Stop() { server_->Stop(); }

void NullSseTarget::Answer(const HttpServerRequest& request,
                           const std::shared_ptr<HttpResponder>& responder) {
  std::optional<std::string> user_id = request.Header("x-user-id");
  responder->StartStream(200, {{"Content-Type", "text/event-stream"}});
  responder->SendChunk(role_chunk_);
  const double first_byte_s = SteadySeconds();
  responder->SendChunk(content_chunk_);
  for (int i = 1; i < options_.content_chunks; ++i) responder->SendChunk(content_chunk_);
  responder->SendChunk(tail_);
  responder->EndStream();
  if (!user_id) return;  // wrk: nothing to align with
  std::lock_guard<std::mutex> lock(mu_);
  stamps_.push_back({*user_id, ++per_user_[*user_id], first_byte_s});
}

std::string NullSseTarget::StampsJsonLines() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const Stamp& stamp : stamps_) {
    out += nlohmann::json{{"user_id", stamp.user_id}, {"n", stamp.n},
                          {"first_byte_s", stamp.first_byte_s}}
               .dump();
    out += "\n";
  }
  return out;
}

}  // namespace kvbench::bench
