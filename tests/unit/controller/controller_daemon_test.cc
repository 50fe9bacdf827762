#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "controller/controller.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_executor.h"
#include "tests/support/registry_exposition.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::Exposition;

TEST_CASE("The controller creates its data dir and store, serves, and stops cleanly") {
  testing::TempDir dir;
  testing::FakeClock clock;
  testing::FakeExecutor executor(&clock);
  prometheus::Registry registry;
  v1::ControllerConfig config;
  config.set_listen_address("127.0.0.1:0");
  config.set_data_dir(dir.File("data"));
  config.set_insecure(true);
  auto controller = controller::Controller::Create(config, &clock, &executor, &registry);
  REQUIRE(controller.ok());
  CHECK(std::filesystem::is_regular_file(dir.File("data/controller.db")));
  REQUIRE((*controller)->Start().ok());
  CHECK((*controller)->address().rfind("127.0.0.1:", 0) == 0);
  executor.AdvanceTime(absl::Seconds(5));
  CHECK(Exposition(registry).find("kvbench_controller_uptime_seconds 5") != std::string::npos);
  bool stopped = false;
  (*controller)->Shutdown([&] { stopped = true; });
  REQUIRE(testing::WaitFor([&] {
    executor.RunUntilIdle();
    return stopped;
  }));
  CHECK(executor.timer_count() == 0);
}

}  // namespace
}  // namespace kvbench
