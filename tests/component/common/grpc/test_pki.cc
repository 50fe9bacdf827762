#include "tests/component/common/grpc/test_pki.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace kvbench::testing {
namespace {

constexpr char kExampleToken[] = "kvbench-example-token";

// Runs make-test-ca.sh DIR TOKEN, returning what it printed on stdout; aborts when it fails.
std::string RunMakeTestCa(const TempDir& dir, const std::string& token) {
  const std::string command =
      absl::StrCat("'", KV_MAKE_TEST_CA, "' '", dir.path(), "/pki' '", token, "' > '", dir.path(),
                   "/stdout' 2> '", dir.path(), "/stderr'");
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "make-test-ca.sh failed: %s\n%s\n", command.c_str(),
                 dir.ReadFile("stderr").c_str());
    std::abort();
  }
  return dir.ReadFile("stdout");
}

v1::TlsConfig Tls(const std::string& dir, const std::string& name) {
  v1::TlsConfig tls;
  tls.set_ca_cert_path(absl::StrCat(dir, "/pki/ca.pem"));
  tls.set_cert_path(absl::StrCat(dir, "/pki/", name, ".pem"));
  tls.set_key_path(absl::StrCat(dir, "/pki/", name, ".key"));
  return tls;
}

}  // namespace

TestPki::TestPki() {
  printed_sha256_ = std::string(absl::StripAsciiWhitespace(RunMakeTestCa(pki_, kExampleToken)));
  token_ = pki_.ReadFile("pki/token.txt");
  RunMakeTestCa(rogue_, "rogue-token");
}

v1::TlsConfig TestPki::ControllerTls(bool rogue) const {
  return Tls(rogue ? rogue_.path() : pki_.path(), "controller");
}

v1::TlsConfig TestPki::AgentTls(bool rogue) const {
  return Tls(rogue ? rogue_.path() : pki_.path(), "agent");
}

v1::TlsConfig TestPki::IssueAgentTls(const std::string& file_name, const std::string& cn,
                                     const std::vector<std::string>& dns_names) const {
  std::string extensions =
      "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
      "extendedKeyUsage=clientAuth\n";
  if (!dns_names.empty()) {
    extensions += "subjectAltName=";
    for (size_t i = 0; i < dns_names.size(); ++i) {
      absl::StrAppend(&extensions, i == 0 ? "" : ",", "DNS:", dns_names[i]);
    }
    extensions += "\n";
  }
  pki_.WriteFile(absl::StrCat("pki/", file_name, ".ext"), extensions);
  // The commands of make-test-ca.sh's make_key and make_cert, in the PKI's folder.
  const std::string command = absl::StrCat(
      "cd '", dir(), "' && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out '",
      file_name, ".key' && openssl req -new -key '", file_name,
      ".key' -subj '/O=kvbench test/CN=", cn, "' -out '", file_name,
      ".csr' && openssl x509 -req -in '", file_name,
      ".csr' -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -sha256 -extfile '", file_name,
      ".ext' -out '", file_name, ".pem' > '", file_name, ".log' 2>&1");
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "issuing an agent certificate failed: %s\n%s\n", command.c_str(),
                 pki_.ReadFile(absl::StrCat("pki/", file_name, ".log")).c_str());
    std::abort();
  }
  return Tls(pki_.path(), file_name);
}

const TestPki& SharedTestPki() {
  static const TestPki pki;  // its temp dirs go at exit
  return pki;
}

}  // namespace kvbench::testing
