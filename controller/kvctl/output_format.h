#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kvbench::kvctl {

// How a command prints its result: a table for people (default), JSON or CSV for programs.
enum class OutputFormat { kTable, kJson, kCsv };

// Adds `--output` (`-o`) accepting the given formats' names ("table", "json", "csv").
void AddOutputOption(CLI::App* command, OutputFormat* format,
                     const std::vector<OutputFormat>& allowed);

std::string OutputFormatName(OutputFormat format);

}  // namespace kvbench::kvctl
