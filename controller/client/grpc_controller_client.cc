#include "controller/client/grpc_controller_client.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/grpc/grpc_credentials.h"
#include "common/grpc/grpc_status.h"
#include "common/grpc/leader_hint.h"
#include "common/status/status_macros.h"
#include "common/sync/stop_callback.h"

namespace kvbench::client {

namespace {

// A whole round of the addresses without a leader: one is being chosen (within a lease).
constexpr absl::Duration kLeaderlessPause = absl::Milliseconds(250);

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcControllerClient>> GrpcControllerClient::Create(
    const ControllerConnection& connection) {
  if (connection.address.empty()) {
    return absl::InvalidArgumentError("no controller address");
  }
  if (connection.deadline <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("the call deadline must be positive");
  }
  KV_ASSIGN_OR_RETURN(ControllerAddresses addresses,
                      ControllerAddresses::Parse(connection.address));
  KV_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                      MakeClientChannelCredentials(connection.ca_cert_path, connection.insecure));
  return std::unique_ptr<GrpcControllerClient>(
      new GrpcControllerClient(connection, std::move(addresses), std::move(credentials)));
}

GrpcControllerClient::GrpcControllerClient(ControllerConnection connection,
                                           ControllerAddresses addresses,
                                           std::shared_ptr<grpc::ChannelCredentials> credentials)
    : connection_(std::move(connection)),
      addresses_(std::move(addresses)),
      credentials_(std::move(credentials)) {}

GrpcControllerClient::~GrpcControllerClient() = default;

v1::Controller::Stub& GrpcControllerClient::Stub() {
  std::unique_ptr<v1::Controller::Stub>& stub = stubs_[addresses_.current()];
  if (stub == nullptr) {
    stub = v1::Controller::NewStub(grpc::CreateChannel(addresses_.current(), credentials_));
  }
  return *stub;
}

void GrpcControllerClient::Prepare(grpc::ClientContext* context, absl::Time deadline) const {
  // Metadata, not CallCredentials: gRPC refuses call credentials on insecure channels.
  if (!connection_.token.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", connection_.token));
  }
  if (deadline != absl::InfiniteFuture()) context->set_deadline(absl::ToChronoTime(deadline));
}

bool GrpcControllerClient::MoveOn(const absl::Status& failure, absl::Time give_up) {
  // CANCELLED too: this client never cancels a unary call, so the controller's end did (a
  // process that died with the call in flight).
  if (!absl::IsUnavailable(failure) && !absl::IsCancelled(failure)) return false;
  // One controller and no leader named: nothing else to try (as before controllers shared a
  // store).
  if (addresses_.size() == 1 && LeaderHint(failure).empty()) return false;
  if (absl::Now() >= give_up) return false;
  if (addresses_.MoveOn(failure)) {
    absl::SleepFor(std::min(kLeaderlessPause, give_up - absl::Now()));
  }
  return absl::Now() < give_up;
}

template <typename Response, typename Request, typename Method>
absl::StatusOr<Response> GrpcControllerClient::Unary(Method method, const Request& request) {
  // The deadline spans the whole call: the controllers tried, a standby's redirect followed,
  // the pauses while none leads. A standby refuses before doing anything, and a controller that
  // cannot be reached never saw the call, so trying the next is safe (SubmitJob also carries its
  // idempotency key).
  const absl::Time give_up = absl::Now() + connection_.deadline;
  // What is said when giving up: the last failure that was not a standby's redirect (the leader's
  // own answer, a store out of reach), else the last.
  absl::Status cause;
  while (true) {
    grpc::ClientContext context;
    Prepare(&context, give_up);
    Response response;
    grpc::Status status = (Stub().*method)(&context, request, &response);
    if (status.ok()) {
      addresses_.Succeeded();
      return response;
    }
    absl::Status failed = WithLeaderHint(FromGrpcStatus(status), context);
    if (LeaderHint(failed).empty()) cause = failed;
    if (!MoveOn(failed, give_up)) return cause.ok() ? failed : cause;
  }
}

absl::StatusOr<v1::SubmitJobResponse> GrpcControllerClient::SubmitJob(
    const v1::SubmitJobRequest& request) {
  if (!request.request_id().empty()) {
    return Unary<v1::SubmitJobResponse>(&v1::Controller::Stub::SubmitJob, request);
  }
  // A submit tried again (a controller gone mid-call may have stored it) must not make a second
  // job: without the caller's idempotency key, this call's own.
  v1::SubmitJobRequest keyed = request;
  keyed.set_request_id(absl::StrCat("kvctl-", absl::Hex(absl::Uniform<uint64_t>(random_)),
                                    absl::Hex(absl::Uniform<uint64_t>(random_))));
  return Unary<v1::SubmitJobResponse>(&v1::Controller::Stub::SubmitJob, keyed);
}

absl::StatusOr<v1::Job> GrpcControllerClient::GetJob(const std::string& job_id) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  return Unary<v1::Job>(&v1::Controller::Stub::GetJob, request);
}

absl::StatusOr<v1::ListJobsResponse> GrpcControllerClient::ListJobs(
    const v1::ListJobsRequest& request) {
  return Unary<v1::ListJobsResponse>(&v1::Controller::Stub::ListJobs, request);
}

absl::StatusOr<v1::Job> GrpcControllerClient::CancelJob(const std::string& job_id,
                                                        const std::string& reason) {
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  request.set_reason(reason);
  return Unary<v1::Job>(&v1::Controller::Stub::CancelJob, request);
}

absl::StatusOr<v1::ListAgentsResponse> GrpcControllerClient::ListAgents() {
  return Unary<v1::ListAgentsResponse>(&v1::Controller::Stub::ListAgents, v1::ListAgentsRequest());
}

absl::StatusOr<v1::ListRequestsResponse> GrpcControllerClient::ListRequests(
    const v1::ListRequestsRequest& request) {
  return Unary<v1::ListRequestsResponse>(&v1::Controller::Stub::ListRequests, request);
}

absl::StatusOr<v1::Schedule> GrpcControllerClient::CreateSchedule(const v1::ScheduleSpec& spec,
                                                                  bool replace) {
  v1::CreateScheduleRequest request;
  *request.mutable_spec() = spec;
  request.set_replace(replace);
  return Unary<v1::Schedule>(&v1::Controller::Stub::CreateSchedule, request);
}

absl::StatusOr<v1::Schedule> GrpcControllerClient::GetSchedule(const std::string& name) {
  v1::GetScheduleRequest request;
  request.set_name(name);
  return Unary<v1::Schedule>(&v1::Controller::Stub::GetSchedule, request);
}

absl::StatusOr<v1::ListSchedulesResponse> GrpcControllerClient::ListSchedules() {
  return Unary<v1::ListSchedulesResponse>(&v1::Controller::Stub::ListSchedules,
                                          v1::ListSchedulesRequest());
}

absl::StatusOr<v1::Schedule> GrpcControllerClient::SetSchedulePaused(const std::string& name,
                                                                     bool paused) {
  v1::SetSchedulePausedRequest request;
  request.set_name(name);
  request.set_paused(paused);
  return Unary<v1::Schedule>(&v1::Controller::Stub::SetSchedulePaused, request);
}

absl::Status GrpcControllerClient::DeleteSchedule(const std::string& name) {
  v1::DeleteScheduleRequest request;
  request.set_name(name);
  return Unary<v1::DeleteScheduleResponse>(&v1::Controller::Stub::DeleteSchedule, request).status();
}

absl::StatusOr<v1::ScheduleFire> GrpcControllerClient::RunScheduleNow(const std::string& name) {
  v1::RunScheduleNowRequest request;
  request.set_name(name);
  return Unary<v1::ScheduleFire>(&v1::Controller::Stub::RunScheduleNow, request);
}

absl::StatusOr<v1::Baseline> GrpcControllerClient::SetBaseline(
    const v1::SetBaselineRequest& request) {
  return Unary<v1::Baseline>(&v1::Controller::Stub::SetBaseline, request);
}

absl::StatusOr<v1::Baseline> GrpcControllerClient::GetBaseline(const std::string& schedule) {
  v1::GetBaselineRequest request;
  request.set_schedule(schedule);
  return Unary<v1::Baseline>(&v1::Controller::Stub::GetBaseline, request);
}

absl::StatusOr<v1::ListChangePointsResponse> GrpcControllerClient::ListChangePoints(
    const std::string& schedule) {
  v1::ListChangePointsRequest request;
  request.set_schedule(schedule);
  return Unary<v1::ListChangePointsResponse>(&v1::Controller::Stub::ListChangePoints, request);
}

absl::StatusOr<v1::ListAlertsResponse> GrpcControllerClient::ListAlerts(
    const v1::ListAlertsRequest& request) {
  return Unary<v1::ListAlertsResponse>(&v1::Controller::Stub::ListAlerts, request);
}

absl::StatusOr<v1::RedeliverAlertsResponse> GrpcControllerClient::RedeliverAlerts(
    const v1::RedeliverAlertsRequest& request) {
  return Unary<v1::RedeliverAlertsResponse>(&v1::Controller::Stub::RedeliverAlerts, request);
}

absl::Status GrpcControllerClient::WatchJob(
    const v1::WatchJobRequest& request,
    const std::function<bool(const v1::WatchJobResponse&)>& on_event, StopSource* cancel) {
  // A watch lasts as long as the job: no deadline, only the bearer token. Standbys do not
  // stream: their refusal names the leader, where the watch goes at once (nothing was read).
  const absl::Time give_up = absl::Now() + connection_.deadline;
  while (true) {
    grpc::ClientContext context;
    Prepare(&context, absl::InfiniteFuture());
    std::unique_ptr<grpc::ClientReader<v1::WatchJobResponse>> reader =
        Stub().WatchJob(&context, request);
    // Read() blocks; a requested stop cancels the call (TryCancel, from any thread), which ends
    // it.
    StopCallback cancel_call(cancel, [&context] { context.TryCancel(); });
    v1::WatchJobResponse response;
    bool stopped = false;
    bool read_any = false;
    while (reader->Read(&response)) {
      read_any = true;
      if (!on_event(response)) {
        stopped = true;
        context.TryCancel();
        while (reader->Read(&response)) {
        }
        break;
      }
    }
    grpc::Status status = reader->Finish();
    if (stopped) return absl::OkStatus();
    if (cancel != nullptr && cancel->stop_requested()) {
      return absl::CancelledError("watch cancelled");
    }
    if (status.ok()) {
      addresses_.Succeeded();
      return absl::OkStatus();
    }
    absl::Status failed = WithLeaderHint(FromGrpcStatus(status), context);
    // After events, the caller resumes from the last one it saw (on the next address).
    if (read_any) {
      if (absl::IsUnavailable(failed)) addresses_.MoveOn(failed);
      return failed;
    }
    if (!MoveOn(failed, give_up)) return failed;
  }
}

}  // namespace kvbench::client
