// FailoverLinkTransport: streams open to the current controller; when one ends, the next opens to
// the leader a standby named, else to the next address; transports are made once per address,
// and a factory error reaches the link as the stream's end.

#include "agent/link/failover_link_transport.h"

#include <catch2/catch.hpp>
#include <map>

#include "common/grpc/leader_hint.h"
#include "tests/fakes/fake_link_transport.h"

namespace kvbench::testing {
namespace {

using agent::FailoverLinkTransport;
using agent::LinkStream;
using agent::LinkStreamCallbacks;
using agent::LinkTransport;

struct Fleet {
  // One fake transport per address, made by the factory (kept here to drive them).
  std::map<std::string, FakeLinkTransport*> made;
  std::vector<std::string> refused;  // addresses whose transport cannot be made
  std::unique_ptr<FailoverLinkTransport> transport;

  explicit Fleet(const std::string& addresses) {
    auto created = FailoverLinkTransport::Create(
        *ControllerAddresses::Parse(addresses),
        [this](const std::string& address) -> absl::StatusOr<std::unique_ptr<LinkTransport>> {
          for (const std::string& bad : refused) {
            if (bad == address) return absl::InvalidArgumentError("bad TLS files for " + address);
          }
          auto fake = std::make_unique<FakeLinkTransport>();
          made[address] = fake.get();
          return std::unique_ptr<LinkTransport>(std::move(fake));
        });
    REQUIRE(created.ok());
    transport = *std::move(created);
  }

  // Opens a stream, records its end in `ended`.
  std::unique_ptr<LinkStream> Open(std::vector<absl::Status>* ended) {
    LinkStreamCallbacks callbacks;
    callbacks.on_message = [](v1::ControllerMessage) {};
    callbacks.on_done = [ended](absl::Status status) { ended->push_back(std::move(status)); };
    return transport->Open(std::move(callbacks));
  }
};

TEST_CASE("FailoverLinkTransport follows a standby's redirect, else the next address") {
  Fleet fleet("a:1,b:2,c:3");
  CHECK(fleet.transport->address() == "a:1");
  std::vector<absl::Status> ended;
  std::unique_ptr<LinkStream> first = fleet.Open(&ended);
  REQUIRE(fleet.made.count("a:1") == 1);
  CHECK(fleet.made["a:1"]->opens() == 1);
  // a is a standby naming c.
  fleet.made["a:1"]->Finish(WithLeaderAddress(absl::UnavailableError("standby"), "c:3"));
  REQUIRE(ended.size() == 1);
  CHECK(fleet.transport->address() == "c:3");
  std::unique_ptr<LinkStream> second = fleet.Open(&ended);
  REQUIRE(fleet.made.count("c:3") == 1);
  CHECK(fleet.made.count("b:2") == 0);  // never dialled
  // c, the leader, dies: the next in the list, wrapping.
  fleet.made["c:3"]->Finish(absl::UnavailableError("connection reset"));
  CHECK(fleet.transport->address() == "a:1");
  std::unique_ptr<LinkStream> third = fleet.Open(&ended);
  CHECK(fleet.made["a:1"]->opens() == 2);  // the transport of a, made once
  // A stream the link cancelled (a controller that did not answer Register) moves on too.
  fleet.made["a:1"]->Finish(absl::CancelledError("no Registered in time"));
  CHECK(fleet.transport->address() == "b:2");
}

TEST_CASE("FailoverLinkTransport ends a stream whose transport cannot be made, and moves on") {
  Fleet fleet("a:1,b:2");
  fleet.refused.push_back("b:2");
  std::vector<absl::Status> ended;
  std::unique_ptr<LinkStream> first = fleet.Open(&ended);
  fleet.made["a:1"]->Finish(absl::UnavailableError("down"));
  std::unique_ptr<LinkStream> second = fleet.Open(&ended);
  REQUIRE(ended.size() == 2);
  CHECK(ended[1].code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(ended[1].message()), Catch::Contains("b:2"));
  CHECK(fleet.transport->address() == "a:1");
}

TEST_CASE("FailoverLinkTransport refuses a list it cannot make the first transport of") {
  auto created = FailoverLinkTransport::Create(
      *ControllerAddresses::Parse("a:1"),
      [](const std::string&) -> absl::StatusOr<std::unique_ptr<LinkTransport>> {
        return absl::NotFoundError("ca.pem not found");
      });
  CHECK(created.status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kvbench::testing
