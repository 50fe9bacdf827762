#pragma once

// Certificates for the security tests, made by the script users run
// (deploy/examples/make-test-ca.sh): the test CA with the controller's server certificate and an
// agent client certificate, and a second, unrelated "rogue" CA made the same way.

#include <string>
#include <vector>

#include "kvbench/v1/config.pb.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

class TestPki {
 public:
  // Runs the script twice (the rogue PKI in its own dir); aborts the test run if it fails.
  TestPki();

  // The script's DIR: ca.pem, controller.pem, agent.key, token.txt, controller.json, ...
  std::string dir() const { return pki_.File("pki"); }
  std::string rogue_dir() const { return rogue_.File("pki"); }
  // The token that make-test-ca.sh wrote and the SHA-256 it printed.
  const std::string& token() const { return token_; }
  const std::string& printed_sha256() const { return printed_sha256_; }

  // The controller's TlsConfig (ca.pem, controller.pem/key) and the agent's (ca.pem,
  // agent.pem/key); `rogue` takes the files from the rogue PKI.
  v1::TlsConfig ControllerTls(bool rogue = false) const;
  v1::TlsConfig AgentTls(bool rogue = false) const;
  // Another agent client certificate signed by the test CA, as make-test-ca.sh makes agent.pem,
  // with subject CN `cn` and a DNS subject alternative name for each of `dns_names`: the agent's
  // TlsConfig (ca.pem, FILE_NAME.pem/key). FILE_NAME must be unused; aborts the test run if
  // openssl fails.
  v1::TlsConfig IssueAgentTls(const std::string& file_name, const std::string& cn,
                              const std::vector<std::string>& dns_names) const;

 private:
  TempDir pki_;
  TempDir rogue_;
  std::string token_;
  std::string printed_sha256_;
};

// One shared instance: openssl key generation is the slow part of these tests.
const TestPki& SharedTestPki();

}  // namespace kvbench::testing
