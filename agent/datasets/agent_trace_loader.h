#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// Reads LMCache/lmcache-agent-trace JSONL: one session per file; `path` is a file or a folder
// searched recursively for *.jsonl files (sorted by path for a stable order; this includes the
// magagent *.openai_chat.jsonl files, which despite their name have the same flat shape).
// Each line {"timestamp": <int µs>, "input": <str>, "output": <str>?, "session_id": <str>?} is one
// Round with messages [{"role":"user","content": input}] (the recorded prompt is one flat string;
// role prefixes such as "user: " inside it are kept as text). Lines are sorted by timestamp
// (stable). output_tokens stays 0 (unknown; the output text is not tokenized here); pre_gap_s stays
// 0. The session id is the lines' session_id (which must agree), else the file name's stem.
// Session.kind is the first subfolder under `path` the file sits in (e.g. "magagent", "miniswe"),
// "" for a file directly in `path` or a single file.
absl::StatusOr<Dataset> LoadAgentTrace(const std::string& path);

}  // namespace kvbench::datasets
