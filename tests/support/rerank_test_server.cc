#include "support/rerank_test_server.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <chrono>
#include <set>
#include <thread>

namespace attest::testing_support {
namespace {

using nlohmann::json;

enum class Shape { kTei, kJina, kCohereV2 };

std::set<std::string> Words(std::string_view text) {
  std::set<std::string> out;
  std::string word;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80)) {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!word.empty()) {
      out.insert(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.insert(std::move(word));
  return out;
}

void Reject(Shape shape, httplib::Response& res, const std::string& message) {
  json body;
  switch (shape) {
    case Shape::kTei:
      res.status = 422;
      body = {{"error", message}, {"error_type", "Validation"}};
      break;
    case Shape::kJina:
      res.status = 400;
      body = {{"detail", message}};
      break;
    case Shape::kCohereV2:
      res.status = 400;
      body = {{"id", "test"}, {"message", message}};
      break;
  }
  res.set_content(body.dump(), "application/json");
}

}  // namespace

RerankTestServer::RerankTestServer(OpenAiTestServerOptions options) : server_(std::move(options)) {
  for (const char* path : {"/rerank", "/v1/rerank", "/v2/rerank"}) {
    server_.AddRoute("POST", path,
                     [this](const httplib::Request& req, const OpenAiFault&, httplib::Response& res) { Handle(req, res); });
  }
  server_.AddRoute("POST", "/predict", [this](const httplib::Request& req, const OpenAiFault&, httplib::Response& res) {
    HandlePredict(req, res);
  });
}

void RerankTestServer::set_max_client_batch(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  max_client_batch_ = n;
}

void RerankTestServer::set_model_delay_ms(int ms, int per_pair_us) {
  std::lock_guard<std::mutex> lock(mu_);
  model_delay_ms_ = ms;
  model_delay_per_pair_us_ = per_pair_us;
}

void RerankTestServer::set_model_slots(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  model_slots_ = n;
  slot_cv_.notify_all();
}

void RerankTestServer::ModelDelay(size_t pairs) {
  std::chrono::microseconds delay;
  {
    std::unique_lock<std::mutex> lock(mu_);
    delay = std::chrono::milliseconds(model_delay_ms_) +
            std::chrono::microseconds(int64_t{model_delay_per_pair_us_} * int64_t(pairs));
    if (delay.count() <= 0) return;
    slot_cv_.wait(lock, [&] { return model_slots_ == 0 || model_busy_ < model_slots_; });
    ++model_busy_;
  }
  std::this_thread::sleep_for(delay);
  std::lock_guard<std::mutex> lock(mu_);
  --model_busy_;
  slot_cv_.notify_all();
}

std::vector<size_t> RerankTestServer::predict_batch_sizes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return predict_sizes_;
}

size_t RerankTestServer::max_concurrent_predicts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return max_predicts_running_;
}

void RerankTestServer::HandlePredict(const httplib::Request& req, httplib::Response& res) {
  const json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) return Reject(Shape::kTei, res, "request body is not a JSON object");
  auto inputs = body.find("inputs");
  if (inputs == body.end() || !inputs->is_array() || inputs->empty()) {
    return Reject(Shape::kTei, res, "inputs must be a non-empty array of [text, text_pair] pairs");
  }
  for (const json& pair : *inputs) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string() ||
        pair[0].get<std::string>().empty() || pair[1].get<std::string>().empty()) {
      return Reject(Shape::kTei, res, "every input must be a pair of non-empty strings");
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (inputs->size() > max_client_batch_) {
      res.status = 413;
      res.set_content(json{{"error", "batch size " + std::to_string(inputs->size()) +
                                         " > maximum allowed batch size " + std::to_string(max_client_batch_)},
                           {"error_type", "Validation"}}.dump(),
                      "application/json");
      return;
    }
    predict_sizes_.push_back(inputs->size());
    max_predicts_running_ = std::max(max_predicts_running_, ++predicts_running_);
  }
  ModelDelay(inputs->size());
  const bool raw = body.value("raw_scores", false);
  json out = json::array();
  for (const json& pair : *inputs) {
    const double s = OverlapScore(pair[0].get<std::string>(), pair[1].get<std::string>());
    out.push_back(json::array({json{{"score", raw ? 10.0 * s - 5.0 : s}, {"label", "LABEL_0"}}}));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --predicts_running_;
  }
  res.status = 200;
  res.set_content(out.dump(), "application/json");
}

double RerankTestServer::OverlapScore(std::string_view query, std::string_view passage) {
  const std::set<std::string> q = Words(query);
  if (q.empty()) return 0.0;
  const std::set<std::string> p = Words(passage);
  size_t hits = 0;
  for (const std::string& w : q) hits += p.count(w);
  return static_cast<double>(hits) / static_cast<double>(q.size());
}

void RerankTestServer::PushAnswerFault(RerankAnswerFault fault, int times) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < times; ++i) answer_faults_.push_back(fault);
}

RerankAnswerFault RerankTestServer::PopAnswerFault() {
  std::lock_guard<std::mutex> lock(mu_);
  if (answer_faults_.empty()) return RerankAnswerFault::kNone;
  const RerankAnswerFault f = answer_faults_.front();
  answer_faults_.pop_front();
  return f;
}

std::vector<RecordedRequest> RerankTestServer::rerank_requests() const {
  std::vector<RecordedRequest> out;
  for (RecordedRequest& r : server_.requests()) {
    if (r.path == "/rerank" || r.path == "/v1/rerank" || r.path == "/v2/rerank" || r.path == "/predict") {
      out.push_back(std::move(r));
    }
  }
  return out;
}

void RerankTestServer::Handle(const httplib::Request& req, httplib::Response& res) {
  const Shape shape = req.path == "/rerank" ? Shape::kTei : req.path == "/v1/rerank" ? Shape::kJina : Shape::kCohereV2;
  const json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) return Reject(shape, res, "request body is not a JSON object");
  const char* list_key = shape == Shape::kTei ? "texts" : "documents";
  if (shape != Shape::kTei) {
    auto m = body.find("model");
    if (m == body.end() || !m->is_string() || m->get<std::string>().empty()) {
      return Reject(shape, res, "model is required");
    }
  }
  auto q = body.find("query");
  if (q == body.end() || !q->is_string() || q->get<std::string>().empty()) {
    return Reject(shape, res, "query must be a non-empty string");
  }
  auto list = body.find(list_key);
  if (list == body.end() || !list->is_array() || list->empty()) {
    return Reject(shape, res, std::string(list_key) + " must be a non-empty array of strings");
  }
  std::vector<std::string> texts;
  for (const json& t : *list) {
    if (!t.is_string() || t.get<std::string>().empty()) {
      return Reject(shape, res, std::string(list_key) + " must contain non-empty strings");
    }
    texts.push_back(t.get<std::string>());
  }
  size_t top_n = texts.size();
  if (auto t = body.find("top_n"); shape != Shape::kTei && t != body.end()) {
    if (!t->is_number_integer() || t->get<int64_t>() < 1) return Reject(shape, res, "top_n must be a positive integer");
    top_n = std::min<size_t>(top_n, t->get<uint64_t>());
  }
  const bool raw = shape == Shape::kTei && body.value("raw_scores", false);
  ModelDelay(texts.size());

  const std::string query = q->get<std::string>();
  std::vector<double> scores;
  for (const std::string& t : texts) {
    const double s = OverlapScore(query, t);
    scores.push_back(raw ? 10.0 * s - 5.0 : s);
  }
  std::vector<size_t> order(texts.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return scores[a] != scores[b] ? scores[a] > scores[b] : a > b;
  });
  order.resize(top_n);

  const RerankAnswerFault fault = PopAnswerFault();
  const char* score_key = shape == Shape::kTei ? "score" : "relevance_score";
  constexpr double kNonFiniteMarker = 123456.5;
  json items = json::array();
  for (size_t i : order) {
    json item = {{"index", i}, {score_key, scores[i]}};
    if (shape == Shape::kJina) item["document"] = {{"text", texts[i]}};
    items.push_back(std::move(item));
  }
  switch (fault) {
    case RerankAnswerFault::kNone:
      break;
    case RerankAnswerFault::kMissingIndex: {
      const size_t last = texts.size() - 1;
      items.erase(std::remove_if(items.begin(), items.end(), [&](const json& it) { return it["index"] == last; }),
                  items.end());
      break;
    }
    case RerankAnswerFault::kDuplicateIndex:
      if (items.size() > 1) items.back()["index"] = items.front()["index"];
      break;
    case RerankAnswerFault::kOutOfRangeIndex:
      items.front()["index"] = texts.size();
      break;
    case RerankAnswerFault::kNonFiniteScore:
      items.front()[score_key] = kNonFiniteMarker;
      break;
    case RerankAnswerFault::kStringScore:
      items.front()[score_key] = "0.5";
      break;
    case RerankAnswerFault::kWrongShape:
      break;
  }
  json out;
  if (shape == Shape::kTei) {
    out = fault == RerankAnswerFault::kWrongShape ? json{{"results", json::array()}} : items;
  } else if (fault == RerankAnswerFault::kWrongShape) {
    out = items;
  } else if (shape == Shape::kJina) {
    out = {{"model", body["model"]}, {"results", std::move(items)}, {"usage", {{"total_tokens", 0}}}};
  } else {
    out = {{"id", "test"}, {"results", std::move(items)}, {"meta", {{"billed_units", {{"search_units", 1}}}}}};
  }
  std::string text = out.dump();
  if (fault == RerankAnswerFault::kNonFiniteScore) {
    const std::string marker = json(kNonFiniteMarker).dump();
    if (const size_t at = text.find(marker); at != std::string::npos) text.replace(at, marker.size(), "1e400");
  }
  res.status = 200;
  res.set_content(text, "application/json");
}

}  // namespace attest::testing_support
