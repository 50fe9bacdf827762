#pragma once

// A real gRPC server on 127.0.0.1 (port 0) for the security tests: one generic method that answers
// every call with an empty message and records, per call, whether the peer presented a verified
// client certificate (what AgentLink requires); and the credential factories' results as test
// preconditions.

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kvbench/v1/config.pb.h"

namespace kvbench::testing {

class RecordingService : public grpc::CallbackGenericService {
 public:
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override;
  std::vector<bool> verified() const;

 private:
  mutable std::mutex mutex_;
  std::vector<bool> verified_;
};

class TestServer {
 public:
  explicit TestServer(std::shared_ptr<grpc::ServerCredentials> credentials);
  ~TestServer();

  std::string Address(const std::string& host = "127.0.0.1") const;
  // Per call that reached the service: whether its peer had a verified client certificate.
  std::vector<bool> verified() const { return service_.verified(); }

 private:
  RecordingService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// One unary call over a fresh channel (10 s deadline); its final status.
grpc::Status Call(const std::string& address,
                  std::shared_ptr<grpc::ChannelCredentials> credentials);

// The factories of common/grpc/grpc_credentials.h, REQUIRE'd to succeed.
std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const v1::TlsConfig& tls);
std::shared_ptr<grpc::ChannelCredentials> AgentCredentials(const v1::TlsConfig& tls);
std::shared_ptr<grpc::ChannelCredentials> ClientCredentials(const std::string& ca_cert_path);
std::shared_ptr<grpc::ChannelCredentials> PlaintextCredentials();

}  // namespace kvbench::testing
