#pragma once

#include <string>

namespace kvbench::sim {

// Logs `message` at INFO in kvsim-vllm's log format, but on stdout, where vLLM writes its log
// (vllm-project/vllm:vllm/logger.py@43f45549: the handler's stream is ext://sys.stdout; newer
// copies read it from VLLM_LOGGING_STREAM, with the same default). kvsim-vllm's own lines go to
// stderr; the lines a tool may look for in vLLM's output (the KV connector factory's) go here.
// The log sink is process-wide and swapped for the one line: call it only before the engine and
// server threads start.
void LogInfoToStdout(const std::string& message);

}  // namespace kvbench::sim
