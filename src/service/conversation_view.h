// What is remembered of an answer, and how a remembered answer is shown again (docs/http_api.md,
// "Threads"; the summary's fields in docs/conversations.md).
//
// A summary keeps the claims with their quotes, the source cards without passage text, and the
// result list's chunk ids: enough to show an earlier turn and to decide who may flag it, never the
// documents themselves. Showing it again re-checks every source for the caller at the latest
// snapshot (Engine::CheckCitations, as at render time): a source deleted or no longer readable is
// not shown, and a claim citing it is withdrawn.
//
// Thread-safety: pure functions (the engine is only read).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "attest/engine.h"
#include "service/conversation_store.h"

namespace attest::service {

// The summary of an answer body as rendered by the service (the JSON of AnswerToJson plus ids).
nlohmann::json AnswerSummary(const nlohmann::json& body);

// Every chunk the answer showed (its sources and its result list), for the feedback check.
std::vector<CitedChunk> ShownChunks(const nlohmann::json& summary);

// The earlier turns as shown to `who` now: {"turn", "question", "answer_id", "asked_ms", "outcome",
// "answer", "claims", "sources", "results", "withdrawn_claims"}. If the check itself fails, every
// source is withheld (never shown unchecked).
nlohmann::json RenderTurns(const Engine& engine, const SearchFilter& who, const std::vector<AnswerRecord>& turns);

}  // namespace attest::service
