#include "common/net/host_port.h"

#include <catch2/catch.hpp>
#include <string>

namespace kvbench {
namespace {

TEST_CASE("host:port parsing") {
  CHECK(ParseHostPort("127.0.0.1:8080")->port == 8080);
  CHECK(ParseHostPort("[::1]:0")->host == "::1");
  CHECK(ParseHostPort("[::1]:0")->ToString() == "[::1]:0");
  CHECK(ParseHostPort("ctl.example.com:443")->host == "ctl.example.com");
  for (const char* bad : {"localhost", ":80", "host:http", "host:70000", "::1:80", "[::1]80"}) {
    INFO(bad);
    CHECK(ParseHostPort(bad).status().code() == absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace kvbench
