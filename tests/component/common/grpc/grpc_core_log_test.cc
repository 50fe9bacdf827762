// The controller's side of refused TLS handshakes: gRPC closes them before any
// service sees them, so kvbench reads gRPC core's own lines. Against a real gRPC server on
// loopback with the certificates of make-test-ca.sh (and a rogue CA): each kind of refused client
// gives one kvbench line naming its cause, counted for /metrics, and a burst of the same refusal
// gives one line, not one per connection.

#include "common/grpc/grpc_core_log.h"

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/log/logging.h"
#include "tests/component/common/grpc/probe_server.h"
#include "tests/component/common/grpc/test_pki.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::AgentCredentials;
using testing::Call;
using testing::ServerCredentials;
using testing::SharedTestPki;
using testing::TestServer;
using testing::WaitFor;

class CapturingSink : public LogSink {
 public:
  void Write(LogLevel, absl::string_view line) override {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(line);
  }
  std::string All() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const std::string& line : lines_) all += line + "\n";
    return all;
  }
  // Lines holding `text`.
  std::vector<std::string> Matching(const std::string& text) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> found;
    for (const std::string& line : lines_) {
      if (line.find(text) != std::string::npos) found.push_back(line);
    }
    return found;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

int64_t Refused(TlsRefusal refusal) { return TlsRefusalCounts()[static_cast<int>(refusal)]; }

TEST_CASE("a TLS server names each handshake it refuses and logs one line per cause per period",
          "[security][mtls]") {
  const testing::TestPki& pki = SharedTestPki();
  auto sink = std::make_shared<CapturingSink>();
  std::shared_ptr<LogSink> previous = SetLogSink(sink);
  RouteGrpcCoreLogs(GrpcRole::kServer);
  TestServer server(ServerCredentials(pki.ControllerTls()));

  struct Case {
    std::string name;
    std::shared_ptr<grpc::ChannelCredentials> credentials;
    TlsRefusal cause;
    std::string meaning;  // a substring of the line
  };
  v1::TlsConfig other_ca = pki.AgentTls(/*rogue=*/true);
  other_ca.set_ca_cert_path(pki.AgentTls().ca_cert_path());  // trusts the real controller
  v1::TlsConfig distrusting = pki.AgentTls();
  distrusting.set_ca_cert_path(pki.AgentTls(/*rogue=*/true).ca_cert_path());
  const std::vector<Case> cases = {
      {"an agent certificate of another CA", AgentCredentials(other_ca),
       TlsRefusal::kUntrustedCertificate, "is not signed by a CA this server trusts"},
      {"an agent that does not trust the controller's CA", AgentCredentials(distrusting),
       TlsRefusal::kClosedDuringHandshake,
       "the client closed the connection during the TLS handshake (a gRPC client that does not "
       "trust this server's certificate does so"},
      {"a plaintext client", testing::PlaintextCredentials(), TlsRefusal::kNotTls,
       "the client does not speak TLS"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const int64_t before = Refused(c.cause);
    CHECK(Call(server.Address(), c.credentials).error_code() == grpc::StatusCode::UNAVAILABLE);
    CHECK(WaitFor([&] { return Refused(c.cause) > before; }));
    const std::string cause = "cause=" + std::string(TlsRefusalName(c.cause));
    CHECK(WaitFor([&] { return !sink->Matching(cause).empty(); }));
    const std::vector<std::string> lines = sink->Matching(cause);
    INFO("every line logged:\n" << sink->All());
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("refused a TLS connection: ") != std::string::npos);
    CHECK(lines[0].find(c.meaning) != std::string::npos);
    CHECK(lines[0].find(" W ") != std::string::npos);  // a warning
  }

  {  // a burst of the same refusal is counted, and logged once
    const int64_t before = Refused(TlsRefusal::kUntrustedCertificate);
    for (int i = 0; i < 5; ++i) {
      CHECK(Call(server.Address(), AgentCredentials(other_ca)).error_code() ==
            grpc::StatusCode::UNAVAILABLE);
    }
    CHECK(WaitFor([&] { return Refused(TlsRefusal::kUntrustedCertificate) >= before + 5; }));
    CHECK(sink->Matching("cause=untrusted_certificate").size() == 1);
  }
  CHECK(server.verified().empty());  // none of them reached the service
  SetLogSink(previous);
}

}  // namespace
}  // namespace kvbench
