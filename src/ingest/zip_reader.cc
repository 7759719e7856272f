// ReadZipEntry: libzip, read-only, one entry, decompressed bytes capped.
#include "ingest/zip_reader.h"

#include <zip.h>

#include <memory>

namespace attest::ingest {
namespace {

std::string OpenError(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string message = zip_error_strerror(&error);
  zip_error_fini(&error);
  return message;
}

}  // namespace

Result<std::string> ReadZipEntry(const std::filesystem::path& archive, const std::string& entry,
                                 const ZipLimits& limits) {
  int code = 0;
  std::unique_ptr<zip_t, void (*)(zip_t*)> zip(zip_open(archive.c_str(), ZIP_RDONLY, &code),
                                               [](zip_t* z) { zip_discard(z); });
  if (!zip) return Status::Corruption("not a readable ZIP archive (" + OpenError(code) + ")");
  const zip_int64_t entries = zip_get_num_entries(zip.get(), 0);
  if (entries < 0) return Status::Corruption("not a readable ZIP archive");
  if (static_cast<uint64_t>(entries) > limits.max_entries) {
    return Status::ResourceExhausted("ZIP archive has " + std::to_string(entries) + " entries, over the limit of " +
                                     std::to_string(limits.max_entries));
  }
  const zip_int64_t index = zip_name_locate(zip.get(), entry.c_str(), 0);
  if (index < 0) return Status::NotFound("ZIP archive has no entry " + entry);
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zip.get(), static_cast<zip_uint64_t>(index), 0, &st) == 0 &&
      (st.valid & ZIP_STAT_ENCRYPTION_METHOD) != 0 && st.encryption_method != ZIP_EM_NONE) {
    return Status::Unsupported("ZIP entry " + entry + " is encrypted");
  }
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(zip_fopen_index(zip.get(), static_cast<zip_uint64_t>(index), 0),
                                                         &zip_fclose);
  if (!file) return Status::Corruption("cannot open ZIP entry " + entry + ": " + zip_strerror(zip.get()));
  std::string out;
  char buf[65536];
  while (true) {
    const zip_int64_t got = zip_fread(file.get(), buf, sizeof buf);
    if (got < 0) return Status::Corruption("cannot read ZIP entry " + entry + ": " + zip_file_strerror(file.get()));
    if (got == 0) break;
    if (out.size() + static_cast<uint64_t>(got) > limits.max_entry_bytes) {
      return Status::ResourceExhausted("ZIP entry " + entry + " decompresses past the limit of " +
                                       std::to_string(limits.max_entry_bytes) + " bytes");
    }
    out.append(buf, static_cast<size_t>(got));
  }
  return out;
}

}  // namespace attest::ingest
