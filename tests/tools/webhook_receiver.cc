// kv-webhook-receiver: a webhook endpoint as a user's alert receiver would run one, for
// tests/e2e/regression_alerts.sh. It listens on 127.0.0.1 (an ephemeral port, written to
// DIR/port once bound), checks each POST's Standard Webhooks signature with the shared secret,
// and appends one JSON line per request to DIR/deliveries.jsonl:
//   {"id": webhook-id, "valid": signature ok, "type": body's type, "summary": ..., "body": ...}
// While DIR/unavailable exists, requests are answered 503 (a receiver having a bad hour, which a
// test switches on and off); otherwise 200. Runs until SIGTERM or SIGINT. Exit 2 on bad flags or
// an unreadable secret.

#include <signal.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "common/files/atomic_file.h"
#include "controller/alerts/webhook_signature.h"
#include "tests/support/test_http_server.h"

namespace {

using kvbench::testing::TestHttpServer;

}  // namespace

int main(int argc, char** argv) {
  std::string secret_file;
  std::string dir;
  CLI::App app("Receives kvbench's signed regression alerts (tests)");
  app.add_option("--secret-file", secret_file, "The webhook's secret")->required();
  app.add_option("--dir", dir, "Where port and deliveries.jsonl go")->required();
  CLI11_PARSE(app, argc, argv);

  std::ifstream secret_in(secret_file);
  std::stringstream secret;
  secret << secret_in.rdbuf();
  absl::StatusOr<kvbench::controller::WebhookKey> key =
      kvbench::controller::WebhookKey::FromSecret(absl::StripTrailingAsciiWhitespace(secret.str()));
  if (!secret_in || !key.ok()) {
    std::cerr << "cannot use the secret in " << secret_file << "\n";
    return 2;
  }
  // Signals are waited for below; block them before the server's threads start.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::mutex mu;
  const std::string log_path = dir + "/deliveries.jsonl";
  const std::string unavailable_path = dir + "/unavailable";
  absl::StatusOr<std::unique_ptr<TestHttpServer>> server = TestHttpServer::Create();
  if (!server.ok()) {
    std::cerr << server.status() << "\n";
    return 1;
  }
  (*server)->Handle("POST", "/hook", [&](const TestHttpServer::Request& request) {
    const std::string id = request.Header("webhook-id").value_or("");
    int64_t timestamp = 0;
    const bool valid =
        absl::SimpleAtoi(request.Header("webhook-timestamp").value_or(""), &timestamp) &&
        kvbench::controller::VerifyWebhookSignature(
            *key, id, timestamp, request.body, request.Header("webhook-signature").value_or(""));
    nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
    nlohmann::json line = {{"id", id}, {"valid", valid}, {"timestamp", timestamp}};
    if (!body.is_discarded() && body.is_object()) {
      line["type"] = body.value("type", "");
      line["summary"] = body.value("summary", "");
      line["body"] = body;
    }
    const int status = std::ifstream(unavailable_path).good() ? 503 : 200;
    line["answered"] = status;
    {
      std::lock_guard<std::mutex> lock(mu);
      std::ofstream out(log_path, std::ios::app);
      out << line.dump() << "\n";
    }
    return TestHttpServer::Response{status, {}, ""};
  });
  if (const absl::Status written =
          kvbench::WriteFileAtomically(dir + "/port", std::to_string((*server)->port()) + "\n");
      !written.ok()) {
    std::cerr << written.message() << "\n";
    return 2;
  }
  int signal = 0;
  sigwait(&signals, &signal);
  return 0;
}
