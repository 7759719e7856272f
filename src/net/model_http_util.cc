#include "net/model_http_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <thread>

#include <nlohmann/json.hpp>

namespace attest {
namespace {

using nlohmann::json;

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

}  // namespace

bool IsRetryableHttpStatus(int status) { return status == 429 || (status >= 500 && status <= 599); }

StatusCode StatusCodeForHttpStatus(int status) {
  if (status == 404) return StatusCode::kNotFound;
  if (status == 413 || status == 429) return StatusCode::kResourceExhausted;
  if (status >= 500) return StatusCode::kIOError;
  return StatusCode::kInvalidArgument;
}

std::optional<int64_t> ServerRetryDelayMs(const HttpResponse& response) {
  auto parse = [](std::string_view v) -> std::optional<double> {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    double x = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(x) || x < 0) return std::nullopt;
    return x;
  };
  if (auto ms = response.Header("retry-after-ms")) {
    if (auto x = parse(*ms)) return static_cast<int64_t>(std::min(*x, 1e12));
  }
  if (auto s = response.Header("retry-after")) {
    if (auto x = parse(*s)) return static_cast<int64_t>(std::min(*x, 1e9) * 1000.0);
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


std::string EscapeForDataBlock(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size() + 16);
  for (char c : json_text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

RetryBackoff::RetryBackoff(int64_t initial_ms, int64_t max_ms, std::function<void(std::chrono::milliseconds)> sleep)
    : initial_ms_(initial_ms), max_ms_(max_ms), sleep_(std::move(sleep)), rng_(std::random_device{}()) {}

std::chrono::milliseconds RetryBackoff::Delay(uint32_t attempt) const {
  double base = static_cast<double>(initial_ms_) * std::pow(2.0, std::min<uint32_t>(attempt, 40));
  base = std::min(base, static_cast<double>(max_ms_));
  MutexLock lock(mu_);
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return std::chrono::milliseconds(static_cast<int64_t>(base * jitter(rng_)));
}

void RetryBackoff::Sleep(std::chrono::milliseconds delay) const {
  if (sleep_) {
    sleep_(delay);
  } else if (delay.count() > 0) {
    std::this_thread::sleep_for(delay);
  }
}

}  // namespace attest
