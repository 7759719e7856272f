#include "embed/openai_embedder.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/json_guard.h"

namespace attest {
namespace {

using nlohmann::json;

constexpr uint32_t kMaxBatch = 2048;
constexpr uint32_t kMaxDimension = 65536;
constexpr int kMaxJsonDepth = 64;
constexpr std::string_view kProbeText = "dimension probe";
constexpr std::string_view kClient = "openai embedder";
constexpr ModelPath kEmbeddingsPath{"/v1", "/embeddings", "/v1/embeddings"};

bool IsBlank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

Status ValidateOptions(const OpenAiEmbedderOptions& o) {
  auto bad = [](const std::string& m) { return Status::InvalidArgument(std::string(kClient) + ": " + m); };
  if (o.batch_size < 1 || o.batch_size > kMaxBatch) {
    return bad("batch_size must be in 1.." + std::to_string(kMaxBatch) + ", got " + std::to_string(o.batch_size));
  }
  if (o.dimension > kMaxDimension) {
    return bad("dimension must be at most " + std::to_string(kMaxDimension) + ", got " + std::to_string(o.dimension));
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> ResolveEmbeddingsEndpoint(std::string_view base_url) {
  return ResolveModelUrl(kClient, base_url, kEmbeddingsPath);
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
  const std::string label = "model " + options.endpoint.model;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ModelHttpClient> client,
                          ModelHttpClient::Create(kClient, options.endpoint, kEmbeddingsPath, label));
  std::unique_ptr<OpenAiEmbedder> e(new OpenAiEmbedder(std::move(options), std::move(client)));
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

OpenAiEmbedder::OpenAiEmbedder(OpenAiEmbedderOptions options, std::unique_ptr<ModelHttpClient> client)
    : options_(std::move(options)), client_(std::move(client)) {
  identity_.name = "openai:" + options_.endpoint.model;
  identity_.dim = options_.dimension;
  identity_.version = options_.version;
}

OpenAiEmbedderStats OpenAiEmbedder::stats() const {
  const ModelHttpStats http = client_->stats();
  MutexLock lock(mu_);
  return OpenAiEmbedderStats{.requests = http.requests, .retries = http.retries, .texts = texts_};
}

Status OpenAiEmbedder::EmbedBatch(const std::vector<std::string>& inputs, uint32_t expected_dim,
                                  std::vector<float>* out, uint32_t* got_dim) const {
  const json body = {{"model", options_.endpoint.model}, {"input", inputs}, {"encoding_format", "float"}};
  // Invalid UTF-8 in a text is replaced (U+FFFD) rather than failing the whole batch.
  ATTEST_ASSIGN_OR_RETURN(HttpResponse response,
                          client_->Post(body.dump(-1, ' ', false, json::error_handler_t::replace)));
  Status st = ParseEmbeddingsResponse(response.body, inputs.size(), expected_dim, out, got_dim);
  return st.ok() ? st : client_->MalformedAnswer(st);
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
    texts_ += end - begin;
  }
  return result;
}

}  // namespace attest
