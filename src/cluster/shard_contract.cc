#include "cluster/shard_contract.h"

#include <nlohmann/json.hpp>

#include "cluster/contract_json.h"

namespace attest {
namespace {

using json = nlohmann::json;
using contract_json::FilterFrom;
using contract_json::FilterJson;
using contract_json::Guarded;
using contract_json::ParseBody;
using contract_json::Reader;

json OptionsJson(const SearchOptions& o) {
  return {{"query", o.query},
          {"k", o.k},
          {"filter", FilterJson(o.filter)},
          {"collapse_documents", o.collapse_documents},
          {"with_snippets", o.with_snippets},
          {"snippet_words", o.snippet_words},
          {"weights",
           {o.title_weight, o.section_weight, o.body_weight, o.term_weight, o.name_query_title_weight,
            o.name_query_section_weight}},
          {"name_query_title_first", o.name_query_title_first},
          {"mode", SearchModeName(o.mode)}};
}

SearchOptions OptionsFrom(const json& j) {
  Reader r(j, "options.");
  SearchOptions o;
  o.query = r.Str("query");
  o.k = r.U64("k");
  if (o.k == 0 || o.k > 10000) throw Reader::Bad{"options.k is out of range"};
  o.filter = FilterFrom(r.Field("filter", json::value_t::object), "options.filter.");
  o.collapse_documents = r.Bool("collapse_documents");
  o.with_snippets = r.Bool("with_snippets");
  o.snippet_words = r.U64("snippet_words");
  const json& w = r.Field("weights", json::value_t::array);
  if (w.size() != 6) throw Reader::Bad{"options.weights must hold 6 numbers"};
  float* dst[6] = {&o.title_weight, &o.section_weight, &o.body_weight, &o.term_weight, &o.name_query_title_weight,
                   &o.name_query_section_weight};
  for (size_t i = 0; i < 6; ++i) {
    if (!w[i].is_number()) throw Reader::Bad{"options.weights must hold 6 numbers"};
    *dst[i] = w[i].get<float>();
  }
  o.name_query_title_first = r.Bool("name_query_title_first");
  const std::string mode = r.Str("mode");
  if (mode == "bm25") {
    o.mode = SearchMode::kBm25;
  } else if (mode == "auto") {
    o.mode = SearchMode::kAuto;
  } else if (mode == "vector") {
    o.mode = SearchMode::kVector;
  } else if (mode == "hybrid") {
    o.mode = SearchMode::kHybrid;
  } else {
    throw Reader::Bad{"options.mode '" + mode + "' is not a mode"};
  }
  return o;
}

json StatisticsJson(const ShardStatistics& s) {
  return {{"snapshot", s.snapshot_version}, {"num_docs", s.num_docs}, {"total_len", s.total_len}, {"doc_freq", s.doc_freq}};
}

ShardStatistics StatisticsFrom(const json& j) {
  Reader r(j, "statistics.");
  ShardStatistics s;
  s.snapshot_version = r.U64("snapshot");
  s.num_docs = r.U64("num_docs");
  const json& t = r.Field("total_len", json::value_t::array);
  if (t.size() != 4) throw Reader::Bad{"statistics.total_len must hold 4 counts"};
  for (size_t f = 0; f < 4; ++f) {
    if (!t[f].is_number_unsigned()) throw Reader::Bad{"statistics.total_len must hold 4 counts"};
    s.total_len[f] = t[f].get<uint64_t>();
  }
  for (const auto& [term, df] : r.Field("doc_freq", json::value_t::object).items()) {
    if (!df.is_number_unsigned()) throw Reader::Bad{"statistics.doc_freq." + term + " is not a count"};
    s.doc_freq[term] = df.get<uint64_t>();
  }
  return s;
}

json HitJson(const SearchHit& h) {
  json hl = json::array();
  for (const Highlight& x : h.highlights) hl.push_back({x.start, x.end});
  return {{"doc_id", h.doc_id},   {"chunk_id", h.chunk_id.get()}, {"score", h.score},
          {"title", h.title},     {"url", h.url},                 {"site", h.site},
          {"date", h.date},       {"version", h.version},         {"source_type", h.source_type},
          {"section", h.section}, {"feed", h.feed},               {"license", h.license},
          {"snippet", h.snippet}, {"highlights", hl},             {"lexical_rank", h.lexical_rank},
          {"lexical_score", h.lexical_score}};
}

SearchHit HitFrom(const json& j) {
  if (!j.is_object()) throw Reader::Bad{"result.hits must hold objects"};
  Reader r(j, "result.hits[].");
  SearchHit h;
  h.doc_id = r.Str("doc_id");
  h.chunk_id = ChunkId(r.U64("chunk_id"));
  h.score = static_cast<float>(r.Num("score"));
  h.title = r.Str("title");
  h.url = r.Str("url");
  h.site = r.Str("site");
  h.date = r.Str("date");
  h.version = r.Str("version");
  h.source_type = r.Str("source_type");
  h.section = r.Str("section");
  h.feed = r.Str("feed");
  h.license = r.Str("license");
  h.snippet = r.Str("snippet");
  for (const json& x : r.Field("highlights", json::value_t::array)) {
    if (!x.is_array() || x.size() != 2 || !x[0].is_number_unsigned() || !x[1].is_number_unsigned()) {
      throw Reader::Bad{"result.hits[].highlights must hold [start, end] pairs"};
    }
    const uint64_t start = x[0].get<uint64_t>(), end = x[1].get<uint64_t>();
    if (start > end || end > h.snippet.size()) throw Reader::Bad{"result.hits[].highlights are outside the snippet"};
    h.highlights.push_back(Highlight{uint32_t(start), uint32_t(end)});
  }
  h.lexical_rank = static_cast<uint32_t>(r.U64("lexical_rank"));
  h.lexical_score = static_cast<float>(r.Num("lexical_score"));
  return h;
}

}  // namespace

std::string EncodeHealthReply(const ShardHealth& h) {
  return json{{"contract", kShardContract},
              {"health",
               {{"node", h.node},
                {"snapshot", h.snapshot},
                {"vshards", h.vshards},
                {"pending", h.pending},
                {"unacknowledged", h.unacknowledged},
                {"applied", h.applied},
                {"committed_at_ms", h.committed_at_ms}}}}
      .dump();
}

Result<ShardHealth> DecodeHealthReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "health"));
  return Guarded<ShardHealth>([&] {
    Reader r(j["health"], "health.");
    ShardHealth h;
    h.node = r.Str("node");
    h.snapshot = r.U64("snapshot");
    h.vshards = r.U64("vshards");
    h.pending = r.U64("pending");
    h.unacknowledged = r.U64("unacknowledged");
    h.applied = r.U64("applied");
    h.committed_at_ms = int64_t(r.U64("committed_at_ms", /*required=*/false));  // absent from older nodes
    return h;
  });
}

std::string EncodeStatisticsRequest(const SearchOptions& options) {
  return json{{"contract", kShardContract}, {"options", OptionsJson(options)}}.dump();
}

std::string EncodeSearchRequest(const SearchOptions& options, const ShardStatistics& global, uint64_t snapshot) {
  return json{{"contract", kShardContract},
              {"options", OptionsJson(options)},
              {"statistics", StatisticsJson(global)},
              {"snapshot", snapshot}}
      .dump();
}

std::string EncodeStatisticsReply(const ShardStatistics& statistics) {
  return json{{"contract", kShardContract}, {"statistics", StatisticsJson(statistics)}}.dump();
}

std::string EncodeSearchReply(const SearchResult& result) {
  json hits = json::array();
  for (const SearchHit& h : result.hits) hits.push_back(HitJson(h));
  return json{{"contract", kShardContract},
              {"result",
               {{"hits", hits},
                {"snapshot", result.snapshot_version},
                {"took_ms", result.took_ms},
                {"notices", result.notices},
                {"degraded", result.degraded}}}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<SearchOptions> DecodeStatisticsRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "options"));
  return Guarded<SearchOptions>([&] { return OptionsFrom(j["options"]); });
}

Result<ShardSearchRequest> DecodeSearchRequest(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "options"));
  return Guarded<ShardSearchRequest>([&] {
    ShardSearchRequest r;
    r.options = OptionsFrom(j["options"]);
    if (!j.contains("statistics") || !j["statistics"].is_object()) throw Reader::Bad{"statistics is missing"};
    r.statistics = StatisticsFrom(j["statistics"]);
    r.snapshot = Reader(j, "").U64("snapshot");
    return r;
  });
}

Result<ShardStatistics> DecodeStatisticsReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "statistics"));
  return Guarded<ShardStatistics>([&] { return StatisticsFrom(j["statistics"]); });
}

Result<SearchResult> DecodeSearchReply(std::string_view body) {
  ATTEST_ASSIGN_OR_RETURN(json j, ParseBody(body, "result"));
  return Guarded<SearchResult>([&] {
    Reader r(j["result"], "result.");
    SearchResult out;
    out.mode = SearchMode::kBm25;
    for (const json& h : r.Field("hits", json::value_t::array)) out.hits.push_back(HitFrom(h));
    out.snapshot_version = r.U64("snapshot");
    out.took_ms = r.Num("took_ms");
    out.notices = r.Strings("notices");
    out.degraded = r.Strings("degraded");
    return out;
  });
}

}  // namespace attest
