// RerankTestServer: adds cross-encoder rerank routes to an OpenAiTestServer (whose fault queue,
// request recording and other routes stay as they are):
//
//   POST /rerank     TEI shape: {"query", "texts", "raw_scores"?, "truncate"?} -> [{"index", "score"}]
//   POST /v1/rerank  Jina / Cohere v1 shape: {"model", "query", "documents", "top_n"?}
//                    -> {"results": [{"index", "relevance_score", "document": {"text"}}], "model", "usage"}
//   POST /v2/rerank  Cohere v2 shape: same request, {"id", "results": [{"index", "relevance_score"}], "meta"}
//   POST /predict    TEI's pair form: {"inputs": [[query, passage], ...], "truncate"?, "raw_scores"?}
//                    -> [[{"score", "label": "LABEL_0"}], ...], one list per pair in input order;
//                    more inputs than set_max_client_batch() (TEI's default: 32) is TEI's 413.
//                    predict_batch_sizes() lists the inputs of each call, oldest first.
// - set_model_delay_ms(ms, per_pair_us) makes every /predict and rerank call take ms + per_pair_us
//   per pair scored (a model's compute time); set_model_slots(n) lets at most n calls compute at
//   once, the others queue (one GPU: 1; 0 = no limit).
//
// - Scores are deterministic: OverlapScore(query, passage) = the fraction of the query's distinct
//   lowercased words that occur in the passage (TEI with "raw_scores": true answers 10 * s - 5).
//   Results come back sorted by score, best first, ties by descending index, so the order differs
//   from the input order; "top_n" is honoured (only the best top_n are returned).
// - Requests are validated like the real servers: a bad one gets TEI's 422
//   {"error", "error_type": "Validation"}, Jina's 400 {"detail"} on /v1, Cohere's 400 {"message"} on /v2.
// - Answer faults (PushAnswerFault, FIFO, consumed by rerank requests that reach the handler):
//   a missing item, a duplicate or out-of-range index, a non-finite or string score, the wrong
//   JSON shape. Generic faults (status, body, delay, Retry-After, malformed JSON) come from
//   server().PushFault().
//
// Thread-safety: all public methods may be called from any thread while the server runs.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "support/openai_test_server.h"

namespace attest::testing_support {

enum class RerankAnswerFault {
  kNone,
  kMissingIndex,     // the item of the last input index is dropped
  kDuplicateIndex,   // the last item repeats the first item's index
  kOutOfRangeIndex,  // the first item's index becomes the number of inputs
  kNonFiniteScore,   // the first item's score is the JSON number 1e400 (overflows a double)
  kStringScore,      // the first item's score is a string
  kWrongShape,       // TEI answers {"results": []}, the others answer a bare array
};

class RerankTestServer {
 public:
  explicit RerankTestServer(OpenAiTestServerOptions options = {});

  OpenAiTestServer& server() { return server_; }
  std::string base_url() const { return server_.base_url(); }

  void PushAnswerFault(RerankAnswerFault fault, int times = 1);
  // Recorded requests to the rerank routes and /predict only, oldest first.
  std::vector<RecordedRequest> rerank_requests() const;

  static double OverlapScore(std::string_view query, std::string_view passage);

  void set_max_client_batch(size_t n);
  void set_model_delay_ms(int ms, int per_pair_us = 0);
  void set_model_slots(int n);
  std::vector<size_t> predict_batch_sizes() const;
  size_t max_concurrent_predicts() const;  // the most /predict calls seen running at once

 private:
  void Handle(const httplib::Request& req, httplib::Response& res);
  void HandlePredict(const httplib::Request& req, httplib::Response& res);
  void ModelDelay(size_t pairs);
  RerankAnswerFault PopAnswerFault();

  OpenAiTestServer server_;
  mutable std::mutex mu_;
  std::deque<RerankAnswerFault> answer_faults_;  // guarded by mu_
  size_t max_client_batch_ = 32;                 // guarded by mu_
  int model_delay_ms_ = 0;                     // guarded by mu_
  int model_delay_per_pair_us_ = 0;            // guarded by mu_
  int model_slots_ = 0;                          // guarded by mu_
  int model_busy_ = 0;                           // guarded by mu_
  std::condition_variable slot_cv_;
  std::vector<size_t> predict_sizes_;            // guarded by mu_
  size_t predicts_running_ = 0;                  // guarded by mu_
  size_t max_predicts_running_ = 0;              // guarded by mu_
};

}  // namespace attest::testing_support
