#include "tests/component/common/grpc/probe_server.h"

#include <grpcpp/generic/generic_stub.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <future>

#include "absl/strings/str_cat.h"
#include "common/grpc/grpc_credentials.h"

namespace kvbench::testing {
namespace {

constexpr char kMethod[] = "/kvbench.test.Probe/Call";

// A message of no bytes (a default ByteBuffer is no message at all).
grpc::ByteBuffer EmptyMessage() {
  grpc::Slice empty("");
  return grpc::ByteBuffer(&empty, 1);
}

class Reactor : public grpc::ServerGenericBidiReactor {
 public:
  Reactor() { StartRead(&request_); }
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request"));
      return;
    }
    StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
  }
  void OnDone() override { delete this; }

 private:
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_ = EmptyMessage();
};

}  // namespace

grpc::ServerGenericBidiReactor* RecordingService::CreateReactor(
    grpc::GenericCallbackServerContext* context) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    verified_.push_back(HasVerifiedClientCertificate(*context));
  }
  return new Reactor();
}

std::vector<bool> RecordingService::verified() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return verified_;
}

TestServer::TestServer(std::shared_ptr<grpc::ServerCredentials> credentials) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", std::move(credentials), &port_);
  builder.RegisterCallbackGenericService(&service_);
  server_ = builder.BuildAndStart();
  REQUIRE(server_ != nullptr);
  REQUIRE(port_ > 0);
}

TestServer::~TestServer() { server_->Shutdown(std::chrono::system_clock::now()); }

std::string TestServer::Address(const std::string& host) const {
  return absl::StrCat(host, ":", port_);
}

grpc::Status Call(const std::string& address,
                  std::shared_ptr<grpc::ChannelCredentials> credentials) {
  grpc::GenericStub stub(grpc::CreateChannel(address, std::move(credentials)));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::ByteBuffer request = EmptyMessage();
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, kMethod, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(std::move(status)); });
  return done.get_future().get();
}

std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const v1::TlsConfig& tls) {
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      MakeServerCredentials(tls, /*insecure=*/false);
  REQUIRE(credentials.ok());
  return *credentials;
}

std::shared_ptr<grpc::ChannelCredentials> AgentCredentials(const v1::TlsConfig& tls) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeAgentChannelCredentials(tls, /*insecure=*/false);
  REQUIRE(credentials.ok());
  return *credentials;
}

std::shared_ptr<grpc::ChannelCredentials> ClientCredentials(const std::string& ca_cert_path) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeClientChannelCredentials(ca_cert_path, /*insecure=*/false);
  REQUIRE(credentials.ok());
  return *credentials;
}

std::shared_ptr<grpc::ChannelCredentials> PlaintextCredentials() {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeClientChannelCredentials("", /*insecure=*/true);
  REQUIRE(credentials.ok());
  return *credentials;
}

}  // namespace kvbench::testing
