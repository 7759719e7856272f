// The answer's JSON form and its evidence manifest (docs/answer.md, "Output" and "Manifest"). Every
// text that leaves here has passed the output link policy (answer/output_sanitizer.h): SealManifest
// sanitizes the finished result, and the JSON forms sanitize their fields again for callers that
// build them from other data (search hits).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <optional>

#include <nlohmann/json.hpp>

#include "answer/answer_json.h"
#include "answer/answer_pipeline.h"
#include "answer/output_sanitizer.h"
#include "common/checksum.h"

namespace attest {
namespace {

constexpr const char* kPipelineVersion = "answer-pipeline/1";

std::string HmacSha256Hex(const std::string& key, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out, &len);
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < len; ++i) {
    hex.push_back(kHex[out[i] >> 4]);
    hex.push_back(kHex[out[i] & 15]);
  }
  return hex;
}

}  // namespace

namespace {

// The JSON forms below, of parts that already passed the link policy (`sealed`) or not.
nlohmann::json HitJsonOf(const SearchHit& hit, bool sealed) {
  std::optional<SearchHit> copy;
  if (!sealed) SanitizeHit(&copy.emplace(hit));
  const SearchHit& h = sealed ? hit : *copy;
  nlohmann::json j = {{"doc_id", h.doc_id}, {"chunk_id", h.chunk_id.get()}, {"score", h.score}, {"title", h.title},
                      {"url", h.url},       {"site", h.site},         {"date", h.date},   {"version", h.version},
                      {"source_type", h.source_type}, {"snippet", h.snippet}};
  if (!h.license.empty()) j["license"] = h.license;
  return j;
}

nlohmann::json ClaimJsonOf(const AnswerClaim& c, bool sealed) {
  auto clean = [sealed](const std::string& text) { return sealed ? text : SanitizeLinks(text); };
  nlohmann::json cites = nlohmann::json::array();
  for (const auto& x : c.cites) cites.push_back({{"source", x.source}, {"quote", clean(x.quote)}});
  nlohmann::json j = {{"id", c.id}, {"text", clean(c.text)}, {"cites", cites}, {"verdict", c.verdict},
                      {"reason", clean(c.reason)}, {"kept", c.kept}};
  if (!c.version_label.empty()) j["version_label"] = c.version_label;
  return j;
}

nlohmann::json SourceJsonOf(const AnswerSource& source, bool sealed) {
  std::optional<AnswerSource> copy;
  if (!sealed) SanitizeSource(&copy.emplace(source));
  const AnswerSource& s = sealed ? source : *copy;
  nlohmann::json j = {{"id", s.id},         {"doc_id", s.doc_id},   {"chunk_id", s.chunk_id.get()},
                      {"title", s.title},   {"site", s.site},       {"url", s.url},
                      {"date", s.date},     {"version", s.version}, {"source_type", s.source_type},
                      {"authority", s.authority}, {"text", s.text}, {"score", s.score},
                      {"cited", s.cited},   {"flagged", s.flagged}};
  if (s.flagged) j["flag_reason"] = s.flag_reason;
  if (!s.subject.empty()) j["subject"] = s.subject;
  j["fetched_at"] = s.fetched_at;
  if (!s.license.empty()) j["license"] = s.license;
  return j;
}

}  // namespace

nlohmann::json HitJson(const SearchHit& hit) { return HitJsonOf(hit, false); }
nlohmann::json SanitizedHitJson(const SearchHit& hit) { return HitJsonOf(hit, true); }
nlohmann::json ClaimJson(const AnswerClaim& c) { return ClaimJsonOf(c, false); }
nlohmann::json SourceJson(const AnswerSource& source) { return SourceJsonOf(source, false); }

nlohmann::json FreshnessJson(const AnswerResult& r) {
  const LiveFetchReport& l = r.live_fetch;
  nlohmann::json live = {{"decision", l.decision}, {"detail", l.detail},       {"urls", l.urls},
                         {"attempted", l.attempted}, {"succeeded", l.succeeded}, {"refreshed", l.refreshed},
                         {"unchanged", l.unchanged}, {"failed", l.failed},       {"failures", l.failures},
                         {"refreshed_ids", l.refreshed_ids}, {"ms", l.ms}};
  return {{"as_of", r.as_of},
          {"index_lag_seconds", r.freshness.index_lag_seconds},
          {"newest_source_date", r.freshness.newest_source_date},
          {"newest_source", r.freshness.newest_source},
          {"newest_fetched_at", r.freshness.newest_fetched_at},
          {"live_fetch", live}};
}

void SealManifest(const AskOptions& options, AnswerResult* r) {
  // What is sealed is what is shown: the output link policy first (the manifest's text hashes are
  // of the sanitized source text).
  SanitizeAnswer(r);
  nlohmann::json sources = nlohmann::json::array();
  for (size_t i = 0; i < r->sources.size(); ++i) {
    const AnswerSource& s = r->sources[i];
    sources.push_back({{"id", s.id}, {"doc_id", s.doc_id}, {"chunk_id", s.chunk_id.get()}, {"rank", i + 1},
                       {"text_sha256", Sha256Hex(s.text)}, {"cited", s.cited}});
  }
  nlohmann::json claims = nlohmann::json::array();
  for (const AnswerClaim& c : r->claims) claims.push_back(ClaimJsonOf(c, /*sealed=*/true));  // sanitized above
  nlohmann::json plan = r->plan_json.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(r->plan_json, nullptr, false);
  nlohmann::json m = {{"format", "attest-manifest/1"},
                      {"question", options.question},
                      {"tenant", options.filter.tenant},
                      {"plan", plan},
                      {"outcome", AnswerOutcomeName(r->outcome)},
                      {"fallback_reason", r->fallback_reason},
                      {"answer", r->text},
                      {"sources", sources},
                      {"claims", claims},
                      {"snapshot_version", r->snapshot_version},
                      {"as_of", r->as_of},
                      {"components", {{"attest", ATTEST_VERSION}, {"pipeline", kPipelineVersion}}}};
  if (!r->cluster_snapshot.empty()) m["cluster_snapshot"] = r->cluster_snapshot;
  r->manifest_json = m.dump();  // nlohmann orders object keys: a canonical form
  r->manifest_sha256 = Sha256Hex(r->manifest_json);
  r->manifest_hmac = options.manifest_key.empty() ? "" : HmacSha256Hex(options.manifest_key, r->manifest_json);
}

Status VerifyManifest(const std::string& manifest_json, const std::string& sha256, const std::string& hmac,
                      const std::string& key) {
  nlohmann::json m = nlohmann::json::parse(manifest_json, nullptr, false);
  if (!m.is_object() || !m.contains("format") || m["format"] != "attest-manifest/1") {
    return Status::Corruption("not an attest-manifest/1 document");
  }
  if (m.dump() != manifest_json) return Status::Corruption("manifest is not in canonical form (it was re-encoded)");
  const std::string actual = Sha256Hex(manifest_json);
  if (actual != sha256) return Status::Corruption("manifest SHA-256 is " + actual + ", the record says " + sha256);
  if (!key.empty()) {
    if (hmac.empty()) return Status::Corruption("manifest is unsigned but a key was given");
    const std::string expected = HmacSha256Hex(key, manifest_json);
    if (expected.size() != hmac.size() || CRYPTO_memcmp(expected.data(), hmac.data(), hmac.size()) != 0) {
      return Status::Corruption("manifest HMAC does not match: wrong key or modified manifest");
    }
  }
  return Status::Ok();
}

nlohmann::json StageCostJson(const StageCost& c) {
  return {{"searches", c.searches},         {"fetches", c.fetches},
          {"rerank_pairs", c.rerank_pairs}, {"model_calls", c.model_calls},
          {"prompt_tokens", c.prompt_tokens}, {"completion_tokens", c.completion_tokens},
          {"cost", c.cost}};
}

nlohmann::json ResearchJson(const ResearchReport& r) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const ResearchRound& round : r.rounds) {
    rounds.push_back({{"round", round.round},
                      {"queries", round.queries},
                      {"decided_by", round.decided_by},
                      {"reason", round.reason},
                      {"model_fallback", round.model_fallback},
                      {"new_documents", round.new_documents},
                      {"documents", round.documents},
                      {"cost", StageCostJson(round.cost)},
                      {"ms", round.ms}});
  }
  return {{"limits", {{"max_hops", r.limits.max_hops}, {"max_cost", r.limits.max_cost}, {"max_ms", r.limits.max_ms}}},
          {"rounds", rounds},
          {"stop", r.stop},
          {"hops", r.hops},
          {"cost", r.cost},
          {"ms", r.ms}};
}

nlohmann::json StageCostsJson(const AnswerResult& r) {
  nlohmann::json stages = nlohmann::json::object();
  for (const auto& [stage, c] : r.stage_costs) stages[stage] = StageCostJson(c);
  return stages;
}

nlohmann::json AnswerJson(const AnswerResult& r, bool sealed) {
  nlohmann::json claims = nlohmann::json::array(), sources = nlohmann::json::array(),
                 results = nlohmann::json::array();
  for (const auto& c : r.claims) claims.push_back(ClaimJsonOf(c, sealed));
  for (const auto& s : r.sources) sources.push_back(SourceJsonOf(s, sealed));
  for (const auto& h : r.results) results.push_back(HitJsonOf(h, sealed));
  nlohmann::json j = {{"outcome", AnswerOutcomeName(r.outcome)},
                      {"answer", sealed ? r.text : SanitizeLinks(r.text)},
                      {"claims", claims},
                      {"sources", sources},
                      {"results", results},
                      {"warnings", r.warnings},
                      {"degraded", r.degraded},
                      {"resolved_version", r.resolved_version},
                      {"resolved_version_date", r.resolved_version_date},
                      {"standalone", r.standalone},
                      {"snapshot_version", r.snapshot_version},
                      {"as_of", r.as_of},
                      {"freshness", FreshnessJson(r)},
                      {"timings_ms", r.timings_ms},
                      {"dropped_claims", r.dropped_claims},
                      {"tokens", {{"prompt", r.prompt_tokens}, {"completion", r.completion_tokens}}},
                      {"cost", r.cost},
                      {"stage_costs", StageCostsJson(r)},
                      {"mode", AnswerModeName(r.mode)},
                      {"tier", r.tier},
                      {"blocked_citations", r.blocked_citations},
                      {"manifest", {{"sha256", r.manifest_sha256}, {"hmac", r.manifest_hmac}}}};
  if (r.outcome == AnswerOutcome::kFallback) j["fallback_reason"] = r.fallback_reason;
  if (!r.hops.empty()) {
    nlohmann::json hops = nlohmann::json::array();
    for (const auto& h : r.hops) {
      hops.push_back({{"id", h.id}, {"query", h.query}, {"value", h.value}, {"doc_id", h.doc_id},
                      {"sentence", h.sentence}, {"supported", h.supported}});
    }
    j["hops"] = hops;
  }
  if (!r.verdict.empty()) j["verdict"] = r.verdict;
  if (!r.cluster_snapshot.empty()) j["cluster_snapshot"] = r.cluster_snapshot;
  if (r.research.ran) j["research"] = ResearchJson(r.research);
  if (r.overview.built) {
    nlohmann::json topics = nlohmann::json::array();
    for (const OverviewTopic& t : r.overview.topics) {
      topics.push_back({{"label", sealed ? t.label : SanitizeLinks(t.label)}, {"sources", t.sources},
                        {"doc_ids", t.doc_ids}});
    }
    j["overview"] = {{"topics", topics},
                     {"viewpoints", r.overview.viewpoints},
                     {"sources", r.overview.sources},
                     {"coverage", r.overview.coverage}};
  }
  if (!r.tier_reason.empty()) j["tier_reason"] = r.tier_reason;
  if (r.answerability.computed) {
    j["answerability"] = {{"score", r.answerability.score},
                          {"threshold", r.answerability.threshold},
                          {"claim", r.answerability.claim_id},
                          {"parts", r.answerability.parts},
                          {"reason", r.answerability.reason}};
  }
  j["plan"] = r.plan_json.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(r.plan_json, nullptr, false);
  return j;
}

std::string AnswerToJson(const AnswerResult& r, int indent) {
  return AnswerJson(r, /*sealed=*/false).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace attest
