#pragma once

// Holm's step-down procedure (S. Holm, "A Simple Sequentially Rejective Multiple Test Procedure",
// Scand. J. Statist. 6, 1979) for a family of hypotheses tested together: a diff tests
// every metric of every scenario, and at 95% each one alone, 48 tests give a false alarm in most
// A/A diffs. Holm keeps the chance of any false rejection in the family at most alpha whatever the
// tests' dependence (they are far from independent: TTFT p95 and p99 of one run move together),
// and rejects everything Bonferroni rejects and sometimes more. Pure.

#include <vector>

namespace kvbench::regression {

// Holm-adjusted p-values, in the order given: with p sorted ascending p(1) <= ... <= p(m),
// adjusted(i) = max over j <= i of min(1, (m - j + 1) p(j)). A hypothesis is rejected at level
// alpha exactly when its adjusted p-value is <= alpha (HolmRejects). Empty in, empty out.
std::vector<double> HolmAdjust(const std::vector<double>& p_values);

// Which hypotheses Holm rejects at family-wise level `alpha`, in the order given: step through the
// p-values ascending, reject while p(i) <= alpha / (m - i + 1), stop at the first that is not.
std::vector<bool> HolmRejects(const std::vector<double>& p_values, double alpha);

}  // namespace kvbench::regression
