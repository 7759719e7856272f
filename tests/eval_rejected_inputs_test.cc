// `attest eval` names every input it could not index, as `attest ingest` does (issue 10): it
// exited 3 without saying what it had rejected, and title-only records were among the rejects.
// Exit status: 0 = every input indexed; 3 = finished, some inputs rejected (each named on stderr).
#include <gtest/gtest.h>

#include <string>

#include "support/process.h"

namespace attest {
namespace {

using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

void WriteQueries(const std::filesystem::path& beir) {
  WriteFile(beir / "queries.jsonl", "{\"_id\":\"q1\",\"text\":\"parallel compilers\"}\n"
                                    "{\"_id\":\"q2\",\"text\":\"merge sort\"}\n");
  WriteFile(beir / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\nq1\tt1\t1\nq2\td1\t1\n");
}

TEST(EvalRejectedInputs, Regression_EvalNamesEveryRejectedInputWithItsLineAndExitsThree) {
  TempDir tmp;
  const auto beir = tmp.path() / "beir";
  WriteFile(beir / "corpus.jsonl",
            "{\"_id\":\"d1\",\"title\":\"Sorting\",\"text\":\"Merge sort splits the input in halves.\"}\n"
            "{\"_id\":\"t1\",\"title\":\"Compiling for parallel machines\",\"text\":\"\"}\n"
            "{not json}\n"
            "{\"_id\":\"e1\",\"title\":\"\",\"text\":\"  \"}\n");
  WriteQueries(beir);
  const auto r = RunAttest({"eval", beir.string(), "--mode", "bm25"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("corpus.jsonl:3: invalid JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("corpus.jsonl:4: empty document"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("corpus.jsonl:2:"), std::string::npos) << r.err;  // the title-only record is indexed
  EXPECT_NE(r.out.find("2 documents"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 input(s) rejected, named on stderr"), std::string::npos) << r.out;
}

TEST(EvalRejectedInputs, EvalExitsZeroAndNamesNothingWhenEveryInputIsIndexed) {
  TempDir tmp;
  const auto beir = tmp.path() / "beir";
  WriteFile(beir / "corpus.jsonl",
            "{\"_id\":\"d1\",\"title\":\"Sorting\",\"text\":\"Merge sort splits the input in halves.\"}\n"
            "{\"_id\":\"t1\",\"title\":\"Compiling for parallel machines\",\"text\":\"\"}\n");
  WriteQueries(beir);
  const auto r = RunAttest({"eval", beir.string(), "--mode", "bm25"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("corpus.jsonl"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("rejected"), std::string::npos) << r.out;
  // Both queries find their document: the title-only one through its title.
  EXPECT_NE(r.out.find("1.0000"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attest
