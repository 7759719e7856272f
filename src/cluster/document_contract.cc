#include "cluster/document_contract.h"

#include "cluster/contract_json.h"

namespace attest {
namespace {

using contract_json::FilterFrom;
using contract_json::FilterJson;
using contract_json::Guarded;
using contract_json::json;
using contract_json::ParseBody;
using contract_json::Reader;

constexpr size_t kMaxListing = 1000;  // ListDocumentsOptions::limit's bound

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The catalog metadata DocumentInfo and DocumentSummary share, written and read the same way.
template <typename Doc>
json MetadataJson(const Doc& d) {
  return {{"id", d.id},
          {"title", d.title},
          {"url", d.url},
          {"site", d.site},
          {"version", d.version},
          {"source_type", d.source_type},
          {"language", d.language},
          {"feed", d.feed},
          {"access_label", d.access_label},
          {"license", d.license},
          {"published", d.published},
          {"updated", d.updated},
          {"acl_groups", d.acl_groups},
          {"bytes", d.bytes},
          {"created_snapshot", d.created_snapshot},
          {"fetched_at", d.fetched_at}};
}

template <typename Doc>
void ReadMetadata(const Reader& r, const std::string& path, Doc* d) {
  d->id = r.Str("id");
  if (d->id.empty()) throw Reader::Bad{path + "id is empty"};
  d->title = r.Str("title");
  d->url = r.Str("url");
  d->site = r.Str("site");
  d->version = r.Str("version");
  d->source_type = r.Str("source_type");
  d->language = r.Str("language");
  d->feed = r.Str("feed");
  d->access_label = r.Str("access_label");
  d->license = r.Str("license");
  d->published = r.Str("published");
  d->updated = r.Str("updated");
  d->acl_groups = r.Strings("acl_groups");
  d->bytes = r.U64("bytes");
  d->created_snapshot = r.U64("created_snapshot");
  d->fetched_at = r.Str("fetched_at");
}

json DocumentJson(const DocumentInfo& d) {
  std::vector<uint64_t> chunks;
  for (ChunkId c : d.chunk_ids) chunks.push_back(c.get());
  json j = MetadataJson(d);
  j["tenant"] = d.tenant;
  j["sha256"] = d.sha256;
  j["chunk_ids"] = chunks;
  j["text"] = d.text;
  j["snapshot"] = d.snapshot_version;
  return j;
}

DocumentInfo DocumentFrom(const json& j) {
  Reader r(j, "document.");
  DocumentInfo d;
  ReadMetadata(r, "document.", &d);
  d.tenant = r.Str("tenant");
  d.sha256 = r.Str("sha256");
  for (const json& c : r.Field("chunk_ids", json::value_t::array)) {
    if (!c.is_number_unsigned()) throw Reader::Bad{"document.chunk_ids must hold chunk ids"};
    d.chunk_ids.push_back(ChunkId(c.get<uint64_t>()));
  }
  d.text = r.Str("text");
  d.snapshot_version = r.U64("snapshot");
  return d;
}

json SummaryJson(const DocumentSummary& d) {
  json j = MetadataJson(d);
  j["chunks"] = d.chunks;
  return j;
}

DocumentSummary SummaryFrom(const json& j) {
  if (!j.is_object()) throw Reader::Bad{"listing.documents must hold objects"};
  Reader r(j, "listing.documents[].");
  DocumentSummary d;
  ReadMetadata(r, "listing.documents[].", &d);
  const uint64_t chunks = r.U64("chunks");
  if (chunks > UINT32_MAX) throw Reader::Bad{"listing.documents[].chunks is out of range"};
  d.chunks = uint32_t(chunks);
  return d;
}

}  // namespace

std::string EncodeDocumentRequest(const SearchFilter& filter, const std::string& id) {
  return Dump({{"contract", kShardContract}, {"filter", FilterJson(filter)}, {"id", id}});
}

Result<ShardDocumentRequest> DecodeDocumentRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "filter"));
  return Guarded<ShardDocumentRequest>([&] {
    ShardDocumentRequest r;
    r.filter = FilterFrom(j["filter"], "filter.");
    r.id = Reader(j, "").Str("id");
    if (r.id.empty()) throw Reader::Bad{"id is empty"};
    return r;
  });
}

std::string EncodeDocumentReply(const DocumentInfo& doc) {
  return Dump({{"contract", kShardContract}, {"document", DocumentJson(doc)}});
}

Result<DocumentInfo> DecodeDocumentReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "document"));
  return Guarded<DocumentInfo>([&] { return DocumentFrom(j["document"]); });
}

std::string EncodeListingRequest(const ListDocumentsOptions& o) {
  json l = {{"tenant", o.tenant},   {"limit", o.limit}, {"after_id", o.after_id},
            {"source_types", o.source_types}, {"sites", o.sites}, {"versions", o.versions},
            {"text", o.text}};
  if (o.date_from) l["date_from"] = *o.date_from;
  if (o.date_to) l["date_to"] = *o.date_to;
  return Dump({{"contract", kShardContract}, {"listing", l}});
}

Result<ListDocumentsOptions> DecodeListingRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "listing"));
  return Guarded<ListDocumentsOptions>([&] {
    Reader r(j["listing"], "listing.");
    ListDocumentsOptions o;
    o.tenant = r.Str("tenant");
    o.limit = r.U64("limit");
    if (o.limit == 0 || o.limit > kMaxListing) throw Reader::Bad{"listing.limit is out of range (1..1000)"};
    o.after_id = r.Str("after_id");
    o.source_types = r.Strings("source_types");
    o.sites = r.Strings("sites");
    o.versions = r.Strings("versions");
    o.text = r.Str("text");
    o.date_from = r.OptStr("date_from");
    o.date_to = r.OptStr("date_to");
    return o;
  });
}

std::string EncodeListingReply(const DocumentListing& listing) {
  json docs = json::array();
  for (const DocumentSummary& d : listing.documents) docs.push_back(SummaryJson(d));
  json corrupt = json::array();
  for (const CorruptDocument& c : listing.corrupt) corrupt.push_back({{"id", c.id}, {"message", c.message}});
  json l = {{"documents", docs}, {"corrupt", corrupt}, {"total", listing.total}, {"snapshot", listing.snapshot_version}};
  if (listing.next_after_id) l["next_after_id"] = *listing.next_after_id;
  return Dump({{"contract", kShardContract}, {"listing", l}});
}

Result<DocumentListing> DecodeListingReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "listing"));
  return Guarded<DocumentListing>([&] {
    Reader r(j["listing"], "listing.");
    DocumentListing out;
    for (const json& d : r.Field("documents", json::value_t::array)) out.documents.push_back(SummaryFrom(d));
    for (const json& c : r.Field("corrupt", json::value_t::array)) {
      if (!c.is_object()) throw Reader::Bad{"listing.corrupt must hold objects"};
      Reader cr(c, "listing.corrupt[].");
      out.corrupt.push_back(CorruptDocument{cr.Str("id"), cr.Str("message")});
    }
    out.total = r.U64("total");
    out.snapshot_version = r.U64("snapshot");
    out.next_after_id = r.OptStr("next_after_id");
    return out;
  });
}

}  // namespace attest
