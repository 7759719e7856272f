#include "support/openai_test_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace attest::testing_support {
namespace {

using nlohmann::json;

// Marker written into a row and replaced textually so the body carries a number JSON can hold
// (1e39) but a float cannot.
constexpr double kNonFiniteMarker = 123456.5;

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string RecordedRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

std::vector<float> OpenAiTestServer::HashEmbedding(std::string_view text, uint32_t dim) {
  std::vector<float> v(dim, 0.0f);
  std::string word;
  auto flush = [&] {
    if (word.empty() || dim == 0) return;
    v[Fnv1a(word) % dim] += 1.0f;
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80)) {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else {
      flush();
    }
  }
  flush();
  double sum = 0;
  for (float x : v) sum += double(x) * x;
  if (sum > 0) {
    const float inv = float(1.0 / std::sqrt(sum));
    for (float& x : v) x *= inv;
  }
  return v;
}

void OpenAiTestServer::SetError(httplib::Response& res, int status, const std::string& message,
                                const std::string& type) {
  res.status = status;
  json body = {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}};
  res.set_content(body.dump(), "application/json");
}

OpenAiTestServer::OpenAiTestServer(OpenAiTestServerOptions options)
    : options_(std::move(options)), shuffle_(options_.shuffle_response) {
  routes_["POST /v1/embeddings"] = [this](const httplib::Request& req, const OpenAiFault& fault,
                                          httplib::Response& res) { HandleEmbeddings(req, fault, res); };
  auto dispatch = [this](const httplib::Request& req, httplib::Response& res) { Dispatch(req, res); };
  server_.Get(R"(/.*)", dispatch);
  server_.Post(R"(/.*)", dispatch);
  server_.Put(R"(/.*)", dispatch);
  server_.Delete(R"(/.*)", dispatch);
  server_.set_keep_alive_timeout(1);
  // httplib writes headers and body separately; without TCP_NODELAY each answer can wait for the
  // client's delayed ACK (~40 ms).
  server_.set_socket_options([](int sock) {
    httplib::default_socket_options(sock);
    int one = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("OpenAiTestServer: cannot bind 127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // httplib's stop() is a no-op until the accept loop runs, so a server destroyed right away
  // would never stop: wait for the loop (it starts within microseconds).
  for (int i = 0; i < 5000 && !server_.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

OpenAiTestServer::~OpenAiTestServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

void OpenAiTestServer::AddRoute(const std::string& method, const std::string& path, RouteHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_[method + " " + path] = std::move(handler);
}

void OpenAiTestServer::PushFault(const OpenAiFault& fault, int times) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < times; ++i) faults_.push_back(fault);
}

void OpenAiTestServer::set_shuffle_response(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  shuffle_ = on;
}

std::vector<RecordedRequest> OpenAiTestServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

size_t OpenAiTestServer::request_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_.size();
}

void OpenAiTestServer::ClearRequests() {
  std::lock_guard<std::mutex> lock(mu_);
  requests_.clear();
}

void OpenAiTestServer::Delay(int ms) {
  if (ms <= 0) return;
  std::unique_lock<std::mutex> lock(mu_);
  stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
}

void OpenAiTestServer::Dispatch(const httplib::Request& req, httplib::Response& res) {
  RecordedRequest rec;
  rec.method = req.method;
  rec.path = req.path;
  for (const auto& [name, value] : req.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    rec.headers.emplace(std::move(lower), value);
  }
  rec.body = req.body;
  rec.json = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (rec.json.is_discarded()) rec.json = nullptr;

  OpenAiFault fault;
  RouteHandler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(std::move(rec));
    if (!faults_.empty()) {
      fault = faults_.front();
      faults_.pop_front();
    }
    auto it = routes_.find(req.method + " " + req.path);
    if (it != routes_.end()) handler = it->second;
  }
  Delay(fault.delay_ms);
  if (!fault.retry_after.empty()) res.set_header("Retry-After", fault.retry_after);
  if (fault.status != 200) {
    if (fault.body.empty()) {
      SetError(res, fault.status, "injected fault: HTTP " + std::to_string(fault.status),
               fault.status == 429 ? "rate_limit_error" : fault.status >= 500 ? "server_error" : "invalid_request_error");
    } else {
      res.status = fault.status;
      res.set_content(fault.body, "application/json");
    }
    return;
  }
  if (!fault.body.empty()) {
    res.status = 200;
    res.set_content(fault.body, "application/json");
    return;
  }
  if (fault.malformed_json) {
    res.status = 200;
    res.set_content(R"({"object": "list", "data": [{"index": 0, "embedding": [0.1, )", "application/json");
    return;
  }
  if (!handler) {
    SetError(res, 404, "unknown route " + req.method + " " + req.path, "not_found_error");
    return;
  }
  handler(req, fault, res);
}

void OpenAiTestServer::HandleEmbeddings(const httplib::Request& req, const OpenAiFault& fault,
                                        httplib::Response& res) {
  if (!options_.required_api_key.empty() &&
      req.get_header_value("Authorization") != "Bearer " + options_.required_api_key) {
    SetError(res, 401, "Incorrect API key provided.", "invalid_request_error");
    return;
  }
  const json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    SetError(res, 400, "We could not parse the JSON body of your request.");
    return;
  }
  if (!body.contains("model") || !body["model"].is_string() || body["model"].get<std::string>().empty()) {
    SetError(res, 400, "you must provide a model parameter");
    return;
  }
  if (body.contains("encoding_format") && body["encoding_format"] != "float") {
    SetError(res, 400, "this test server only supports encoding_format \"float\"");
    return;
  }
  std::vector<std::string> inputs;
  const json& input = body.contains("input") ? body["input"] : json();
  if (input.is_string()) {
    inputs.push_back(input.get<std::string>());
  } else if (input.is_array() && !input.empty()) {
    for (const json& x : input) {
      if (!x.is_string()) {
        SetError(res, 400, "'$.input' is invalid: items must be strings");
        return;
      }
      inputs.push_back(x.get<std::string>());
    }
  } else {
    SetError(res, 400, "'$.input' is invalid: expected a string or a non-empty array of strings");
    return;
  }
  for (const std::string& s : inputs) {
    if (s.empty()) {
      SetError(res, 400, "'$.input' is invalid: input cannot be an empty string");
      return;
    }
  }
  const uint32_t dim = fault.wrong_dim > 0 ? fault.wrong_dim : options_.dim;
  std::vector<size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  bool shuffle = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shuffle = shuffle_;
  }
  if (shuffle) {
    std::mt19937 rng(1234);
    std::shuffle(order.begin(), order.end(), rng);
    if (order.size() > 1 && std::is_sorted(order.begin(), order.end())) std::reverse(order.begin(), order.end());
  }
  json data = json::array();
  for (size_t i : order) {
    json embedding = HashEmbedding(inputs[i], dim);
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(embedding)}});
  }
  for (uint32_t k = 0; k < fault.missing_items && !data.empty(); ++k) data.erase(data.size() - 1);
  if (fault.duplicate_index && data.size() > 1) data.back()["index"] = data.front()["index"];
  if (fault.non_finite && !data.empty()) data.front()["embedding"][0] = kNonFiniteMarker;
  json out = {{"object", "list"},
              {"data", std::move(data)},
              {"model", body["model"]},
              {"usage", {{"prompt_tokens", 0}, {"total_tokens", 0}}}};
  std::string text = out.dump();
  if (fault.non_finite) {
    const std::string marker = json(kNonFiniteMarker).dump();
    const size_t at = text.find(marker);
    if (at != std::string::npos) text.replace(at, marker.size(), "1e39");
  }
  res.status = 200;
  res.set_content(text, "application/json");
}

}  // namespace attest::testing_support
