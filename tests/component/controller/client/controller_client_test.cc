// The gRPC ControllerClient against a fake Controller: the bearer token on every call, status
// codes 1:1, and a watch that ends when told to.

#include "controller/client/controller_client.h"

#include <atomic>
#include <catch2/catch.hpp>

#include "tests/component/controller/kvctl/fake_controller.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

std::unique_ptr<client::ControllerClient> ConnectTo(const FakeController& controller,
                                                    const std::string& token = "") {
  client::ControllerConnection connection;
  connection.address = controller.address();
  connection.token = token;
  connection.insecure = true;
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      client::ControllerClient::Connect(connection);
  REQUIRE(client.ok());
  return *std::move(client);
}

v1::WatchJobResponse Event(int64_t position) {
  v1::WatchJobResponse response;
  response.set_position(position);
  response.set_job_state(v1::JOB_STATE_RUNNING);
  return response;
}

TEST_CASE("ControllerClient refuses an empty address") {
  CHECK(client::ControllerClient::Connect({}).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("ControllerClient sends the bearer token and maps status codes 1:1") {
  FakeController controller;
  std::unique_ptr<client::ControllerClient> client = ConnectTo(controller, "s3cret");
  CHECK(client->GetJob("nope").status().code() == absl::StatusCode::kNotFound);
  controller.SetUnaryError(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "not yours"));
  absl::Status denied = client->ListAgents().status();
  CHECK(denied.code() == absl::StatusCode::kPermissionDenied);
  CHECK(denied.message() == "not yours");
  controller.SetUnaryError(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "over"));
  CHECK(client->CancelJob("j", "r").status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(controller.authorizations() ==
        std::vector<std::string>{"Bearer s3cret", "Bearer s3cret", "Bearer s3cret"});
}

TEST_CASE("ControllerClient puts the connection's deadline on unary calls") {
  FakeController controller;
  controller.SetHoldGetJob(true);
  client::ControllerConnection connection;
  connection.address = controller.address();
  connection.insecure = true;
  connection.deadline = absl::Milliseconds(100);
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      client::ControllerClient::Connect(connection);
  REQUIRE(client.ok());
  CHECK((*client)->GetJob("job-1").status().code() == absl::StatusCode::kDeadlineExceeded);
}

TEST_CASE("ControllerClient::WatchJob stops when on_event says so or cancel is raised") {
  FakeController controller;
  FakeController::WatchScript open;
  open.responses = {Event(1), Event(2)};
  open.hold_open = true;
  controller.AddWatchScript(open);
  controller.AddWatchScript(open);
  std::unique_ptr<client::ControllerClient> client = ConnectTo(controller);
  v1::WatchJobRequest request;
  request.set_job_id("job-1");

  std::vector<int64_t> seen;
  absl::Status stopped = client->WatchJob(
      request,
      [&seen](const v1::WatchJobResponse& response) {
        seen.push_back(response.position());
        return false;
      },
      nullptr);
  CHECK(stopped.ok());
  CHECK(seen == std::vector<int64_t>{1});

  StopSource cancel;
  seen.clear();
  absl::Status cancelled = client->WatchJob(
      request,
      [&](const v1::WatchJobResponse& response) {
        seen.push_back(response.position());
        if (response.position() == 2) cancel.RequestStop();  // the stream stays open after this
        return true;
      },
      &cancel);
  CHECK(cancelled.code() == absl::StatusCode::kCancelled);
  CHECK(seen == std::vector<int64_t>{1, 2});
  // The server sees both streams cancelled (it notices after the client has returned).
  CHECK(WaitFor([&controller] { return controller.cancelled_watches() == 2; }));
}

}  // namespace
}  // namespace kvbench::testing
