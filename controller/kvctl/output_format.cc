#include "controller/kvctl/output_format.h"

#include <map>

namespace kvbench::kvctl {

std::string OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kJson:
      return "json";
    case OutputFormat::kCsv:
      return "csv";
    case OutputFormat::kJsonl:
      return "jsonl";
  }
  return "table";
}

void AddOutputOption(CLI::App* command, OutputFormat* format,
                     const std::vector<OutputFormat>& allowed) {
  std::map<std::string, OutputFormat> names;
  for (OutputFormat candidate : allowed) names[OutputFormatName(candidate)] = candidate;
  command->add_option("-o,--output", *format, "Output format")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case))
      ->default_str(OutputFormatName(*format));
}

}  // namespace kvbench::kvctl
