// What kvctl's exit code says about a job's comparisons: exit 8 for an invalid one
// always; with --require-valid also for a not-exercised one and for a job with none at all.

#include "controller/kvctl/verdict_gate.h"

#include <catch2/catch.hpp>
#include <string>

#include "common/status/exit_code.h"

namespace kvbench::kvctl {
namespace {

v1::Job JobWith(std::initializer_list<std::pair<std::string, v1::Verdict>> verdicts) {
  v1::Job job;
  job.set_job_id("job-1");
  for (const auto& [group, verdict] : verdicts) {
    v1::Validity* validity = job.add_validity();
    validity->set_comparison_group(group);
    validity->set_verdict(verdict);
  }
  return job;
}

TEST_CASE("Verdict gate: invalid fails always, not exercised and none only with --require-valid") {
  const v1::Job valid = JobWith({{"c2", v1::VERDICT_VALID}, {"c8", v1::VERDICT_VALID}});
  CHECK(InvalidComparisonsStatus(valid).ok());
  CHECK(InvalidComparisonsStatus(valid, VerdictGate::kAllValid).ok());

  const v1::Job idle = JobWith({{"c2", v1::VERDICT_NOT_EXERCISED}, {"c8", v1::VERDICT_VALID}});
  CHECK(InvalidComparisonsStatus(idle).ok());
  const absl::Status gated = InvalidComparisonsStatus(idle, VerdictGate::kAllValid);
  CHECK(ExitCodeForStatus(gated) == kExitInvalidResults);
  CHECK(std::string(gated.message()) ==
        "job job-1 ended but comparison c2 is not exercised (the KV working set fit in GPU "
        "memory: offload was never needed) (--require-valid asks every comparison to be valid)");

  const v1::Job both = JobWith({{"c2", v1::VERDICT_NOT_EXERCISED}, {"c8", v1::VERDICT_INVALID},
                                {"c16", v1::VERDICT_INVALID}});
  const absl::Status plain = InvalidComparisonsStatus(both);
  CHECK(ExitCodeForStatus(plain) == kExitInvalidResults);
  CHECK(std::string(plain.message()) ==
        "job job-1 ended but comparison c8, c16 are invalid (the verdict says why)");
  CHECK(std::string(InvalidComparisonsStatus(both, VerdictGate::kAllValid).message())
            .find("c8, c16 are invalid (the verdict says why); comparison c2 is not exercised") !=
        std::string::npos);

  const v1::Job none = JobWith({});
  CHECK(InvalidComparisonsStatus(none).ok());
  CHECK(ExitCodeForStatus(InvalidComparisonsStatus(none, VerdictGate::kAllValid)) ==
        kExitInvalidResults);
}

TEST_CASE("Verdict of a group: job.json's spelling, empty when the group has none") {
  const v1::Job job = JobWith({{"c2", v1::VERDICT_NOT_EXERCISED}});
  CHECK(VerdictOfGroup(job, "c2") == "VERDICT_NOT_EXERCISED");
  CHECK(VerdictOfGroup(job, "c4").empty());
}

}  // namespace
}  // namespace kvbench::kvctl
