#include "controller/service/agent_link_service.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/grpc/grpc_credentials.h"
#include "common/grpc/grpc_status.h"
#include "common/grpc/stream_write_queue.h"
#include "common/log/logging.h"

namespace kvbench::controller {
namespace {

// One Attach stream. The reactor object lives until OnDone; the AgentChannel the manager holds is
// the shared Link, which outlives it for tasks still queued on the loop.
class AttachReactor : public grpc::ServerBidiReactor<v1::AgentMessage, v1::ControllerMessage> {
 public:
  class Link : public AgentChannel {
   public:
    explicit Link(AttachReactor* reactor)
        : reactor_(reactor),
          outbox_([this](const v1::ControllerMessage* message) { reactor_->StartWrite(message); }) {
    }

    // The read buffer: it lives as long as the Link, since the loop starts the next read.
    v1::AgentMessage incoming;

    void Send(v1::ControllerMessage message) override {
      std::lock_guard<std::mutex> lock(mu_);
      if (reactor_ == nullptr) return;
      outbox_.Write(std::move(message));
    }

    void Close(const absl::Status& status) override {
      std::lock_guard<std::mutex> lock(mu_);
      FinishLocked(ToGrpcStatus(status));
    }

    // The reactor's callbacks.
    void OnWriteDone(bool ok) {
      std::lock_guard<std::mutex> lock(mu_);
      outbox_.OnWriteDone(ok);
      if (!ok) FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "write failed"));
    }
    void Detach() {
      std::lock_guard<std::mutex> lock(mu_);
      reactor_ = nullptr;
    }
    void StartRead(v1::AgentMessage* message) {
      std::lock_guard<std::mutex> lock(mu_);
      if (reactor_ != nullptr && !outbox_.closed()) reactor_->StartRead(message);
    }
    void Finish(const grpc::Status& status) {
      std::lock_guard<std::mutex> lock(mu_);
      FinishLocked(status);
    }

   private:
    // Finish exactly once, after the write in flight (if any) completes.
    void FinishLocked(const grpc::Status& status) {
      if (reactor_ == nullptr) return;
      outbox_.Close([this, status] {
        if (reactor_ != nullptr) reactor_->Finish(status);
      });
    }

    std::mutex mu_;
    AttachReactor* reactor_;                          // null after OnDone
    StreamWriteQueue<v1::ControllerMessage> outbox_;  // guarded by mu_
  };

  // `certificate_names`: the names of the peer's verified certificate, which the agent_id it
  // registers must be one of; nullopt in insecure mode (no certificate to bind to).
  AttachReactor(JobManager* manager, Executor* executor,
                std::optional<std::vector<std::string>> certificate_names, std::string peer)
      : manager_(manager),
        executor_(executor),
        certificate_names_(std::move(certificate_names)),
        peer_(std::move(peer)),
        link_(std::make_shared<Link>(this)) {
    link_->StartRead(&link_->incoming);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The agent closed its side or the stream broke.
      link_->Finish(grpc::Status::OK);
      return;
    }
    std::shared_ptr<Link> link = link_;
    JobManager* manager = manager_;
    if (link_->incoming.has_register_()) {
      if (absl::Status bound = CheckIdentity(link_->incoming.register_()); !bound.ok()) {
        link_->Finish(ToGrpcStatus(bound));
        return;
      }
    }
    executor_->Post("agent_link.message",
                    [link, manager, message = std::move(link_->incoming)]() mutable {
                      absl::Status handled = manager->OnAgentMessage(link.get(), message);
                      if (!handled.ok()) {
                        KV_LOG(WARNING) << "agent stream ended error=" << handled;
                        link->Finish(ToGrpcStatus(handled));
                        return;
                      }
                      link->StartRead(&link->incoming);
                    });
  }

  void OnWriteDone(bool ok) override { link_->OnWriteDone(ok); }

  void OnDone() override {
    link_->Detach();
    std::shared_ptr<Link> link = link_;
    JobManager* manager = manager_;
    executor_->Post("agent_link.disconnect",
                    [link, manager] { manager->OnDisconnect(link.get()); });
    delete this;
  }

 private:
  // An agent registers under a name its certificate carries (otherwise any holder of a
  // CA-signed agent certificate could take any agent_id and kick the real agent's stream off).
  absl::Status CheckIdentity(const v1::Register& message) const {
    if (!certificate_names_.has_value()) return absl::OkStatus();
    const std::string& agent_id = message.capabilities().agent_id();
    const std::vector<std::string>& names = *certificate_names_;
    if (std::find(names.begin(), names.end(), agent_id) != names.end()) return absl::OkStatus();
    const std::string listed = names.empty() ? "none" : absl::StrJoin(names, ", ");
    KV_LOG(WARNING) << "refused an agent registering under a name its certificate does not carry"
                    << " agent_id=" << agent_id << " certificate_names=" << listed
                    << " peer=" << peer_;
    return absl::UnauthenticatedError(absl::StrCat(
        "agent_id \"", agent_id, "\" is not a name of this agent's client certificate (", listed,
        "): an agent registers under its certificate's CN or a subject alternative name"));
  }

  JobManager* const manager_;
  Executor* const executor_;
  const std::optional<std::vector<std::string>> certificate_names_;
  const std::string peer_;
  std::shared_ptr<Link> link_;
};

// A stream refused before it starts.
class RefusedReactor : public grpc::ServerBidiReactor<v1::AgentMessage, v1::ControllerMessage> {
 public:
  explicit RefusedReactor(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

AgentLinkService::AgentLinkService(JobManager* manager, Executor* executor,
                                   bool require_client_certificate)
    : manager_(manager),
      executor_(executor),
      require_client_certificate_(require_client_certificate) {}

grpc::ServerBidiReactor<v1::AgentMessage, v1::ControllerMessage>* AgentLinkService::Attach(
    grpc::CallbackServerContext* context) {
  if (require_client_certificate_ && !HasVerifiedClientCertificate(*context)) {
    KV_LOG(WARNING) << "refused an agent stream without a verified client certificate peer="
                    << context->peer();
    return new RefusedReactor(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                           "agents must present a client certificate signed by "
                                           "the controller's CA"));
  }
  std::optional<std::vector<std::string>> names;
  if (require_client_certificate_) names = ClientCertificateNames(*context);
  return new AttachReactor(manager_, executor_, std::move(names), context->peer());
}

}  // namespace kvbench::controller
