#include "common/status/status_macros.h"

#include <catch2/catch.hpp>
#include <memory>

#include "common/status/exit_code.h"

namespace kvbench {
namespace {

absl::StatusOr<int> Half(int value) {
  if (value % 2 != 0) return absl::InvalidArgumentError("odd");
  return value / 2;
}

absl::StatusOr<int> Quarter(int value) {
  KV_ASSIGN_OR_RETURN(int half, Half(value));
  KV_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

absl::Status CheckEven(int value, int* calls) {
  ++*calls;
  KV_RETURN_IF_ERROR(Half(value).status());
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<int>> MakeBox(int value) {
  if (value < 0) return absl::OutOfRangeError("negative");
  return std::make_unique<int>(value);
}

absl::StatusOr<int> Unbox(int value) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(value));  // move-only values work
  return *box;
}

TEST_CASE("KV_ASSIGN_OR_RETURN passes values through and returns the first error") {
  CHECK(*Quarter(8) == 2);
  absl::StatusOr<int> odd = Quarter(6);  // 6 → 3 → odd
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(*Unbox(5) == 5);
  CHECK(Unbox(-1).status().code() == absl::StatusCode::kOutOfRange);
}

TEST_CASE("KV_RETURN_IF_ERROR evaluates its expression once") {
  int calls = 0;
  CHECK(CheckEven(4, &calls).ok());
  CHECK(CheckEven(3, &calls).code() == absl::StatusCode::kInvalidArgument);
  CHECK(calls == 2);
}

TEST_CASE("Exit codes follow what the caller should do") {
  CHECK(ExitCodeForStatus(absl::OkStatus()) == 0);
  CHECK(ExitCodeForStatus(absl::InvalidArgumentError("x")) == 2);
  CHECK(ExitCodeForStatus(absl::NotFoundError("x")) == 3);
  CHECK(ExitCodeForStatus(absl::UnavailableError("x")) == 4);
  CHECK(ExitCodeForStatus(absl::DeadlineExceededError("x")) == 4);
  CHECK(ExitCodeForStatus(absl::FailedPreconditionError("x")) == 5);
  CHECK(ExitCodeForStatus(absl::UnauthenticatedError("x")) == 6);
  CHECK(ExitCodeForStatus(absl::CancelledError("x")) == 7);
  CHECK(ExitCodeForStatus(absl::InternalError("x")) == 1);
}

TEST_CASE("A status marked with its own exit code exits with it, its message kept") {
  const absl::Status invalid =
      WithExitCode(absl::FailedPreconditionError("comparison c2 is invalid"), kExitInvalidResults);
  CHECK(ExitCodeForStatus(invalid) == 8);
  CHECK(invalid.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(invalid.message() == "comparison c2 is invalid");
  CHECK(ExitCodeForStatus(absl::FailedPreconditionError("comparison c2 is invalid")) == 5);
}

}  // namespace
}  // namespace kvbench
