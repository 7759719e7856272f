#include "cluster/cluster_ingest.h"

#include <sys/stat.h>

#include "cluster/change_codec.h"
#include "common/checksum.h"
#include "common/file_util.h"
#include "index/document_api.h"
#include "ingest/source_reader.h"

namespace attest {
namespace {

// Far below NATS's default max_payload (1 MiB) once JSON-escaped.
constexpr size_t kMaxFileBytes = 512 * 1024;

uint64_t ModifiedMs(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return uint64_t(st.st_mtim.tv_sec) * 1000 + uint64_t(st.st_mtim.tv_nsec) / 1000000;
}

}  // namespace

Result<ClusterIngestReport> AppendSources(ChangeLog& log, const ClusterIngestOptions& options) {
  ATTEST_RETURN_IF_ERROR(CheckAccessLabel(options.access_levels, options.defaults.access_label));
  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
  if (!options.root.empty()) {
    if (!options.paths.empty()) return Status::InvalidArgument("ingest: give either paths or root and files, not both");
    ListSourcesUnder(options.root, options.files, &files, &errors);
  } else {
    std::vector<std::filesystem::path> roots(options.paths.begin(), options.paths.end());
    ListSources(roots, &files, &errors);
  }
  ClusterIngestReport report;
  for (const SourceError& e : errors) report.issues.push_back({e.file, e.line, e.message});
  for (const SourceFile& f : files) {
    ++report.files;
    auto issue = [&](const std::string& why) { report.issues.push_back({f.relative, 0, why}); };
    const char* type = f.format == SourceFormat::kHtml       ? "html"
                       : f.format == SourceFormat::kMarkdown ? "markdown"
                       : f.format == SourceFormat::kText     ? "text"
                                                             : nullptr;
    if (type == nullptr || f.gzip) {
      issue(std::string(f.gzip ? "gzip-compressed " : "") + std::string(SourceFormatName(f.format)) +
            " files cannot be carried by the change log yet (html, markdown and text can); not appended");
      continue;
    }
    auto bytes = ReadFileToString(f.path, kMaxFileBytes + 1);
    if (!bytes.ok()) {
      issue(bytes.status().message());
      continue;
    }
    if (bytes->size() > kMaxFileBytes) {
      issue("larger than " + std::to_string(kMaxFileBytes) + " bytes, the most one change-log message carries");
      continue;
    }
    DocumentSpec spec = options.defaults;
    spec.id = f.relative;
    spec.content_type = type;
    spec.text = std::move(*bytes);
    if (auto parsed = ParseDocumentSpec(spec); !parsed.ok()) {
      issue(parsed.status().message());
      continue;
    }
    DocumentChange change;
    change.tenant = spec.tenant;
    change.id = spec.id;
    change.source_version = ModifiedMs(f.path);
    change.payload = EncodeUpsert(spec);
    change.idempotency_key = Sha256Hex(spec.tenant + '\0' + spec.id + '\0' + change.payload);
    if (options.before_append) {
      ATTEST_RETURN_IF_ERROR(options.before_append({IngestedDocument{f.relative, spec.id}}));
    }
    auto ack = log.Append(change);
    if (!ack.ok() && ack.status().code() == StatusCode::kAlreadyExists) {
      ++report.stale;
      issue(ack.status().message());
      continue;
    }
    if (!ack.ok()) return ack.status().WithContext("appending " + f.relative);
    (ack->duplicate ? report.duplicates : report.appended) += 1;
    report.last_sequence = std::max(report.last_sequence, ack->sequence);
    if (options.on_ack) options.on_ack(spec.id, ack->sequence, ack->duplicate);
    if (options.on_document) {
      IngestedDocument d{f.relative, spec.id};
      d.outcome = ack->duplicate ? IngestedDocument::Outcome::kUnchanged : IngestedDocument::Outcome::kAdded;
      options.on_document(d);
    }
  }
  return report;
}

}  // namespace attest
