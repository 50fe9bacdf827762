#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kvbench::agent {

// OK for a model id (no leading '/': the spec validator checked its form) and for an absolute
// path under one of `roots` (both resolved, symlinks followed as far as they exist, so a link
// inside a root cannot lead out of it). FAILED_PRECONDITION naming the model and the roots
// otherwise: a job may not make an agent load whatever file it names (say
// "model": "../../../../bin/sh").
absl::Status CheckModelUnderRoots(const std::string& model, const std::vector<std::string>& roots);

}  // namespace kvbench::agent
