// Supervisor::Start, AwaitReady and ExitedChildren against real children and a real HTTP server.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/supervisor/pid_file.h"
#include "agent/supervisor/supervisor.h"
#include "tests/component/agent/supervisor/supervisor_test_helpers.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_http_client.h"
#include "tests/fakes/fake_process_launcher.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"

namespace kvbench::agent::testing {
namespace {

using ::kvbench::testing::FakeClock;
using ::kvbench::testing::FakeHttpClient;
using ::kvbench::testing::FakeProcessLauncher;
using ::kvbench::testing::TestHttpServer;

std::unique_ptr<TestHttpServer> Server() {
  auto server = TestHttpServer::Create();
  REQUIRE(server.ok());
  return std::move(*server);
}

TestHttpServer::Response Answer(int status, std::string body = "") {
  return TestHttpServer::Response{status, {}, std::move(body)};
}

// Starts `name` running kv-test-child with `args`, then waits for the ready file it creates.
void StartAndAwaitFile(Supervisor& supervisor, const SupervisorWorld& world,
                       const std::string& name, std::vector<std::string> args) {
  const std::string ready = world.dir.File(name + ".ready");
  args.insert(args.end(), {"--ready-file", ready, "--wait"});
  const absl::Status started = supervisor.Start(name, ChildArgv(args), {});
  INFO(started.ToString());
  REQUIRE(started.ok());
  REQUIRE(WaitFor([&] { return FileExists(ready); }, kLongWait));
}

TEST_CASE("Supervisor starts a child with its log and pid file and finds it ready",
          "[supervisor]") {
  auto server = Server();
  server->Handle("GET", "/health", [](const TestHttpServer::Request&) { return Answer(200); });
  SupervisorWorld world;
  auto supervisor = world.Make();

  const absl::Status started =
      supervisor->Start("replica-0",
                        ChildArgv({"--print", "to stdout", "--eprint", "to stderr", "--print-env",
                                   "KV_TEST_VAR", "--wait"}),
                        {{"KV_TEST_VAR", "42"}});
  INFO(started.ToString());
  REQUIRE(started.ok());
  const absl::Status ready =
      supervisor->AwaitReady("replica-0", {server->url("/health")}, kLongWait);
  INFO(ready.ToString());
  CHECK(ready.ok());

  const std::optional<int> pid = supervisor->pid("replica-0");
  REQUIRE(pid.has_value());
  CHECK(::getpgid(*pid) == *pid);  // leads its own group: the pid file names the group
  CHECK(ReadPidFile(world.dir.File("run/replica-0.pid")).value().pid == *pid);
  CHECK_FALSE(FileExists(world.pid_file("replica-0") + ".tmp"));
  CHECK(supervisor->names() == std::vector<std::string>{"replica-0"});
  const std::vector<std::string> expected = {"to stdout", "to stderr", "KV_TEST_VAR=42"};
  CHECK(WaitFor([&] { return supervisor->LogTail("replica-0") == expected; }, kLongWait));
  CHECK(supervisor->ExitedChildren().empty());
}

TEST_CASE("Supervisor AwaitReady with require_body waits for a non-empty body", "[supervisor]") {
  std::atomic<int> probes{0};
  auto server = Server();
  server->Handle("GET", "/config/", [&](const TestHttpServer::Request&) {
    return ++probes < 3 ? Answer(200) : Answer(200, "{\"apps\":{}}");
  });
  SupervisorWorld world;
  auto supervisor = world.Make();
  REQUIRE(supervisor->Start("caddy", ChildArgv({"--wait"}), {}).ok());

  SECTION("an empty 200 is not ready") {
    CHECK(supervisor->AwaitReady("caddy", {server->url("/config/"), true}, kLongWait).ok());
    CHECK(probes.load() == 3);
  }
  SECTION("without require_body any 200 is ready") {
    CHECK(supervisor->AwaitReady("caddy", {server->url("/config/"), false}, kLongWait).ok());
    CHECK(probes.load() == 1);
  }
}

TEST_CASE("Supervisor AwaitReady reports a child that exits during start-up with its log",
          "[supervisor]") {
  auto server = Server();
  server->Handle("GET", "/health", [](const TestHttpServer::Request&) { return Answer(503); });
  SupervisorWorld world;
  auto supervisor = world.Make();
  REQUIRE(supervisor
              ->Start("replica-0",
                      ChildArgv({"--print", "loading model", "--eprint",
                                 "error: CUDA out of memory", "--exit", "3"}),
                      {})
              .ok());

  const absl::Status ready =
      supervisor->AwaitReady("replica-0", {server->url("/health")}, kLongWait);
  INFO(ready.ToString());
  CHECK(ready.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(ready.message(), "replica-0 exited with code 3 during start-up"));
  CHECK(absl::StrContains(ready.message(), "last lines of " + world.log_file("replica-0") +
                                               ":\nloading model\n"
                                               "error: CUDA out of memory"));
  CHECK_FALSE(FileExists(world.pid_file("replica-0")));  // its group is gone
  CHECK(supervisor->ExitedChildren() == std::vector<std::string>{"replica-0 exited with code 3"});
  CHECK(supervisor->Stop("replica-0").ok());
  CHECK(supervisor->names().empty());
}

TEST_CASE("Supervisor AwaitReady gives up at the deadline, saying what the probe got",
          "[supervisor]") {
  auto server = Server();
  server->Handle("GET", "/health", [](const TestHttpServer::Request&) { return Answer(503); });
  SupervisorWorld world;
  auto supervisor = world.Make();
  StartAndAwaitFile(*supervisor, world, "replica-0", {"--print", "loading weights"});

  SECTION("an HTTP error status") {
    const std::string url = server->url("/health");
    const absl::Status ready = supervisor->AwaitReady("replica-0", {url}, absl::Milliseconds(300));
    INFO(ready.ToString());
    CHECK(ready.code() == absl::StatusCode::kDeadlineExceeded);
    CHECK(absl::StrContains(ready.message(),
                            "replica-0 not ready after 300ms (GET " + url + ": HTTP 503)"));
    CHECK(absl::StrContains(ready.message(), ":\nloading weights"));
  }
  SECTION("nothing listening") {
    const std::string url =
        absl::StrCat("http://127.0.0.1:", kvbench::testing::UnusedLoopbackPort(), "/health");
    const absl::Status ready = supervisor->AwaitReady("replica-0", {url}, absl::Milliseconds(300));
    INFO(ready.ToString());
    CHECK(ready.code() == absl::StatusCode::kDeadlineExceeded);
    CHECK(absl::StrContains(ready.message(), "(GET " + url + ": UNAVAILABLE"));
  }
  CHECK(supervisor->ExitedChildren().empty());  // still running: only the wait failed
}

TEST_CASE("Supervisor AwaitReady measures its deadline on the Clock", "[supervisor]") {
  FakeClock clock;
  std::atomic<int> probes{0};
  auto server = Server();
  server->Handle("GET", "/health", [&](const TestHttpServer::Request&) {
    ++probes;
    clock.AdvanceTime(absl::Milliseconds(100));
    return Answer(503);
  });
  SupervisorWorld world;
  auto supervisor = world.Make(kLongWait, &clock);
  REQUIRE(supervisor->Start("replica-0", ChildArgv({"--wait"}), {}).ok());

  const absl::Status ready =
      supervisor->AwaitReady("replica-0", {server->url("/health")}, absl::Seconds(1));
  CHECK(ready.code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(probes.load() == 10);
}

TEST_CASE("Supervisor AwaitReady stops waiting when cancelled", "[supervisor]") {
  FakeClock clock;  // never advanced: only cancellation can end the wait
  std::atomic<int> probes{0};
  SupervisorWorld world;
  auto server = Server();
  server->Handle("GET", "/health", [&](const TestHttpServer::Request&) {
    ++probes;
    world.cancelled = true;
    return Answer(503);
  });
  auto supervisor = world.Make(kLongWait, &clock);
  REQUIRE(supervisor->Start("replica-0", ChildArgv({"--wait"}), {}).ok());

  SECTION("while waiting") {
    const absl::Status ready =
        supervisor->AwaitReady("replica-0", {server->url("/health")}, absl::Hours(1));
    CHECK(ready.code() == absl::StatusCode::kCancelled);
    CHECK(absl::StrContains(ready.message(), "replica-0 not ready: cancelled"));
    CHECK(probes.load() == 1);
  }
  SECTION("before the first probe") {
    world.cancelled = true;
    const absl::Status ready =
        supervisor->AwaitReady("replica-0", {server->url("/health")}, absl::Hours(1));
    CHECK(ready.code() == absl::StatusCode::kCancelled);
    CHECK(probes.load() == 0);
  }
}

TEST_CASE("Supervisor Start reports a missing program as NOT_FOUND naming it", "[supervisor]") {
  SupervisorWorld world;
  auto supervisor = world.Make();
  const std::string program =
      GENERATE(std::string("/nonexistent/lmcache"), std::string("kv-no-such-program-on-path"));
  const absl::Status started = supervisor->Start("cache-server", {program, "server"}, {});
  INFO(started.ToString());
  CHECK(started.code() == absl::StatusCode::kNotFound);
  CHECK(absl::StrContains(started.message(), "cache-server"));
  CHECK(absl::StrContains(started.message(), program));
  CHECK(supervisor->names().empty());
  CHECK_FALSE(FileExists(world.pid_file("cache-server")));
}

TEST_CASE("Supervisor refuses names in use or unfit for file names, and unknown names",
          "[supervisor]") {
  SupervisorWorld world;
  auto supervisor = world.Make();
  REQUIRE(supervisor->Start("replica-0", ChildArgv({"--wait"}), {}).ok());
  CHECK(supervisor->Start("replica-0", ChildArgv({"--wait"}), {}).code() ==
        absl::StatusCode::kAlreadyExists);
  for (const std::string name : {"", ".", "..", "../replica", "a/b"}) {
    INFO(name);
    CHECK(supervisor->Start(name, ChildArgv({"--wait"}), {}).code() ==
          absl::StatusCode::kInvalidArgument);
  }
  CHECK(supervisor->AwaitReady("proxy", {"http://127.0.0.1:1/"}, kLongWait).code() ==
        absl::StatusCode::kNotFound);
  CHECK(supervisor->Stop("proxy").code() == absl::StatusCode::kNotFound);
  CHECK(supervisor->names() == std::vector<std::string>{"replica-0"});
  // Once stopped, the name can be started again.
  CHECK(supervisor->Stop("replica-0").ok());
  CHECK(supervisor->Start("replica-0", ChildArgv({"--wait"}), {}).ok());
}

TEST_CASE("Supervisor ExitedChildren reports a killed child once", "[supervisor]") {
  SupervisorWorld world;
  auto supervisor = world.Make();
  StartAndAwaitFile(*supervisor, world, "replica-0", {});
  StartAndAwaitFile(*supervisor, world, "replica-1", {});
  CHECK(supervisor->ExitedChildren().empty());

  REQUIRE(::kill(*supervisor->pid("replica-1"), SIGKILL) == 0);
  std::vector<std::string> exits;
  REQUIRE(WaitFor(
      [&] {
        for (std::string& exit : supervisor->ExitedChildren()) exits.push_back(std::move(exit));
        return !exits.empty();
      },
      kLongWait));
  CHECK(exits == std::vector<std::string>{"replica-1 killed by signal 9 (SIGKILL)"});
  CHECK(supervisor->ExitedChildren().empty());
  CHECK_FALSE(FileExists(world.pid_file("replica-1")));
  CHECK(FileExists(world.pid_file("replica-0")));
  CHECK(supervisor->names() == std::vector<std::string>{"replica-0", "replica-1"});
}

TEST_CASE("Supervisor stops a child at once when its pid file cannot be written", "[supervisor]") {
  TempDir dir;
  FakeProcessLauncher launcher;
  FakeHttpClient http;
  FakeClock clock;
  REQUIRE(::mkdir(dir.File("run").c_str(), 0755) == 0);
  REQUIRE(::mkdir(dir.File("run/replica-0.pid").c_str(), 0755) == 0);  // rename cannot replace it
  dir.WriteFile("run/replica-0.pid/keep", "");
  RealSleeper sleeper;
  Supervisor supervisor(&launcher, &http, &clock, dir.File("logs"), dir.File("run"), kLongWait,
                        nullptr, &sleeper);

  const absl::Status started = supervisor.Start("replica-0", {"vllm", "serve"}, {});
  INFO(started.ToString());
  CHECK(started.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(started.message(), dir.File("run/replica-0.pid")));
  REQUIRE(launcher.last_process() != nullptr);
  CHECK_FALSE(launcher.last_process()->running());
  CHECK(supervisor.names().empty());
  CHECK_FALSE(FileExists(dir.File("run/replica-0.pid.tmp")));
}

}  // namespace
}  // namespace kvbench::agent::testing
