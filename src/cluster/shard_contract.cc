#include "cluster/shard_contract.h"

#include <nlohmann/json.hpp>

#include "common/json_guard.h"

namespace attest {
namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 16;
constexpr size_t kMaxValues = 2'000'000;

// A field read that names the field when it is missing or of the wrong type.
class Reader {
 public:
  Reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  const json& Field(const char* name, json::value_t type, bool required = true) const {
    static const json kNull;
    auto it = j_.find(name);
    if (it == j_.end()) {
      if (required) throw Bad{path_ + name + " is missing"};
      return kNull;
    }
    const bool number = type == json::value_t::number_unsigned || type == json::value_t::number_float;
    const bool ok = number ? (type == json::value_t::number_float ? it->is_number() : it->is_number_unsigned())
                           : it->type() == type;
    if (!ok) throw Bad{path_ + name + " has the wrong type"};
    return *it;
  }
  std::string Str(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::string, required);
    return v.is_null() ? std::string() : v.get<std::string>();
  }
  uint64_t U64(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::number_unsigned, required);
    return v.is_null() ? 0 : v.get<uint64_t>();
  }
  double Num(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::number_float, required);
    return v.is_null() ? 0 : v.get<double>();
  }
  bool Bool(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::boolean, required);
    return !v.is_null() && v.get<bool>();
  }
  std::vector<std::string> Strings(const char* name) const {
    const json& v = Field(name, json::value_t::array, false);
    std::vector<std::string> out;
    for (const json& s : v.is_null() ? json::array() : v) {
      if (!s.is_string()) throw Bad{path_ + name + " must hold strings"};
      out.push_back(s.get<std::string>());
    }
    return out;
  }
  std::optional<std::vector<std::string>> OptStrings(const char* name) const {
    if (!j_.contains(name) || j_[name].is_null()) return std::nullopt;
    return Strings(name);
  }
  std::optional<std::string> OptStr(const char* name) const {
    if (!j_.contains(name) || j_[name].is_null()) return std::nullopt;
    return Str(name);
  }

  struct Bad {
    std::string message;
  };

 private:
  const json& j_;
  std::string path_;
};

Result<json> ParseBody(std::string_view body, const char* want) {
  if (JsonNestingExceeds(body, kMaxDepth) || ScanJsonShape(body, kMaxDepth, kMaxValues).problem !=
                                                    JsonShapeScan::Problem::kNone) {
    return Status::InvalidArgument("body: nests too deep or holds too many values");
  }
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument("body: not a JSON object");
  auto c = j.find("contract");
  if (c == j.end() || !c->is_string()) return Status::InvalidArgument("contract: missing");
  if (c->get<std::string>() != kShardContract) {
    return Status::InvalidArgument("contract: '" + c->get<std::string>() + "' is not " + std::string(kShardContract));
  }
  if (!j.contains(want) || !j[want].is_object()) return Status::InvalidArgument(std::string(want) + ": missing");
  return j;
}

json OptionsJson(const SearchOptions& o) {
  json f = {{"tenant", o.filter.tenant},
            {"source_types", o.filter.source_types},
            {"sites", o.filter.sites},
            {"versions", o.filter.versions}};
  if (o.filter.groups) f["groups"] = *o.filter.groups;
  if (o.filter.clearance) f["clearance"] = *o.filter.clearance;
  if (o.filter.date_from) f["date_from"] = *o.filter.date_from;
  if (o.filter.date_to) f["date_to"] = *o.filter.date_to;
  return {{"query", o.query},
          {"k", o.k},
          {"filter", f},
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
  Reader f(r.Field("filter", json::value_t::object), "options.filter.");
  o.filter.tenant = f.Str("tenant");
  o.filter.groups = f.OptStrings("groups");
  o.filter.clearance = f.OptStr("clearance");
  o.filter.source_types = f.Strings("source_types");
  o.filter.sites = f.Strings("sites");
  o.filter.versions = f.Strings("versions");
  o.filter.date_from = f.OptStr("date_from");
  o.filter.date_to = f.OptStr("date_to");
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

template <typename T, typename Fn>
Result<T> Guarded(Fn fn) {
  try {
    return fn();
  } catch (const Reader::Bad& b) {
    return Status::InvalidArgument(b.message);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(CleanJsonErrorMessage(e.what()));
  }
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
                {"applied", h.applied}}}}
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
