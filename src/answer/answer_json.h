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

}  // namespace attest
