// The claims stage of the answer path (answer_stages.h): which verified claims are kept, links and
// calls to action no kept quote contains, disagreeing sources (the hierarchy decides; at equal
// rank both views are attributed), and the answer text with [n] markers.
#include <map>

#include "answer/answer_stages.h"
#include "answer/conflicts.h"
#include "verify/injection_screen.h"
#include "verify/verifier.h"

namespace attest {
namespace {

struct ConflictOutcome {
  std::map<std::string, std::string> attribution;  // claim id -> "According to X (date), "
  std::map<std::string, std::string> overruled;    // claim id -> reason
  std::vector<std::string> warnings;
};

ConflictOutcome ResolveConflicts(const std::vector<EvidencePassage>& pack, const Draft& draft,
                                 const std::set<std::string>& kept, const SourceHierarchy& hierarchy) {
  ConflictOutcome out;
  std::map<std::string, const EvidencePassage*> passage_of;
  for (const EvidencePassage& p : pack) passage_of[p.id] = &p;
  std::vector<const DraftClaim*> claims;
  std::vector<const EvidencePassage*> passages;
  for (const DraftClaim& c : draft.claims) {
    if (!kept.count(c.id) || c.cites.empty() || !passage_of.count(c.cites.front().source)) continue;
    claims.push_back(&c);
    passages.push_back(passage_of[c.cites.front().source]);
  }
  for (const Conflict& x : FindConflicts(passages)) {
    const EvidencePassage& a = *passages[x.a];
    const EvidencePassage& b = *passages[x.b];
    const int ra = hierarchy.TierOf(a.source_type).rank, rb = hierarchy.TierOf(b.source_type).rank;
    if (ra != rb) {
      const bool drop_b = ra > rb;
      const DraftClaim& loser = drop_b ? *claims[x.b] : *claims[x.a];
      const EvidencePassage& winner = drop_b ? a : b;
      out.overruled[loser.id] = "conflicts with the more authoritative " + winner.id + " (" + x.reason + ")";
      out.warnings.push_back("sources disagree (" + x.reason + "); the more authoritative " + winner.id + " (" +
                             (winner.title.empty() ? winner.doc_id : winner.title) + ") was followed");
      continue;
    }
    auto label = [](const EvidencePassage& p) {
      return "According to " + (p.title.empty() ? p.doc_id : p.title) + (p.date.empty() ? "" : " (" + p.date + ")") + ": ";
    };
    out.attribution[claims[x.a]->id] = label(a);
    out.attribution[claims[x.b]->id] = label(b);
    out.warnings.push_back("sources of equal standing disagree (" + x.reason + "): both views are shown with their dates");
  }
  return out;
}

}  // namespace

AnswerClaims ClaimsForAnswer(const ClaimsInput& in) {
  const std::vector<EvidencePassage>& pack = *in.pack;
  const Draft& draft = *in.draft;
  const std::vector<ClaimVerdict>& verdicts = *in.verdicts;
  AnswerClaims out;
  std::vector<std::string> kept_ids = KeptClaimIds(verdicts, /*keep_partial=*/true);
  std::set<std::string> kept(kept_ids.begin(), kept_ids.end());
  std::vector<std::string> kept_quotes;
  for (const DraftClaim& c : draft.claims) {
    if (!kept.count(c.id)) continue;
    for (const Citation& cite : c.cites) kept_quotes.push_back(cite.quote);
  }
  // No link, command or call to action that no kept quote contains.
  for (const DraftClaim& c : draft.claims) {
    if (kept.count(c.id) && !UnsupportedActions(c.text, kept_quotes).empty()) kept.erase(c.id);
  }
  ConflictOutcome conflicts = ResolveConflicts(pack, draft, kept, *in.hierarchy);
  out.warnings = std::move(conflicts.warnings);
  for (const auto& [id, reason] : conflicts.overruled) kept.erase(id);

  std::map<std::string, size_t> number_of;  // source id -> [n]
  for (size_t i = 0; i < pack.size(); ++i) number_of[pack[i].id] = i + 1;
  std::map<std::string, const EvidencePassage*> by_id;
  for (const EvidencePassage& p : pack) by_id[p.id] = &p;
  for (size_t i = 0; i < draft.claims.size(); ++i) {
    const DraftClaim& c = draft.claims[i];
    AnswerClaim ac;
    ac.id = c.id;
    ac.text = c.text;
    for (const Citation& cite : c.cites) ac.cites.push_back({cite.source, cite.quote});
    ac.verdict = i < verdicts.size() ? VerdictName(verdicts[i].verdict) : "unsupported";
    ac.reason = i < verdicts.size() ? verdicts[i].reason : "not verified";
    ac.kept = kept.count(c.id) > 0;
    if (conflicts.overruled.count(c.id)) ac.reason = conflicts.overruled[c.id];
    if (!ac.kept) {
      ++out.dropped;
    } else {
      std::string markers;
      for (const Citation& cite : c.cites) {
        auto it = by_id.find(cite.source);
        if (it == by_id.end()) continue;
        const EvidencePassage& p = *it->second;
        if (!in.resolved_version.empty() && !p.version.empty() && CompareVersions(p.version, in.resolved_version) != 0) {
          ac.version_label = p.version;
        }
        markers += " [" + std::to_string(number_of[cite.source]) + "]";
        out.cited.insert(cite.source);
      }
      std::string sentence = ac.version_label.empty() ? c.text : "(version " + ac.version_label + ") " + c.text;
      if (conflicts.attribution.count(c.id)) sentence = conflicts.attribution[c.id] + sentence;
      if (!out.text.empty()) out.text.push_back(' ');
      out.text += sentence + markers;
    }
    out.claims.push_back(std::move(ac));
  }
  return out;
}

}  // namespace attest
