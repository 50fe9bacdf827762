// The secure controller in one process with certificates from deploy/examples/make-test-ca.sh:
// kvctl-side calls need a bearer token whose SHA-256 the config lists; agent streams need a
// client certificate signed by the controller's CA. Each refusal is UNAUTHENTICATED.

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/grpc/grpc_credentials.h"
#include "common/loop/event_loop.h"
#include "common/time/clock.h"
#include "controller/controller.h"
#include "kvbench/v1/agent_link.grpc.pb.h"
#include "kvbench/v1/controller_service.grpc.pb.h"
#include "tests/component/common/grpc/test_pki.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

class SecureController {
 public:
  SecureController() : loop_("controller") {
    const TestPki& pki = SharedTestPki();
    v1::ControllerConfig config;
    config.set_listen_address("127.0.0.1:0");
    config.set_data_dir(dir_.path() + "/controller");
    *config.mutable_tls() = pki.ControllerTls();
    config.add_token_sha256(pki.printed_sha256());
    config.set_heartbeat_timeout_s(30);
    config.set_max_scenario_attempts(3);
    auto created = controller::Controller::Create(config, &clock_, &loop_, &registry_);
    INFO(created.status().ToString());
    REQUIRE(created.ok());
    controller_ = *std::move(created);
    REQUIRE(controller_->Start().ok());
    thread_ = std::thread([this] { loop_.Run(); });
    // The certificate names localhost and 127.0.0.1.
    address_ = absl::StrCat("localhost:",
                            controller_->address().substr(controller_->address().rfind(':') + 1));
  }
  ~SecureController() {
    controller::Controller* controller = controller_.get();
    EventLoop* loop = &loop_;
    loop_.Post("test.stop", [controller, loop] { controller->Shutdown([loop] { loop->Stop(); }); });
    thread_.join();
  }

  std::unique_ptr<v1::Controller::Stub> KvctlStub() const {
    auto credentials = MakeClientChannelCredentials(SharedTestPki().dir() + "/ca.pem", false);
    REQUIRE(credentials.ok());
    return v1::Controller::NewStub(grpc::CreateChannel(address_, *credentials));
  }
  std::unique_ptr<v1::AgentLink::Stub> AgentStub(const v1::TlsConfig& tls) const {
    auto credentials = MakeAgentChannelCredentials(tls, false);
    REQUIRE(credentials.ok());
    return v1::AgentLink::NewStub(grpc::CreateChannel(address_, *credentials));
  }
  std::unique_ptr<v1::AgentLink::Stub> AgentStub(bool with_certificate) const {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        with_certificate ? MakeAgentChannelCredentials(SharedTestPki().AgentTls(), false)
                         : MakeClientChannelCredentials(SharedTestPki().dir() + "/ca.pem", false);
    REQUIRE(credentials.ok());
    return v1::AgentLink::NewStub(grpc::CreateChannel(address_, *credentials));
  }

 private:
  TempDir dir_;
  RealClock clock_;
  prometheus::Registry registry_;
  EventLoop loop_;
  std::unique_ptr<controller::Controller> controller_;
  std::thread thread_;
  std::string address_;
};

grpc::Status ListJobs(v1::Controller::Stub& stub, const std::string& authorization) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  if (!authorization.empty()) context.AddMetadata("authorization", authorization);
  v1::ListJobsRequest request;
  v1::ListJobsResponse response;
  return stub.ListJobs(&context, request, &response);
}

// Opens Attach, registers, and returns the first answer's status: OK with Registered, or the
// stream's error.
grpc::Status Attach(v1::AgentLink::Stub& stub, v1::ControllerMessage* first,
                    const std::string& agent_id = "local-agent") {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto stream = stub.Attach(&context);
  v1::AgentMessage hello;
  hello.mutable_register_()->mutable_capabilities()->set_agent_id(agent_id);
  stream->Write(hello);
  if (stream->Read(first)) {
    context.TryCancel();
    stream->Finish().ok();
    return grpc::Status::OK;
  }
  stream->WritesDone();
  return stream->Finish();
}

// A registered agent's stream, held open.
class OpenAgentStream {
 public:
  OpenAgentStream(v1::AgentLink::Stub& stub, const std::string& agent_id) : agent_id_(agent_id) {
    context_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    stream_ = stub.Attach(&context_);
    v1::AgentMessage hello;
    hello.mutable_register_()->mutable_capabilities()->set_agent_id(agent_id);
    stream_->Write(hello);
    v1::ControllerMessage first;
    registered_ = stream_->Read(&first) && first.has_registered();
  }
  ~OpenAgentStream() {
    context_.TryCancel();
    if (!finished_) stream_->Finish().ok();
  }

  bool registered() const { return registered_; }

  // Sends an event with `seq` and waits for the controller's Ack of it: true while the
  // controller still reads and answers this stream. When it does not, `*ended` is how the stream
  // ended.
  bool EventAcknowledged(int64_t seq, grpc::Status* ended) {
    v1::AgentMessage message;
    v1::Event* event = message.mutable_event();
    event->set_agent_id(agent_id_);
    event->set_job_id("job-of-no-one");
    event->set_seq(seq);
    event->mutable_log()->set_text("still here");
    if (stream_->Write(message)) {
      v1::ControllerMessage answer;
      while (stream_->Read(&answer)) {
        if (answer.has_ack() && answer.ack().acked_seq() >= seq) return true;
      }
    }
    *ended = stream_->Finish();
    finished_ = true;
    return false;
  }

 private:
  const std::string agent_id_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::AgentMessage, v1::ControllerMessage>> stream_;
  bool registered_ = false;
  bool finished_ = false;
};

TEST_CASE("kvctl calls need an accepted bearer token", "[cluster][auth]") {
  SecureController controller;
  auto stub = controller.KvctlStub();
  grpc::Status none = ListJobs(*stub, "");
  CHECK(none.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(none.error_message(), Catch::Contains("no bearer token"));
  grpc::Status wrong = ListJobs(*stub, "Bearer not-the-token");
  CHECK(wrong.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK(ListJobs(*stub, "Basic dXNlcjpwYXNz").error_code() == grpc::StatusCode::UNAUTHENTICATED);
  grpc::Status good = ListJobs(*stub, "Bearer " + SharedTestPki().token());
  INFO(good.error_message());
  CHECK(good.ok());

  // The stream of a watcher is refused the same way.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::WatchJobRequest request;
  request.set_job_id("any");
  auto reader = stub->WatchJob(&context, request);
  v1::WatchJobResponse response;
  CHECK_FALSE(reader->Read(&response));
  CHECK(reader->Finish().error_code() == grpc::StatusCode::UNAUTHENTICATED);
}

TEST_CASE("an agent without a client certificate is refused", "[cluster][auth]") {
  SecureController controller;
  v1::ControllerMessage first;
  grpc::Status refused = Attach(*controller.AgentStub(/*with_certificate=*/false), &first);
  CHECK(refused.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(refused.error_message(), Catch::Contains("client certificate"));

  grpc::Status accepted = Attach(*controller.AgentStub(/*with_certificate=*/true), &first);
  INFO(accepted.error_message());
  CHECK(accepted.ok());
  CHECK(first.has_registered());
}

// Otherwise any holder of a CA-signed agent certificate could register under any agent_id (and
// kick the real agent's stream off). The test PKI's agent certificate is CN local-agent.
TEST_CASE("an agent registers only under a name its certificate carries", "[cluster][auth]") {
  SecureController controller;
  v1::ControllerMessage first;
  grpc::Status impostor =
      Attach(*controller.AgentStub(/*with_certificate=*/true), &first, "gpu-node-7");
  CHECK(impostor.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK(impostor.error_message() ==
        "agent_id \"gpu-node-7\" is not a name of this agent's client certificate (local-agent): "
        "an agent registers under its certificate's CN or a subject alternative name");
  CHECK_FALSE(first.has_registered());
  grpc::Status own = Attach(*controller.AgentStub(/*with_certificate=*/true), &first);
  INFO(own.error_message());
  CHECK(own.ok());
}

// Two agents with certificates of their own, as a fleet has them: the holder of agent-a's
// certificate can neither register as agent-b nor, by trying, kick the real agent-b's stream off
// (a second Register of an agent_id replaces its stream). Under its own names, CN or subject
// alternative name, it registers.
TEST_CASE("an agent's certificate fences its agent_id: another's is refused, its stream kept",
          "[cluster][auth]") {
  const TestPki& pki = SharedTestPki();
  const v1::TlsConfig tls_a = pki.IssueAgentTls("fence-a", "agent-a", {"gpu-node-a.example"});
  const v1::TlsConfig tls_b = pki.IssueAgentTls("fence-b", "agent-b", {});
  SecureController controller;
  auto stub_a = controller.AgentStub(tls_a);
  auto stub_b = controller.AgentStub(tls_b);

  OpenAgentStream real_b(*stub_b, "agent-b");
  REQUIRE(real_b.registered());
  grpc::Status ended;
  REQUIRE(real_b.EventAcknowledged(1, &ended));

  v1::ControllerMessage first;
  grpc::Status impostor = Attach(*stub_a, &first, "agent-b");
  CHECK(impostor.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK(impostor.error_message() ==
        "agent_id \"agent-b\" is not a name of this agent's client certificate (agent-a, "
        "gpu-node-a.example): an agent registers under its certificate's CN or a subject "
        "alternative name");
  CHECK_FALSE(first.has_registered());
  // The real agent-b's stream is still the one the controller reads and answers.
  const bool still_answered = real_b.EventAcknowledged(2, &ended);
  INFO("agent-b's stream ended: " << ended.error_code() << " " << ended.error_message());
  CHECK(still_answered);

  for (const char* own_name : {"agent-a", "gpu-node-a.example"}) {
    first.Clear();
    grpc::Status own = Attach(*stub_a, &first, own_name);
    INFO(own_name << ": " << own.error_message());
    CHECK(own.ok());
    CHECK(first.has_registered());
  }
}

}  // namespace
}  // namespace kvbench::testing
