#include "embed/openai_embedder.h"
#include "net/model_http_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

namespace attest {
namespace {

using nlohmann::json;

constexpr uint32_t kMaxBatch = 2048;
constexpr uint32_t kMaxDimension = 65536;
constexpr uint32_t kMaxRetries = 20;
constexpr int kMaxJsonDepth = 64;
constexpr size_t kErrorSnippetBytes = 200;
constexpr std::string_view kProbeText = "dimension probe";



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

bool IsBlank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

StatusCode CodeForHttpStatus(int status) {
  if (status == 404) return StatusCode::kNotFound;
  if (status == 413 || status == 429) return StatusCode::kResourceExhausted;
  if (status >= 500) return StatusCode::kIOError;
  return StatusCode::kInvalidArgument;
}



Status ValidateOptions(const OpenAiEmbedderOptions& o) {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("openai embedder: " + m); };
  if (o.model.empty()) return bad("model must not be empty");
  for (char c : o.model) {
    if (static_cast<unsigned char>(c) < 0x20) return bad("model name contains a control character");
  }
  if (o.batch_size < 1 || o.batch_size > kMaxBatch) {
    return bad("batch_size must be in 1.." + std::to_string(kMaxBatch) + ", got " + std::to_string(o.batch_size));
  }
  if (o.dimension > kMaxDimension) {
    return bad("dimension must be at most " + std::to_string(kMaxDimension) + ", got " + std::to_string(o.dimension));
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

}  // namespace

Result<std::string> ResolveEmbeddingsEndpoint(std::string_view base_url) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("openai embedder: base_url \"" + RedactUrl(base_url) + "\" " + why);
  };
  const size_t sep = base_url.find("://");
  if (sep == std::string_view::npos) return bad("must start with http:// or https://");
  std::string scheme(base_url.substr(0, sep));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  if (scheme != "http" && scheme != "https") return bad("must start with http:// or https://");
  for (char c : base_url) {
    if (static_cast<unsigned char>(c) <= 0x20) return bad("contains whitespace or a control character");
  }
  if (base_url.find_first_of("?#") != std::string_view::npos) return bad("must not contain a query or fragment");
  std::string_view rest = base_url.substr(sep + 3);
  if (rest.empty() || rest.front() == '/') return bad("has no host");
  std::string_view url = base_url;
  while (url.ends_with('/')) url.remove_suffix(1);
  if (url.ends_with("/v1/embeddings")) return std::string(url);
  if (url.ends_with("/v1")) url.remove_suffix(3);
  return std::string(url) + "/v1/embeddings";
}

std::string ExtractApiErrorMessage(std::string_view body) {
  if (!JsonNestingExceeds(body, kMaxJsonDepth)) {
    try {
      const json j = json::parse(body);
      const json* err = j.is_object() && j.contains("error") ? &j["error"] : nullptr;
      if (err != nullptr && err->is_object()) {
        auto m = err->find("message");
        if (m != err->end() && m->is_string()) {
          std::string out;
          auto t = err->find("type");
          if (t != err->end() && t->is_string() && !t->get_ref<const std::string&>().empty()) {
            out = Snippet(t->get_ref<const std::string&>(), 100) + ": ";
          }
          return out + Snippet(m->get_ref<const std::string&>(), 1000);
        }
      } else if (err != nullptr && err->is_string()) {  // {"error": "..."} (Ollama, llama.cpp)
        return Snippet(err->get_ref<const std::string&>(), 1000);
      }
    } catch (const json::exception&) {
      // not JSON: fall through to the raw snippet
    }
  }
  if (body.empty()) return "(empty body)";
  return Snippet(body, kErrorSnippetBytes);
}

Status ParseEmbeddingsResponse(std::string_view body, size_t count, uint32_t expected_dim,
                               std::vector<float>* out, uint32_t* dim) {
  auto corrupt = [](const std::string& m) { return Status::Corruption("embeddings response: " + m); };
  if (JsonNestingExceeds(body, kMaxJsonDepth)) return corrupt("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e400
    return corrupt("malformed JSON: " + CleanJsonErrorMessage(e.what()));
  }
  if (!j.is_object()) return corrupt(std::string("expected a JSON object, got ") + j.type_name());
  auto data_it = j.find("data");
  if (data_it == j.end()) return corrupt("missing \"data\"");
  const json& data = *data_it;
  if (!data.is_array()) return corrupt(std::string("\"data\" must be an array, not ") + data.type_name());
  if (data.size() != count) {
    return corrupt("expected " + std::to_string(count) + " embeddings for " + std::to_string(count) +
                   " inputs, got " + std::to_string(data.size()));
  }
  uint32_t d = expected_dim;
  std::vector<bool> seen(count, false);
  for (size_t item_no = 0; item_no < data.size(); ++item_no) {
    const json& item = data[item_no];
    const std::string where = "data[" + std::to_string(item_no) + "]";
    if (!item.is_object()) return corrupt(where + " must be an object, not " + item.type_name());
    auto index_it = item.find("index");
    if (index_it == item.end()) return corrupt(where + " has no \"index\"");
    if (!index_it->is_number_integer()) return corrupt(where + ".index must be an integer");
    const int64_t index = index_it->get<int64_t>();
    if (index < 0 || static_cast<uint64_t>(index) >= count) {
      return corrupt(where + ".index " + std::to_string(index) + " is out of range 0.." + std::to_string(count - 1));
    }
    if (seen[index]) return corrupt("duplicate index " + std::to_string(index) + " at " + where);
    seen[index] = true;
    auto emb_it = item.find("embedding");
    if (emb_it == item.end()) return corrupt(where + " has no \"embedding\"");
    const json& emb = *emb_it;
    if (!emb.is_array()) {
      return corrupt(where + ".embedding must be an array of numbers, not " + std::string(emb.type_name()) +
                     (emb.is_string() ? " (base64? the client asks for encoding_format \"float\")" : ""));
    }
    if (emb.empty()) return corrupt(where + ".embedding is empty");
    if (d == 0) {
      if (emb.size() > kMaxDimension) {
        return corrupt(where + ".embedding has " + std::to_string(emb.size()) + " dimensions, more than the " +
                       std::to_string(kMaxDimension) + " supported");
      }
      d = static_cast<uint32_t>(emb.size());
    }
    if (emb.size() != d) {
      return Status::InvalidArgument("embeddings response: dimension mismatch: expected " + std::to_string(d) +
                                     ", got " + std::to_string(emb.size()) + " at " + where);
    }
    if (out->size() != count * d) out->assign(count * d, 0.0f);
    float* row = out->data() + static_cast<size_t>(index) * d;
    for (size_t k = 0; k < d; ++k) {
      const json& x = emb[k];
      if (!x.is_number()) {
        return corrupt(where + ".embedding[" + std::to_string(k) + "] must be a number, not " + x.type_name());
      }
      const float f = static_cast<float>(x.get<double>());
      if (!std::isfinite(f)) {
        return corrupt(where + ".embedding[" + std::to_string(k) + "] is not a finite float");
      }
      row[k] = f;
    }
  }
  *dim = d;
  return Status::Ok();
}

Result<std::unique_ptr<OpenAiEmbedder>> OpenAiEmbedder::Create(OpenAiEmbedderOptions options) {
  ATTEST_RETURN_IF_ERROR(ValidateOptions(options));
  ATTEST_ASSIGN_OR_RETURN(std::string endpoint, ResolveEmbeddingsEndpoint(options.base_url));
  std::string api_key;
  if (!options.api_key_env.empty()) {
    if (const char* v = std::getenv(options.api_key_env.c_str()); v != nullptr) api_key = v;
    if (api_key.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("openai embedder: environment variable " + options.api_key_env +
                                     " contains a line break");
    }
  }
  std::unique_ptr<OpenAiEmbedder> e(new OpenAiEmbedder(std::move(options), std::move(endpoint), std::move(api_key)));
  if (e->identity_.dim == 0) {
    std::vector<float> probe;
    uint32_t dim = 0;
    const std::string text = e->options_.document_prefix + std::string(kProbeText);
    Status st = e->EmbedBatch({text}, 0, &probe, &dim);
    if (!st.ok()) return st.WithContext("openai embedder: probing the embedding dimension");
    e->identity_.dim = dim;
  }
  return e;
}

OpenAiEmbedder::OpenAiEmbedder(OpenAiEmbedderOptions options, std::string endpoint, std::string api_key)
    : options_(std::move(options)),
      endpoint_(std::move(endpoint)),
      api_key_(std::move(api_key)),
      http_(HttpClientOptions{.max_response_bytes = options_.max_response_bytes}),
      backoff_(options_.backoff_initial_ms, options_.backoff_max_ms, options_.sleep) {
  identity_.name = "openai:" + options_.model;
  identity_.dim = options_.dimension;
  identity_.version = options_.version;
}

OpenAiEmbedderStats OpenAiEmbedder::stats() const {
  MutexLock lock(mu_);
  return stats_;
}



Status OpenAiEmbedder::EmbedBatch(const std::vector<std::string>& inputs, uint32_t expected_dim,
                                  std::vector<float>* out, uint32_t* got_dim) const {
  json body = {{"model", options_.model}, {"input", inputs}, {"encoding_format", "float"}};
  HttpRequest request;
  request.method = "POST";
  request.url = endpoint_;
  request.headers.push_back({"Content-Type", "application/json"});
  request.headers.push_back({"Accept", "application/json"});
  if (!api_key_.empty()) request.headers.push_back({"Authorization", "Bearer " + api_key_});
  // Invalid UTF-8 in a text is replaced (U+FFFD) rather than failing the whole batch.
  request.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  request.timeout_ms = options_.timeout_ms;
  request.connect_timeout_ms = options_.connect_timeout_ms;

  const uint32_t attempts = options_.max_retries + 1;
  const std::string where = "POST " + RedactUrl(endpoint_);
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
      if (!IsTransientHttpFailure(failure) || last) {
        const Status& st = response.status();
        return Status(st.code(), st.message() + (IsTransientHttpFailure(failure) ? tries : ""));
      }
      backoff_.Sleep(backoff_.Delay(attempt));
      continue;
    }
    const int status = response->status;
    if (status >= 200 && status < 300) {
      Status st = ParseEmbeddingsResponse(response->body, inputs.size(), expected_dim, out, got_dim);
      if (!st.ok()) return st.WithContext(where + " (model " + options_.model + ")");
      return Status::Ok();
    }
    if (!IsRetryableHttpStatus(status) || last) {
      return Status(CodeForHttpStatus(status), where + ": HTTP " + std::to_string(status) +
                                                   (IsRetryableHttpStatus(status) ? tries : "") + ": " +
                                                   ExtractApiErrorMessage(response->body));
    }
    std::chrono::milliseconds delay = backoff_.Delay(attempt);
    if (auto server_ms = ServerRetryDelayMs(*response)) {
      delay = std::chrono::milliseconds(std::min(*server_ms, options_.retry_after_max_ms));
    }
    backoff_.Sleep(delay);
  }
}

Result<std::vector<float>> OpenAiEmbedder::Embed(std::span<const std::string_view> texts,
                                                 EmbedPurpose purpose) const {
  const uint32_t dim = identity_.dim;
  std::vector<float> result(texts.size() * dim, 0.0f);
  const std::string& prefix = purpose == EmbedPurpose::kQuery ? options_.query_prefix : options_.document_prefix;
  // Rows that need the server: texts with content, or any text when a prefix is configured.
  std::vector<size_t> rows;
  rows.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!prefix.empty() || !IsBlank(texts[i])) rows.push_back(i);
  }
  std::vector<std::string> inputs;
  std::vector<float> batch_out;
  for (size_t begin = 0; begin < rows.size(); begin += options_.batch_size) {
    const size_t end = std::min(rows.size(), begin + options_.batch_size);
    inputs.clear();
    for (size_t r = begin; r < end; ++r) inputs.push_back(prefix + std::string(texts[rows[r]]));
    uint32_t got_dim = 0;
    batch_out.clear();
    Status st = EmbedBatch(inputs, dim, &batch_out, &got_dim);
    if (!st.ok()) {
      return st.WithContext("embedding texts " + std::to_string(rows[begin]) + ".." + std::to_string(rows[end - 1]) +
                            " of " + std::to_string(texts.size()));
    }
    for (size_t r = begin; r < end; ++r) {
      float* dst = result.data() + rows[r] * dim;
      std::copy_n(batch_out.data() + (r - begin) * dim, dim, dst);
      NormalizeL2(std::span<float>(dst, dim));
    }
    MutexLock lock(mu_);
    stats_.texts += end - begin;
  }
  return result;
}

}  // namespace attest
