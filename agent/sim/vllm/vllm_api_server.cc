#include "agent/sim/vllm/vllm_api_server.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "agent/sim/engine/chat_template.h"
#include "agent/sim/engine/tokenizer.h"
#include "agent/sim/vllm/request_session.h"
#include "common/log/logging.h"

namespace kvbench::sim {
namespace {

using Json = nlohmann::ordered_json;

void RespondError(HttpResponder& responder, const ApiError& error) {
  responder.Respond(error.status, JsonHeaders(), error.ToJson());
}

ApiContext MakeContext(const VllmServeOptions& options, const SimEngine& engine) {
  ApiContext context;
  context.served_names = options.served_model_names;
  if (context.served_names.empty()) context.served_names.push_back(options.model);
  context.max_model_len = engine.config().max_model_len;
  context.harmony = engine.config().model.harmony;
  context.auto_tool_choice = options.enable_auto_tool_choice;
  return context;
}

}  // namespace

VllmApiServer::VllmApiServer(const VllmServeOptions& options, SimEngine* engine,
                             const VllmMetrics* metrics, SimClock* clock)
    : options_(options),
      context_(MakeContext(options, *engine)),
      engine_(engine),
      metrics_(metrics),
      clock_(clock),
      created_(absl::ToUnixSeconds(absl::Now())) {
  HttpServer::Options server_options;
  server_options.host = options.host;
  server_options.port = options.port;
  server_options.io_threads = 2;
  server_ = HttpServer::Create(server_options);
  server_->Handle("POST", "/v1/chat/completions", [this](const auto& request, auto responder) {
    HandleGeneration(ApiKind::kChat, request, std::move(responder));
  });
  server_->Handle("POST", "/v1/completions", [this](const auto& request, auto responder) {
    HandleGeneration(ApiKind::kCompletion, request, std::move(responder));
  });
  server_->Handle("POST", "/tokenize", [this](const auto& request, auto responder) {
    HandleTokenize(request, std::move(responder));
  });
  server_->Handle("GET", "/v1/models",
                  [this](const auto&, auto responder) { HandleModels(std::move(responder)); });
  server_->Handle("GET", "/health",
                  [](const auto&, auto responder) { responder->Respond(200, {}, ""); });
  // {"version": <release>}, as vLLM's show_version answers with its __version__
  // (vllm-project/vllm:vllm/entrypoints/openai/api_server.py@048027fb): --sim-vllm-version.
  server_->Handle("GET", "/version", [this](const auto&, auto responder) {
    responder->Respond(200, JsonHeaders(), Json{{"version", options_.sim_vllm_version}}.dump());
  });
  server_->Handle("GET", "/metrics", [this](const auto&, auto responder) {
    responder->Respond(200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}},
                       metrics_->Render());
  });
  server_->SetFallback([](const auto&, auto responder) {
    responder->Respond(404, JsonHeaders(), R"({"detail":"Not Found"})");
  });
}

absl::Status VllmApiServer::Start() { return server_->Start(); }

void VllmApiServer::Stop() { server_->Stop(); }

std::string VllmApiServer::NextRequestId(ApiKind kind) {
  uint64_t n = next_request_.fetch_add(1);
  return absl::StrFormat("%s-%016x%016x", kind == ApiKind::kChat ? "chatcmpl" : "cmpl",
                         options_.sim_seed ^ 0x9e3779b97f4a7c15ull, n);
}

void VllmApiServer::HandleGeneration(ApiKind kind, const HttpServerRequest& request,
                                     std::shared_ptr<HttpResponder> responder) {
  ParsedRequest parsed;
  if (auto error = ParseApiRequest(kind, request.body, context_, &parsed)) {
    return RespondError(*responder, *error);
  }
  std::string request_id = NextRequestId(kind);
  if (options_.enable_log_requests) {
    KV_LOG(INFO) << "Received request " << request_id
                 << ": user=" << request.Header("x-user-id").value_or("");
  }
  auto session = std::make_shared<RequestSession>(
      std::move(request_id), absl::ToUnixSeconds(absl::Now()), std::move(parsed),
      options_.enable_prompt_tokens_details, std::move(responder), engine_, clock_);
  session->Start();
  // A request refused above is answered without counting: its answer stands in for it, in flight
  // on the clock throughout.
  if (clock_ != nullptr) clock_->Received();
}

void VllmApiServer::HandleTokenize(const HttpServerRequest& request,
                                   std::shared_ptr<HttpResponder> responder) {
  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) {
    return RespondError(*responder,
                        ApiError::BadRequest("JSON decode error: the body is not JSON"));
  }
  std::vector<uint32_t> tokens;
  if (body.contains("messages")) {
    bool add_generation_prompt = body.value("add_generation_prompt", true);
    absl::StatusOr<std::string> text = RenderChat(body["messages"], add_generation_prompt);
    if (!text.ok()) {
      return RespondError(*responder, ApiError::BadRequest(std::string(text.status().message())));
    }
    tokens = SimTokenizer::Encode(*text);
  } else if (body.contains("prompt") && body["prompt"].is_string()) {
    tokens = SimTokenizer::Encode(body["prompt"].get<std::string>());
  } else {
    return RespondError(*responder,
                        ApiError::BadRequest("prompt or messages: one of them is required"));
  }
  Json response;
  response["count"] = tokens.size();
  response["max_model_len"] = context_.max_model_len;
  response["tokens"] = tokens;
  response["token_strs"] = nullptr;
  responder->Respond(200, JsonHeaders(), response.dump());
}

void VllmApiServer::HandleModels(std::shared_ptr<HttpResponder> responder) const {
  Json data = Json::array();
  for (const std::string& name : context_.served_names) {
    Json permission;
    permission["id"] = "modelperm-kvsim";
    permission["object"] = "model_permission";
    permission["created"] = created_;
    permission["allow_create_engine"] = false;
    permission["allow_sampling"] = true;
    permission["allow_logprobs"] = true;
    permission["allow_search_indices"] = false;
    permission["allow_view"] = true;
    permission["allow_fine_tuning"] = false;
    permission["organization"] = "*";
    permission["group"] = nullptr;
    permission["is_blocking"] = false;
    Json card;
    card["id"] = name;
    card["object"] = "model";
    card["created"] = created_;
    card["owned_by"] = "vllm";
    card["root"] = options_.model;
    card["parent"] = nullptr;
    card["max_model_len"] = context_.max_model_len;
    card["permission"] = Json::array({permission});
    data.push_back(card);
  }
  responder->Respond(200, JsonHeaders(), Json{{"object", "list"}, {"data", data}}.dump());
}

}  // namespace kvbench::sim
