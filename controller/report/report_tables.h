#pragma once

// The report's HTML sections that are not charts: job parameters, validity verdicts, scenario
// states, session counts, LMCache and disk figures. Pure; all text HTML-escaped.

#include <string>
#include <vector>

#include "controller/report/report_runs.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::report {

// What people write for a verdict: "VALID", "INVALID", "NOT EXERCISED", "UNSPECIFIED".
std::string VerdictText(v1::Verdict verdict);

std::string ParametersTable(const v1::Job& job);
// One box per comparison group: its verdict, large, and each reason (code and message).
std::string ValiditySection(const std::vector<v1::Validity>& validity);
// Each scenario's id, tier, concurrency, state, agent, error and process failures.
std::string ScenariosTable(const v1::Job& job);
// (f) requested / achieved / ceiling / complete / incomplete / error sessions, failed requests.
std::string SessionsTable(const ReportRuns& runs);
// (g) LMCache figures of the CPU_RAM and NVME runs, and the NVME runs' disk figures.
std::string OffloadTable(const ReportRuns& runs);

}  // namespace kvbench::report
