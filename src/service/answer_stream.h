// AnswerStream: the state of one streamed answer in the service (docs/http_api.md, "Event
// stream"): the events sent, the sentences released and retracted, and the access boundary, which
// re-checks the caller's identity and the cited chunks at every sentence (it needs the engine and
// the authenticator; what a sentence must pass before it gets there is answer/sentence_gate.h).
//
// Thread-safety: one stream belongs to the request's thread.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attest/engine.h"
#include "service/authenticator.h"
#include "service/identity.h"
#include "service/metrics.h"
#include "service/service.h"

namespace attest::service {

// A cited chunk deleted or no longer readable by the caller: its sentences are withdrawn.
inline bool Withdrawn(CitationState s) { return s == CitationState::kDeleted || s == CitationState::kForbidden; }

// The state of one streamed answer: what was released, and the boundary checks.
class AnswerStream {
 public:
  AnswerStream(EventSink* sink, Engine& engine, Authenticator& auth, Registry& metrics, Identity who,
               SearchFilter filter)
      : sink_(sink), engine_(engine), auth_(auth), metrics_(metrics), who_(std::move(who)), filter_(std::move(filter)) {}

  // Sends one event; false once the client is gone (the stream has ended).
  bool Emit(std::string_view event, const nlohmann::json& data);
  bool ended() const { return ended_ || sink_->Closed(); }
  // Hands the sink the answer's body just before `done` (EventSink::Answered).
  void Answered(const nlohmann::json& body) { sink_->Answered(body); }

  // Re-checks access at a sentence boundary: the identity through the group cache, then every
  // released sentence's sources and `pending` at the latest snapshot. Retracts released sentences
  // that lost their sources. Returns false when `pending` must not be released (or the stream ended).
  bool Boundary(const std::vector<CitedChunk>& pending, uint64_t pinned_snapshot);

  void Released(const std::string& id, std::vector<CitedChunk> chunks) {
    retract_reason_.erase(id);
    released_.push_back({id, std::move(chunks), false});
  }
  void Retract(const std::string& id, const std::string& reason);
  // Retracted because its source was deleted or became unreadable, or it cited nothing.
  bool RetractedForAccess(const std::string& id) const {
    auto it = retract_reason_.find(id);
    return it != retract_reason_.end() &&
           (it->second == "access_revoked" || it->second == "source_deleted" || it->second == "uncited");
  }
  bool IsReleased(const std::string& id) const {
    return std::any_of(released_.begin(), released_.end(), [&](const auto& s) { return s.id == id && !s.retracted; });
  }
  const std::string& last_reason() const { return last_reason_; }
  size_t retracted() const { return retracted_; }
  const std::set<ChunkId>& changed() const { return changed_; }
  const SearchFilter& filter() const { return filter_; }

 private:
  struct Released_ {
    std::string id;
    std::vector<CitedChunk> chunks;
    bool retracted = false;
  };
  EventSink* sink_;
  Engine& engine_;
  Authenticator& auth_;
  Registry& metrics_;
  Identity who_;
  SearchFilter filter_;
  std::vector<Released_> released_;
  std::set<ChunkId> changed_;
  std::map<std::string, std::string> retract_reason_;
  std::string last_reason_;
  size_t retracted_ = 0;
  bool ended_ = false;
  bool groups_changed_admin_ = false;
};

}  // namespace attest::service
