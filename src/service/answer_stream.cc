#include "service/answer_stream.h"

namespace attest::service {
namespace {

const char* StateReason(CitationState s) {
  switch (s) {
    case CitationState::kDeleted: return "source_deleted";
    case CitationState::kForbidden: return "access_revoked";
    case CitationState::kChanged: return "source_changed";
    default: return "";
  }
}

}  // namespace

bool AnswerStream::Emit(std::string_view event, const nlohmann::json& data) {
  if (ended_) return false;
  if (!sink_->Emit(event, data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))) {
    ended_ = true;
    return false;
  }
  return true;
}

bool AnswerStream::Boundary(const std::vector<CitedChunk>& pending, uint64_t pinned_snapshot) {
  auto refreshed = auth_.Refresh(who_);
  if (!refreshed.ok()) {
    Emit("notice", {{"code", "access_revoked"}, {"message", refreshed.error().message}});
    metrics_.GetCounter("attest_retractions_total", "Sentences retracted or streams ended, by reason",
                        {{"reason", "credential_revoked"}})->Add();
    ended_ = true;
    return false;
  }
  const bool groups_changed = refreshed.value().groups != who_.groups;
  if (groups_changed && !filter_.groups) groups_changed_admin_ = true;
  if (groups_changed && filter_.groups) filter_.groups = refreshed.value().groups;
  who_ = refreshed.value();
  if (!groups_changed && engine_.CurrentSnapshot() == pinned_snapshot) return true;  // nothing can differ
  std::vector<CitedChunk> all = pending;
  for (const auto& s : released_) all.insert(all.end(), s.chunks.begin(), s.chunks.end());
  auto states = engine_.CheckCitations(filter_, all);
  if (!states.ok()) return true;  // the check itself failed: keep what was verified at the pinned snapshot
  bool ok = true;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (Withdrawn((*states)[i])) {
      ok = false;
      last_reason_ = StateReason((*states)[i]);
    }
    if ((*states)[i] == CitationState::kChanged) changed_.insert(pending[i].chunk_id);
  }
  size_t at = pending.size();
  for (auto& s : released_) {
    std::string reason;
    for (size_t j = 0; j < s.chunks.size(); ++j, ++at) {
      if (Withdrawn((*states)[at])) reason = StateReason((*states)[at]);
    }
    if (!reason.empty() && !s.retracted) {
      s.retracted = true;
      Retract(s.id, reason);
    }
  }
  return ok;
}

void AnswerStream::Retract(const std::string& id, const std::string& reason) {
  retract_reason_[id] = reason;
  ++retracted_;
  metrics_.GetCounter("attest_retractions_total", "Sentences retracted or streams ended, by reason",
                      {{"reason", reason}})->Add();
  Emit("retract", {{"sentence_id", id}, {"reason", reason}});
}

}  // namespace attest::service
