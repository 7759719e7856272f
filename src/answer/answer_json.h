// JSON forms of the answer's parts, shared by `attest ask --json` and the HTTP API.
#pragma once

#include <nlohmann/json.hpp>

#include "attest/answer.h"

namespace attest {

nlohmann::json HitJson(const SearchHit& hit);        // doc_id, chunk_id, score, title, url, ... snippet
nlohmann::json SanitizedHitJson(const SearchHit& hit);  // HitJson of a hit SanitizeHit() has already cleaned
nlohmann::json ClaimJson(const AnswerClaim& claim);  // id, text, cites[{source, quote}], verdict, reason, kept
nlohmann::json SourceJson(const AnswerSource& source);
// as_of, index_lag_seconds, newest_source_date, newest_source, newest_fetched_at, live_fetch{...}
nlohmann::json FreshnessJson(const AnswerResult& result);
// {stage: {searches, fetches, rerank_pairs, model_calls, prompt_tokens, completion_tokens, cost}} (docs/cost.md).
nlohmann::json StageCostsJson(const AnswerResult& result);

// The document AnswerToJson writes, as a JSON value (the HTTP API adds its fields to it instead of
// parsing the text). `sealed`: `result` is as RunAnswer returned it, whose SealManifest applied the
// link policy to every field shown, changed since only by removing parts; its fields are then not
// sanitized again (SanitizeLinks is idempotent: the document is the same, the work is saved).
nlohmann::json AnswerJson(const AnswerResult& result, bool sealed);

}  // namespace attest
