// CheckModelUnderRoots (agent/scenario/model_roots.h) over real folders and symlinks (otherwise
// a job's model reaches the engine's argv whatever file it names).

#include "agent/scenario/model_roots.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "tests/support/temp_dir.h"

namespace kvbench::agent {
namespace {

namespace fs = std::filesystem;

TEST_CASE("A model path runs only under the agent's model_roots", "[model_roots]") {
  testing::TempDir dir;
  const std::string root = dir.File("models");
  fs::create_directories(root + "/llama-8b");
  fs::create_directories(dir.File("elsewhere"));
  fs::create_symlink(dir.File("elsewhere"), root + "/escape");
  const std::vector<std::string> roots = {root};

  CHECK(CheckModelUnderRoots("meta-llama/Llama-3.1-8B-Instruct", roots).ok());  // an id
  CHECK(CheckModelUnderRoots(root + "/llama-8b", roots).ok());
  CHECK(CheckModelUnderRoots(root + "/not-yet-there", roots).ok());
  for (const std::string& outside : {std::string("/bin/sh"), root + "/../elsewhere",
                                     root + "/escape/weights", root, dir.File("models-evil/x")}) {
    INFO(outside);
    const absl::Status status = CheckModelUnderRoots(outside, roots);
    CHECK(absl::IsFailedPrecondition(status));
    CHECK_THAT(std::string(status.message()),
               Catch::Contains("is not under this agent's model_roots (" + root + ")"));
  }
  const absl::Status none = CheckModelUnderRoots(root + "/llama-8b", {});
  CHECK(absl::IsFailedPrecondition(none));
  CHECK_THAT(std::string(none.message()), Catch::Contains("model ids only"));
}

}  // namespace
}  // namespace kvbench::agent
