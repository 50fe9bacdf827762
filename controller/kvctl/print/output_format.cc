#include "controller/kvctl/print/output_format.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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
    case OutputFormat::kOtavaCsv:
      return "otava-csv";
  }
  return "table";
}

void AddOutputOption(CLI::App* command, OutputFormat* format,
                     const std::vector<OutputFormat>& allowed) {
  std::map<std::string, OutputFormat> names;
  std::vector<std::string> listed;
  for (OutputFormat candidate : allowed) {
    names[OutputFormatName(candidate)] = candidate;
    listed.push_back(OutputFormatName(candidate) + (candidate == *format ? " (default)" : ""));
  }
  // The formats by name in the help: CLI11's own text for a transformer lists the enum's numbers
  // ("{csv->2,json->1,table->0} OR {2,1,0}").
  command
      ->add_option("-o,--output", *format,
                   absl::StrCat("Output format: ", absl::StrJoin(listed, ", ")))
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case).description(""))
      ->type_name("FORMAT");
}

}  // namespace kvbench::kvctl
