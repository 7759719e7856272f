#include "index/document_indexer.h"

#include <algorithm>
#include <cctype>

#include "common/checksum.h"
#include "ingest/provenance.h"

namespace attest {
namespace {

void AppendField(std::string* out, std::string_view name, std::string_view value) {
  AppendDigestField(out, name, value);
}

}  // namespace

std::string ContentDigest(const ParsedDocument& doc, const DocumentRecord& r) {
  std::string s;
  AppendField(&s, "tenant", r.tenant);
  AppendField(&s, "id", r.id);
  AppendField(&s, "url", r.url);
  AppendField(&s, "title", r.title);
  AppendField(&s, "site", r.site);
  AppendField(&s, "published", r.published ? FormatDate(*r.published) : "");
  AppendField(&s, "updated", r.updated ? FormatDate(*r.updated) : "");
  AppendField(&s, "version", r.version);
  AppendField(&s, "source_type", r.source_type);
  AppendField(&s, "language", r.language);
  for (const auto& g : r.acl_groups) AppendField(&s, "acl", g);
  // Only when set, so that digests of unlabelled documents stay what they were before labels.
  if (!r.access_label.empty()) AppendField(&s, "access_label", r.access_label);
  for (const auto& [k, v] : doc.metadata) AppendField(&s, "meta:" + k, v);
  // A licence from the defaults (IngestOptions), not the document's metadata: only when set.
  if (!r.license.empty() && !doc.metadata.contains("license")) AppendField(&s, "license", r.license);
  for (const auto& b : doc.blocks) {
    AppendField(&s, "block" + std::to_string(static_cast<int>(b.kind)) + "/" + std::to_string(b.level), b.text);
  }
  return Sha256Hex(s);
}

PreparedDocument DocumentIndexer::Prepare(const ParsedDocument& doc, const DocumentDefaults& defaults,
                                          uint64_t source_bytes) const {
  PreparedDocument out;
  DocumentRecord& r = out.record;
  r.tenant = defaults.tenant;
  r.id = doc.id;
  r.url = doc.url;
  r.title = doc.title;
  r.site = doc.site.empty() ? defaults.site : doc.site;
  r.published = doc.published;
  r.updated = doc.updated;
  r.version = doc.version.empty() ? defaults.version : doc.version;
  r.source_type = doc.source_type.empty() ? defaults.source_type : doc.source_type;
  r.language = doc.language;
  // An authoritative feed (e.g. a product's release list): metadata "feed" or "authoritative_feed".
  for (const char* key : {"feed", "authoritative_feed"}) {
    auto it = doc.metadata.find(key);
    if (it != doc.metadata.end() && !it->second.empty()) r.feed = it->second;
  }
  r.acl_groups = defaults.acl_groups;
  std::sort(r.acl_groups.begin(), r.acl_groups.end());
  r.acl_groups.erase(std::unique(r.acl_groups.begin(), r.acl_groups.end()), r.acl_groups.end());
  r.access_label = defaults.access_label;
  // Provenance from metadata (DocumentSpec's fields arrive there, checked); a value that does not
  // pass the checks (e.g. a JSONL record's) is not recorded.
  r.license = defaults.license;
  if (auto it = doc.metadata.find("license"); it != doc.metadata.end() && !it->second.empty() &&
                                              CheckLicense(it->second, "license").ok()) {
    r.license = it->second;
  }
  if (auto it = doc.metadata.find("fetched_at"); it != doc.metadata.end()) {
    r.fetched_at_ms = ParseUtcTimestamp(it->second).value_or(0);
  }
  r.bytes = source_bytes;
  r.sha256 = ContentDigest(doc, r);

  out.chunks = ChunkDocument(doc, chunker_);
  if (out.chunks.empty()) {
    // A title-only document (a BEIR record with an empty "text") is one chunk holding its title:
    // retrievable and citable like any other. Reindex analyzes the stored text the same way.
    TextChunk title;
    title.text = doc.title;
    title.token_count = CountWordTokens(doc.title);
    if (title.token_count > 0) out.chunks.push_back(std::move(title));
  }
  out.indexed.reserve(out.chunks.size());
  for (const TextChunk& c : out.chunks) {
    out.indexed.push_back(Analyze(r.title, c.section_path, c.text, DefiningTerms(c.spans, c.text, c.ordinal), r));
  }
  r.chunk_count = static_cast<uint32_t>(out.chunks.size());
  return out;
}

IndexedChunk DocumentIndexer::Reindex(const ChunkRecord& chunk, const DocumentRecord& doc) const {
  IndexedChunk ic =
      Analyze(doc.title, chunk.section_path, chunk.text, DefiningTerms(chunk.spans, chunk.text, chunk.ordinal), doc);
  ic.id = chunk.id;
  return ic;
}

std::vector<std::string> DeclaredNames(const std::vector<ChunkSpan>& spans, std::string_view text) {
  std::vector<std::string> out;
  // Site navigation often precedes the first heading: the lead starts at the headings, if any.
  auto is_heading = [](const ChunkSpan& s) { return s.role == SpanRole::kHeading; };
  auto lead = std::find_if(spans.begin(), spans.end(), is_heading);
  if (lead == spans.end()) lead = spans.begin();
  lead = std::find_if_not(lead, spans.end(), is_heading);
  if (lead == spans.end() || lead->role != SpanRole::kCode || lead->end > text.size() || lead->begin > lead->end) {
    return out;
  }
  const std::string_view code = text.substr(lead->begin, lead->end - lead->begin);
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < code.size();) {
    if (!ident(code[i]) || (i > 0 && ident(code[i - 1]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < code.size() && ident(code[j])) ++j;
    size_t k = j;
    while (k < code.size() && code[k] == ' ') ++k;
    const std::string_view name = code.substr(i, j - i);
    size_t after = k + 1;  // "(*" opens a function pointer's type, "void (*)(void*)", not a name
    while (after < code.size() && code[after] == ' ') ++after;
    const bool pointer_type = after < code.size() && code[after] == '*';
    if (k < code.size() && code[k] == '(' && !pointer_type && !std::isdigit(static_cast<unsigned char>(name[0])) &&
        std::find(out.begin(), out.end(), name) == out.end()) {
      out.emplace_back(name);
    }
    i = j;
  }
  return out;
}

std::vector<std::string> DefiningTerms(const std::vector<ChunkSpan>& spans, std::string_view text, uint32_t ordinal) {
  std::vector<std::string> out;
  for (const ChunkSpan& s : spans) {
    if (s.role != SpanRole::kDefinition && s.role != SpanRole::kTableRow) continue;
    if (s.subject.empty() || std::find(out.begin(), out.end(), s.subject) != out.end()) continue;
    out.push_back(s.subject);
  }
  if (ordinal == 0) {
    for (std::string& name : DeclaredNames(spans, text)) {
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    }
  }
  return out;
}

IndexedChunk DocumentIndexer::Analyze(const std::string& title, const std::string& section, const std::string& body,
                                      const std::vector<std::string>& defining_terms, const DocumentRecord& doc) const {
  IndexedChunk ic;
  auto analyze = [&](Field f, const std::string& text) {
    AnalyzedField& af = ic.fields[static_cast<int>(f)];
    af.length = analyzer_.Analyze(text, &af.tokens);
  };
  analyze(Field::kTitle, title);
  analyze(Field::kSection, section);
  analyze(Field::kBody, body);
  // Each defining term is analyzed on its own, one position apart from the previous, so that a
  // phrase never matches across two terms.
  AnalyzedField& terms = ic.fields[static_cast<int>(Field::kTerm)];
  for (const std::string& t : defining_terms) {
    const uint32_t first = terms.length == 0 ? 0 : terms.length + 1;
    const uint32_t used = analyzer_.Analyze(t, &terms.tokens, first);
    if (used > 0) terms.length = first + used;
  }
  ic.attrs.tenant = doc.tenant;
  ic.attrs.acl_groups = doc.acl_groups;
  ic.attrs.access_label = doc.access_label;
  ic.attrs.source_type = doc.source_type;
  ic.attrs.site = doc.site;
  ic.attrs.version = doc.version;
  if (doc.published) {
    ic.attrs.date = *doc.published;
  } else if (doc.updated) {
    ic.attrs.date = *doc.updated;
  }
  return ic;
}

}  // namespace attest
