#include "common/prometheus/exposition.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/prometheus/line_parser.h"

namespace kvbench::prometheus_text {
namespace {

// Which declarations a family has had, to report a second HELP or TYPE line.
enum DeclaredBits : unsigned { kHelpDeclared = 1, kTypeDeclared = 2 };

// Suffixes the text format appends to a family name in its samples.
constexpr absl::string_view kSampleSuffixes[] = {"_total", "_created", "_bucket", "_sum", "_count"};

// Records a # HELP / # TYPE line in `exposition`; a second one of a kind for a name is a
// Redeclaration and the first stays.
void Declare(const internal::Declaration& declaration, int line_number,
             std::map<std::string, unsigned>* declared, Exposition* exposition) {
  const bool help = declaration.kind == internal::Declaration::Kind::kHelp;
  const unsigned bit = help ? kHelpDeclared : kTypeDeclared;
  unsigned& bits = (*declared)[std::string(declaration.name)];
  if ((bits & bit) != 0) {
    exposition->redeclarations.push_back({line_number, std::string(declaration.name)});
    return;
  }
  bits |= bit;
  Family& family = exposition->families[std::string(declaration.name)];
  if (help) {
    family.help = declaration.help;
  } else {
    family.type = declaration.type;
  }
}

bool MatchesLabels(const Sample& sample, const Labels& match) {
  for (const auto& [name, value] : match) {
    const std::optional<absl::string_view> actual = sample.Label(name);
    if (!actual.has_value() || *actual != value) return false;
  }
  return true;
}

// Adds one selected histogram sample (`suffix` names its part) into `histogram`.
void AddToHistogram(const Sample& sample, absl::string_view suffix, Histogram* histogram) {
  if (suffix == "_sum") {
    histogram->sum += sample.value;
  } else if (suffix == "_count") {
    histogram->count += sample.value;
  } else {
    const std::optional<absl::string_view> le = sample.Label("le");
    double bound = 0;
    // A bucket without a readable bound cannot be placed; a NaN key would break the map's order.
    if (!le.has_value() || !internal::ParseFloat(*le, &bound) || std::isnan(bound)) return;
    histogram->buckets[bound] += sample.value;
  }
}

}  // namespace

std::optional<absl::string_view> Sample::Label(absl::string_view label_name) const {
  for (const auto& [key, value] : labels) {
    if (key == label_name) return absl::string_view(value);
  }
  return std::nullopt;
}

absl::string_view MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kUntyped:
      return "untyped";
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kSummary:
      return "summary";
  }
  return "untyped";
}

Exposition Parse(absl::string_view text) {
  Exposition exposition;
  // One sample per line is the upper bound; HELP/TYPE lines make it a slight over-estimate.
  exposition.samples.reserve(std::count(text.begin(), text.end(), '\n') + 1);
  std::map<std::string, unsigned> declared;
  std::vector<internal::LabelView> scratch;
  internal::Declaration declaration;
  int line_number = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    const void* newline = std::memchr(text.data() + begin, '\n', text.size() - begin);
    const size_t end = newline != nullptr
                           ? static_cast<size_t>(static_cast<const char*>(newline) - text.data())
                           : text.size();
    absl::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // tolerate CRLF
    const size_t first = line.find_first_not_of(" \t");
    if (first == absl::string_view::npos) continue;

    absl::Status status;
    if (line[first] == '#') {
      status = internal::ParseCommentLine(line, &declaration);
      if (status.ok() && declaration.kind != internal::Declaration::Kind::kOtherComment) {
        Declare(declaration, line_number, &declared, &exposition);
      }
    } else {
      Sample& sample = exposition.samples.emplace_back();
      status = internal::ParseSampleLine(line, &scratch, &sample);
      if (!status.ok()) exposition.samples.pop_back();
    }
    if (!status.ok()) {
      exposition.errors.push_back(ParseError{line_number, std::string(status.message())});
    }
  }
  return exposition;
}

const Family* FindFamily(const Exposition& exposition, absl::string_view sample_name) {
  auto it = exposition.families.find(std::string(sample_name));
  if (it != exposition.families.end()) return &it->second;
  for (absl::string_view suffix : kSampleSuffixes) {
    if (!absl::EndsWith(sample_name, suffix)) continue;
    it = exposition.families.find(
        std::string(sample_name.substr(0, sample_name.size() - suffix.size())));
    if (it != exposition.families.end()) return &it->second;
  }
  return nullptr;
}

std::optional<double> Sum(const Exposition& exposition, const Selector& selector) {
  for (const std::string& name : selector.names) {
    bool present = false;
    bool matched = false;
    double sum = 0;
    for (const Sample& sample : exposition.samples) {
      if (sample.name != name) continue;
      present = true;
      if (!MatchesLabels(sample, selector.match)) continue;
      matched = true;
      sum += sample.value;
    }
    // The first name present decides, even when none of its samples match: renames are
    // alternatives, never mixed.
    if (present) return matched ? std::optional<double>(sum) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<Histogram> SumHistogram(const Exposition& exposition, const Selector& base_names) {
  constexpr absl::string_view kParts[] = {"_bucket", "_sum", "_count"};
  for (const std::string& base : base_names.names) {
    bool present = false;
    bool matched = false;
    Histogram histogram;
    for (const Sample& sample : exposition.samples) {
      if (sample.name.size() <= base.size() || !absl::StartsWith(sample.name, base)) continue;
      const absl::string_view suffix = absl::string_view(sample.name).substr(base.size());
      if (std::find(std::begin(kParts), std::end(kParts), suffix) == std::end(kParts)) continue;
      present = true;
      if (!MatchesLabels(sample, base_names.match)) continue;
      matched = true;
      AddToHistogram(sample, suffix, &histogram);
    }
    if (present) return matched ? std::optional<Histogram>(histogram) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kvbench::prometheus_text
