#include "agent/datasets/agent_trace_loader.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/datasets/json_input.h"
#include "common/status/status_macros.h"

namespace kvbench::datasets {
namespace {

namespace fs = std::filesystem;

struct TimedRound {
  int64_t timestamp = 0;
  Round round;
};

absl::StatusOr<Session> ReadTraceFile(const std::string& path) {
  Session session;
  std::vector<TimedRound> lines;
  int id_line = 0;
  const absl::Status read = ForEachJsonLine(path, [&](int line, const nlohmann::json& row) {
    const std::string origin = LineOrigin(path, line);
    KV_ASSIGN_OR_RETURN(int64_t timestamp, RequireInteger(row, "timestamp", origin));
    KV_ASSIGN_OR_RETURN(std::string input, RequireString(row, "input", origin));
    KV_RETURN_IF_ERROR(OptionalString(row, "output", origin, "").status());
    KV_ASSIGN_OR_RETURN(std::string id, OptionalString(row, "session_id", origin, ""));
    if (!id.empty() && id_line == 0) {
      session.id = id;
      id_line = line;
    } else if (!id.empty() && id != session.id) {
      return FieldError(origin, "session_id",
                        absl::StrCat("\"", id, "\" differs from \"", session.id, "\" at line ",
                                     id_line, ": a file holds one session"));
    }
    TimedRound timed;
    timed.timestamp = timestamp;
    timed.round.messages = nlohmann::json::array({{{"role", "user"}, {"content", input}}});
    timed.round.origin = origin;
    lines.push_back(std::move(timed));
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  if (lines.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": empty session"));
  std::stable_sort(lines.begin(), lines.end(), [](const TimedRound& a, const TimedRound& b) {
    return a.timestamp < b.timestamp;
  });
  for (TimedRound& timed : lines) session.rounds.push_back(std::move(timed.round));
  if (session.id.empty()) {
    std::string stem = fs::path(path).filename().string();
    session.id = stem.substr(0, stem.find('.'));
  }
  return session;
}

absl::StatusOr<std::vector<std::string>> TraceFiles(const std::string& path) {
  std::error_code error;
  if (!fs::is_directory(path, error)) return std::vector<std::string>{path};
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(path, error), end; !error && it != end;
       it.increment(error)) {
    if (it->is_regular_file(error) && absl::EndsWith(it->path().filename().string(), ".jsonl")) {
      files.push_back(it->path().string());
    }
  }
  if (error) return absl::NotFoundError(absl::StrCat("cannot list ", path, ": ", error.message()));
  if (files.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no *.jsonl files in this folder"));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A trace's kind: the first folder under the dataset folder it sits in (LMCache's agent-trace
// folder keeps one subfolder per agent, e.g. magagent/, miniswe/); "" for a file at the top.
std::string TraceKind(const std::string& root, const std::string& file) {
  const fs::path relative = fs::path(file).lexically_relative(root);
  if (relative.empty() || std::distance(relative.begin(), relative.end()) < 2) return "";
  return relative.begin()->string();
}

}  // namespace

absl::StatusOr<Dataset> LoadAgentTrace(const std::string& path) {
  KV_ASSIGN_OR_RETURN(std::vector<std::string> files, TraceFiles(path));
  Dataset dataset;
  dataset.code = "lmcache-agent-trace";
  for (const std::string& file : files) {
    KV_ASSIGN_OR_RETURN(Session session, ReadTraceFile(file));
    session.kind = TraceKind(path, file);
    dataset.sessions.push_back(std::move(session));
  }
  return dataset;
}

}  // namespace kvbench::datasets
