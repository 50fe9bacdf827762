// WriteFileAtomically on real files: the content lands whole, the mode is the caller's, and a
// write that fails at any step leaves the old file as it was, removes the temp and names the path.

#include "common/files/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "tests/support/temp_dir.h"

namespace kvbench {
namespace {

namespace fs = std::filesystem;

TEST_CASE("WriteFileAtomically writes the whole content and replaces the old", "[files]") {
  testing::TempDir dir;
  const std::string path = dir.File("result.json");
  REQUIRE(WriteFileAtomically(path, "old\n").ok());
  AtomicWriteOptions durable;
  durable.sync_folder = true;
  REQUIRE(WriteFileAtomically(path, "new\n", durable).ok());
  CHECK(dir.ReadFile("result.json") == "new\n");
  CHECK_FALSE(fs::exists(path + kAtomicTempSuffix));
}

TEST_CASE("WriteFileAtomically creates the file with the caller's mode", "[files]") {
  testing::TempDir dir;
  const std::string path = dir.File("replica-0.pid");
  const mode_t old_mask = ::umask(022);
  AtomicWriteOptions private_file;
  private_file.mode = 0600;
  REQUIRE(WriteFileAtomically(path, "42\n", private_file).ok());
  ::umask(old_mask);
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
}

TEST_CASE("A write that cannot open its temp keeps the old file and names the path", "[files]") {
  testing::TempDir dir;
  const std::string path = dir.WriteFile("summary.json", "old\n");
  // A folder where the temp goes: open(2) fails whatever the user's rights (root included).
  fs::create_directory(path + kAtomicTempSuffix);
  const absl::Status status = WriteFileAtomically(path, "new\n");
  CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(status.message().find(path) != absl::string_view::npos);
  CHECK(dir.ReadFile("summary.json") == "old\n");
}

TEST_CASE("A write that cannot rename keeps the old file, removes the temp, names the path",
          "[files]") {
  testing::TempDir dir;
  // A non-empty folder at the path: rename(2) of a file over it fails.
  const std::string path = dir.File("job.json");
  fs::create_directories(path + "/kept");
  const absl::Status status = WriteFileAtomically(path, "new\n");
  CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(status.message().find(path) != absl::string_view::npos);
  CHECK(status.message().find("rename") != absl::string_view::npos);
  CHECK(fs::is_directory(path + "/kept"));
  CHECK_FALSE(fs::exists(path + kAtomicTempSuffix));
}

TEST_CASE("A fill that fails abandons the write with its code, the old file kept", "[files]") {
  testing::TempDir dir;
  const std::string path = dir.WriteFile("clock", "old");
  const absl::Status status = WriteFileAtomicallyWith(path, [](int, const std::string& temp) {
    return absl::UnavailableError("cannot map " + temp);
  });
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(status.message() == "cannot write " + path + ": cannot map " + path + ".tmp");
  CHECK(dir.ReadFile("clock") == "old");
  CHECK_FALSE(fs::exists(path + kAtomicTempSuffix));
}

TEST_CASE("A fill writes through the descriptor it is given", "[files]") {
  testing::TempDir dir;
  const std::string path = dir.File("object");
  AtomicWriteOptions unsynced;
  unsynced.sync_file = false;
  REQUIRE(WriteFileAtomicallyWith(
              path,
              [](int fd, const std::string&) {
                return ::write(fd, "abc", 3) == 3 ? absl::OkStatus()
                                                  : absl::InternalError("short write");
              },
              unsynced)
              .ok());
  CHECK(dir.ReadFile("object") == "abc");
}

}  // namespace
}  // namespace kvbench
