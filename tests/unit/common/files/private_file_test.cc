// ReadOwnerOnlyFile on real files: a secret its owner alone can read is returned trimmed; one
// group or others could read, a missing file, an empty one and a FIFO or folder are refused,
// each naming the setting and the path.

#include "common/files/private_file.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>

#include "tests/support/temp_dir.h"

namespace kvbench {
namespace {

TEST_CASE("A secret file its owner alone can read is read, trimmed", "[files]") {
  testing::TempDir dir;
  const std::string path = dir.WriteFile("pg.dsn", "  host=db1 password=s3cret\n");
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  absl::StatusOr<std::string> secret = ReadOwnerOnlyFile(path, "store.postgresql.dsn_file");
  INFO(secret.status().ToString());
  REQUIRE(secret.ok());
  CHECK(*secret == "host=db1 password=s3cret");
}

TEST_CASE("A secret file others can read is refused with the chmod that fixes it", "[files]") {
  testing::TempDir dir;
  const std::string path = dir.WriteFile("pg.dsn", "host=db1 password=s3cret\n");
  const mode_t mode = GENERATE(0640, 0604, 0644, 0660);
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  absl::StatusOr<std::string> secret = ReadOwnerOnlyFile(path, "store.postgresql.dsn_file");
  REQUIRE_FALSE(secret.ok());
  CHECK(absl::IsFailedPrecondition(secret.status()));
  const std::string message(secret.status().message());
  CHECK_THAT(message, Catch::Contains("store.postgresql.dsn_file"));
  CHECK_THAT(message, Catch::Contains("chmod 600 " + path));
  CHECK_THAT(message, !Catch::Contains("s3cret"));
}

TEST_CASE("A missing or empty secret file is refused, naming it", "[files]") {
  testing::TempDir dir;
  absl::StatusOr<std::string> missing = ReadOwnerOnlyFile(dir.File("nope"), "secret_file");
  CHECK(absl::IsNotFound(missing.status()));
  CHECK_THAT(std::string(missing.status().message()), Catch::Contains(dir.File("nope")));
  const std::string empty = dir.WriteFile("empty", " \n");
  REQUIRE(::chmod(empty.c_str(), 0600) == 0);
  CHECK(absl::IsInvalidArgument(ReadOwnerOnlyFile(empty, "secret_file").status()));
}

TEST_CASE("A secret path that is not a regular file is refused, never opened", "[files]") {
  testing::TempDir dir;
  // Opening a FIFO for reading blocks until a writer comes: the check must come first.
  REQUIRE(::mkfifo(dir.File("fifo").c_str(), 0600) == 0);
  absl::StatusOr<std::string> fifo = ReadOwnerOnlyFile(dir.File("fifo"), "webhooks[0].secret_file");
  CHECK(absl::IsInvalidArgument(fifo.status()));
  CHECK_THAT(std::string(fifo.status().message()),
             Catch::Contains("webhooks[0].secret_file: " + dir.File("fifo") +
                             " is not a regular file (a FIFO)"));
  CHECK_THAT(std::string(ReadOwnerOnlyFile(dir.path(), "secret_file").status().message()),
             Catch::Contains("is not a regular file (a directory)"));
}

}  // namespace
}  // namespace kvbench
