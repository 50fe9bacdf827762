// Bearer tokens against the SHA-256 digests of the controller config.

#include "common/auth/token_verifier.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "tests/component/common/grpc/test_pki.h"

namespace kvbench {
namespace {

constexpr char kToken[] = "kvbench-example-token";
// printf %s kvbench-example-token | sha256sum
constexpr char kTokenSha256[] = "a7c101410458049b5fc929102a6d41fd98e3218870b7c80fa2c7a1decbc864ec";

TEST_CASE("Sha256Hex matches the published vectors", "[security][token]") {
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256Hex(kToken) == kTokenSha256);
}

TEST_CASE("the digest make-test-ca.sh prints is the one TokenVerifier accepts",
          "[security][token]") {
  const testing::TestPki& pki = testing::SharedTestPki();
  REQUIRE(pki.token() == kToken);
  CHECK(pki.printed_sha256() == kTokenSha256);
  CHECK(Sha256Hex(pki.token()) == pki.printed_sha256());
}

TEST_CASE("TokenVerifier accepts only a bearer token whose digest is configured",
          "[security][token]") {
  absl::StatusOr<TokenVerifier> verifier =
      TokenVerifier::Create({Sha256Hex("other-token"), kTokenSha256});
  REQUIRE(verifier.ok());

  struct Case {
    std::string authorization;
    bool accepted;
    std::string reason;  // the UNAUTHENTICATED message, a substring
  };
  const std::vector<Case> cases = {
      {"Bearer kvbench-example-token", true, ""},
      {"Bearer other-token", true, ""},              // any configured token
      {"bearer kvbench-example-token", true, ""},    // the scheme is case-insensitive
      {"Bearer kvbench-example-token\n", true, ""},  // outer blanks are not the token
      {"Bearer wrong-token", false, "token not accepted"},
      {"Bearer kvbench-example-tokenX", false, "token not accepted"},
      {"Bearer KVBENCH-EXAMPLE-TOKEN", false, "token not accepted"},  // the token is exact
      {"", false, "no bearer token"},
      {"Basic a3ZiZW5jaDp4", false, "malformed authorization"},
      {"Basic x", false, "malformed authorization"},
      {"Bearer ", false, "malformed authorization"},
      {"Bearer    ", false, "malformed authorization"},
      {"Bearer", false, "malformed authorization"},
      {"kvbench-example-token", false, "malformed authorization"},
  };
  for (const Case& c : cases) {
    INFO("authorization: \"" << c.authorization << "\"");
    absl::Status status = verifier->Check(c.authorization);
    if (c.accepted) {
      CHECK(status.ok());
    } else {
      CHECK(status.code() == absl::StatusCode::kUnauthenticated);
      CHECK_THAT(std::string(status.message()), Catch::Contains(c.reason));
    }
  }
}

TEST_CASE("TokenVerifier takes digests in either case", "[security][token]") {
  absl::StatusOr<TokenVerifier> verifier =
      TokenVerifier::Create({absl::AsciiStrToUpper(kTokenSha256)});
  REQUIRE(verifier.ok());
  CHECK(verifier->Check("Bearer kvbench-example-token").ok());
}

TEST_CASE("TokenVerifier with no digests accepts nothing", "[security][token]") {
  absl::StatusOr<TokenVerifier> verifier = TokenVerifier::Create({});
  REQUIRE(verifier.ok());
  CHECK(verifier->Check("Bearer kvbench-example-token").code() ==
        absl::StatusCode::kUnauthenticated);
}

TEST_CASE("TokenVerifier::Create rejects what is not a SHA-256 digest, naming the entry",
          "[security][token]") {
  const std::string good = kTokenSha256;
  struct Case {
    std::string digest;
    std::string why;
  };
  const std::vector<Case> cases = {
      {kToken, "the token itself"},
      {good.substr(1), "63 digits"},
      {good + "0", "65 digits"},
      {good.substr(0, 63) + "g", "not hex"},
      {"", "empty"},
      {" " + good.substr(1), "a blank"},
  };
  for (const Case& c : cases) {
    INFO(c.why);
    absl::StatusOr<TokenVerifier> verifier = TokenVerifier::Create({good, c.digest});
    REQUIRE_FALSE(verifier.ok());
    CHECK(verifier.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(verifier.status().message()), Catch::Contains("token_sha256[1]"));
  }
}

}  // namespace
}  // namespace kvbench
