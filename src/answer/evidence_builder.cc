#include "answer/evidence_builder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "answer/analyzed_texts.h"
#include "answer/dedupe.h"
#include "evidence/relevance.h"
#include "text/analyzer.h"
#include "text/sentence_splitter.h"

namespace attest {
namespace {

// Passages of equal score in the order of their documents' ids, then of their chunks within a
// document: an order that does not depend on where the chunks are stored (one store numbers chunks
// in ingestion order; a cluster's ids carry the shard), so one store and a cluster pack alike.
bool TieOrder(const SearchHit& a, const SearchHit& b) {
  if (a.doc_id != b.doc_id) return a.doc_id < b.doc_id;
  return a.chunk_id < b.chunk_id;
}

// A scored sentence of a candidate's chunk. The passage (copies of the hit's fields) is made only
// for the sentences that are packed.
struct Scored {
  double score = 0;
  double coverage = 0;
  size_t words = 0;
  size_t candidate = 0;
  std::string_view text;  // the sentence, inside the candidate's chunk text
  std::string subject;
  const EvidenceCandidate* c = nullptr;
};

size_t CountWords(std::string_view s) {
  size_t n = 0;
  bool in = false;
  for (char c : s) {
    bool sp = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!sp && !in) ++n;
    in = !sp;
  }
  return n;
}

// Proximity: 1 when the matched query terms sit next to each other, falling with the span.
double Proximity(const std::vector<Token>& tokens, const std::unordered_set<std::string>& query) {
  uint32_t lo = UINT32_MAX, hi = 0;
  size_t matched = 0;
  std::vector<std::string_view> seen;  // the query's few terms found so far
  for (const Token& t : tokens) {
    if (query.count(t.term) && std::find(seen.begin(), seen.end(), t.term) == seen.end()) {
      seen.push_back(t.term);
      lo = std::min(lo, t.position);
      hi = std::max(hi, t.position);
      ++matched;
    }
  }
  if (matched < 2) return matched ? 0.5 : 0.0;
  const double span = double(hi - lo + 1);
  return std::min(1.0, double(matched) / span);
}

// A sentence, or the part of one inside one entry, with the subject it is about.
struct SentencePiece {
  SentenceSpan span;
  std::string subject;        // the span's subject, else the chunk's innermost heading; "" = unknown
  bool entry = false;         // inside a structured entry (definition, table row, list item)
  bool first_of_entry = false;  // the entry's first sentence that says more than its term
  bool term_only = false;     // says nothing but the subject's words (an entry's term line)
};

std::string InnermostHeading(const std::string& section_path) {
  const size_t cut = section_path.rfind(" > ");
  return cut == std::string::npos ? section_path : section_path.substr(cut + 3);
}

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// The sentences of a chunk cut where the span subject changes, so that no piece straddles two
// entries, each with its subject. Without spans (documents without markup) every sentence is a
// piece about the chunk's innermost heading.
std::vector<SentencePiece> SentencePieces(const std::string& text, const std::vector<ChunkSpan>& spans,
                                          const std::string& heading) {
  std::vector<SentencePiece> out;
  std::set<size_t> entries_started;  // runs (by their first span) whose first sentence was seen
  size_t k = 0;                      // the first span that does not end before the current position
  for (const SentenceSpan& sentence : SplitSentences(text)) {
    uint32_t pos = sentence.start;
    while (pos < sentence.end) {
      while (k < spans.size() && spans[k].end <= pos) ++k;
      SentencePiece piece;
      uint32_t end = sentence.end;
      size_t run = spans.size();
      if (k == spans.size() || spans[k].begin > pos) {  // text no span covers (or a gap between blocks)
        if (k < spans.size()) end = std::min(sentence.end, spans[k].begin);
        piece.subject = heading;
      } else {
        size_t last = k;
        while (last + 1 < spans.size() && spans[last + 1].subject == spans[k].subject) ++last;
        end = std::min(sentence.end, spans[last].end);
        const ChunkSpan& sp = spans[k];
        piece.subject = sp.subject.empty() ? heading : sp.subject;
        piece.entry = !sp.subject.empty() &&
                      (sp.role == SpanRole::kDefinition || sp.role == SpanRole::kTableRow || sp.role == SpanRole::kListItem);
        run = k;
        while (run > 0 && spans[run - 1].subject == sp.subject) --run;
      }
      uint32_t b = pos, e = end;
      while (b < e && IsSpace(text[b])) ++b;
      while (e > b && IsSpace(text[e - 1])) --e;
      if (e > b) {
        piece.span = SentenceSpan{b, e};
        const std::string_view words(text.data() + b, e - b);
        piece.term_only = !piece.subject.empty() && NamesOnlySubject(words, piece.subject);
        if (piece.entry && !piece.term_only) piece.first_of_entry = entries_started.insert(run).second;
        out.push_back(std::move(piece));
      }
      pos = end;
    }
  }
  return out;
}

// What the question's subject and focus make of a piece (docs in evidence_builder.h, step 2).
struct RelevanceScorer {
  const EvidenceQuery& query;
  // Some candidate has an entry (a definition term or table row header) about the question's
  // subject. Only then, or when the subject is a name (relevance.h, IsNameLike), is a sentence
  // inside another entry known not to be about it: a described subject that no entry defines ("an
  // index without locking writes") is often answered inside an option's entry (CONCURRENTLY),
  // which must not be demoted for having a term of its own.
  bool subject_defined = false;
  std::map<std::string, bool> matches;  // piece subject -> it names the question's subject

  // `title_match`: the share of the question's terms in the chunk's title and section.
  double Factor(const SentencePiece& piece, std::string_view sentence, double title_match) {
    // A sentence of a source without structure (no span, no heading) scores as it did: what it is
    // about cannot be told, and rewarding any number or any mention misranks running prose.
    if (piece.subject.empty()) return 1.0;
    double f = 1.0;
    bool foreign = false, about = false;
    if (!query.subject.empty()) {
      auto it = matches.find(piece.subject);
      if (it == matches.end()) {
        it = matches.emplace(piece.subject, !piece.subject.empty() && SubjectsMatch(query.subject, piece.subject)).first;
      }
      about = it->second;
      foreign = (subject_defined || IsNameLike(query.subject)) && piece.entry && !about;
      const bool mentions = !about && MentionsSubject(sentence, query.subject);
      if (about) {
        // The same entry on several pages (an option shared by commands, a configuration key a
        // command's page repeats): the page the question names comes first.
        f *= 1.6 * (1.0 + title_match);
      } else if (foreign) {
        f *= mentions ? 0.7 : 0.35;
      } else if (mentions) {
        f *= 1.2;
      }
    }
    if (FocusIsTestable(query.focus) && !foreign && AnswersFocus(query.focus, sentence)) f *= 1.4;
    if (query.focus == Focus::kDefinition && piece.first_of_entry && (about || query.subject.empty())) f *= 1.3;
    if (piece.term_only) f *= 0.5;
    return f;
  }
};

}  // namespace

int CompareVersions(const std::string& a, const std::string& b) {
  auto parts = [](const std::string& s, std::vector<long>* out) {
    size_t i = 0;
    std::string v = s;
    if (!v.empty() && (v[0] == 'v' || v[0] == 'V')) v.erase(0, 1);
    while (i < v.size()) {
      size_t j = v.find('.', i);
      std::string p = v.substr(i, j == std::string::npos ? std::string::npos : j - i);
      if (p.empty() || p.size() > 9 || !std::all_of(p.begin(), p.end(), ::isdigit)) return false;
      out->push_back(std::stol(p));
      if (j == std::string::npos) break;
      i = j + 1;
    }
    return !out->empty();
  };
  std::vector<long> pa, pb;
  const bool na = parts(a, &pa), nb = parts(b, &pb);
  if (na && nb) {
    for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
      long x = i < pa.size() ? pa[i] : 0, y = i < pb.size() ? pb[i] : 0;
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }
  if (na != nb) return na ? 1 : -1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

namespace {

// Step 1: dedupe sources. Candidates are ordered by tier then retrieval rank, and the first of each
// canonical URL or content fingerprint is kept (with every other chunk of a kept document).
std::vector<size_t> DedupeSources(const std::vector<EvidenceCandidate>& candidates, const SourceHierarchy& hierarchy,
                                  PackResult* out) {
  PackResult& result = *out;
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int ra = hierarchy.TierOf(candidates[a].hit.source_type).rank;
    int rb = hierarchy.TierOf(candidates[b].hit.source_type).rank;
    if (ra != rb) return ra > rb;
    return candidates[a].rank < candidates[b].rank;
  });
  std::set<std::string> urls, prints;
  std::map<std::string, std::string> doc_source;  // doc id -> kept doc id (copies map to it)
  std::vector<size_t> kept;
  std::set<ChunkId> seen_chunks;
  for (size_t i : order) {
    const EvidenceCandidate& c = candidates[i];
    if (!seen_chunks.insert(c.hit.chunk_id).second) continue;  // the same chunk from two sub-queries
    if (doc_source.count(c.hit.doc_id)) {                     // another chunk of a kept document
      kept.push_back(i);
      continue;
    }
    const std::string url = CanonicalUrl(c.hit.url, c.hit.version);
    const std::string print = ContentFingerprint(c.text);
    if ((!url.empty() && urls.count(url)) || prints.count(print)) {
      ++result.duplicate_sources;
      continue;
    }
    if (!url.empty()) urls.insert(url);
    prints.insert(print);
    doc_source[c.hit.doc_id] = c.hit.doc_id;
    ++result.sources;
    kept.push_back(i);
  }

  return kept;
}

// What every sentence of the kept chunks is scored against.
struct SentenceScoring {
  const EvidenceQuery& query;
  const PackOptions& options;
  std::unordered_set<std::string> qterms, excluded, scope;
  double idf_total = 0;
  float max_vector = 0;
  bool subject_defined = false;  // RelevanceScorer::subject_defined
  AnalyzedTexts* analysis = nullptr;  // the answer's analysed texts, when they are the builder's analyzer's
  // The IDF of every query and sub-query term, asked of query.idf once per answer.
  std::unordered_map<std::string, double> idf;

  double Idf(const std::string& term) const {
    auto it = idf.find(term);
    return it != idf.end() ? it->second : (query.idf ? query.idf(term) : 1.0);
  }
};

// A sorted, duplicate-free set of terms viewed in place (cheaper than a hash set of copies for the
// few dozen terms of a sentence).
struct TermSet {
  std::vector<std::string_view> terms;
  void Seal() {
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  }
  bool Has(std::string_view t) const { return std::binary_search(terms.begin(), terms.end(), t); }
};

// True when one of the kept chunks has a definition or table-row entry whose term names `subject`.
bool SubjectDefined(const std::vector<EvidenceCandidate>& candidates, const std::vector<size_t>& kept,
                    const std::string& subject) {
  if (subject.empty()) return false;
  for (size_t i : kept) {
    for (const ChunkSpan& sp : candidates[i].spans) {
      if ((sp.role == SpanRole::kDefinition || sp.role == SpanRole::kTableRow || sp.role == SpanRole::kListItem) &&
          !sp.subject.empty() &&
          SubjectsMatch(subject, sp.subject)) {
        return true;
      }
    }
  }
  return false;
}

// Step 2 for one chunk: the chunk's coverage of the question and of each sub-query (into
// result->best_coverage), and a scored passage for each of its sentences.
void ScoreChunk(const Analyzer& analyzer, const std::vector<EvidenceCandidate>& candidates, size_t i,
                const SourceHierarchy& hierarchy, const SentenceScoring& sc, std::vector<Scored>* out,
                PackResult* result_out) {
  PackResult& result = *result_out;
  std::vector<Scored>& scored = *out;
  const EvidenceQuery& query = sc.query;
  const PackOptions& options = sc.options;
  const auto& qterms = sc.qterms;
  const auto& excluded = sc.excluded;
  const auto& scope = sc.scope;
  const double idf_total = sc.idf_total;
  const float max_vector = sc.max_vector;
  const EvidenceCandidate& c = candidates[i];
  const SourceTier& tier = hierarchy.TierOf(c.hit.source_type);
  std::vector<std::string> title_terms = analyzer.Terms(c.hit.title + " " + c.hit.section);
  size_t title_hits = 0;
  for (const auto& t : std::unordered_set<std::string>(title_terms.begin(), title_terms.end())) {
    title_hits += qterms.count(t);
  }
  const double title_match = qterms.empty() ? 0 : double(title_hits) / double(qterms.size());
  double meta = tier.weight;
  if (!query.resolved_version.empty()) {
    if (c.hit.version.empty()) {
      meta *= 0.8;
    } else if (CompareVersions(c.hit.version, query.resolved_version) != 0) {
      meta *= 0.3;
    }
  }
  if (query.from || query.to) {
    std::optional<DayNumber> d = c.hit.date.empty() ? std::nullopt : ParseDate(c.hit.date);
    const bool inside = d && (!query.from || *d >= *query.from) && (!query.to || *d <= *query.to);
    meta *= inside ? 1.0 : 0.6;
  }
  const double vec = max_vector > 0 ? std::max(0.0f, c.hit.vector_score) / max_vector : 0.0;
  // Each sentence is analyzed once; the chunk's terms are their union with the title, section and
  // version terms (words never span sentences, so this equals analyzing the whole chunk).
  struct AnalyzedSentence {
    SentencePiece piece;
    const std::vector<Token>* tokens = nullptr;  // in sc.analysis, or `own`
    std::vector<Token> own;
  };
  std::vector<AnalyzedSentence> sentences;
  for (SentencePiece& piece : SentencePieces(c.text, c.spans, InnermostHeading(c.hit.section))) {
    const SentenceSpan span = piece.span;
    const std::string_view text = std::string_view(c.text).substr(span.start, span.end - span.start);
    AnalyzedSentence& a = sentences.emplace_back();
    a.piece = std::move(piece);
    if (sc.analysis) {
      a.tokens = &sc.analysis->Tokens(text);
    } else {
      analyzer.Analyze(text, &a.own);
    }
  }
  for (AnalyzedSentence& a : sentences) {
    if (!a.tokens) a.tokens = &a.own;  // after the vector stopped growing
  }
  const std::vector<std::string> version_terms = analyzer.Terms(c.hit.version);
  TermSet chunk_terms;  // views into title_terms, version_terms and the sentences' tokens
  for (const std::string& t : title_terms) chunk_terms.terms.push_back(t);
  for (const std::string& t : version_terms) chunk_terms.terms.push_back(t);
  for (const AnalyzedSentence& a : sentences) {
    for (const Token& t : *a.tokens) chunk_terms.terms.push_back(t.term);
  }
  chunk_terms.Seal();
  double chunk_coverage = 0;
  {
    // How much of each sub-query the source as a whole (title, section, text) speaks to.
    // The document's version label counts as mentioned ("... in ExampleDB 17" vs a v17 page).
    auto coverage_of = [&](const std::vector<std::string>& terms) {
      double covered = 0, total = 0;
      for (const auto& t : std::unordered_set<std::string>(terms.begin(), terms.end())) {
        const double w = sc.Idf(t);
        total += w;
        if (chunk_terms.Has(t)) covered += w;
      }
      return total > 0 ? covered / total : 0.0;
    };
    chunk_coverage = coverage_of(query.terms);
    result.best_coverage = std::max(result.best_coverage, chunk_coverage);
    for (const auto& [id, terms] : query.subquery_terms) {
      result.best_coverage = std::max(result.best_coverage, coverage_of(terms));
    }
  }
  RelevanceScorer relevance{query, sc.subject_defined, {}};
  for (AnalyzedSentence& a : sentences) {
    const SentenceSpan& span = a.piece.span;
    std::string_view sentence = std::string_view(c.text).substr(span.start, span.end - span.start);
    const std::vector<Token>& tokens = *a.tokens;
    if (tokens.empty()) continue;
    TermSet sterms;
    for (const Token& t : tokens) sterms.terms.push_back(t.term);
    // A sentence of an entry is read with its term: "The default is 10." speaks of max_wal_senders.
    std::vector<std::string> subject_terms;
    if (a.piece.entry) {
      subject_terms = analyzer.Terms(a.piece.subject);
      for (const std::string& t : subject_terms) sterms.terms.push_back(t);
    }
    sterms.Seal();
    bool has_excluded = false;
    for (const std::string& t : excluded) has_excluded |= sterms.Has(t);
    if (has_excluded) {
      ++result.excluded_sentences;
      continue;
    }
    double covered = 0;
    for (const auto& t : qterms) {
      if (sterms.Has(t)) covered += sc.Idf(t);
    }
    const double coverage = idf_total > 0 ? covered / idf_total : 0;
    double phrase = 0;
    if (!query.phrases.empty()) {
      const std::string folded = Analyzer::Fold(sentence);
      for (const auto& p : query.phrases) phrase += folded.find(p) != std::string::npos ? 1.0 : 0.0;
      phrase /= double(query.phrases.size());
    }
    double scope_bonus = 0;
    for (const auto& t : scope) scope_bonus += sterms.Has(t) ? 1.0 : 0.0;
    if (!scope.empty()) scope_bonus /= double(scope.size());
    // A sentence is read in its source: part of the weight is the whole chunk's coverage. A scope
    // constraint ("for subscribers") names what the user wants: sentences with it rank higher.
    double features = 0.4 * coverage + 0.15 * chunk_coverage + 0.1 * Proximity(tokens, qterms) + 0.1 * phrase +
                      0.1 * title_match + 0.1 * vec + (scope.empty() ? 0.05 * coverage : 0.25 * scope_bonus);
    features *= relevance.Factor(a.piece, sentence, title_match);
    if (!options.rerank) features = 1.0 / (1.0 + c.rank);  // retrieval order only (degraded)
    Scored s;
    s.coverage = coverage;
    s.words = CountWords(sentence);
    s.candidate = i;
    s.c = &c;
    s.text = sentence;
    s.score = features * meta;
    s.subject = std::move(a.piece.subject);
    scored.push_back(std::move(s));
  }
}

// Step 3: pack. First the best passage of each sub-query that clears the threshold, then greedily
// by score within the limits of passages, per source, per site and words. Ids S1.. by final order.
void PackPassages(const std::vector<Scored>& scored, const PackOptions& options, const SourceHierarchy& hierarchy,
                  PackResult* out) {
  PackResult& result = *out;
  std::vector<const Scored*> chosen;
  std::map<std::string, size_t> per_doc;
  std::map<std::string, std::set<std::string>> site_docs;  // site -> documents in the pack
  // Folded text -> the documents whose passage with that text is packed. The same sentence in
  // another document (a configuration entry a command's page repeats from the reference) is packed
  // once per document, up to kCopiesPerText, so that a claim can cite every copy.
  constexpr size_t kCopiesPerText = 3;
  std::map<std::string, std::set<std::string>> texts;
  size_t words = 0;
  auto try_add = [&](const Scored& s) {
    const SearchHit& hit = s.c->hit;
    if (chosen.size() >= options.max_passages) return false;
    if (per_doc[hit.doc_id] >= options.per_source) return false;
    std::set<std::string>& of_site = site_docs[hit.site];
    if (!hit.site.empty() && !of_site.count(hit.doc_id) && of_site.size() >= options.per_site) return false;
    if (words + s.words > options.max_words && !chosen.empty()) return false;
    std::set<std::string>& docs = texts[Analyzer::Fold(s.text)];
    if (docs.count(hit.doc_id) || docs.size() >= kCopiesPerText) return false;
    docs.insert(hit.doc_id);
    chosen.push_back(&s);
    ++per_doc[hit.doc_id];
    of_site.insert(hit.doc_id);
    words += s.words;
    return true;
  };
  std::set<std::string> subqueries_done;
  for (const Scored& s : scored) {
    const std::string& subquery = s.c->subquery;
    const bool guaranteed = options.guaranteed_subqueries.count(subquery) > 0;
    if (subqueries_done.count(subquery) || (!guaranteed && s.score < options.min_subquery_score)) {
      continue;
    }
    if (try_add(s)) subqueries_done.insert(subquery);
  }
  for (const Scored& s : scored) {
    if (std::find(chosen.begin(), chosen.end(), &s) != chosen.end()) continue;
    if (s.score <= 0) break;
    try_add(s);
  }
  std::stable_sort(chosen.begin(), chosen.end(), [](const Scored* a, const Scored* b) {
    if (a->score != b->score) return a->score > b->score;
    return TieOrder(a->c->hit, b->c->hit);
  });
  for (size_t n = 0; n < chosen.size(); ++n) {
    const Scored& s = *chosen[n];
    EvidencePassage p = PassageOfHit(s.c->hit, hierarchy.TierOf(s.c->hit.source_type).name, std::string(s.text));
    p.score = s.score;
    p.subquery = s.c->subquery;
    p.subject = s.subject;
    p.id = "S" + std::to_string(n + 1);
    result.pack.push_back(std::move(p));
  }
}

}  // namespace

EvidencePassage PassageOfHit(const SearchHit& hit, const std::string& authority, std::string text) {
  EvidencePassage p;
  p.doc_id = hit.doc_id;
  p.chunk_id = hit.chunk_id;
  p.url = hit.url;
  p.title = hit.title;
  p.site = hit.site;
  p.date = hit.date;
  p.version = hit.version;
  p.source_type = hit.source_type;
  p.authority = authority;
  p.text = std::move(text);
  return p;
}

PackResult BuildEvidence(const std::vector<EvidenceCandidate>& candidates, const EvidenceQuery& query,
                         const SourceHierarchy& hierarchy, const PackOptions& options) {
  static const Analyzer analyzer;
  PackResult result;
  const std::vector<size_t> kept = DedupeSources(candidates, hierarchy, &result);

  // 2. Score every sentence of every kept chunk.
  SentenceScoring sc{query, options, {query.terms.begin(), query.terms.end()},
                     {query.exclude_terms.begin(), query.exclude_terms.end()},
                     {query.scope_terms.begin(), query.scope_terms.end()}, 0, 0, false, nullptr, {}};
  const AnalyzerOptions defaults;
  if (options.analysis) {
    const AnalyzerOptions& theirs = options.analysis->analyzer().options();
    if (theirs.stem == defaults.stem && theirs.remove_stopwords == defaults.remove_stopwords &&
        theirs.split_identifiers == defaults.split_identifiers) {
      sc.analysis = options.analysis;
    }
  }
  auto remember_idf = [&](const std::string& t) {
    if (!sc.idf.count(t)) sc.idf.emplace(t, query.idf ? query.idf(t) : 1.0);
  };
  for (const auto& t : query.terms) remember_idf(t);
  for (const auto& [id, terms] : query.subquery_terms) {
    for (const auto& t : terms) remember_idf(t);
  }
  for (const auto& t : sc.qterms) sc.idf_total += sc.Idf(t);
  for (size_t i : kept) sc.max_vector = std::max(sc.max_vector, candidates[i].hit.vector_score);
  sc.subject_defined = SubjectDefined(candidates, kept, query.subject);
  std::vector<Scored> scored;
  for (size_t i : kept) ScoreChunk(analyzer, candidates, i, hierarchy, sc, &scored, &result);
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    return TieOrder(a.c->hit, b.c->hit);
  });
  PackPassages(scored, options, hierarchy, &result);
  return result;
}

}  // namespace attest
