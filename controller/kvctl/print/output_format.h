#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kvbench::kvctl {

// How a command prints its result: a table for people (default), JSON, CSV or JSON lines (one
// object per line, for record exports) for programs.
enum class OutputFormat { kTable, kJson, kCsv, kJsonl };

// Adds `--output` (`-o`) accepting the given formats' names ("table", "json", "csv", "jsonl").
void AddOutputOption(CLI::App* command, OutputFormat* format,
                     const std::vector<OutputFormat>& allowed);

std::string OutputFormatName(OutputFormat format);

}  // namespace kvbench::kvctl
