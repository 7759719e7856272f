#include "answer/answer_rounds.h"

namespace attest {

AnswerRounds::AnswerRounds(const AnswerContext& ctx, const SearchFilter& filter) : ctx_(ctx), filter_(filter) {}

Result<const SearchResult*> AnswerRounds::Search(SearchOptions options) {
  options.filter = filter_;
  const Key key{options.query, options.k, static_cast<int>(options.mode), options.with_snippets};
  auto it = searches_.find(key);
  if (it == searches_.end() && !options.with_snippets) {
    // The same search with snippets has the same hits; only its snippet fields are extra.
    auto with = searches_.find(Key{options.query, options.k, static_cast<int>(options.mode), true});
    if (with != searches_.end()) {
      auto copy = std::make_unique<Result<SearchResult>>(*with->second);
      if (copy->ok()) {
        for (SearchHit& h : (*copy)->hits) {
          h.snippet.clear();
          h.highlights.clear();
          h.section.clear();
        }
      }
      it = searches_.emplace(key, std::move(copy)).first;
    }
  }
  if (it != searches_.end()) {
    ++searches_reused_;
  } else {
    ++searches_run_;
    it = searches_.emplace(key, std::make_unique<Result<SearchResult>>(
                                    ctx_.corpus->Search(*ctx_.analyzer, options, ctx_.vector)))
             .first;
  }
  const Result<SearchResult>& r = *it->second;
  if (!r.ok()) return r.status();
  return &r.value();
}

Status AnswerRounds::LoadChunks(std::span<const ChunkId> ids) {
  std::vector<ChunkId> missing;
  for (ChunkId id : ids) {
    if (chunks_.emplace(id.get(), nullptr).second) missing.push_back(id);
  }
  if (missing.empty()) return Status::Ok();
  ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> records, ctx_.corpus->GetChunks(filter_, missing));
  for (ChunkRecord& r : records) {
    auto& slot = chunks_[r.id.get()];
    if (!slot) slot = std::make_unique<ChunkRecord>(std::move(r));
  }
  return Status::Ok();
}

const ChunkRecord* AnswerRounds::Chunk(ChunkId id) const {
  auto it = chunks_.find(id.get());
  return it == chunks_.end() ? nullptr : it->second.get();
}

}  // namespace attest
