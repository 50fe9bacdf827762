// ControllerAddresses: the list a client dials, moving on after a failed call to the leader a
// standby named, else to the next address, and saying when a whole round found no leader.

#include "common/grpc/controller_addresses.h"

#include <catch2/catch.hpp>

#include "common/grpc/leader_hint.h"

namespace kvbench {
namespace {

// A standby's refusal as the client sees it (the trailing metadata through real gRPC is
// standby_service_test.cc's).
absl::Status Refusal(const std::string& leader) {
  return WithLeaderAddress(absl::UnavailableError("standby"), leader);
}

TEST_CASE(
    "ControllerAddresses parses a comma-separated list and refuses empty or repeated entries") {
  absl::StatusOr<ControllerAddresses> one = ControllerAddresses::Parse("a:7070");
  REQUIRE(one.ok());
  CHECK(one->all() == std::vector<std::string>{"a:7070"});
  absl::StatusOr<ControllerAddresses> three = ControllerAddresses::Parse(" a:7070, b:7070 ,c:7070");
  REQUIRE(three.ok());
  CHECK(three->all() == std::vector<std::string>{"a:7070", "b:7070", "c:7070"});
  CHECK(three->current() == "a:7070");
  for (const char* bad : {"", "a:7070,", "a:7070,,b:7070", " , "}) {
    absl::Status status = ControllerAddresses::Parse(bad).status();
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(status.message()), Catch::Contains("empty entry"));
  }
  absl::Status twice = ControllerAddresses::Parse("a:7070,b:7070,a:7070").status();
  CHECK_THAT(std::string(twice.message()), Catch::Contains("a:7070 twice"));
}

TEST_CASE("ControllerAddresses goes to the leader named, else the next, and counts rounds") {
  ControllerAddresses addresses = *ControllerAddresses::Parse("a:1,b:2,c:3");
  CHECK(LeaderHint(Refusal("")).empty());
  CHECK(LeaderHint(Refusal("c:3")) == "c:3");

  CHECK_FALSE(addresses.MoveOn(Refusal("c:3")));
  CHECK(addresses.current() == "c:3");
  // Unreachable, no hint: the next (wrapping), and a round is three misses in a row.
  CHECK_FALSE(addresses.MoveOn(absl::UnavailableError("connection refused")));
  CHECK(addresses.current() == "a:1");
  CHECK_FALSE(addresses.MoveOn(absl::UnavailableError("connection refused")));
  CHECK(addresses.current() == "b:2");
  CHECK(addresses.MoveOn(absl::UnavailableError("connection refused")));
  CHECK(addresses.current() == "c:3");
  // A success starts the round again.
  addresses.MoveOn(absl::UnavailableError("x"));
  addresses.Succeeded();
  CHECK_FALSE(addresses.MoveOn(absl::UnavailableError("x")));
  CHECK_FALSE(addresses.MoveOn(absl::UnavailableError("x")));
  CHECK(addresses.MoveOn(absl::UnavailableError("x")));
}

TEST_CASE("ControllerAddresses adds a leader the list does not name") {
  ControllerAddresses addresses = *ControllerAddresses::Parse("a:1");
  CHECK_FALSE(addresses.MoveOn(Refusal("10.0.0.9:7070")));
  CHECK(addresses.current() == "10.0.0.9:7070");
  CHECK(addresses.all() == std::vector<std::string>{"a:1", "10.0.0.9:7070"});
  // Named again (itself refusing, a leader that just lost its lease): not a move; the next is.
  CHECK_FALSE(addresses.MoveOn(Refusal("10.0.0.9:7070")));
  CHECK(addresses.current() == "a:1");
}

}  // namespace
}  // namespace kvbench
