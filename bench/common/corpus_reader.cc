#include "common/corpus_reader.h"

#include <cstring>

#include <system_error>

#include "eval/beir.h"

namespace attest::bench {

Result<BenchDoc> ParseBenchDoc(std::string_view line) {
  ATTEST_ASSIGN_OR_RETURN(BeirDocument d, ParseBeirDocumentLine(line));
  BenchDoc doc;
  doc.id = std::move(d.id);
  doc.title = std::move(d.title);
  doc.text = std::move(d.text);
  if (auto it = d.metadata.find("acl"); it != d.metadata.end()) doc.acl = it->second;
  return doc;
}

Result<CorpusLineReader> CorpusLineReader::Open(const std::filesystem::path& corpus, size_t batch_size) {
  CorpusLineReader r;
  r.path_ = corpus;
  r.batch_size_ = batch_size == 0 ? 1 : batch_size;
  r.in_.open(corpus, std::ios::binary);
  if (!r.in_) return Status::NotFound("cannot open corpus " + corpus.string());
  return r;
}

bool CorpusLineReader::Next(Batch* batch) {
  batch->lines.clear();
  batch->line_numbers.clear();
  batch->first_doc = docs_;
  std::string line;
  while (batch->lines.size() < batch_size_ && std::getline(in_, line)) {
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    batch->lines.push_back(std::move(line));
    batch->line_numbers.push_back(line_no_);
    line.clear();
  }
  if (in_.bad()) {
    status_ = Status::IOError("read error in " + path_.string());
    return false;
  }
  docs_ += batch->lines.size();
  return !batch->lines.empty();
}

Status ForEachBenchDoc(const std::filesystem::path& corpus, const std::function<Status(BenchDoc&&)>& fn) {
  ATTEST_ASSIGN_OR_RETURN(CorpusLineReader reader, CorpusLineReader::Open(corpus));
  CorpusLineReader::Batch batch;
  while (reader.Next(&batch)) {
    for (size_t i = 0; i < batch.lines.size(); ++i) {
      const std::string where = corpus.string() + ":" + std::to_string(batch.line_numbers[i]);
      auto doc = ParseBenchDoc(batch.lines[i]);
      if (!doc.ok()) return doc.status().WithContext(where);
      Status st = fn(std::move(doc).value());
      if (!st.ok()) return st.WithContext(where);
    }
  }
  return reader.status();
}

Result<IdMapWriter> IdMapWriter::Create(const std::filesystem::path& index_dir) {
  IdMapWriter w;
  w.path_ = index_dir / "ids.txt";
  w.out_.open(w.path_, std::ios::binary | std::ios::trunc);
  if (!w.out_) return Status::IOError("cannot create " + w.path_.string());
  return w;
}

Status IdMapWriter::Add(std::string_view id) {
  if (id.find('\n') != std::string_view::npos) {
    return Status::InvalidArgument("document id contains a newline: \"" + std::string(id) + "\"");
  }
  out_ << id << '\n';
  return Status::Ok();
}

Status IdMapWriter::Close() {
  out_.close();
  if (!out_) return Status::IOError("cannot write " + path_.string());
  return Status::Ok();
}

Result<IdMap> IdMap::Read(const std::filesystem::path& index_dir) {
  const std::filesystem::path path = index_dir / "ids.txt";
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open " + path.string());
  IdMap m;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0) return Status::IOError("cannot size " + path.string());
  m.text_.resize(static_cast<size_t>(size));
  if (!in.read(m.text_.data(), size)) return Status::IOError("cannot read " + path.string());
  if (!m.text_.empty() && m.text_.back() != '\n') m.text_.push_back('\n');  // a last line without newline
  m.starts_.push_back(0);
  for (size_t at = 0; at < m.text_.size();) {
    const void* nl = std::memchr(m.text_.data() + at, '\n', m.text_.size() - at);
    at = static_cast<size_t>(static_cast<const char*>(nl) - m.text_.data()) + 1;
    m.starts_.push_back(at);
  }
  return m;
}

Result<uint64_t> DirectoryBytesExceptIds(const std::filesystem::path& dir) {
  std::error_code ec;
  uint64_t total = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file() || it->path().filename() == "ids.txt") continue;
    total += it->file_size();
  }
  if (ec) return Status::IOError("cannot list " + dir.string() + ": " + ec.message());
  return total;
}

const std::vector<std::string>& LuceneEnglishStopwords() {
  static const std::vector<std::string> kWords = {
      "a",    "an",   "and",  "are",  "as",    "at",   "be",    "but",   "by",   "for",  "if",
      "in",   "into", "is",   "it",   "no",    "not",  "of",    "on",    "or",   "such", "that",
      "the",  "their", "then", "there", "these", "they", "this", "to",   "was",  "will", "with"};
  return kWords;
}

}  // namespace attest::bench
