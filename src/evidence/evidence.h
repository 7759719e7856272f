// Types shared by the answer pipeline's stages (plan -> retrieve -> rerank -> extract -> write ->
// verify -> present): the evidence pack handed to a writer, and the structured draft a writer
// returns (claims, each citing source ids with verbatim quotes).
//
// The evidence pack is the only text a writer may use, and the ids S1..Sn are the only ids a draft
// may cite: a citation of any other id is dropped and recorded (never shown).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attest/ids.h"

namespace attest {

// One passage of evidence: a few consecutive sentences of one source chunk.
struct EvidencePassage {
  std::string id;            // "S1", "S2", ... stable within one answer
  std::string doc_id;        // the source document's external id
  ChunkId chunk_id;
  std::string url;
  std::string title;
  std::string site;
  std::string date;          // published, else updated (YYYY-MM-DD), or ""
  std::string version;
  std::string source_type;   // e.g. official, release_notes, vendor_blog, community, wiki, chat
  std::string authority;     // tier name from the source hierarchy (docs/answer.md)
  std::string text;          // the exact text given to the writer (verbatim from the chunk)
  // What the passage is about, from the source's structure: its definition term or table row
  // header, else its innermost heading; "" when unknown. Lets a claim name its subject when the
  // quote omits it, and the verifier check that the claim is about the question's subject.
  std::string subject;
  double score = 0;          // reranker score
  std::string subquery;      // id of the sub-query that retrieved it ("q0" = the original question)
  bool flagged = false;      // the injection screen flagged it: it may be shown, never cited
  std::string flag_reason;
};

struct Citation {
  std::string source;  // an EvidencePassage::id
  std::string quote;   // verbatim text from that passage
};

enum class Verdict {
  kSupported,
  kPartial,
  kUnsupported,
  kQuoteNotFound,   // the quote does not occur in the cited passage (after normalisation)
  kUnknownSource,   // the cited id is not in the evidence pack
  kOffTopic,        // quoted verbatim, but not about the question's subject or not of its focus (not kept)
};
// "supported", "partial", "unsupported", "quote_not_found", "unknown_source", "off_topic"
const char* VerdictName(Verdict v);

struct DraftClaim {
  std::string id;                 // "c1", "c2", ...
  std::string text;               // the sentence as it will be shown
  std::vector<Citation> cites;
};

// What a writer returns.
struct Draft {
  std::vector<DraftClaim> claims;
  std::string prose;              // the free text when the writer fell back to prose with [n] markers
  std::vector<std::string> dropped_markers;  // markers/ids that pointed outside the pack (recorded)
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
  uint32_t model_calls = 0;       // chat-model calls this draft took (a structured reply that fell back: 2)
  std::string model;              // "" for the extractive writer
};

struct ClaimVerdict {
  std::string claim_id;
  Verdict verdict = Verdict::kUnsupported;
  std::string reason;             // human-readable: which check decided it
};

}  // namespace attest
