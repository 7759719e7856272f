// Helpers of the side-by-side latency tools (hybrid_latency, ask_latency): a question file in
// BEIR queries.jsonl form or one question per line, a nearest-rank percentile, and the median and
// range of a per-round figure.
#pragma once

#include <string>
#include <vector>

namespace attest::bench {

// BEIR queries.jsonl lines ({"_id", "text"}) or plain lines; blank lines skipped.
std::vector<std::string> LoadQuestions(const std::string& path);

// Nearest-rank percentile of `samples` (p in [0, 1]); 0 for none.
double Percentile(std::vector<double> samples, double p);

struct Spread {
  double median = 0, lo = 0, hi = 0;
};
// Median, minimum and maximum of per-round figures; zeros for none.
Spread Summarize(std::vector<double> rounds);

}  // namespace attest::bench
