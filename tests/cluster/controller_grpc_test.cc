// What the controller's port offers beyond our two services, checked on the wire with raw
// protobuf bytes (no generated code of gRPC's own protos is linked): the gRPC health service and
// server reflection (grpc.reflection.v1alpha, the version gRPC 1.51 serves).

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/byte_buffer.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>

#include "tests/cluster/cluster_harness.h"

namespace kvbench::testing {
namespace {

grpc::ByteBuffer Bytes(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string Text(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  REQUIRE(buffer.Dump(&slices).ok());
  std::string text;
  for (const grpc::Slice& slice : slices) {
    text.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return text;
}

// A length-delimited field 1 (tag 0x0a) holding `value` (< 128 bytes).
std::string Field1(const std::string& value) {
  return std::string("\x0a", 1) + static_cast<char>(value.size()) + value;
}

TEST_CASE("the controller serves the gRPC health service for both of its services",
          "[cluster][grpc]") {
  ClusterHarness cluster;
  auto channel = grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  for (const char* service : {"", "kvbench.v1.Controller", "kvbench.v1.AgentLink"}) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::ByteBuffer request = Bytes(Field1(service));
    grpc::ByteBuffer response;
    std::mutex mu;
    std::condition_variable done;
    std::optional<grpc::Status> status;
    stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                   &response, [&](grpc::Status s) {
                     std::lock_guard<std::mutex> lock(mu);
                     status = s;
                     done.notify_one();
                   });
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(done.wait_for(lock, std::chrono::seconds(10), [&] { return status.has_value(); }));
    INFO(service << ": " << status->error_message());
    REQUIRE(status->ok());
    // HealthCheckResponse{status: SERVING (1)}.
    CHECK(Text(response) == std::string("\x08\x01", 2));
  }
}

TEST_CASE("the controller serves reflection listing its services", "[cluster][grpc]") {
  ClusterHarness cluster;
  auto channel = grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue queue;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  void* tag = nullptr;
  bool ok = false;
  auto next = [&](intptr_t expected) {
    REQUIRE(queue.Next(&tag, &ok));
    CHECK(reinterpret_cast<intptr_t>(tag) == expected);
    return ok;
  };
  call->StartCall(reinterpret_cast<void*>(1));
  REQUIRE(next(1));
  // ServerReflectionRequest{list_services: ""} (field 7, length-delimited).
  grpc::ByteBuffer request = Bytes(std::string("\x3a\x00", 2));
  call->Write(request, reinterpret_cast<void*>(2));
  REQUIRE(next(2));
  grpc::ByteBuffer response;
  call->Read(&response, reinterpret_cast<void*>(3));
  REQUIRE(next(3));
  const std::string listed = Text(response);
  CHECK(listed.find("kvbench.v1.Controller") != std::string::npos);
  CHECK(listed.find("kvbench.v1.AgentLink") != std::string::npos);
  CHECK(listed.find("grpc.health.v1.Health") != std::string::npos);
  call->WritesDone(reinterpret_cast<void*>(4));
  REQUIRE(next(4));
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  REQUIRE(next(5));
  CHECK(status.ok());
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
}

}  // namespace
}  // namespace kvbench::testing
