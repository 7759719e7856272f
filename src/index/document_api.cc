#include "index/document_api.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <spdlog/spdlog.h>

#include "common/strings.h"
#include "ingest/provenance.h"
#include "ingest/html_extractor.h"
#include "ingest/markdown_parser.h"
#include "ingest/text_parser.h"
#include "ingest/text_util.h"
#include "store/access_attributes.h"

namespace attest {
namespace {

Status CheckDate(const std::string& value, const char* field, std::optional<DayNumber>* out) {
  if (value.empty()) return Status::Ok();
  *out = ParseDate(value);
  if (!*out) return Status::InvalidArgument(std::string(field) + ": '" + value + "' is not a date (YYYY-MM-DD)");
  return Status::Ok();
}

}  // namespace

Result<ParsedDocument> ParseDocumentSpec(const DocumentSpec& spec) {
  if (spec.id.empty()) return Status::InvalidArgument("id: empty");
  if (auto nul = ingest::FindNul(spec.text)) return Status::InvalidArgument("text: NUL byte at offset " + std::to_string(*nul));
  if (auto bad = ingest::FindInvalidUtf8(spec.text)) {
    return Status::InvalidArgument("text: invalid UTF-8 at byte offset " + std::to_string(*bad));
  }
  ParsedDocument doc;
  if (spec.content_type == "text" || spec.content_type.empty()) {
    ParsePlainText(spec.text, spec.title.empty() ? spec.id : spec.title, &doc);
  } else if (spec.content_type == "markdown") {
    ATTEST_RETURN_IF_ERROR(ParseMarkdown(spec.text, &doc).WithContext("text"));
  } else if (spec.content_type == "html") {
    ATTEST_RETURN_IF_ERROR(ExtractHtml(spec.text, &doc).WithContext("text"));
  } else {
    return Status::InvalidArgument("content_type: '" + spec.content_type + "' is not one of text, markdown, html");
  }
  bool has_text = false;
  for (const Block& b : doc.blocks) has_text |= !Trim(b.text).empty();
  // A title-only document is one chunk holding its title (DocumentIndexer), as in JSONL input.
  if (!has_text && !ingest::HasWordCharacter(spec.title)) {
    return Status::InvalidArgument("text: no text after extraction, and the title has no words");
  }
  doc.id = spec.id;
  if (!spec.title.empty()) doc.title = spec.title;
  if (doc.title.empty()) doc.title = spec.id;
  if (!spec.url.empty()) doc.url = spec.url;
  if (!spec.site.empty()) doc.site = spec.site;
  if (!spec.version.empty()) doc.version = spec.version;
  if (!spec.source_type.empty()) doc.source_type = spec.source_type;
  if (!spec.language.empty()) doc.language = spec.language;
  ATTEST_RETURN_IF_ERROR(CheckDate(spec.published, "published", &doc.published));
  ATTEST_RETURN_IF_ERROR(CheckDate(spec.updated, "updated", &doc.updated));
  for (const auto& [k, v] : spec.metadata) doc.metadata[k] = v;
  if (!spec.feed.empty()) doc.metadata["feed"] = spec.feed;
  // Provenance (ingest/provenance.h) travels as metadata, as it did before it had fields.
  if (!spec.license.empty()) {
    ATTEST_RETURN_IF_ERROR(CheckLicense(spec.license, "license"));
    doc.metadata["license"] = spec.license;
  } else if (auto it = doc.metadata.find("license"); it != doc.metadata.end()) {
    ATTEST_RETURN_IF_ERROR(CheckLicense(it->second, "metadata.license"));
  }
  if (!spec.fetched_at.empty()) {
    std::optional<int64_t> at = ParseUtcTimestamp(spec.fetched_at);
    if (!at) {
      return Status::InvalidArgument("fetched_at: '" + spec.fetched_at +
                                     "' is not an ISO 8601 UTC time (YYYY-MM-DDThh:mm:ssZ)");
    }
    doc.metadata["fetched_at"] = FormatUtcTimestamp(*at);
  }
  return doc;
}

namespace {

bool AdmitsAccess(const SearchFilter& who, const std::string& tenant, const std::vector<std::string>& groups,
                  const std::string& label) {
  if (tenant != who.tenant) return false;
  // Clearance: the engine resolved it into labels; an unresolved one admits nothing (fail closed).
  if (who.labels) {
    if (std::find(who.labels->begin(), who.labels->end(), label) == who.labels->end()) return false;
  } else if (who.clearance) {
    return false;
  }
  if (!who.groups || groups.empty()) return true;
  for (const std::string& g : *who.groups) {
    if (std::find(groups.begin(), groups.end(), g) != groups.end()) return true;
  }
  return false;
}

// Compares the row with the segments' copy of who may read it (store/access_attributes.h). When they
// disagree the stricter copy decides: a caller that either copy refuses gets kNotFound (as for any
// hidden document); one both admit gets the kCorruption (the document is refused to everyone).
// Either way the disagreement is logged.
Status CheckBothCopies(const Snapshot& snapshot, const SearchFilter& who, const DocumentRecord& doc,
                       std::span<const ChunkId> chunks) {
  Status agree = CheckAccessAttributes(snapshot.segments(), doc, chunks);
  if (agree.ok()) return agree;
  spdlog::error("{}", agree.message());
  for (ChunkId id : chunks) {
    std::optional<ChunkAttributes> a = SegmentAttributesOf(snapshot.segments(), id);
    if (!a || !AdmitsAccess(who, a->tenant, a->acl_groups, a->access_label)) {
      return Status::NotFound("no document with id '" + doc.id + "' in tenant '" + who.tenant + "'");
    }
  }
  return agree;
}

// The metadata a document read and a listing row both show (DocumentInfo, DocumentSummary).
template <class Out>
void CopyDocumentFields(const DocumentRecord& r, Out* out) {
  out->id = r.id;
  out->title = r.title;
  out->url = r.url;
  out->site = r.site;
  out->version = r.version;
  out->source_type = r.source_type;
  out->language = r.language;
  out->feed = r.feed;
  out->access_label = r.access_label;
  out->license = r.license;
  out->published = r.published ? FormatDate(*r.published) : "";
  out->updated = r.updated ? FormatDate(*r.updated) : "";
  out->acl_groups = r.acl_groups;
  out->bytes = r.bytes;
  out->created_snapshot = r.created.get();
}

}  // namespace

bool Admits(const SearchFilter& who, const DocumentRecord& doc) {
  return AdmitsAccess(who, doc.tenant, doc.acl_groups, doc.access_label);
}

Result<DocumentInfo> ReadDocument(const Snapshot& snapshot, const SearchFilter& who, const std::string& id) {
  auto found = snapshot.FindDocument(DocumentKey{who.tenant, id});
  if (!found.ok()) return found.status();
  const DocumentRecord& r = *found;
  if (!Admits(who, r)) {
    return Status::NotFound("no document with id '" + id + "' in tenant '" + who.tenant + "'");
  }
  ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, snapshot.ChunksOfDocument(r.num));
  if (chunks.size() != r.chunk_count) {
    return Status::Corruption("catalog: document '" + id + "' (#" + std::to_string(r.num.get()) + ") has " +
                              std::to_string(chunks.size()) + " chunk rows; its row says " +
                              std::to_string(r.chunk_count));
  }
  std::vector<ChunkId> ids;
  for (const ChunkRecord& c : chunks) ids.push_back(c.id);
  ATTEST_RETURN_IF_ERROR(CheckBothCopies(snapshot, who, r, ids));
  DocumentInfo info;
  CopyDocumentFields(r, &info);
  info.tenant = r.tenant;
  info.sha256 = r.sha256;
  info.snapshot_version = snapshot.version().get();
  if (r.fetched_at_ms != 0) {
    info.fetched_at = FormatUtcTimestamp(r.fetched_at_ms);
  } else if (auto at = snapshot.VersionCommittedAtUnixMs(r.created); at.ok() && *at > 0) {
    info.fetched_at = FormatUtcTimestamp(*at);
  }
  for (const ChunkRecord& c : chunks) {
    info.chunk_ids.push_back(c.id);
    if (!info.text.empty()) info.text += "\n\n";
    info.text += c.text;
  }
  return info;
}

Result<DocumentListing> ListDocuments(const Snapshot& snapshot, const ListDocumentsOptions& options) {
  if (options.limit < 1 || options.limit > 1000) {
    return Status::InvalidArgument("limit: " + std::to_string(options.limit) + " is outside 1..1000");
  }
  DocumentListQuery q;
  q.tenant = options.tenant;
  q.after_id = options.after_id;
  q.limit = options.limit;
  q.source_types = options.source_types;
  q.sites = options.sites;
  q.versions = options.versions;
  q.text = options.text;
  for (auto [given, day, name] : {std::tuple{&options.date_from, &q.date_from, "date_from"},
                                  std::tuple{&options.date_to, &q.date_to, "date_to"}}) {
    if (!*given) continue;
    *day = ParseDate(**given);
    if (!*day) return Status::InvalidArgument(std::string(name) + ": '" + **given + "' is not a date (YYYY-MM-DD)");
  }
  ATTEST_ASSIGN_OR_RETURN(DocumentPage page, snapshot.ListDocuments(q));
  DocumentListing out;
  out.total = page.total;
  out.snapshot_version = snapshot.version().get();
  if (page.more && !page.rows.empty()) out.next_after_id = page.rows.back().id;
  std::map<uint64_t, std::string> committed;  // created snapshot -> its commit time (rows share them)
  for (ListedDocument& row : page.rows) {
    if (!row.record) {
      spdlog::error("{}", row.error);
      out.corrupt.push_back({row.id, row.error});
      continue;
    }
    const DocumentRecord& r = *row.record;
    DocumentSummary d;
    CopyDocumentFields(r, &d);
    d.chunks = r.chunk_count;
    auto at = committed.find(r.created.get());
    if (at == committed.end()) {
      auto ms = snapshot.VersionCommittedAtUnixMs(r.created);
      at = committed.emplace(r.created.get(), ms.ok() && *ms > 0 ? FormatUtcTimestamp(*ms) : "").first;
    }
    d.fetched_at = r.fetched_at_ms != 0 ? FormatUtcTimestamp(r.fetched_at_ms) : at->second;
    out.documents.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<CitationState>> CitationStates(const Snapshot& latest, const SearchFilter& who,
                                                  const std::vector<CitedChunk>& cited) {
  std::vector<CitationState> out(cited.size(), CitationState::kCurrent);
  std::map<std::string, std::optional<DocumentRecord>> docs;  // doc id -> live record (nullopt = deleted)
  for (size_t i = 0; i < cited.size(); ++i) {
    auto it = docs.find(cited[i].doc_id);
    if (it == docs.end()) {
      auto found = latest.FindDocument(DocumentKey{who.tenant, cited[i].doc_id});
      if (!found.ok() && found.status().code() != StatusCode::kNotFound) return found.status();
      it = docs.emplace(cited[i].doc_id, found.ok() ? std::optional<DocumentRecord>(*found) : std::nullopt).first;
    }
    if (!it->second) {
      out[i] = CitationState::kDeleted;
      continue;
    }
    if (!Admits(who, *it->second)) {
      out[i] = CitationState::kForbidden;
      continue;
    }
    const ChunkId id(cited[i].chunk_id);
    ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> live, latest.GetChunks(std::span<const ChunkId>(&id, 1)));
    if (live.empty() || live.front().doc != it->second->num) {
      out[i] = CitationState::kChanged;
    } else if (!CheckBothCopies(latest, who, *it->second, std::span<const ChunkId>(&id, 1)).ok()) {
      out[i] = CitationState::kForbidden;  // the copies disagree: withdrawn, never shown (logged)
    }
  }
  return out;
}

}  // namespace attest
