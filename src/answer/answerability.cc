#include "answer/answerability.h"

#include "answer/analyzed_texts.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>


namespace attest {
namespace {

struct QuestionTerm {
  std::string term;
  double weight = 1;
  bool name = false;  // written capitalised (not as the first word) or holding a digit
};

bool HasDigit(std::string_view s) { return s.find_first_of("0123456789") != std::string_view::npos; }

bool Capitalised(std::string_view surface) {
  return !surface.empty() && std::isupper(static_cast<unsigned char>(surface.front()));
}

// Spelled-out numbers (analyzed forms): "two business days" answers "how long".
bool IsNumberWord(const std::string& term) {
  static const std::unordered_set<std::string> kNumbers = {
      "one",    "two",     "three",    "four",     "five",    "six",   "seven", "eight",   "nine",
      "ten",    "eleven",  "twelv",    "twenti",   "thirti",  "forti", "fifti", "hundr", "hundred",
      "thousand", "million", "billion", "dozen",   "half",    "twice", "onc"};
  return kNumbers.count(term) > 0;
}

bool IsMonth(const std::string& term) {
  static const std::unordered_set<std::string> kMonths = {"januari", "februari", "march", "april", "may",
                                                         "june",    "juli",     "august", "septemb", "octob",
                                                         "novemb",  "decemb"};
  return kMonths.count(term) > 0;
}

std::vector<QuestionTerm> QuestionTermsOf(const AnswerabilityInput& in) {
  std::vector<Token> tokens;
  in.analyzer->Analyze(in.question, &tokens);
  std::vector<QuestionTerm> out;
  std::set<std::string> seen;
  for (const std::string& word : in.excluded) {
    for (auto& t : in.analyzer->Terms(word)) seen.insert(std::move(t));
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (IsQuestionFrameTerm(t.term) || !seen.insert(t.term).second) continue;
    const std::string_view surface = std::string_view(in.question).substr(t.start, t.end - t.start);
    QuestionTerm q;
    q.term = t.term;
    q.weight = in.idf ? std::max(0.0, in.idf(t.term)) : 1.0;
    q.name = HasDigit(surface) || (t.start > 0 && Capitalised(surface));
    out.push_back(std::move(q));
  }
  return out;
}

// Whether `sentence` holds a token of the kind `kind` asks for that the question does not.
bool HasAnswerToken(const Analyzer& analyzer, Focus kind, const std::string& sentence,
                    const std::set<std::string>& question_terms) {
  std::vector<Token> tokens;
  analyzer.Analyze(sentence, &tokens);
  for (const Token& t : tokens) {
    if (question_terms.count(t.term)) continue;
    const std::string_view surface = std::string_view(sentence).substr(t.start, t.end - t.start);
    switch (kind) {
      case Focus::kNumber:
        if (HasDigit(surface) || IsNumberWord(t.term)) return true;
        break;
      case Focus::kVersion:
        if (HasDigit(surface)) return true;
        break;
      case Focus::kDate:
        if (HasDigit(surface) || IsMonth(t.term) || IsNumberWord(t.term)) return true;
        break;
      case Focus::kName:
        if (t.start > 0 && (Capitalised(surface) || HasDigit(surface))) return true;
        break;
      default:
        if (!IsQuestionFrameTerm(t.term)) return true;
    }
  }
  return false;
}

// The parts combined into one score in 0..1 (docs/answer.md, "Answerability"): each part p in
// 0..1 contributes a factor floor + (1 - floor) * p, so no single part decides alone except a
// missing negation. The floors were chosen on the SQuAD v2.0 dev half by the best share of
// unanswerable questions refused at a fixed share of answerable ones answered; "coverage" and
// "sentence" are reported but add nothing there beyond "rare" and "evidence". "subject" is
// reported only: SQuAD questions carry no structural subject to calibrate it on, and the
// verifier's relevance check is what judges a claim about another subject.
double Combine(const std::map<std::string, double>& p) {
  struct Floor {
    const char* part;
    double floor;
  };
  static constexpr Floor kFloors[] = {{"rare", 0.75},   {"names", 0.5},    {"names_context", 0.25},
                                      {"negation", 0.1}, {"answer", 0.5},   {"evidence", 0.5}};
  double score = 1.0;
  for (const Floor& f : kFloors) {
    auto it = p.find(f.part);
    if (it != p.end()) score *= f.floor + (1.0 - f.floor) * std::clamp(it->second, 0.0, 1.0);
  }
  return score;
}

struct SentenceScore {
  double score = 0;
  std::map<std::string, double> parts;
  std::string reason;
};

// Whether `text` negates: "not", "no", "never", "without", "nor", "neither", "none", "nothing",
// "n't", or a "non-" word. (Read from the surface text: the analyzer drops "no" and "not".)
bool Negates(const std::string& text) {
  static const std::unordered_set<std::string> kNegations = {"not",  "no",   "never",   "without", "nor",
                                                            "neither", "none", "nothing", "cannot"};
  std::string word;
  auto negation = [&]() {
    const bool yes = kNegations.count(word) > 0 || (word.size() > 3 && word.compare(word.size() - 3, 3, "n't") == 0) ||
                     word.rfind("non-", 0) == 0;
    word.clear();
    return yes;
  };
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '\'' || c == '-') {
      word.push_back(static_cast<char>(std::tolower(c)));
    } else if (!word.empty() && negation()) {
      return true;
    }
  }
  return !word.empty() && negation();
}

SentenceScore ScoreSentence(const AnswerabilityInput& in, const std::vector<QuestionTerm>& question,
                            const std::set<std::string>& question_terms, Focus kind, bool question_negates,
                            const AnsweringSentence& s) {
  auto terms = [&in](const std::string& text) {
    return in.analysis ? in.analysis->Terms(text) : in.analyzer->Terms(text);
  };
  const std::vector<std::string> st = terms(s.quote);
  const std::set<std::string> in_sentence(st.begin(), st.end());
  std::set<std::string> about = in_sentence;  // the sentence and what it is about (title, subject)
  for (auto& t : in.analyzer->Terms(s.title + " " + s.passage_subject)) about.insert(std::move(t));
  std::set<std::string> around = about;       // ... and its context
  for (auto& t : terms(s.context)) around.insert(std::move(t));

  double total = 0, covered = 0, in_quote = 0, rarest = 0, rarest_missing = 0;
  size_t names = 0, names_about = 0, names_around = 0;
  std::string missing_word, missing_name;
  for (const QuestionTerm& q : question) {
    total += q.weight;
    rarest = std::max(rarest, q.weight);
    const bool found = around.count(q.term) > 0;
    if (found) covered += q.weight;
    if (in_sentence.count(q.term)) in_quote += q.weight;
    if (!found && q.weight >= rarest_missing) {
      rarest_missing = q.weight;
      missing_word = q.term;
    }
    if (q.name) {
      ++names;
      names_around += found;
      if (about.count(q.term)) {
        ++names_about;
      } else if (missing_name.empty()) {
        missing_name = q.term;
      }
    }
  }
  SentenceScore out;
  auto& p = out.parts;
  p["coverage"] = total > 0 ? covered / total : 1.0;
  p["sentence"] = total > 0 ? in_quote / total : 1.0;
  p["rare"] = rarest > 0 ? 1.0 - rarest_missing / rarest : 1.0;
  p["names"] = names ? double(names_about) / names : 1.0;
  p["names_context"] = names ? double(names_around) / names : 1.0;
  p["negation"] = question_negates && !Negates(s.quote) ? 0.0 : 1.0;
  p["answer"] = HasAnswerToken(*in.analyzer, kind, s.quote, question_terms) ? 1.0 : 0.0;
  double subject = 1.0;
  if (!in.subject.empty()) {
    const std::vector<std::string> want = in.analyzer->Terms(in.subject);
    size_t have = 0;
    for (const auto& t : want) have += around.count(t);
    subject = want.empty() ? 1.0 : double(have) / want.size();
  }
  p["subject"] = subject;
  p["evidence"] = in.evidence_coverage;
  out.score = Combine(p);
  // The reason names the weakest part.
  if (p["negation"] < 1.0) {
    out.reason = "the question asks about what is not the case; the answering sentence does not say so";
  } else if (p["names"] < 1.0) {
    out.reason = "the question names \"" + missing_name + "\", which the answering sentence is not about";
  } else if (p["rare"] < 0.5) {
    out.reason = "the answering source does not mention \"" + missing_word + "\" from the question";
  } else if (p["answer"] < 1.0) {
    out.reason = std::string("the answering sentence holds no ") + FocusName(kind) + " beyond the question's words";
  } else if (p["subject"] < 1.0) {
    out.reason = "the answering source is not about \"" + in.subject + "\"";
  } else if (p["coverage"] < 0.75 || p["evidence"] < 0.75) {
    out.reason = "the answering source covers little of the question";
  }
  return out;
}

}  // namespace

bool IsQuestionFrameTerm(const std::string& t) {
  // Analyzed (stemmed, case-folded) forms: question words, auxiliaries, pronouns, time words.
  static const std::unordered_set<std::string> kFrame = {
      "latest", "newest", "recent", "current", "chang", "new", "happen", "tell", "explain", "know",
      "how",    "what",   "when",   "where",   "which", "who", "whom",   "whose", "why",  "do",
      "doe",    "did",    "done",   "i",       "we",    "you", "me",     "my",    "our",  "your",
      "can",    "could",  "would",  "should",  "may",   "might", "must", "shall", "ha",  "have",
      "had",    "get",    "long",   "much",    "mani",  "there", "some", "ani",   "pleas"};
  return kFrame.count(t) > 0;
}

Focus ExpectedAnswerKind(Focus focus, const std::string& question) {
  if (focus != Focus::kNone) return focus;
  std::string q;
  for (char c : question.substr(0, 24)) q.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  auto starts = [&](std::string_view w) { return q.rfind(w, 0) == 0; };
  if (starts("how many") || starts("how much")) return Focus::kNumber;
  if (starts("when") || starts("what year") || starts("in what year") || starts("in which year")) return Focus::kDate;
  if (starts("who") || starts("whom")) return Focus::kName;
  return Focus::kNone;
}

Answerability ScoreAnswerability(const AnswerabilityInput& in) {
  Answerability out;
  if (!in.analyzer || in.sentences.empty()) {
    out.reason = "no kept claim";
    return out;
  }
  const std::vector<QuestionTerm> question = QuestionTermsOf(in);
  std::set<std::string> question_terms;
  for (const auto& q : question) question_terms.insert(q.term);
  const Focus kind = ExpectedAnswerKind(in.focus, in.question);
  const bool negates = in.excluded.empty() && Negates(in.question);
  bool first = true;
  for (const AnsweringSentence& s : in.sentences) {
    SentenceScore sc = ScoreSentence(in, question, question_terms, kind, negates, s);
    if (first || sc.score > out.score) {
      out.score = sc.score;
      out.claim_id = s.claim_id;
      out.parts = std::move(sc.parts);
      out.reason = std::move(sc.reason);
      first = false;
    }
  }
  return out;
}

AnswerabilityReport AnswerabilityOfClaims(const AnswerabilityStepInput& in) {
  AnswerabilityReport report;
  report.threshold = in.threshold;
  std::map<std::string, const EvidencePassage*> passage_of;
  for (const EvidencePassage& p : *in.pack) passage_of[p.id] = &p;
  std::map<ChunkId, const std::string*> chunk_text;
  for (const EvidenceCandidate& c : *in.candidates) chunk_text.emplace(c.hit.chunk_id, &c.text);
  AnswerabilityInput ai;
  ai.analyzer = in.analyzer;
  ai.question = in.plan->standalone;
  ai.focus = in.plan->focus;
  ai.subject = in.plan->subject;
  ai.excluded = in.plan->constraints.exclude;
  ai.idf = in.idf;
  ai.evidence_coverage = in.evidence_coverage;
  ai.analysis = in.analysis;
  std::string all_quotes;
  for (const AnswerClaim& c : *in.claims) {
    if (!c.kept) continue;
    for (const AnswerCitation& cite : c.cites) {
      auto p = passage_of.find(cite.source);
      if (p == passage_of.end()) continue;
      AnsweringSentence s;
      s.claim_id = c.id;
      s.quote = cite.quote;
      auto chunk = chunk_text.find(p->second->chunk_id);
      s.context = chunk == chunk_text.end() ? p->second->text : *chunk->second;
      s.passage_subject = p->second->subject;
      s.title = p->second->title;
      ai.sentences.push_back(std::move(s));
      all_quotes += " " + cite.quote;
    }
  }
  if (ai.sentences.empty()) return report;
  if (in.joint) {
    for (AnsweringSentence& s : ai.sentences) s.context += all_quotes;
  }
  Answerability a = ScoreAnswerability(ai);
  report.computed = true;
  report.score = a.score;
  report.claim_id = std::move(a.claim_id);
  report.parts = std::move(a.parts);
  report.reason = std::move(a.reason);
  return report;
}

}  // namespace attest
