// ApplyCurlPolicy and AppendCurlHeaders (common/http/curl_policy.h) on a bare easy handle against
// a real HTTP/1.1 server on loopback: what both curl clients inherit from them.

#include "common/http/curl_policy.h"

#include <curl/curl.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/http_client_test_helpers.h"
#include "tests/support/scoped_env.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"

namespace kvbench {
namespace {

using testing::ScopedEnv;
using testing::StartTestHttpServer;
using testing::TestHttpServer;
using Request = TestHttpServer::Request;
using Response = TestHttpServer::Response;

using EasyHandle = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;

size_t Discard(char*, size_t size, size_t count, void*) { return size * count; }

// A handle with the policy applied and the body discarded.
EasyHandle PolicyHandle(char* error_buffer) {
  EasyHandle easy(curl_easy_init(), &curl_easy_cleanup);
  REQUIRE(easy != nullptr);
  REQUIRE(ApplyCurlPolicy(easy.get(), error_buffer) == CURLE_OK);
  REQUIRE(curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, &Discard) == CURLE_OK);
  REQUIRE(curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT_MS, 10000L) == CURLE_OK);
  return easy;
}

std::vector<std::string> Lines(const curl_slist* list) {
  std::vector<std::string> lines;
  for (; list != nullptr; list = list->next) lines.emplace_back(list->data);
  return lines;
}

TEST_CASE("ApplyCurlPolicy: environment proxies are ignored and redirects are the response",
          "[http][curl_policy]") {
  // A proxy nobody listens on: a handle that honoured it would fail to connect.
  const std::string proxy = absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort());
  ScopedEnv http_proxy("http_proxy", proxy);
  ScopedEnv all_proxy("ALL_PROXY", proxy);
  ScopedEnv no_proxy("no_proxy", "");
  std::atomic<int> target_hits{0};
  auto server = StartTestHttpServer();
  server->Handle("GET", "/moved", [](const Request&) {
    return Response{302, {{"Location", "/target"}}, ""};
  });
  server->Handle("GET", "/target", [&](const Request&) {
    ++target_hits;
    return Response{200, {}, "here"};
  });
  char error_buffer[CURL_ERROR_SIZE] = {};
  EasyHandle easy = PolicyHandle(error_buffer);
  const std::string url = server->url("/moved");
  REQUIRE(curl_easy_setopt(easy.get(), CURLOPT_URL, url.c_str()) == CURLE_OK);

  const CURLcode code = curl_easy_perform(easy.get());

  INFO(error_buffer);
  REQUIRE(code == CURLE_OK);
  long status = 0;
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &status);
  CHECK(status == 302);
  CHECK(target_hits.load() == 0);
}

TEST_CASE("ApplyCurlPolicy: schemes other than http and https are refused", "[http][curl_policy]") {
  char error_buffer[CURL_ERROR_SIZE] = {};
  EasyHandle easy = PolicyHandle(error_buffer);
  REQUIRE(curl_easy_setopt(easy.get(), CURLOPT_URL, "file:///etc/hostname") == CURLE_OK);

  CHECK(curl_easy_perform(easy.get()) == CURLE_UNSUPPORTED_PROTOCOL);
}

TEST_CASE("AppendCurlHeaders: empty values kept, Expect suppressed unless set",
          "[http][curl_policy]") {
  struct Case {
    HttpHeaders headers;
    std::vector<std::string> lines;
  };
  const std::vector<Case> cases = {
      {{}, {"Expect:"}},
      {{{"Content-Type", "application/json"}}, {"Content-Type: application/json", "Expect:"}},
      {{{"X-Empty", ""}}, {"X-Empty;", "Expect:"}},
      {{{"expect", "100-continue"}}, {"expect: 100-continue"}},
  };
  for (const Case& c : cases) {
    curl_slist* list = nullptr;
    REQUIRE(AppendCurlHeaders(c.headers, &list).ok());
    CHECK(Lines(list) == c.lines);
    curl_slist_free_all(list);
  }
}

}  // namespace
}  // namespace kvbench
