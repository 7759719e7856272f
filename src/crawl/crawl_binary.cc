#include "crawl/crawl_binary.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ingest/document.h"
#include "ingest/gzip_reader.h"
#include "ingest/office_reader.h"
#include "ingest/pdf_reader.h"

namespace attest {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string FileName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// A private temporary file holding `bytes`, removed when this goes away.
class TempBody {
 public:
  Status Write(std::string_view bytes) {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/attest-crawl-XXXXXX";
    const int fd = ::mkstemp(pattern.data());  // mode 0600
    if (fd < 0) return Status::IOError("cannot create a temporary file in " + pattern);
    path_ = pattern;
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) {
        ::close(fd);
        return Status::IOError("cannot write the temporary file " + path_.string());
      }
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    return Status::Ok();
  }
  ~TempBody() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Blocks as Markdown: headings keep their level, the rest are paragraphs.
std::string ToMarkdown(const ParsedDocument& doc) {
  std::string out;
  for (const Block& b : doc.blocks) {
    if (b.text.empty()) continue;
    if (b.kind == BlockKind::kHeading) out += std::string(std::clamp(b.level, 1, 6), '#') + " ";
    out += b.text;
    out += "\n\n";
  }
  return out;
}

}  // namespace

Result<std::optional<ConvertedBody>> ConvertBinaryBody(std::string_view media_type, std::string_view url_path,
                                                       std::string_view body, uint64_t max_text_bytes) {
  const std::string name = FileName(url_path);
  ConvertedBody out;
  if (media_type == "application/gzip" || media_type == "application/x-gzip") {
    Result<std::string> inner = ingest::GunzipCapped(body, max_text_bytes);
    if (!inner.ok()) return Status::InvalidArgument("gzip: " + inner.status().message());
    std::string_view inner_name = url_path;
    if (EndsWith(inner_name, ".gz")) inner_name.remove_suffix(3);
    if (EndsWith(inner_name, ".html") || EndsWith(inner_name, ".htm")) {
      out.content_type = "html";
    } else if (EndsWith(inner_name, ".md") || EndsWith(inner_name, ".markdown")) {
      out.content_type = "markdown";
    } else if (EndsWith(inner_name, ".txt") || EndsWith(inner_name, ".text")) {
      out.content_type = "text";
    } else {
      return Status::InvalidArgument("gzip: the compressed file's type is not known from its name (" + name + ")");
    }
    out.text = std::move(*inner);
    return std::optional<ConvertedBody>(std::move(out));
  }
  const bool pdf = media_type == "application/pdf";
  const bool docx = media_type == "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
  const bool odt = media_type == "application/vnd.oasis.opendocument.text";
  if (!pdf && !docx && !odt) return std::optional<ConvertedBody>();
  TempBody file;
  ATTEST_RETURN_IF_ERROR(file.Write(body));
  ParsedDocument doc;
  if (pdf) {
    Result<std::string> text = ExtractPdfText(file.path(), PdfLimits{}, max_text_bytes);
    if (!text.ok()) return Status::InvalidArgument("pdf: " + text.status().message());
    ParsePdfText(*text, name, &doc);
  } else {
    ingest::ZipLimits limits;
    limits.max_entry_bytes = max_text_bytes;
    Status s = ReadOfficeDocument(file.path(), docx ? OfficeFormat::kDocx : OfficeFormat::kOdt, limits, name, &doc);
    if (!s.ok()) return Status::InvalidArgument("office: " + s.message());
  }
  out.content_type = "markdown";
  out.text = ToMarkdown(doc);
  out.title = doc.title;
  return std::optional<ConvertedBody>(std::move(out));
}

}  // namespace attest
