// A standby's gRPC services (controllers sharing a store, one leading) over real gRPC, on a real
// SQLite store, with a fake Controller as the leader: reads answered from the store; writes
// refused with UNAVAILABLE naming the leader, its address in the trailing metadata; a client
// given only the standby's address follows the redirect; and with no leader in office, a named
// refusal.

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>

#include "common/grpc/grpc_status.h"
#include "common/grpc/leader_hint.h"
#include "common/time/clock.h"
#include "controller/client/controller_client.h"
#include "controller/service/grpc_server_service.h"
#include "controller/store/sql_store.h"
#include "kvbench/v1/controller_service.grpc.pb.h"
#include "tests/component/controller/kvctl/fake_controller.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

using controller::GrpcServerService;
using controller::LeaderRecord;
using controller::LeaderView;
using controller::SqlStore;

struct StandbyFixture {
  StandbyFixture() {
    absl::StatusOr<std::unique_ptr<SqlStore>> opened =
        SqlStore::OpenSqlite(dir.File("controller.db"));
    REQUIRE(opened.ok());
    store = *std::move(opened);
    v1::JobSpec spec;
    spec.set_name("nightly");
    v1::Scenario scenario;
    scenario.set_scenario_id("00-gpu-c2");
    REQUIRE(store->Jobs()
                .PutJob("nightly-1", spec, {scenario}, 0, absl::FromUnixSeconds(1700000000), "")
                .ok());
    LeaderRecord record;
    record.term = 3;
    record.holder = "kv-controller pid 4242 on node-a";
    record.address = leader.address();
    record.expired = false;
    view.Set(record);
    v1::ControllerConfig config;
    config.set_listen_address("127.0.0.1:0");
    config.set_insecure(true);
    absl::StatusOr<std::unique_ptr<GrpcServerService>> started =
        GrpcServerService::StartStandby(config, store.get(), &clock, &view);
    REQUIRE(started.ok());
    standby = *std::move(started);
  }

  std::unique_ptr<client::ControllerClient> Client(const std::string& addresses) {
    client::ControllerConnection connection;
    connection.address = addresses;
    connection.insecure = true;
    connection.deadline = absl::Seconds(5);
    absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
        client::ControllerClient::Connect(connection);
    REQUIRE(client.ok());
    return *std::move(client);
  }

  TempDir dir;
  RealClock clock;
  FakeController leader;
  LeaderView view;
  std::unique_ptr<SqlStore> store;
  std::unique_ptr<GrpcServerService> standby;
};

TEST_CASE("A standby answers reads from the store and refuses writes naming the leader") {
  StandbyFixture fixture;
  std::unique_ptr<v1::Controller::Stub> stub = v1::Controller::NewStub(
      grpc::CreateChannel(fixture.standby->address(), grpc::InsecureChannelCredentials()));

  grpc::ClientContext read_context;
  v1::GetJobRequest get;
  get.set_job_id("nightly-1");
  v1::Job job;
  grpc::Status read = stub->GetJob(&read_context, get, &job);
  REQUIRE(read.ok());
  CHECK(job.spec().name() == "nightly");
  REQUIRE(job.scenarios_size() == 1);
  CHECK(job.scenarios(0).scenario().scenario_id() == "00-gpu-c2");

  grpc::ClientContext write_context;
  v1::SubmitJobResponse submitted;
  grpc::Status write = stub->SubmitJob(&write_context, v1::SubmitJobRequest(), &submitted);
  CHECK(write.error_code() == grpc::StatusCode::UNAVAILABLE);
  CHECK_THAT(write.error_message(),
             Catch::Contains("standby") && Catch::Contains("kv-controller pid 4242 on node-a") &&
                 Catch::Contains(fixture.leader.address()) && Catch::Contains("term 3"));
  CHECK(LeaderHint(WithLeaderHint(FromGrpcStatus(write), write_context)) ==
        fixture.leader.address());
  CHECK(fixture.leader.submits().empty());
}

TEST_CASE("A client given only a standby's address reads there and writes to the leader") {
  StandbyFixture fixture;
  std::unique_ptr<client::ControllerClient> client = fixture.Client(fixture.standby->address());
  absl::StatusOr<v1::Job> job = client->GetJob("nightly-1");
  REQUIRE(job.ok());
  CHECK(job->job_id() == "nightly-1");
  absl::StatusOr<v1::ListJobsResponse> listed = client->ListJobs(v1::ListJobsRequest());
  REQUIRE(listed.ok());
  REQUIRE(listed->jobs_size() == 1);
  CHECK(listed->jobs(0).job_id() == "nightly-1");

  v1::SubmitJobRequest request;
  request.set_request_id("submit-once");
  v1::SubmitJobResponse answer;
  answer.set_job_id("nightly-2");
  fixture.leader.SetSubmitResponse(answer);
  absl::StatusOr<v1::SubmitJobResponse> submitted = client->SubmitJob(request);
  REQUIRE(submitted.ok());
  CHECK(submitted->job_id() == "nightly-2");
  REQUIRE(fixture.leader.submits().size() == 1);
  CHECK(fixture.leader.submits()[0].request_id() == "submit-once");
  // The leader's memory: agents connected.
  CHECK(client->ListAgents().ok());
}

TEST_CASE("A standby with no leader in office refuses, saying none leads now") {
  StandbyFixture fixture;
  LeaderRecord lapsed = fixture.view.Get();
  lapsed.expired = true;
  fixture.view.Set(lapsed);
  std::unique_ptr<client::ControllerClient> client = fixture.Client(fixture.standby->address());
  absl::Status refused = client->CancelJob("nightly-1", "test").status();
  CHECK(refused.code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(refused.message()),
             Catch::Contains("none leads now") && Catch::Contains("kv-controller pid 4242"));
  CHECK(LeaderHint(refused).empty());
  CHECK(fixture.leader.cancels().empty());
}

}  // namespace
}  // namespace kvbench::testing
