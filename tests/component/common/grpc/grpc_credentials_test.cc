// The credential factories against a real gRPC server on loopback: who gets through the TLS
// handshake, and whether the server sees a verified client certificate (what AgentLink requires).

#include "common/grpc/grpc_credentials.h"

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/component/common/grpc/probe_server.h"
#include "tests/component/common/grpc/test_pki.h"
#include "tests/support/temp_dir.h"

namespace kvbench {
namespace {

using testing::AgentCredentials;
using testing::Call;
using testing::ClientCredentials;
using testing::ServerCredentials;
using testing::SharedTestPki;
using testing::TempDir;
using testing::TestServer;

TEST_CASE("an agent with the CA's client certificate is verified by the controller",
          "[security][mtls]") {
  const testing::TestPki& pki = SharedTestPki();
  TestServer server(ServerCredentials(pki.ControllerTls()));
  // The server certificate names both 127.0.0.1 and localhost.
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    INFO(host);
    grpc::Status status = Call(server.Address(host), AgentCredentials(pki.AgentTls()));
    CHECK(status.error_message() == "");
    REQUIRE(status.ok());
  }
  CHECK(server.verified() == std::vector<bool>{true, true});
}

TEST_CASE("kvctl with TLS and no certificate gets through, unverified", "[security][mtls]") {
  const testing::TestPki& pki = SharedTestPki();
  TestServer server(ServerCredentials(pki.ControllerTls()));
  grpc::Status status =
      Call(server.Address(), ClientCredentials(pki.ControllerTls().ca_cert_path()));
  CHECK(status.error_message() == "");
  REQUIRE(status.ok());
  CHECK(server.verified() == std::vector<bool>{false});
}

TEST_CASE("a plaintext server never reports a verified certificate", "[security][mtls]") {
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> server_credentials =
      MakeServerCredentials(v1::TlsConfig(), /*insecure=*/true);
  REQUIRE(server_credentials.ok());
  TestServer server(*server_credentials);
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> client_credentials =
      MakeAgentChannelCredentials(v1::TlsConfig(), /*insecure=*/true);
  REQUIRE(client_credentials.ok());
  REQUIRE(Call(server.Address(), *client_credentials).ok());
  CHECK(server.verified() == std::vector<bool>{false});
}

TEST_CASE("the controller refuses what its CA did not sign, and clients refuse a stranger",
          "[security][mtls]") {
  const testing::TestPki& pki = SharedTestPki();
  TestServer server(ServerCredentials(pki.ControllerTls()));

  SECTION("an agent certificate from another CA fails the handshake") {
    v1::TlsConfig tls = pki.AgentTls(/*rogue=*/true);
    tls.set_ca_cert_path(pki.AgentTls().ca_cert_path());  // trusts the real controller
    grpc::Status status = Call(server.Address(), AgentCredentials(tls));
    CHECK(status.error_code() == grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("a certificate without clientAuth (the controller's own) is no agent certificate") {
    grpc::Status status = Call(server.Address(), AgentCredentials(pki.ControllerTls()));
    CHECK(status.error_code() == grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("an agent trusting another CA refuses the controller") {
    v1::TlsConfig tls = pki.AgentTls();
    tls.set_ca_cert_path(pki.AgentTls(/*rogue=*/true).ca_cert_path());
    grpc::Status status = Call(server.Address(), AgentCredentials(tls));
    CHECK(status.error_code() == grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("kvctl trusting another CA refuses the controller") {
    grpc::Status status =
        Call(server.Address(), ClientCredentials(pki.AgentTls(/*rogue=*/true).ca_cert_path()));
    CHECK(status.error_code() == grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("a plaintext client gets no answer") {
    grpc::Status status = Call(server.Address(), testing::PlaintextCredentials());
    CHECK(status.error_code() == grpc::StatusCode::UNAVAILABLE);
  }
  CHECK(server.verified().empty());  // no call reached the service
}

TEST_CASE("a TLS client refuses a plaintext server", "[security][mtls]") {
  const testing::TestPki& pki = SharedTestPki();
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> plaintext =
      MakeServerCredentials(v1::TlsConfig(), /*insecure=*/true);
  REQUIRE(plaintext.ok());
  TestServer server(*plaintext);
  grpc::Status status = Call(server.Address(), AgentCredentials(pki.AgentTls()));
  CHECK(status.error_code() == grpc::StatusCode::UNAVAILABLE);
  CHECK(server.verified().empty());
}

// --- the factories' errors name the field and the file

TEST_CASE("missing, empty and garbage PEM files are errors naming the field",
          "[security][credentials]") {
  const testing::TestPki& pki = SharedTestPki();
  TempDir dir;
  const std::string garbage = dir.WriteFile("garbage.pem", "not a certificate\n");
  const std::string broken =
      dir.WriteFile("broken.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
  const std::string missing = dir.File("missing.pem");

  struct Case {
    std::string name;
    v1::TlsConfig tls;
    absl::StatusCode code;
    std::string message;  // a substring
  };
  std::vector<Case> cases;
  auto with = [&](auto mutate) {
    v1::TlsConfig tls = pki.ControllerTls();
    mutate(&tls);
    return tls;
  };
  cases.push_back({"empty ca", with([](v1::TlsConfig* t) { t->clear_ca_cert_path(); }),
                   absl::StatusCode::kInvalidArgument, "tls.ca_cert_path is empty"});
  cases.push_back({"empty cert", with([](v1::TlsConfig* t) { t->clear_cert_path(); }),
                   absl::StatusCode::kInvalidArgument, "tls.cert_path is empty"});
  cases.push_back({"empty key", with([](v1::TlsConfig* t) { t->clear_key_path(); }),
                   absl::StatusCode::kInvalidArgument, "tls.key_path is empty"});
  cases.push_back({"missing ca", with([&](v1::TlsConfig* t) { t->set_ca_cert_path(missing); }),
                   absl::StatusCode::kNotFound, "tls.ca_cert_path: cannot read " + missing});
  cases.push_back({"missing key", with([&](v1::TlsConfig* t) { t->set_key_path(missing); }),
                   absl::StatusCode::kNotFound, "tls.key_path: cannot read " + missing});
  cases.push_back({"garbage cert", with([&](v1::TlsConfig* t) { t->set_cert_path(garbage); }),
                   absl::StatusCode::kFailedPrecondition,
                   "tls.cert_path: " + garbage + " holds no PEM certificate"});
  cases.push_back({"broken ca", with([&](v1::TlsConfig* t) { t->set_ca_cert_path(broken); }),
                   absl::StatusCode::kFailedPrecondition,
                   "tls.ca_cert_path: " + broken + " holds no PEM certificate"});
  // Key files are the owner's alone, so the look-alikes below are made 0600 too.
  const std::string cert_as_key = dir.File("cert-as-key.pem");
  REQUIRE(
      std::system(("install -m 600 '" + pki.ControllerTls().cert_path() + "' '" + cert_as_key + "'")
                      .c_str()) == 0);
  cases.push_back({"certificate as key",
                   with([&](v1::TlsConfig* t) { t->set_key_path(cert_as_key); }),
                   absl::StatusCode::kFailedPrecondition, "holds no unencrypted PEM private key"});
  const std::string encrypted = dir.File("encrypted.key");
  REQUIRE(std::system(("openssl pkey -in '" + pki.ControllerTls().key_path() +
                       "' -aes256 -passout pass:secret -out '" + encrypted +
                       "' </dev/null && chmod 600 '" + encrypted + "'")
                          .c_str()) == 0);
  const std::string shared_key = dir.File("shared.key");
  REQUIRE(
      std::system(("install -m 644 '" + pki.ControllerTls().key_path() + "' '" + shared_key + "'")
                      .c_str()) == 0);
  cases.push_back({"key readable by others",
                   with([&](v1::TlsConfig* t) { t->set_key_path(shared_key); }),
                   absl::StatusCode::kFailedPrecondition,
                   "tls.key_path: " + shared_key +
                       " is readable by others (mode 0644): a private key must be its owner's "
                       "alone (chmod 600 " +
                       shared_key + ")"});
  cases.push_back({"encrypted key", with([&](v1::TlsConfig* t) { t->set_key_path(encrypted); }),
                   absl::StatusCode::kFailedPrecondition,
                   "tls.key_path: " + encrypted + " holds no unencrypted PEM private key"});
  cases.push_back({"another certificate's key",
                   with([&](v1::TlsConfig* t) { t->set_key_path(pki.AgentTls().key_path()); }),
                   absl::StatusCode::kFailedPrecondition,
                   "tls.key_path: " + pki.AgentTls().key_path() + " is not the key of"});

  for (const Case& c : cases) {
    INFO(c.name);
    absl::Status server = MakeServerCredentials(c.tls, /*insecure=*/false).status();
    CHECK(server.code() == c.code);
    CHECK_THAT(std::string(server.message()), Catch::Contains(c.message));
    absl::Status agent = MakeAgentChannelCredentials(c.tls, /*insecure=*/false).status();
    CHECK(agent.code() == c.code);
    CHECK_THAT(std::string(agent.message()), Catch::Contains(c.message));
  }

  absl::Status client = MakeClientChannelCredentials(garbage, /*insecure=*/false).status();
  CHECK(client.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(client.message()), Catch::Contains("ca_cert_path: " + garbage));
  CHECK(MakeClientChannelCredentials(missing, false).status().code() ==
        absl::StatusCode::kNotFound);
  // No CA file: the system's roots.
  CHECK(MakeClientChannelCredentials("", /*insecure=*/false).ok());
}

TEST_CASE("insecure credentials need no files", "[security][credentials]") {
  CHECK(MakeServerCredentials(v1::TlsConfig(), /*insecure=*/true).ok());
  CHECK(MakeAgentChannelCredentials(v1::TlsConfig(), /*insecure=*/true).ok());
  CHECK(MakeClientChannelCredentials("", /*insecure=*/true).ok());
}

}  // namespace
}  // namespace kvbench
