// ListSources: deterministic discovery of source files under the given roots.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <system_error>

#include "ingest/source_reader.h"
#include "common/strings.h"
#include "ingest/gzip_reader.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

namespace fs = std::filesystem;

// Web assets that sit beside HTML pages and are never documents; skipped silently in directory
// walks (a file named explicitly as a root is still sniffed).
constexpr std::string_view kSkippedAssetExtensions[] = {
    ".css", ".js",  ".mjs", ".map",  ".svg",   ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico",
    ".bmp", ".avif", ".woff", ".woff2", ".ttf", ".otf", ".eot"};

constexpr size_t kSniffBytes = 8192;

std::optional<SourceFormat> FormatFromExtension(const fs::path& path) {
  const std::string ext = AsciiLower(path.extension().string());
  if (ext == ".html" || ext == ".htm" || ext == ".xhtml") return SourceFormat::kHtml;
  if (ext == ".md" || ext == ".markdown") return SourceFormat::kMarkdown;
  if (ext == ".txt" || ext == ".text") return SourceFormat::kText;
  if (ext == ".jsonl" || ext == ".ndjson") return SourceFormat::kBeirJsonl;
  if (ext == ".pdf") return SourceFormat::kPdf;
  if (ext == ".docx") return SourceFormat::kDocx;
  if (ext == ".odt") return SourceFormat::kOdt;
  return std::nullopt;
}

bool IsSkippedAsset(const fs::path& path) {
  const std::string ext = AsciiLower(path.extension().string());
  return std::find(std::begin(kSkippedAssetExtensions), std::end(kSkippedAssetExtensions), ext) !=
         std::end(kSkippedAssetExtensions);
}

// Reads the first bytes: text (UTF-8 without NUL) or binary. Returns an error message or "".
std::string Sniff(const fs::path& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return "cannot open file";
  std::string buf(kSniffBytes, '\0');
  buf.resize(std::fread(buf.data(), 1, buf.size(), f.get()));
  if (std::ferror(f.get())) return "cannot read file";
  if (ingest::FindNul(buf) || ingest::FindInvalidUtf8(buf, /*allow_truncated_tail=*/true)) {
    return "binary file (unknown extension \"" + path.extension().string() + "\" and not UTF-8 text)";
  }
  return "";
}

// Decodes the first bytes of a ".gz" with no known inner extension: text or binary.
std::string SniffGzip(const fs::path& path) {
  Result<std::string> head = ingest::ReadGzipFile(path, kSniffBytes, /*prefix_only=*/true);
  if (!head.ok()) return head.status().message();
  if (ingest::FindNul(*head) || ingest::FindInvalidUtf8(*head, /*allow_truncated_tail=*/true)) {
    return "binary file (gzip-compressed, unknown inner extension \"" + path.stem().extension().string() +
           "\" and the decoded bytes are not UTF-8 text)";
  }
  return "";
}

class Lister {
 public:
  Lister(std::vector<SourceFile>* files, std::vector<SourceError>* errors) : files_(files), errors_(errors) {}

  void Root(const fs::path& root) {
    std::error_code ec;
    const fs::file_status st = fs::status(root, ec);
    if (ec || !fs::exists(st)) {
      Error(root.string(), "no such file or directory");
      return;
    }
    if (fs::is_directory(st)) {
      Directory(root, "");
    } else {
      File(root, root.filename().string(), /*explicit_root=*/true);
    }
  }

  // One file named relative to a walked root, listed as the walk would list it.
  void Under(const fs::path& root, const std::string& relative) {
    size_t start = 0;
    bool plain = !relative.empty() && relative[0] != '/';
    while (plain && start <= relative.size()) {
      const size_t slash = std::min(relative.find('/', start), relative.size());
      const std::string_view part(relative.data() + start, slash - start);
      if (part.empty() || part == "." || part == "..") plain = false;
      if (plain && !WalkedName(part)) return;  // hidden: the walk never gets there
      start = slash + 1;
    }
    if (!plain) {
      Error(relative, "not a relative path inside the root");
      return;
    }
    const fs::path path = root / relative;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      Error(relative, "no such file or directory");
      return;
    }
    if (!fs::is_regular_file(st)) return;  // a directory or a special file: not listed by the walk
    File(path, relative, /*explicit_root=*/false);
  }

 private:
  void Directory(const fs::path& dir, const std::string& prefix) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(dir, ec);
    if (!ec && !visited_.insert(canonical.string()).second) return;  // symlink cycle or repeat
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(*it);
    if (ec) {
      Error(prefix.empty() ? dir.string() : prefix, "cannot list directory: " + ec.message());
      return;
    }
    std::sort(entries.begin(), entries.end(), [](const fs::directory_entry& a, const fs::directory_entry& b) {
      return a.path().filename().string() < b.path().filename().string();
    });
    for (const fs::directory_entry& e : entries) {
      const std::string name = e.path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      const std::string relative = prefix.empty() ? name : prefix + "/" + name;
      std::error_code sec;
      const fs::file_status st = fs::status(e.path(), sec);
      if (sec) {
        Error(relative, "cannot stat: " + sec.message());
      } else if (fs::is_directory(st)) {
        Directory(e.path(), relative);
      } else if (fs::is_regular_file(st)) {
        File(e.path(), relative, /*explicit_root=*/false);
      }
    }
  }

  void File(const fs::path& path, const std::string& relative, bool explicit_root) {
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    if (ec) {
      Error(relative, "cannot stat: " + ec.message());
      return;
    }
    const bool gzip = AsciiLower(path.extension().string()) == ".gz";
    const fs::path inner = gzip ? path.stem() : path;  // "x.html.gz" -> "x.html"
    std::optional<SourceFormat> format = FormatFromExtension(inner);
    if (gzip && format && *format != SourceFormat::kHtml && *format != SourceFormat::kMarkdown &&
        *format != SourceFormat::kText) {
      Error(relative, "gzip-compressed " + std::string(SourceFormatName(*format)) +
                          " is not supported (decompress it first)");
      return;
    }
    if (!format) {
      if (!explicit_root && IsSkippedAsset(inner)) return;
      // In a directory walk a ".gz" with no format extension inside is a compressed changelog,
      // NEWS or copyright file (Debian's dh_compress leaves them in documentation folders), not a
      // page: git-doc's changelog.gz is a 3 MB commit shortlog. Only a named root is sniffed.
      if (!explicit_root && gzip) return;
      const std::string problem = gzip ? SniffGzip(path) : Sniff(path);
      if (!problem.empty()) {
        Error(relative, problem);
        return;
      }
      format = SourceFormat::kText;
    }
    files_->push_back(SourceFile{path, relative, *format, size, gzip});
  }

  void Error(std::string file, std::string message) {
    errors_->push_back(SourceError{std::move(file), 0, std::move(message)});
  }

  std::vector<SourceFile>* files_;
  std::vector<SourceError>* errors_;
  std::set<std::string> visited_;
};

}  // namespace

std::string_view SourceFormatName(SourceFormat format) {
  switch (format) {
    case SourceFormat::kHtml: return "html";
    case SourceFormat::kMarkdown: return "markdown";
    case SourceFormat::kText: return "text";
    case SourceFormat::kBeirJsonl: return "beir-jsonl";
    case SourceFormat::kPdf: return "pdf";
    case SourceFormat::kDocx: return "docx";
    case SourceFormat::kOdt: return "odt";
  }
  return "unknown";
}

std::string SourceError::ToString() const {
  if (line == 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ": " + message;
}

void ListSources(const std::vector<std::filesystem::path>& roots, std::vector<SourceFile>* files,
                 std::vector<SourceError>* errors) {
  Lister lister(files, errors);
  for (const auto& root : roots) lister.Root(root);
}

void ListSourcesUnder(const std::filesystem::path& root, const std::vector<std::string>& relatives,
                      std::vector<SourceFile>* files, std::vector<SourceError>* errors) {
  Lister lister(files, errors);
  for (const std::string& relative : relatives) lister.Under(root, relative);
}

}  // namespace attest
