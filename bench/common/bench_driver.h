// The command-line driver shared by the three comparison binaries (attest_compare, fts5_compare,
// xapian_compare). Each binary supplies its BenchSystem; the driver measures it the same way:
//
//   <tool> build --corpus corpus.jsonl --index DIR --out build.json [--threads 2]
//       Streams and indexes the corpus; reports wall time, docs/s, index bytes (and the ratio to
//       the raw title+text bytes), named phases and VmHWM/VmRSS at the end of the build.
//   <tool> query --index DIR --queries queries.jsonl --acl-group G --out query.json
//                [--k 10] [--warmup 1] [--run-out run.json] [--acl-run-out run_acl.json]
//       Opens the index in a fresh process, runs every query once per warm-up pass (unfiltered and
//       ACL-filtered), then times each query on one thread: the clock covers query analysis,
//       retrieval of the top k and mapping to external ids. Reports nearest-rank p50/p95/p99 and
//       VmHWM/VmRSS after open and at the end.
//   <tool> beir --dataset DIR [--split test] --index DIR --out beir.json [--k 100]
//       Builds an index of a BEIR corpus, runs the split's queries (top k, for Recall@100) and
//       reports nDCG@10, Recall@100, MRR@10, P@10 and latency with src/eval.
#pragma once

#include <functional>
#include <memory>

#include "common/bench_system.h"

namespace attest::bench {

using SystemFactory = std::function<std::unique_ptr<BenchSystem>()>;

// Returns the process exit code (0 on success; 1 with a message on stderr otherwise).
int RunBenchMain(int argc, char** argv, const SystemFactory& make_system);

}  // namespace attest::bench
