#include "agent/scenario/appended_line_counter.h"

#include <fstream>

namespace kvbench::agent {

int64_t AppendedLineCounter::Update() {
  std::ifstream in(path_, std::ios::binary);
  if (in.seekg(read_to_)) {
    for (char c; in.get(c); ++read_to_) lines_ += c == '\n' ? 1 : 0;
  }
  return lines_;
}

}  // namespace kvbench::agent
