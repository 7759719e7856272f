#include "cluster/answer_contract.h"

#include "cluster/contract_json.h"

namespace attest {
namespace {

using contract_json::FilterFrom;
using contract_json::FilterJson;
using contract_json::Guarded;
using contract_json::json;
using contract_json::ParseBody;
using contract_json::Reader;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

constexpr const char* kStateNames[] = {"current", "changed", "deleted", "forbidden"};

const json& Items(const json& j, const char* name) {
  const json& items = Reader(j, "").Field(name, json::value_t::array);
  if (items.size() > kMaxContractItems) {
    throw Reader::Bad{std::string(name) + " holds more than " + std::to_string(kMaxContractItems) + " items"};
  }
  return items;
}

uint32_t U32(const Reader& r, const char* name, const std::string& path) {
  const uint64_t v = r.U64(name);
  if (v > UINT32_MAX) throw Reader::Bad{path + name + " is out of range"};
  return uint32_t(v);
}

}  // namespace

std::string EncodeTermStatisticsRequest(const SearchFilter& filter, const std::vector<std::string>& terms) {
  return Dump({{"contract", kShardContract}, {"filter", FilterJson(filter)}, {"terms", terms}});
}

Result<TermStatisticsRequest> DecodeTermStatisticsRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "filter"));
  return Guarded<TermStatisticsRequest>([&] {
    TermStatisticsRequest r;
    r.filter = FilterFrom(j["filter"], "filter.");
    for (const json& t : Items(j, "terms")) {
      if (!t.is_string()) throw Reader::Bad{"terms must hold strings"};
      r.terms.push_back(t.get<std::string>());
    }
    return r;
  });
}

std::string EncodeChunksRequest(const SearchFilter& filter, const std::vector<ChunkId>& ids) {
  std::vector<uint64_t> raw;
  for (ChunkId id : ids) raw.push_back(id.get());
  return Dump({{"contract", kShardContract}, {"filter", FilterJson(filter)}, {"ids", raw}});
}

Result<ChunksRequest> DecodeChunksRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "filter"));
  return Guarded<ChunksRequest>([&] {
    ChunksRequest r;
    r.filter = FilterFrom(j["filter"], "filter.");
    for (const json& id : Items(j, "ids")) {
      if (!id.is_number_unsigned()) throw Reader::Bad{"ids must hold chunk ids"};
      r.ids.push_back(ChunkId(id.get<uint64_t>()));
    }
    return r;
  });
}

std::string EncodeChunksReply(const std::vector<ChunkContent>& chunks) {
  json items = json::array();
  for (const ChunkContent& c : chunks) {
    json spans = json::array();
    for (const ChunkContent::Span& s : c.spans) {
      spans.push_back({{"begin", s.begin}, {"end", s.end}, {"role", s.role}, {"subject", s.subject}});
    }
    items.push_back({{"id", c.id.get()},
                     {"ordinal", c.ordinal},
                     {"section_path", c.section_path},
                     {"text", c.text},
                     {"spans", spans}});
  }
  return Dump({{"contract", kShardContract}, {"chunks", {{"items", items}}}});
}

Result<std::vector<ChunkContent>> DecodeChunksReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "chunks"));
  return Guarded<std::vector<ChunkContent>>([&] {
    std::vector<ChunkContent> out;
    for (const json& item : Items(j["chunks"], "items")) {
      if (!item.is_object()) throw Reader::Bad{"chunks.items must hold objects"};
      Reader r(item, "chunks.items[].");
      ChunkContent c;
      c.id = ChunkId(r.U64("id"));
      c.ordinal = U32(r, "ordinal", "chunks.items[].");
      c.section_path = r.Str("section_path");
      c.text = r.Str("text");
      for (const json& s : r.Field("spans", json::value_t::array)) {
        if (!s.is_object()) throw Reader::Bad{"chunks.items[].spans must hold objects"};
        Reader sr(s, "chunks.items[].spans[].");
        c.spans.push_back({U32(sr, "begin", "chunks.items[].spans[]."), U32(sr, "end", "chunks.items[].spans[]."),
                           sr.Str("role"), sr.Str("subject")});
      }
      out.push_back(std::move(c));
    }
    return out;
  });
}

std::string EncodeSourcesRequest(const SearchFilter& filter, const std::vector<std::string>& ids) {
  return Dump({{"contract", kShardContract}, {"filter", FilterJson(filter)}, {"ids", ids}});
}

Result<SourcesRequest> DecodeSourcesRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "filter"));
  return Guarded<SourcesRequest>([&] {
    SourcesRequest r;
    r.filter = FilterFrom(j["filter"], "filter.");
    for (const json& id : Items(j, "ids")) {
      if (!id.is_string()) throw Reader::Bad{"ids must hold document ids"};
      r.ids.push_back(id.get<std::string>());
    }
    return r;
  });
}

std::string EncodeSourcesReply(const std::vector<SourceInfo>& sources) {
  json items = json::array();
  for (const SourceInfo& s : sources) {
    items.push_back({{"id", s.id},
                     {"url", s.url},
                     {"license", s.license},
                     {"feed", s.feed},
                     {"published", s.published},
                     {"updated", s.updated},
                     {"fetched_at_ms", s.fetched_at_ms}});
  }
  return Dump({{"contract", kShardContract}, {"sources", {{"items", items}}}});
}

Result<std::vector<SourceInfo>> DecodeSourcesReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "sources"));
  return Guarded<std::vector<SourceInfo>>([&] {
    std::vector<SourceInfo> out;
    for (const json& item : Items(j["sources"], "items")) {
      if (!item.is_object()) throw Reader::Bad{"sources.items must hold objects"};
      Reader r(item, "sources.items[].");
      SourceInfo s;
      s.id = r.Str("id");
      s.url = r.Str("url");
      s.license = r.Str("license");
      s.feed = r.Str("feed");
      s.published = r.Str("published");
      s.updated = r.Str("updated");
      const uint64_t at = r.U64("fetched_at_ms");
      if (at > uint64_t(INT64_MAX)) throw Reader::Bad{"sources.items[].fetched_at_ms is out of range"};
      s.fetched_at_ms = int64_t(at);
      out.push_back(std::move(s));
    }
    return out;
  });
}

std::string EncodeCitationsRequest(const SearchFilter& filter, const std::vector<CitedChunk>& cited) {
  json items = json::array();
  for (const CitedChunk& c : cited) items.push_back({{"doc_id", c.doc_id}, {"chunk_id", c.chunk_id.get()}});
  return Dump({{"contract", kShardContract}, {"filter", FilterJson(filter)}, {"cited", items}});
}

Result<CitationsRequest> DecodeCitationsRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "filter"));
  return Guarded<CitationsRequest>([&] {
    CitationsRequest r;
    r.filter = FilterFrom(j["filter"], "filter.");
    for (const json& c : Items(j, "cited")) {
      if (!c.is_object()) throw Reader::Bad{"cited must hold objects"};
      Reader cr(c, "cited[].");
      r.cited.push_back(CitedChunk{cr.Str("doc_id"), ChunkId(cr.U64("chunk_id"))});
    }
    return r;
  });
}

std::string EncodeCitationsReply(const std::vector<CitationState>& states) {
  json names = json::array();
  for (CitationState s : states) names.push_back(kStateNames[static_cast<int>(s)]);
  return Dump({{"contract", kShardContract}, {"citations", {{"states", names}}}});
}

Result<std::vector<CitationState>> DecodeCitationsReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "citations"));
  return Guarded<std::vector<CitationState>>([&] {
    std::vector<CitationState> out;
    for (const json& s : Items(j["citations"], "states")) {
      if (!s.is_string()) throw Reader::Bad{"citations.states must hold strings"};
      bool known = false;
      for (int i = 0; i < 4 && !known; ++i) {
        if (s.get<std::string>() == kStateNames[i]) {
          out.push_back(static_cast<CitationState>(i));
          known = true;
        }
      }
      if (!known) throw Reader::Bad{"citations.states: '" + s.get<std::string>() + "' is not a citation state"};
    }
    return out;
  });
}

}  // namespace attest
