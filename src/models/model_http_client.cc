#include "models/model_http_client.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <limits>
#include <locale>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/json_guard.h"
#include "common/strings.h"

namespace attest {
namespace {

using nlohmann::json;

constexpr uint32_t kMaxRetries = 20;
constexpr int kMaxErrorJsonDepth = 32;
constexpr size_t kSnippetBytes = 200;
constexpr size_t kMessageBytes = 1000;

// Up to `n` bytes of `s`, cut at a UTF-8 boundary, with control characters replaced by spaces.
std::string Snippet(std::string_view s, size_t n) {
  if (s.size() > n) {
    size_t cut = n;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut);
  }
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out;
}

const std::string* StringField(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

bool IsRetryableHttpStatus(int status) { return status == 429 || (status >= 500 && status <= 599); }

std::optional<double> ParseNonNegative(std::string_view v) {
  v = Trim(v, kHttpWhitespace);
  double x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(x) || x < 0) return std::nullopt;
  return x;
}

// An IMF-fixdate ("Wed, 21 Oct 2015 07:28:00 GMT", RFC 9110 section 5.6.7), else nullopt.
std::optional<std::chrono::system_clock::time_point> ParseHttpDate(std::string_view v) {
  v = Trim(v, kHttpWhitespace);
  std::istringstream in{std::string(v)};
  in.imbue(std::locale::classic());
  std::tm tm{};
  in >> std::get_time(&tm, "%a, %d %b %Y %H:%M:%S");
  std::string zone;
  in >> zone;
  if (in.fail() || zone != "GMT") return std::nullopt;
  const time_t t = timegm(&tm);
  if (t == static_cast<time_t>(-1)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

}  // namespace

Result<std::string> ResolveModelUrl(std::string_view client, std::string_view base_url, const ModelPath& path) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(std::string(client) + ": base_url \"" + RedactUrl(base_url) + "\" " + why);
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
  if (url.ends_with(path.full_suffix)) return std::string(url);
  if (!path.version.empty() && url.ends_with(path.version)) url.remove_suffix(path.version.size());
  return std::string(url) + std::string(path.version) + std::string(path.route);
}

Status ValidateModelEndpoint(std::string_view client, const ModelEndpoint& o) {
  auto bad = [&](const std::string& m) { return Status::InvalidArgument(std::string(client) + ": " + m); };
  if (o.model.empty()) return bad("model must not be empty");
  for (char c : o.model) {
    if (static_cast<unsigned char>(c) < 0x20) return bad("model name contains a control character");
  }
  if (o.api_key.find_first_of("\r\n") != std::string::npos) return bad("the API key contains a line break");
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

std::optional<int64_t> ServerRetryDelayMs(const HttpResponse& response, std::chrono::system_clock::time_point now) {
  if (auto ms = response.Header("retry-after-ms")) {
    if (auto x = ParseNonNegative(*ms)) return static_cast<int64_t>(std::min(*x, 1e12));
  }
  if (auto s = response.Header("retry-after")) {
    if (auto x = ParseNonNegative(*s)) return static_cast<int64_t>(std::min(*x, 1e9) * 1000.0);
    if (auto date = ParseHttpDate(*s)) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*date - now).count();
      return std::max<int64_t>(0, ms);
    }
  }
  return std::nullopt;
}

std::string ExtractHttpErrorMessage(std::string_view body) {
  if (!JsonNestingExceeds(body, kMaxErrorJsonDepth)) {
    const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.is_object()) {
      auto err = j.find("error");
      if (err != j.end() && err->is_object()) {
        if (const std::string* m = StringField(*err, "message")) {
          const std::string* t = StringField(*err, "type");
          return (t != nullptr && !t->empty() ? Snippet(*t, 100) + ": " : std::string()) + Snippet(*m, kMessageBytes);
        }
      } else if (err != j.end() && err->is_string()) {
        return Snippet(err->get_ref<const std::string&>(), kMessageBytes);
      }
      if (const std::string* m = StringField(j, "message")) return Snippet(*m, kMessageBytes);
      auto detail = j.find("detail");
      if (detail != j.end() && detail->is_string()) {
        return Snippet(detail->get_ref<const std::string&>(), kMessageBytes);
      }
      if (detail != j.end() && detail->is_array() && !detail->empty() && (*detail)[0].is_object()) {
        if (const std::string* m = StringField((*detail)[0], "msg")) return Snippet(*m, kMessageBytes);
      }
    }
  }
  if (body.empty()) return "(empty body)";
  return Snippet(body, kSnippetBytes);
}

Status ModelHttpStatus(std::string_view where, const HttpResponse& response, std::string_view tries,
                       std::chrono::system_clock::time_point now) {
  const int status = response.status;
  std::string message = std::string(where) + ": HTTP " + std::to_string(status) + std::string(tries) + ": " +
                        ExtractHttpErrorMessage(response.body);
  if (status == 429 || status == 503) {
    int seconds = 0;
    if (auto ms = ServerRetryDelayMs(response, now)) {
      seconds = static_cast<int>(std::min<int64_t>((*ms + 999) / 1000, std::numeric_limits<int>::max()));
    }
    return Status::Unavailable(std::move(message), seconds);
  }
  if (status >= 400 && status <= 499) {
    message += " (the model server refused the request: check the endpoint, the model name and the key)";
  }
  return Status::UpstreamError(std::move(message));
}

Status ModelTransportStatus(HttpFailure failure, const Status& error, std::string_view tries) {
  std::string message = error.message() + std::string(tries);
  switch (failure) {
    case HttpFailure::kTimeout: return Status::DeadlineExceeded(std::move(message));
    case HttpFailure::kDns:
    case HttpFailure::kConnect:
    case HttpFailure::kTransfer: return Status::Unavailable(std::move(message));
    case HttpFailure::kAborted: return Status::Cancelled(std::move(message));
    default: return Status::UpstreamError(std::move(message));  // TLS, oversized answer, bad URL, other
  }
}

Result<std::unique_ptr<ModelHttpClient>> ModelHttpClient::Create(std::string_view client, ModelEndpoint endpoint,
                                                                 const ModelPath& path, std::string label) {
  ATTEST_RETURN_IF_ERROR(ValidateModelEndpoint(client, endpoint));
  ATTEST_ASSIGN_OR_RETURN(std::string url, ResolveModelUrl(client, endpoint.base_url, path));
  return std::unique_ptr<ModelHttpClient>(new ModelHttpClient(std::move(endpoint), std::move(url), std::move(label)));
}

ModelHttpClient::ModelHttpClient(ModelEndpoint endpoint, std::string url, std::string label)
    : endpoint_(std::move(endpoint)),
      url_(std::move(url)),
      where_("POST " + RedactUrl(url_) + " (" + label + ")"),
      clock_(endpoint_.clock != nullptr ? endpoint_.clock : RealClock()),
      http_(HttpClientOptions{.max_response_bytes = endpoint_.max_response_bytes}),
      rng_(std::random_device{}()) {}

ModelHttpStats ModelHttpClient::stats() const {
  MutexLock lock(mu_);
  return stats_;
}

Status ModelHttpClient::MalformedAnswer(const Status& error) const {
  return Status::UpstreamError(where_ + ": " + error.message());
}

std::chrono::milliseconds ModelHttpClient::BackoffDelay(uint32_t attempt) const {
  double base = static_cast<double>(endpoint_.backoff_initial_ms) * std::pow(2.0, std::min<uint32_t>(attempt, 40));
  base = std::min(base, static_cast<double>(endpoint_.backoff_max_ms));
  MutexLock lock(mu_);
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return std::chrono::milliseconds(static_cast<int64_t>(base * jitter(rng_)));
}

Result<HttpResponse> ModelHttpClient::Post(const std::string& json_body, ModelCallInfo* info) const {
  return Run(json_body, nullptr, info);
}

Result<HttpResponse> ModelHttpClient::PostStreaming(const std::string& json_body,
                                                    const std::function<ModelStreamConsumer&()>& next_attempt,
                                                    ModelCallInfo* info) const {
  return Run(json_body, &next_attempt, info);
}

Result<HttpResponse> ModelHttpClient::Run(const std::string& json_body,
                                          const std::function<ModelStreamConsumer&()>* next_attempt,
                                          ModelCallInfo* info) const {
  ModelCallInfo local_info;
  ModelCallInfo& ci = info != nullptr ? *info : local_info;
  ci = ModelCallInfo{};
  HttpRequest request;
  request.method = "POST";
  request.url = url_;
  request.headers.push_back({"Content-Type", "application/json"});
  request.headers.push_back({"Accept", next_attempt != nullptr ? "text/event-stream" : "application/json"});
  if (!endpoint_.api_key.empty()) request.headers.push_back({"Authorization", "Bearer " + endpoint_.api_key});
  request.body = json_body;
  request.timeout_ms = endpoint_.timeout_ms;
  request.connect_timeout_ms = endpoint_.connect_timeout_ms;

  const uint32_t attempts = endpoint_.max_retries + 1;
  for (uint32_t attempt = 0;; ++attempt) {
    {
      MutexLock lock(mu_);
      ++stats_.requests;
      if (attempt > 0) ++stats_.retries;
    }
    ci.attempts = attempt + 1;
    ci.http_status = 0;
    const bool last = attempt + 1 >= attempts;
    const std::string tries = attempts == 1 ? "" : " after " + std::to_string(attempt + 1) + " attempts";

    HttpFailure failure = HttpFailure::kNone;
    ModelStreamConsumer* consumer = nullptr;
    Status consumer_status;
    Result<HttpResponse> response = Status::Internal("unset");
    if (next_attempt != nullptr) {
      consumer = &(*next_attempt)();
      const HttpChunkCallback on_chunk = [&](std::string_view chunk) {
        consumer_status = consumer->Consume(chunk);
        return consumer_status.ok();
      };
      response = http_.SendStreaming(request, on_chunk, &failure);
    } else {
      response = http_.Send(request, &failure);
    }
    ci.failure = failure;
    if (!consumer_status.ok()) {
      if (consumer_status.code() == StatusCode::kCancelled) return consumer_status;
      return consumer_status.WithContext(where_);
    }
    const bool committed = consumer != nullptr && consumer->committed();
    if (!response.ok()) {
      const bool transient = IsTransientHttpFailure(failure) && !committed;
      if (!transient || last) {
        Status st = ModelTransportStatus(failure, response.status(), transient ? tries : "");
        if (committed) st = Status(st.code(), st.message() + " (the stream was cut after the answer began)");
        return st;
      }
      clock_->SleepFor(BackoffDelay(attempt));
      continue;
    }
    const int status = response->status;
    ci.http_status = status;
    if (status >= 200 && status < 300) return response;
    const bool retryable = IsRetryableHttpStatus(status);
    if (!retryable || last) return ModelHttpStatus(where_, *response, retryable ? tries : "", clock_->WallNow());
    std::chrono::milliseconds delay = BackoffDelay(attempt);
    if (auto server_ms = ServerRetryDelayMs(*response, clock_->WallNow())) {
      delay = std::chrono::milliseconds(std::min(*server_ms, endpoint_.retry_after_max_ms));
    }
    clock_->SleepFor(delay);
  }
}

}  // namespace attest
