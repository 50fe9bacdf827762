#pragma once

namespace kvbench::report {

// The pages' one inline stylesheet (the report's and the history's), so each file stands alone:
// system fonts only, print-friendly.
const char* ReportStyle();

}  // namespace kvbench::report
