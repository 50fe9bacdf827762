#pragma once

#include <CLI/CLI.hpp>

namespace kvbench {

// Parses argv with CLI11 (exceptions stay inside): usage errors print CLI11's message and map to
// exit code 2, --help and --version to 0. Returns -1 when the program should go on, else the
// exit code to return from main.
int ParseCommandLine(CLI::App* app, int argc, char** argv);

}  // namespace kvbench
