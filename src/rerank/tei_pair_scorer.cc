#include "rerank/tei_pair_scorer.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "common/json_guard.h"

namespace attest {
namespace {

using nlohmann::json;

constexpr size_t kMaxPairs = 1024;
constexpr std::string_view kClient = "tei pair scorer";
constexpr int kMaxJsonDepth = 64;
const ModelPath kPredictPath{"", "/predict", "/predict"};

}  // namespace

std::string BuildPredictRequestBody(const std::vector<RerankPair>& pairs, size_t max_passage_chars) {
  json inputs = json::array();
  for (const RerankPair& p : pairs) {
    inputs.push_back(json::array({std::string(p.query), std::string(TruncateUtf8(p.passage, max_passage_chars))}));
  }
  const json body = {{"inputs", std::move(inputs)}, {"truncate", true}, {"raw_scores", false}};
  // Invalid UTF-8 is replaced (U+FFFD) rather than failing the whole call.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::vector<double>> ParsePredictResponse(std::string_view body, size_t count) {
  auto corrupt = [](const std::string& m) { return Status::Corruption("predict response: " + m); };
  if (JsonNestingExceeds(body, kMaxJsonDepth)) {
    return corrupt("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {
    return corrupt("malformed JSON: " + CleanJsonErrorMessage(e.what()));
  }
  if (!j.is_array()) return corrupt(std::string("expected a JSON array (one entry per pair), got ") + j.type_name());
  if (j.size() != count) {
    return corrupt(std::to_string(j.size()) + " entries for " + std::to_string(count) + " pairs");
  }
  std::vector<double> scores;
  scores.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const json& entry = j[i];
    const std::string where = "[" + std::to_string(i) + "]";
    if (!entry.is_array()) {
      return corrupt(where + " must be an array of predictions, not " + std::string(entry.type_name()) +
                     (entry.is_object() ? " (a single-input answer?)" : ""));
    }
    if (entry.size() != 1) {
      return corrupt(where + " has " + std::to_string(entry.size()) +
                     " predictions; a reranker has one label (is the model a classifier?)");
    }
    const json& p = entry[0];
    if (!p.is_object()) return corrupt(where + "[0] must be an object, not " + std::string(p.type_name()));
    auto s = p.find("score");
    if (s == p.end()) return corrupt(where + "[0] has no \"score\"");
    if (!s->is_number()) return corrupt(where + "[0].score must be a number, not " + std::string(s->type_name()));
    const double v = s->get<double>();
    if (!std::isfinite(v)) return corrupt(where + "[0].score is not a finite number");
    scores.push_back(v);
  }
  return scores;
}

Result<std::unique_ptr<TeiPairScorer>> TeiPairScorer::Create(TeiPairScorerOptions options) {
  if (options.max_pairs < 1 || options.max_pairs > kMaxPairs) {
    return Status::InvalidArgument(std::string(kClient) + ": max_pairs must be in 1.." + std::to_string(kMaxPairs) +
                                   ", got " + std::to_string(options.max_pairs));
  }
  const std::string label = "tei-predict:" + options.endpoint.model;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ModelHttpClient> client,
                          ModelHttpClient::Create(kClient, options.endpoint, kPredictPath, label));
  return std::unique_ptr<TeiPairScorer>(new TeiPairScorer(std::move(options), std::move(client)));
}

TeiPairScorer::TeiPairScorer(TeiPairScorerOptions options, std::unique_ptr<ModelHttpClient> client)
    : options_(std::move(options)), client_(std::move(client)) {}

std::string TeiPairScorer::name() const { return "tei-predict:" + options_.endpoint.model; }

TeiPairScorerStats TeiPairScorer::stats() const {
  const ModelHttpStats http = client_->stats();
  MutexLock lock(mu_);
  return TeiPairScorerStats{.requests = http.requests, .retries = http.retries, .pairs = pairs_,
                            .truncated = truncated_};
}

Result<std::vector<double>> TeiPairScorer::ScorePairs(const std::vector<RerankPair>& pairs) const {
  if (pairs.empty()) return std::vector<double>{};
  if (pairs.size() > options_.max_pairs) {
    return Status::InvalidArgument(std::string(kClient) + ": " + std::to_string(pairs.size()) +
                                   " pairs in one call, more than max_pairs " + std::to_string(options_.max_pairs));
  }
  uint64_t truncated = 0;
  for (const RerankPair& p : pairs) {
    truncated += TruncateUtf8(p.passage, options_.max_passage_chars).size() < p.passage.size();
  }
  ATTEST_ASSIGN_OR_RETURN(HttpResponse response,
                          client_->Post(BuildPredictRequestBody(pairs, options_.max_passage_chars)));
  Result<std::vector<double>> scores = ParsePredictResponse(response.body, pairs.size());
  if (!scores.ok()) return client_->MalformedAnswer(scores.status());
  MutexLock lock(mu_);
  pairs_ += pairs.size();
  truncated_ += truncated;
  return scores;
}

}  // namespace attest
