#include "agent/release/program_release.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kvbench::agent::release {
namespace {

constexpr char kSimFlagPrefix[] = "--sim-";

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The simulator's own flags a probe passes on, so it answers as the release it imitates.
std::vector<std::string> SimFlags(const v1::Profile& profile) {
  std::vector<std::string> flags;
  if (!profile.simulated()) return flags;
  for (const std::string& arg : profile.extra_args()) {
    if (absl::StartsWith(arg, kSimFlagPrefix)) flags.push_back(arg);
  }
  return flags;
}

// The last non-empty line, trimmed: `vllm --version` prints only the version, but a Python
// warning may come first.
std::string LastLine(absl::string_view text) {
  std::string last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = std::string(line);
  }
  return last;
}

bool IsVersionChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-';
}

// "LMCache v0.5.6 (1a2b3c4d5)" anywhere in LMCache's banner (lmcache/banner.py _render_banner).
std::string BannerVersion(absl::string_view text) {
  constexpr absl::string_view kMarker = "LMCache v";
  for (size_t at = text.find(kMarker); at != absl::string_view::npos;
       at = text.find(kMarker, at + 1)) {
    const size_t begin = at + kMarker.size();
    if (begin >= text.size() || !absl::ascii_isdigit(static_cast<unsigned char>(text[begin]))) {
      continue;
    }
    size_t end = begin;
    while (end < text.size() && IsVersionChar(text[end])) ++end;
    return std::string(text.substr(begin, end - begin));
  }
  return "";
}

// Every option argparse (or CLI11) lists in a help text: "--name" at a word start (after a space,
// ',', '[' or '('), the name of letters, digits, '-' and '_'.
std::set<std::string> HelpFlags(absl::string_view text) {
  std::set<std::string> flags;
  for (size_t at = text.find("--"); at != absl::string_view::npos; at = text.find("--", at + 2)) {
    const bool word_start = at == 0 ||
                            absl::ascii_isspace(static_cast<unsigned char>(text[at - 1])) ||
                            text[at - 1] == ',' || text[at - 1] == '[' || text[at - 1] == '(';
    if (!word_start || at + 2 >= text.size() ||
        !absl::ascii_isalnum(static_cast<unsigned char>(text[at + 2]))) {
      continue;
    }
    size_t end = at + 2;
    while (end < text.size() && (absl::ascii_isalnum(static_cast<unsigned char>(text[end])) ||
                                 text[end] == '-' || text[end] == '_')) {
      ++end;
    }
    flags.insert(std::string(text.substr(at, end - at)));
  }
  return flags;
}

std::map<std::string, std::string> ProfileEnv(const v1::Profile& profile) {
  return {profile.env().begin(), profile.env().end()};
}

}  // namespace

bool ProgramRelease::MayHaveFlag(std::string_view flag) const {
  return !flags_known || flags.count(std::string(flag)) > 0;
}

v1::ComponentVersion ProgramRelease::ToProto() const {
  v1::ComponentVersion proto;
  proto.set_component(component);
  proto.set_version(version.empty() ? "unknown" : version);
  proto.set_source(error.empty() ? probe : absl::StrCat(probe, ": ", error));
  proto.set_simulated(simulated);
  return proto;
}

ProgramRelease ProbeProgramRelease(const v1::Profile& profile, const std::string& program,
                                   const ProbeRunner& run) {
  ProgramRelease release;
  release.profile = profile.name();
  release.simulated = profile.simulated();
  std::vector<std::string> argv = {program};
  const bool engine = profile.role() == v1::ENGINE;
  release.component = engine ? kVllmComponent : kLmcacheComponent;
  if (!engine) {
    argv.insert(argv.end(), profile.command().begin() + 1, profile.command().end());
  }
  const std::vector<std::string> sim_flags = SimFlags(profile);
  argv.insert(argv.end(), sim_flags.begin(), sim_flags.end());
  argv.push_back(engine ? "--version" : "--help");
  std::vector<std::string> shown = argv;
  shown.front() = BaseName(program);
  release.probe = absl::StrJoin(shown, " ");

  absl::Duration timeout = kDefaultProbeTimeout;
  if (profile.has_ready_timeout_s() && profile.ready_timeout_s() > 0) {
    timeout = std::min(timeout, absl::Seconds(profile.ready_timeout_s()));
  }
  absl::StatusOr<ProbeOutput> output = run(argv, ProfileEnv(profile), timeout);
  if (!output.ok()) {
    release.error = std::string(output.status().message());
    return release;
  }
  if (engine) {
    release.version = LastLine(output->stdout_text);
    if (release.version.empty()) release.error = "printed no version";
    return release;
  }
  release.flags = HelpFlags(output->stdout_text);
  release.flags_known = !release.flags.empty();
  release.version = BannerVersion(output->stderr_text);
  if (release.version.empty()) release.version = BannerVersion(output->stdout_text);
  std::vector<std::string> missing;
  if (release.version.empty()) missing.push_back("no \"LMCache v<version>\" banner");
  if (!release.flags_known) missing.push_back("no flags in its help");
  release.error = absl::StrJoin(missing, ", ");
  return release;
}

}  // namespace kvbench::agent::release
