#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kvbench::kvctl {

// How a command prints its result: a table for people (default), JSON, CSV or JSON lines (one
// object per line, for record exports) for programs.
// kOtavaCsv: a schedule's history as Apache Otava's CSV importer reads it (print/otava_csv.h).
enum class OutputFormat { kTable, kJson, kCsv, kJsonl, kOtavaCsv };

// Adds `--output` (`-o`) accepting the given formats' names ("table", "json", "csv", "jsonl").
void AddOutputOption(CLI::App* command, OutputFormat* format,
                     const std::vector<OutputFormat>& allowed);

std::string OutputFormatName(OutputFormat format);

}  // namespace kvbench::kvctl
