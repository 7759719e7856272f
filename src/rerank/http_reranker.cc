#include "rerank/http_reranker.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "net/model_http_util.h"

namespace attest {
namespace {

using nlohmann::json;

constexpr size_t kMaxBatch = 1024;
constexpr uint32_t kMaxRetries = 20;
constexpr int kMaxJsonDepth = 64;
constexpr size_t kMaxNamedMissing = 10;

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }


Status ValidateOptions(const HttpRerankerOptions& o) {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("http reranker: " + m); };
  if (o.model.empty()) return bad("model must not be empty");
  for (char c : o.model) {
    if (static_cast<unsigned char>(c) < 0x20) return bad("model name contains a control character");
  }
  if (o.max_batch < 1 || o.max_batch > kMaxBatch) {
    return bad("max_batch must be in 1.." + std::to_string(kMaxBatch) + ", got " + std::to_string(o.max_batch));
  }
  if (o.timeout_ms <= 0) return bad("timeout_ms must be positive, got " + std::to_string(o.timeout_ms));
  if (o.connect_timeout_ms < 0) return bad("connect_timeout_ms must not be negative");
  if (o.max_retries > kMaxRetries) {
    return bad("max_retries must be at most " + std::to_string(kMaxRetries) + ", got " + std::to_string(o.max_retries));
  }
  if (o.backoff_initial_ms < 0 || o.backoff_max_ms < o.backoff_initial_ms) {
    return bad("backoff must satisfy 0 <= backoff_initial_ms <= backoff_max_ms, got " +
               std::to_string(o.backoff_initial_ms) + " and " + std::to_string(o.backoff_max_ms));
  }
  if (o.retry_after_max_ms < 0) return bad("retry_after_max_ms must not be negative");
  if (o.max_response_bytes < 1024) return bad("max_response_bytes must be at least 1024");
  return Status::Ok();
}

// Indices [first, last] of a batch, for error context.
std::string BatchContext(size_t first, size_t last, size_t total) {
  return "reranking passages " + std::to_string(first) + ".." + std::to_string(last) + " of " + std::to_string(total);
}

}  // namespace

std::string_view RerankApiName(RerankApi api) {
  switch (api) {
    case RerankApi::kTei: return "tei";
    case RerankApi::kJina: return "jina";
    case RerankApi::kCohere: return "cohere";
    case RerankApi::kCohereV2: return "cohere-v2";
  }
  return "unknown";
}

Result<RerankApi> ParseRerankApi(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "tei") return RerankApi::kTei;
  if (n == "jina") return RerankApi::kJina;
  if (n == "cohere") return RerankApi::kCohere;
  if (n == "cohere-v2" || n == "cohere_v2" || n == "cohere2") return RerankApi::kCohereV2;
  return Status::InvalidArgument("unknown rerank API \"" + std::string(name) +
                                 "\" (expected tei, jina, cohere or cohere-v2)");
}

Result<std::string> ResolveRerankEndpoint(std::string_view base_url, RerankApi api) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("http reranker: base_url \"" + RedactUrl(base_url) + "\" " + why);
  };
  const size_t sep = base_url.find("://");
  if (sep == std::string_view::npos) return bad("must start with http:// or https://");
  std::string scheme(base_url.substr(0, sep));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  if (scheme != "http" && scheme != "https") return bad("must start with http:// or https://");
  for (char c : base_url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return bad("contains whitespace or a control character");
  }
  if (base_url.find_first_of("?#") != std::string_view::npos) return bad("must not contain a query or fragment");
  const std::string_view rest = base_url.substr(sep + 3);
  if (rest.empty() || rest.front() == '/') return bad("has no host");
  std::string_view url = base_url;
  while (url.ends_with('/')) url.remove_suffix(1);
  if (url.ends_with("/rerank")) return std::string(url);
  switch (api) {
    case RerankApi::kTei:
      return std::string(url) + "/rerank";
    case RerankApi::kJina:
    case RerankApi::kCohere:
      if (url.ends_with("/v1")) url.remove_suffix(3);
      return std::string(url) + "/v1/rerank";
    case RerankApi::kCohereV2:
      if (url.ends_with("/v2")) url.remove_suffix(3);
      return std::string(url) + "/v2/rerank";
  }
  return bad("has an unknown API shape");
}

std::string_view TruncateUtf8(std::string_view text, size_t max_chars) {
  if (max_chars == 0 || text.size() <= max_chars) return text;  // bytes >= code points
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (chars == max_chars) return text.substr(0, i);
      ++chars;
    }
  }
  return text;
}

std::string BuildRerankRequestBody(RerankApi api, std::string_view model, std::string_view query,
                                   const std::vector<std::string>& passages) {
  json body;
  if (api == RerankApi::kTei) {
    body = {{"query", query}, {"texts", passages}, {"raw_scores", false}, {"truncate", true}};
  } else {
    body = {{"model", model}, {"query", query}, {"documents", passages}, {"top_n", passages.size()}};
  }
  // Invalid UTF-8 is replaced (U+FFFD) rather than failing the whole call.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::vector<double>> ParseRerankResponse(RerankApi api, std::string_view body, size_t count) {
  auto corrupt = [](const std::string& m) { return Status::Corruption("rerank response: " + m); };
  if (JsonNestingExceeds(body, kMaxJsonDepth)) {
    return corrupt("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for numbers that overflow a double (e.g. 1e400).
    return corrupt("malformed JSON: " + CleanJsonErrorMessage(e.what()));
  }
  const bool tei = api == RerankApi::kTei;
  const char* score_key = tei ? "score" : "relevance_score";
  const json* items = &j;
  std::string prefix;
  if (tei) {
    if (!j.is_array()) {
      return corrupt(std::string("expected a JSON array of {\"index\", \"score\"} (TEI), got ") + j.type_name() +
                     (j.is_object() && j.contains("results") ? " with \"results\" (a Jina/Cohere answer?)" : ""));
    }
  } else {
    if (!j.is_object()) {
      return corrupt(std::string("expected a JSON object with \"results\", got ") + j.type_name() +
                     (j.is_array() ? " (a TEI answer?)" : ""));
    }
    auto it = j.find("results");
    if (it == j.end()) return corrupt("missing \"results\"");
    if (!it->is_array()) return corrupt(std::string("\"results\" must be an array, not ") + it->type_name());
    items = &*it;
    prefix = "results";
  }
  std::vector<double> scores(count, 0.0);
  std::vector<bool> seen(count, false);
  for (size_t k = 0; k < items->size(); ++k) {
    const json& item = (*items)[k];
    const std::string where = prefix + "[" + std::to_string(k) + "]";
    if (!item.is_object()) return corrupt(where + " must be an object, not " + item.type_name());
    auto index_it = item.find("index");
    if (index_it == item.end()) return corrupt(where + " has no \"index\"");
    if (!index_it->is_number_integer()) {
      return corrupt(where + ".index must be an integer, not " + std::string(index_it->type_name()));
    }
    const int64_t index = index_it->is_number_unsigned() && index_it->get<uint64_t>() > uint64_t{INT64_MAX}
                              ? -1
                              : index_it->get<int64_t>();
    if (index < 0 || static_cast<uint64_t>(index) >= count) {
      return corrupt(where + ".index " + index_it->dump() + " is out of range 0.." + std::to_string(count - 1) +
                     (count == 0 ? " (no passages were sent)" : ""));
    }
    if (seen[index]) return corrupt("duplicate index " + std::to_string(index) + " at " + where);
    seen[index] = true;
    auto score_it = item.find(score_key);
    if (score_it == item.end()) return corrupt(where + " has no \"" + score_key + "\"");
    if (!score_it->is_number()) {
      return corrupt(where + "." + score_key + " must be a number, not " + score_it->type_name());
    }
    const double s = score_it->get<double>();
    if (!std::isfinite(s)) return corrupt(where + "." + score_key + " is not a finite number");
    scores[index] = s;
  }
  std::vector<size_t> missing;
  for (size_t i = 0; i < count; ++i) {
    if (!seen[i]) missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t m = 0; m < missing.size() && m < kMaxNamedMissing; ++m) {
      list += (m ? ", " : "") + std::to_string(missing[m]);
    }
    if (missing.size() > kMaxNamedMissing) list += ", ...";
    return corrupt(std::to_string(missing.size()) + " of " + std::to_string(count) +
                   " passages not scored (index " + list + ")");
  }
  return scores;
}

Result<std::unique_ptr<HttpReranker>> HttpReranker::Create(HttpRerankerOptions options) {
  ATTEST_RETURN_IF_ERROR(ValidateOptions(options));
  ATTEST_ASSIGN_OR_RETURN(std::string endpoint, ResolveRerankEndpoint(options.base_url, options.api));
  std::string api_key;
  if (!options.api_key_env.empty()) {
    if (const char* v = std::getenv(options.api_key_env.c_str()); v != nullptr) api_key = v;
    if (api_key.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("http reranker: environment variable " + options.api_key_env +
                                     " contains a line break");
    }
  }
  return std::unique_ptr<HttpReranker>(new HttpReranker(std::move(options), std::move(endpoint), std::move(api_key)));
}

HttpReranker::HttpReranker(HttpRerankerOptions options, std::string endpoint, std::string api_key)
    : options_(std::move(options)),
      endpoint_(std::move(endpoint)),
      api_key_(std::move(api_key)),
      http_(HttpClientOptions{.max_response_bytes = options_.max_response_bytes}),
      backoff_(options_.backoff_initial_ms, options_.backoff_max_ms, options_.sleep) {}

std::string HttpReranker::name() const { return std::string(RerankApiName(options_.api)) + ":" + options_.model; }

HttpRerankerStats HttpReranker::stats() const {
  MutexLock lock(mu_);
  return stats_;
}



Status HttpReranker::ScoreBatch(std::string_view query, const std::vector<std::string>& inputs,
                                std::vector<double>* out) const {
  HttpRequest request;
  request.method = "POST";
  request.url = endpoint_;
  request.headers.push_back({"Content-Type", "application/json"});
  request.headers.push_back({"Accept", "application/json"});
  if (!api_key_.empty()) request.headers.push_back({"Authorization", "Bearer " + api_key_});
  request.body = BuildRerankRequestBody(options_.api, options_.model, query, inputs);
  request.timeout_ms = options_.timeout_ms;
  request.connect_timeout_ms = options_.connect_timeout_ms;

  const uint32_t attempts = options_.max_retries + 1;
  const std::string where = "POST " + RedactUrl(endpoint_) + " (" + name() + ")";
  for (uint32_t attempt = 0;; ++attempt) {
    {
      MutexLock lock(mu_);
      ++stats_.requests;
      if (attempt > 0) ++stats_.retries;
    }
    const bool last = attempt + 1 >= attempts;
    const std::string tries = attempts == 1 ? "" : " after " + std::to_string(attempt + 1) + " attempts";
    HttpFailure failure = HttpFailure::kNone;
    Result<HttpResponse> response = http_.Send(request, &failure);
    if (!response.ok()) {
      const bool transient = IsTransientHttpFailure(failure);
      if (!transient || last) {
        const Status& st = response.status();
        return Status(st.code(), st.message() + (transient ? tries : ""));
      }
      backoff_.Sleep(backoff_.Delay(attempt));
      continue;
    }
    const int status = response->status;
    if (status >= 200 && status < 300) {
      Result<std::vector<double>> scores = ParseRerankResponse(options_.api, response->body, inputs.size());
      if (!scores.ok()) return scores.status().WithContext(where);
      *out = std::move(scores).value();
      return Status::Ok();
    }
    if (!IsRetryableHttpStatus(status) || last) {
      return Status(StatusCodeForHttpStatus(status),
                    where + ": HTTP " + std::to_string(status) + (IsRetryableHttpStatus(status) ? tries : "") +
                        ": " + ExtractHttpErrorMessage(response->body));
    }
    std::chrono::milliseconds delay = backoff_.Delay(attempt);
    if (auto server_ms = ServerRetryDelayMs(*response)) {
      delay = std::chrono::milliseconds(std::min(*server_ms, options_.retry_after_max_ms));
    }
    backoff_.Sleep(delay);
  }
}

Result<std::vector<double>> HttpReranker::Score(std::string_view query,
                                                const std::vector<std::string>& passages) const {
  if (passages.empty()) return std::vector<double>{};
  if (IsBlank(query)) return Status::InvalidArgument("http reranker: the query is empty");
  // Passages the server sees: the non-blank ones, cut to max_passage_chars.
  std::vector<size_t> rows;
  rows.reserve(passages.size());
  for (size_t i = 0; i < passages.size(); ++i) {
    if (!IsBlank(passages[i])) rows.push_back(i);
  }
  std::vector<double> result(passages.size(), 0.0);
  std::vector<std::string> inputs;
  std::vector<double> batch_scores;
  double lowest = 0.0;
  for (size_t begin = 0; begin < rows.size(); begin += options_.max_batch) {
    const size_t end = std::min(rows.size(), begin + options_.max_batch);
    inputs.clear();
    uint64_t truncated = 0;
    for (size_t r = begin; r < end; ++r) {
      const std::string_view p = passages[rows[r]];
      const std::string_view cut = TruncateUtf8(p, options_.max_passage_chars);
      truncated += cut.size() < p.size();
      inputs.emplace_back(cut);
    }
    Status st = ScoreBatch(query, inputs, &batch_scores);
    if (!st.ok()) return st.WithContext(BatchContext(rows[begin], rows[end - 1], passages.size()));
    for (size_t r = begin; r < end; ++r) {
      const double s = batch_scores[r - begin];
      result[rows[r]] = s;
      lowest = (r == 0) ? s : std::min(lowest, s);
    }
    MutexLock lock(mu_);
    stats_.passages += end - begin;
    stats_.truncated += truncated;
  }
  if (rows.size() < passages.size()) {
    size_t next = 0;
    for (size_t i = 0; i < passages.size(); ++i) {
      if (next < rows.size() && rows[next] == i) {
        ++next;
      } else {
        result[i] = lowest;
      }
    }
  }
  return result;
}

}  // namespace attest
