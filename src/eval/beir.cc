#include "eval/beir.h"

#include <charconv>
#include <fstream>
#include <set>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

namespace attest {
namespace {

// A single JSONL line longer than this is refused rather than buffered without bound.
constexpr size_t kMaxLineBytes = size_t{64} << 20;

using json = nlohmann::json;

std::string Where(const std::filesystem::path& path, size_t line_no) {
  return path.string() + ":" + std::to_string(line_no);
}

// Reads `path` line by line (LF or CRLF), calling `fn(line, line_no)` for non-blank lines.
Status ForEachLine(const std::filesystem::path& path,
                   const std::function<Status(std::string_view, size_t)>& fn) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open " + path.string());
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.size() > kMaxLineBytes) {
      return Status::ResourceExhausted(Where(path, line_no) + ": line longer than " +
                                       std::to_string(kMaxLineBytes) + " bytes");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    Status st = fn(line, line_no);
    if (!st.ok()) return st;
  }
  if (in.bad()) return Status::IOError("read error in " + path.string());
  return Status::Ok();
}

Result<json> ParseObject(std::string_view line) {
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e400
    return Status::InvalidArgument(std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) return Status::InvalidArgument("expected a JSON object");
  return j;
}

Result<std::string> RequiredString(const json& obj, const char* key, bool non_empty) {
  auto it = obj.find(key);
  if (it == obj.end()) return Status::InvalidArgument(std::string("missing \"") + key + "\"");
  if (!it->is_string()) {
    return Status::InvalidArgument(std::string("\"") + key + "\" must be a string, got " +
                                   it->type_name());
  }
  std::string s = it->get<std::string>();
  if (non_empty && s.empty()) return Status::InvalidArgument(std::string("\"") + key + "\" is empty");
  return s;
}

Result<std::string> OptionalString(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return Status::InvalidArgument(std::string("\"") + key + "\" must be a string, got " +
                                   it->type_name());
  }
  return it->get<std::string>();
}

Result<std::map<std::string, std::string>> Metadata(const json& obj) {
  std::map<std::string, std::string> out;
  auto it = obj.find("metadata");
  if (it == obj.end() || it->is_null()) return out;
  if (!it->is_object()) {
    return Status::InvalidArgument(std::string("\"metadata\" must be an object, got ") + it->type_name());
  }
  for (auto kv = it->begin(); kv != it->end(); ++kv) {
    out[kv.key()] = kv->is_string() ? kv->get<std::string>() : kv->dump();
  }
  return out;
}

bool IsPlainStem(std::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<BeirDocument> ParseBeirDocumentLine(std::string_view line) {
  ATTEST_ASSIGN_OR_RETURN(json obj, ParseObject(line));
  BeirDocument doc;
  ATTEST_ASSIGN_OR_RETURN(doc.id, RequiredString(obj, "_id", /*non_empty=*/true));
  ATTEST_ASSIGN_OR_RETURN(doc.title, OptionalString(obj, "title"));
  ATTEST_ASSIGN_OR_RETURN(doc.text, RequiredString(obj, "text", /*non_empty=*/false));
  ATTEST_ASSIGN_OR_RETURN(doc.metadata, Metadata(obj));
  return doc;
}

Result<BeirQuery> ParseBeirQueryLine(std::string_view line) {
  ATTEST_ASSIGN_OR_RETURN(json obj, ParseObject(line));
  BeirQuery q;
  ATTEST_ASSIGN_OR_RETURN(q.id, RequiredString(obj, "_id", /*non_empty=*/true));
  ATTEST_ASSIGN_OR_RETURN(q.text, RequiredString(obj, "text", /*non_empty=*/false));
  ATTEST_ASSIGN_OR_RETURN(q.metadata, Metadata(obj));
  return q;
}

Status StreamBeirCorpus(const std::filesystem::path& corpus_jsonl, const BeirDocumentCallback& on_doc,
                        size_t* count) {
  size_t n = 0;
  Status st = ForEachLine(corpus_jsonl, [&](std::string_view line, size_t line_no) -> Status {
    auto doc = ParseBeirDocumentLine(line);
    if (!doc.ok()) return doc.status().WithContext(Where(corpus_jsonl, line_no));
    Status cb = on_doc(std::move(doc).value());
    if (!cb.ok()) return cb.WithContext(Where(corpus_jsonl, line_no));
    ++n;
    return Status::Ok();
  });
  if (count) *count = n;
  return st;
}

Result<std::vector<BeirQuery>> LoadBeirQueries(const std::filesystem::path& queries_jsonl) {
  std::vector<BeirQuery> out;
  std::unordered_set<std::string> seen;
  Status st = ForEachLine(queries_jsonl, [&](std::string_view line, size_t line_no) -> Status {
    auto q = ParseBeirQueryLine(line);
    if (!q.ok()) return q.status().WithContext(Where(queries_jsonl, line_no));
    if (!seen.insert(q->id).second) {
      return Status::InvalidArgument(Where(queries_jsonl, line_no) + ": duplicate query id \"" + q->id + "\"");
    }
    out.push_back(std::move(q).value());
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return out;
}

Result<Qrels> LoadBeirQrels(const std::filesystem::path& qrels_tsv) {
  Qrels qrels;
  bool header_seen = false;
  Status st = ForEachLine(qrels_tsv, [&](std::string_view line, size_t line_no) -> Status {
    std::vector<std::string_view> cols;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i >= line.size()) break;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      cols.push_back(line.substr(i, j - i));
      i = j;
    }
    if (!header_seen) {
      header_seen = true;
      if (cols.size() != 3 || cols[0] != "query-id" || cols[1] != "corpus-id" || cols[2] != "score") {
        return Status::InvalidArgument(Where(qrels_tsv, line_no) +
                                       ": expected the header \"query-id corpus-id score\"");
      }
      return Status::Ok();
    }
    if (cols.size() != 3) {
      return Status::InvalidArgument(Where(qrels_tsv, line_no) + ": expected 3 columns (query-id corpus-id score), got " +
                                     std::to_string(cols.size()));
    }
    int score = 0;
    auto [ptr, ec] = std::from_chars(cols[2].data(), cols[2].data() + cols[2].size(), score);
    if (ec != std::errc() || ptr != cols[2].data() + cols[2].size()) {
      return Status::InvalidArgument(Where(qrels_tsv, line_no) + ": score \"" + std::string(cols[2]) +
                                     "\" is not an integer");
    }
    auto& judged = qrels[std::string(cols[0])];
    if (!judged.emplace(std::string(cols[1]), score).second) {
      return Status::InvalidArgument(Where(qrels_tsv, line_no) + ": duplicate judgment for query \"" +
                                     std::string(cols[0]) + "\" and document \"" + std::string(cols[1]) + "\"");
    }
    return Status::Ok();
  });
  if (!st.ok()) return st;
  if (!header_seen) return Status::InvalidArgument(qrels_tsv.string() + ": empty qrels file (no header)");
  return qrels;
}

std::filesystem::path BeirCorpusPath(const std::filesystem::path& dir) { return dir / "corpus.jsonl"; }

Result<BeirSplit> LoadBeirSplit(const std::filesystem::path& dir, std::string_view split) {
  if (!IsPlainStem(split)) {
    return Status::InvalidArgument("split name \"" + std::string(split) +
                                   "\" must be a plain name like \"test\" (letters, digits, '_', '-', '.')");
  }
  BeirSplit out;
  out.name = std::string(split);
  ATTEST_ASSIGN_OR_RETURN(out.qrels, LoadBeirQrels(dir / "qrels" / (out.name + ".tsv")));
  ATTEST_ASSIGN_OR_RETURN(std::vector<BeirQuery> all, LoadBeirQueries(dir / "queries.jsonl"));
  std::set<std::string, std::less<>> present;
  for (BeirQuery& q : all) {
    if (out.qrels.count(q.id) == 0) continue;
    present.insert(q.id);
    out.queries.push_back(std::move(q));
  }
  for (const auto& [qid, judged] : out.qrels) {
    if (!present.count(qid)) out.judged_but_missing.push_back(qid);
  }
  return out;
}

}  // namespace attest
