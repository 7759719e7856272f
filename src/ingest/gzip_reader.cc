// GunzipCapped: zlib inflate in gzip mode with a cap on the decoded size.
#include "ingest/gzip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>

#include "common/file_util.h"

namespace attest::ingest {
namespace {

constexpr size_t kChunk = 64 * 1024;

// Inflates `compressed`; stops quietly at the cap when `prefix_only`, else fails there.
Result<std::string> Inflate(std::string_view compressed, uint64_t cap, bool prefix_only) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return Status::Internal("zlib: inflateInit2 failed");
  std::string out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  int rc = Z_OK;
  Status status;
  while (out.size() <= cap) {
    // One byte past the cap is enough to know the cap is passed.
    const size_t room = static_cast<size_t>(std::min<uint64_t>(kChunk, cap + 1 - out.size()));
    const size_t before = out.size();
    out.resize(before + room);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    zs.avail_out = static_cast<uInt>(room);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(before + room - zs.avail_out);
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated gzip); trailing zero padding is tolerated.
      const std::string_view rest(reinterpret_cast<const char*>(zs.next_in), zs.avail_in);
      if (rest.find_first_not_of('\0') == std::string_view::npos) break;
      if (inflateReset(&zs) != Z_OK) {
        status = Status::Internal("zlib: inflateReset failed");
        break;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      if (prefix_only) break;  // a sniff reads a prefix of the file only
      status = Status::Corruption("gzip: truncated stream");
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      status = Status::Corruption(std::string("gzip: damaged stream (") + (zs.msg ? zs.msg : "zlib error") + ")");
      break;
    }
  }
  inflateEnd(&zs);
  if (!status.ok()) return status;
  if (out.size() > cap) {
    if (!prefix_only) {
      return Status::ResourceExhausted("gzip: decoded size passes the limit of " + std::to_string(cap) +
                                       " bytes (a compression bomb, or raise the per-document limit)");
    }
    out.resize(static_cast<size_t>(cap));
  }
  return out;
}

}  // namespace

Result<std::string> GunzipCapped(std::string_view compressed, uint64_t max_decoded_bytes) {
  return Inflate(compressed, max_decoded_bytes, /*prefix_only=*/false);
}

Result<std::string> ReadGzipFile(const std::filesystem::path& path, uint64_t max_decoded_bytes, bool prefix_only) {
  // A sniff needs only the start of the file; a full decode is bounded by the decoded cap.
  const uint64_t read_cap = prefix_only ? 64 * 1024 : max_decoded_bytes;
  Result<std::string> data = ReadFileToString(path, static_cast<size_t>(read_cap));
  if (!data.ok()) {
    if (data.status().code() == StatusCode::kResourceExhausted && prefix_only) {
      // Read the first bytes only.
      FILE* f = std::fopen(path.c_str(), "rb");
      if (f == nullptr) return Status::IOError("cannot open file");
      std::string head(static_cast<size_t>(read_cap), '\0');
      head.resize(std::fread(head.data(), 1, head.size(), f));
      std::fclose(f);
      return Inflate(head, max_decoded_bytes, /*prefix_only=*/true);
    }
    if (data.status().code() == StatusCode::kResourceExhausted) {
      return Status::ResourceExhausted("compressed file is over the limit of " + std::to_string(max_decoded_bytes) +
                                       " bytes");
    }
    return data.status();
  }
  return Inflate(*data, max_decoded_bytes, prefix_only);
}

}  // namespace attest::ingest
