#include "agent/link/grpc_link_transport.h"

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <mutex>

#include "common/grpc/grpc_credentials.h"
#include "common/grpc/grpc_status.h"
#include "common/grpc/leader_hint.h"
#include "common/grpc/stream_write_queue.h"
#include "common/status/status_macros.h"
#include "kvbench/v1/agent_link.grpc.pb.h"

namespace kvbench::agent {
namespace {

// One Attach call. Reads are always outstanding; writes go one at a time from outbox_.
class GrpcLinkStream : public LinkStream,
                       public grpc::ClientBidiReactor<v1::AgentMessage, v1::ControllerMessage> {
 public:
  GrpcLinkStream(v1::AgentLink::Stub* stub, LinkStreamCallbacks callbacks)
      : callbacks_(std::move(callbacks)),
        outbox_([this](const v1::AgentMessage* message) { StartWrite(message); }) {
    stub->async()->Attach(&context_, this);
    // A hold keeps the call (and so gRPC's call object) alive while Write may still start a
    // write: gRPC destroys the call object before it runs OnDone, so a write racing with the
    // call's end would touch freed memory. Released once the call is over for us (the read
    // stream ended or a write failed: cancel, a controller that finished, a failed connect).
    AddHold();
    StartRead(&incoming_);
    StartCall();
  }

  ~GrpcLinkStream() override {
    context_.TryCancel();
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [this] { return done_; });
  }

  void Write(v1::AgentMessage message) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return;
    outbox_.Write(std::move(message));  // dropped once a write failed: OnDone brings the status
  }

  void Cancel() override { context_.TryCancel(); }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return;    // no write may start once the hold is gone
    outbox_.OnWriteDone(ok);  // a failed write: the stream is broken; OnDone brings the status
    if (!ok) ReleaseHoldLocked();
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the call is over (finished, cancelled, never connected); OnDone follows
      std::lock_guard<std::mutex> lock(mu_);
      ReleaseHoldLocked();
      return;
    }
    callbacks_.on_message(std::move(incoming_));
    incoming_.Clear();
    StartRead(&incoming_);
  }

  void OnDone(const grpc::Status& status) override {
    callbacks_.on_done(WithLeaderHint(FromGrpcStatus(status), context_));
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    done_cv_.notify_all();
  }

 private:
  void ReleaseHoldLocked() {
    if (released_) return;
    released_ = true;
    RemoveHold();  // schedules OnDone (never runs it inline), so holding mu_ is fine
  }

  LinkStreamCallbacks callbacks_;
  grpc::ClientContext context_;
  v1::ControllerMessage incoming_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  StreamWriteQueue<v1::AgentMessage> outbox_;  // guarded by mu_
  bool released_ = false;                      // guarded by mu_: no write may start
  bool done_ = false;                          // guarded by mu_
};

class GrpcLinkTransport : public LinkTransport {
 public:
  explicit GrpcLinkTransport(std::shared_ptr<grpc::Channel> channel)
      : channel_(std::move(channel)), stub_(v1::AgentLink::NewStub(channel_)) {}

  std::unique_ptr<LinkStream> Open(LinkStreamCallbacks callbacks) override {
    return std::make_unique<GrpcLinkStream>(stub_.get(), std::move(callbacks));
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::AgentLink::Stub> stub_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LinkTransport>> CreateGrpcLinkTransport(
    const std::string& controller_address, const v1::TlsConfig& tls, bool insecure) {
  KV_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                      MakeAgentChannelCredentials(tls, insecure));
  grpc::ChannelArguments args;
  // Reconnects are paced by ControllerLink's own backoff; keep gRPC's short so a fresh attempt
  // is not held back by the channel's.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // A ping every 20 s (the controller accepts one every 10 s) finds a half-open connection in
  // 30 s at most; the link then reconnects and replays.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(controller_address, credentials, args);
  return std::unique_ptr<LinkTransport>(new GrpcLinkTransport(std::move(channel)));
}

}  // namespace kvbench::agent
