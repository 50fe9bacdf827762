// kv-webhook-receiver: a webhook endpoint as a user's alert receiver would run one, for
// tests/e2e/regression_alerts.sh. It listens on 127.0.0.1 (an ephemeral port, written to
// DIR/port once bound), checks each POST's Standard Webhooks signature with the shared secret,
// and appends one JSON line per request to DIR/deliveries.jsonl:
//   {"id": webhook-id, "valid": signature ok, "type": body's type, "summary": ..., "body": ...}
// While DIR/unavailable exists, requests are answered 503 (a receiver having a bad hour, which a
// test switches on and off); otherwise 200. Two hostile receivers for the controller's limits:
//   --hang               answers nothing: every request is held until the receiver exits (a
//                        receiver that hangs; "answered": 0);
//   --loud-bytes BYTES   while DIR/loud exists, answers 500 with a body of BYTES bytes, streamed
//                        in 1 MiB chunks (never held here).
// Runs until SIGTERM or SIGINT. Exit 2 on bad flags or an unreadable secret.

#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
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
  bool hang = false;
  int64_t loud_bytes = 0;
  CLI::Option* hang_flag = app.add_flag("--hang", hang, "Hold every request unanswered");
  app.add_option("--loud-bytes", loud_bytes,
                 "While DIR/loud exists, answer 500 with a body of this many bytes")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->excludes(hang_flag);
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
  // One JSON line per request: who sent it, whether its signature verifies, how it was answered.
  auto log_request = [&](const TestHttpServer::Request& request, int status) {
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
    line["answered"] = status;
    std::lock_guard<std::mutex> lock(mu);
    std::ofstream out(log_path, std::ios::app);
    out << line.dump() << "\n";
  };
  TestHttpServer* http = server->get();
  const std::string loud_path = dir + "/loud";
  http->HandleStream(
      "/hook", [&](const TestHttpServer::Request& request, TestHttpServer::StreamWriter& writer) {
        if (hang) {
          log_request(request, 0);
          http->AwaitGate("never", absl::Hours(24));  // released as the receiver exits
          writer.Abort();
          return;
        }
        if (loud_bytes > 0 && std::ifstream(loud_path).good()) {
          log_request(request, 500);
          writer.SetHead(500, {});
          const std::string chunk(size_t{1} << 20, 'x');
          for (int64_t left = loud_bytes; left > 0;) {
            const size_t piece = static_cast<size_t>(std::min<int64_t>(left, chunk.size()));
            if (!writer.Write(absl::string_view(chunk.data(), piece))) return;  // the client left
            left -= static_cast<int64_t>(piece);
          }
          return;
        }
        const int status = std::ifstream(unavailable_path).good() ? 503 : 200;
        log_request(request, status);
        writer.SetHead(status, {});
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
