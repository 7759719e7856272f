#include "answer/output_sanitizer.h"

namespace attest {
namespace {

void Clean(std::string* s) {
  if (!s->empty()) *s = SanitizeLinks(*s);
}

}  // namespace

void SanitizeHit(SearchHit* h) {
  Clean(&h->title);
  Clean(&h->section);
  Clean(&h->license);
  h->url = SafeUrl(h->url);
  const std::string snippet = SanitizeLinks(h->snippet);
  if (snippet != h->snippet) {
    // The highlights are byte ranges of the old snippet. Sanitizing only removes text (a link's
    // target, its brackets), so each highlighted word is found again, in order, in the new one.
    std::vector<Highlight> kept;
    size_t from = 0;
    for (const Highlight& x : h->highlights) {
      if (x.end > h->snippet.size() || x.start >= x.end) continue;
      const std::string_view word(h->snippet.data() + x.start, x.end - x.start);
      const size_t at = snippet.find(word, from);
      if (at == std::string::npos) continue;
      kept.push_back(Highlight{static_cast<uint32_t>(at), static_cast<uint32_t>(at + word.size())});
      from = at + word.size();
    }
    h->highlights = std::move(kept);
    h->snippet = snippet;
  }
}

void SanitizeSource(AnswerSource* s) {
  Clean(&s->text);
  Clean(&s->title);
  Clean(&s->flag_reason);
  Clean(&s->license);
  s->url = SafeUrl(s->url);
}

void SanitizeAnswer(AnswerResult* r) {
  Clean(&r->text);
  for (AnswerClaim& c : r->claims) {
    Clean(&c.text);
    Clean(&c.reason);
    for (AnswerCitation& cite : c.cites) Clean(&cite.quote);
  }
  for (AnswerSource& s : r->sources) SanitizeSource(&s);
  for (SearchHit& h : r->results) SanitizeHit(&h);
  for (std::string& w : r->warnings) Clean(&w);
  for (AnswerHop& h : r->hops) {
    Clean(&h.sentence);
    Clean(&h.value);
    Clean(&h.query);
  }
}

SanitizingEvents::SanitizingEvents(const AnswerEvents* inner) : inner_(inner) {
  if (inner_ == nullptr) return;
  wrapped_.on_progress = inner_->on_progress;
  wrapped_.cancelled = inner_->cancelled;
  wrapped_.on_question = inner_->on_question;
  if (inner_->on_sources) {
    wrapped_.on_sources = [this](const std::vector<AnswerSource>& sources) {
      std::vector<AnswerSource> clean = sources;
      for (AnswerSource& s : clean) SanitizeSource(&s);
      inner_->on_sources(clean);
    };
  }
  if (inner_->on_delta) {
    wrapped_.on_delta = [this](std::string_view delta) {
      const std::string out = filter_.Feed(delta);
      if (!out.empty()) inner_->on_delta(out);
    };
  }
  if (inner_->on_sentence || inner_->on_delta) {
    wrapped_.on_sentence = [this](std::string_view sentence, const std::vector<std::string>& cites) {
      Flush();  // the sentence's text goes out before the sentence is closed
      if (inner_->on_sentence) inner_->on_sentence(SanitizeLinks(sentence), cites);
    };
  }
}

void SanitizingEvents::Flush() {
  if (inner_ == nullptr || !inner_->on_delta) return;
  const std::string rest = filter_.Flush();
  if (!rest.empty()) inner_->on_delta(rest);
}

}  // namespace attest
