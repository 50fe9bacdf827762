#include "agent/preflight/preflight_printer.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/preflight/preflight_check.h"
#include "common/json/proto_json.h"
#include "common/preflight/preflight_rules.h"

namespace kvbench::agent::preflight {
namespace {

constexpr size_t kStatusWidth = 6;  // "STATUS"
constexpr char kGap[] = "  ";

std::string Pad(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string VersionText(const v1::ComponentVersion& version) {
  return absl::StrCat(version.component(), " ", version.version(), " (", version.source(),
                      version.simulated() ? ", simulated" : "", ")");
}

std::string Summary(const std::vector<v1::PreflightCheck>& checks) {
  std::map<v1::PreflightStatus, int> counts;
  for (const v1::PreflightCheck& check : checks) ++counts[check.status()];
  std::vector<std::string> parts;
  for (v1::PreflightStatus status :
       {v1::PREFLIGHT_FAIL, v1::PREFLIGHT_WARN, v1::PREFLIGHT_OK, v1::PREFLIGHT_SKIP}) {
    parts.push_back(absl::StrCat(counts[status], " ", StatusWord(status)));
  }
  return absl::StrCat("preflight: ", absl::StrJoin(parts, ", "));
}

}  // namespace

void PrintPreflight(const PreflightReport& report, std::ostream& out) {
  size_t name_width = 5;  // "CHECK"
  for (const v1::PreflightCheck& check : report.checks) {
    name_width = std::max(name_width, check.name().size());
  }
  const std::string indent(kStatusWidth + name_width + 2 * (sizeof(kGap) - 1), ' ');
  out << Pad("STATUS", kStatusWidth) << kGap << Pad("CHECK", name_width) << kGap << "DETAIL\n";
  for (const v1::PreflightCheck& check : report.checks) {
    out << Pad(StatusWord(check.status()), kStatusWidth) << kGap << Pad(check.name(), name_width)
        << kGap << check.detail() << "\n";
    if (PreflightPasses(check)) continue;
    std::string remedy = check.remedy();
    if (check.status() == v1::PREFLIGHT_FAIL) {
      absl::StrAppend(&remedy, remedy.empty() ? "" : " ", "[keeps off this node: ", KeptOff(check),
                      "]");
    }
    if (!remedy.empty()) out << indent << "→ " << remedy << "\n";
  }
  if (!report.versions.empty()) {
    out << "versions: "
        << absl::StrJoin(report.versions, ", ",
                         [](std::string* text, const v1::ComponentVersion& version) {
                           text->append(VersionText(version));
                         })
        << "\n";
  }
  out << Summary(report.checks) << "\n";
}

std::string PreflightJson(const PreflightReport& report) {
  nlohmann::ordered_json json;
  json["checks"] = nlohmann::ordered_json::array();
  int failed = 0;
  for (const v1::PreflightCheck& check : report.checks) {
    json["checks"].push_back(nlohmann::ordered_json::parse(ProtoToJson(check)));
    if (check.status() == v1::PREFLIGHT_FAIL) ++failed;
  }
  json["versions"] = nlohmann::ordered_json::array();
  for (const v1::ComponentVersion& version : report.versions) {
    json["versions"].push_back(nlohmann::ordered_json::parse(ProtoToJson(version)));
  }
  json["failed"] = failed;
  return json.dump(2);
}

}  // namespace kvbench::agent::preflight
