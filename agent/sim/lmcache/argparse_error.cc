#include "agent/sim/lmcache/argparse_error.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::sim::lmcache {

std::string ArgparseUnrecognizedArgumentsError(const std::vector<std::string>& extras) {
  return absl::StrCat(kArgparseLmcacheUsage,
                      "\nlmcache: error: unrecognized arguments: ", absl::StrJoin(extras, " "),
                      "\n");
}

}  // namespace kvbench::sim::lmcache
