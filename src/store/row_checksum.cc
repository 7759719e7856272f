#include "store/row_checksum.h"

#include <string>

#include "common/checksum.h"

namespace attest {
namespace {

void Put(std::string* out, std::string_view name, std::string_view value) { AppendDigestField(out, name, value); }

void Put(std::string* out, std::string_view name, uint64_t value) { Put(out, name, std::to_string(value)); }

std::string Day(const std::optional<DayNumber>& d) { return d ? std::to_string(*d) : std::string(); }

}  // namespace

uint32_t DocumentRowChecksum(const DocumentRecord& d, std::string_view acl_json) {
  std::string s;
  s.reserve(256 + d.title.size() + d.url.size() + acl_json.size());
  Put(&s, "num", d.num.get());
  Put(&s, "tenant", d.tenant);
  Put(&s, "id", d.id);
  Put(&s, "url", d.url);
  Put(&s, "title", d.title);
  Put(&s, "site", d.site);
  Put(&s, "published", Day(d.published));
  Put(&s, "updated", Day(d.updated));
  Put(&s, "version", d.version);
  Put(&s, "source_type", d.source_type);
  Put(&s, "language", d.language);
  Put(&s, "acl_json", acl_json);
  Put(&s, "feed", d.feed);
  Put(&s, "access_label", d.access_label);
  Put(&s, "sha256", d.sha256);
  Put(&s, "bytes", d.bytes);
  Put(&s, "chunk_count", uint64_t{d.chunk_count});
  Put(&s, "created_snapshot", d.created.get());
  // Schema 7's columns, each only when set: rows written before them keep their checksums.
  if (!d.license.empty()) Put(&s, "license", d.license);
  if (d.fetched_at_ms != 0) Put(&s, "fetched_at", static_cast<uint64_t>(d.fetched_at_ms));
  return Crc32c(s);
}

uint32_t ChunkRowChecksum(const ChunkRecord& c, std::optional<std::string_view> spans_blob) {
  std::string s;
  s.reserve(64 + c.section_path.size() + c.text.size());
  Put(&s, "id", c.id.get());
  Put(&s, "doc_num", c.doc.get());
  Put(&s, "ordinal", uint64_t{c.ordinal});
  Put(&s, "section_path", c.section_path);
  Put(&s, "text", c.text);
  if (spans_blob) Put(&s, "spans", *spans_blob);
  return Crc32c(s);
}

}  // namespace attest
