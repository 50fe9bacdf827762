// FolderLock (common/daemon): one owner per folder. flock(2) locks belong to an open file
// description, so a second Acquire in this same process conflicts like another process would;
// the kill -9 case uses a real child process, as a crashed daemon leaves its lock.

#include "common/daemon/folder_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

TEST_CASE("FolderLock: a second owner of the folder is refused, naming the first",
          "[folder_lock]") {
  TempDir dir;
  const std::string folder = dir.File("work/nested");  // made when missing
  absl::StatusOr<FolderLock> first = FolderLock::Acquire(folder, "kv-agent");
  REQUIRE(first.ok());
  CHECK(std::filesystem::is_directory(folder));
  CHECK(first->path() == folder + "/.lock");

  absl::StatusOr<FolderLock> second = FolderLock::Acquire(folder, "kv-agent");
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == absl::StatusCode::kFailedPrecondition);
  const std::string message(second.status().message());
  CHECK(message == absl::StrCat(folder, " is in use by pid ", ::getpid(),
                                " (kv-agent): one kv-agent per folder (lock ", folder, "/.lock)"));

  // A moved lock still holds the folder; destroying it frees the folder for the next owner.
  FolderLock moved = *std::move(first);
  CHECK_FALSE(FolderLock::Acquire(folder, "kv-agent").ok());
  { FolderLock gone = std::move(moved); }
  CHECK(FolderLock::Acquire(folder, "kv-controller").ok());
}

TEST_CASE("FolderLock: the lock goes with its process, kill -9 included", "[folder_lock]") {
  TempDir dir;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child takes the lock, says so, and waits to be killed.
    ::close(ready[0]);
    absl::StatusOr<FolderLock> lock = FolderLock::Acquire(dir.path(), "kv-controller");
    const char byte = lock.ok() ? 'y' : 'n';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  REQUIRE(byte == 'y');

  absl::StatusOr<FolderLock> refused = FolderLock::Acquire(dir.path(), "kv-controller");
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message())
            .find(absl::StrCat("in use by pid ", child, " (kv-controller)")) != std::string::npos);

  REQUIRE(::kill(child, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  // No stale lock: the file stays, with the dead owner's pid in it, and the folder is free.
  CHECK(std::filesystem::exists(dir.File(".lock")));
  absl::StatusOr<FolderLock> after = FolderLock::Acquire(dir.path(), "kv-controller");
  REQUIRE(after.ok());
  CHECK(dir.ReadFile(".lock") == absl::StrCat(::getpid(), " kv-controller\n"));
}

TEST_CASE("FolderLock: a folder that cannot be made is an error naming it", "[folder_lock]") {
  TempDir dir;
  const std::string file = dir.WriteFile("plain-file", "x");
  absl::StatusOr<FolderLock> lock = FolderLock::Acquire(file + "/sub", "kv-agent");
  REQUIRE_FALSE(lock.ok());
  CHECK(std::string(lock.status().message()).find(file + "/sub") != std::string::npos);
}

}  // namespace
}  // namespace kvbench::testing
