#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "common/process/process_launcher.h"

// Catch2 prints an ExitStatus in a failed check as its text ("exited 3", "killed by signal 9").
namespace Catch {
template <>
struct StringMaker<kvbench::ExitStatus> {
  static std::string convert(const kvbench::ExitStatus& status) { return status.ToString(); }
};
}  // namespace Catch
