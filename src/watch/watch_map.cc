// WatchMap: the file -> ids map of a watched folder and its on-disk form (docs/watch.md, "The map file").
#include "watch/watch_map.h"

#include <algorithm>

#include "common/checksum.h"
#include "common/file_util.h"
#include "common/varint.h"

namespace attest {
namespace {

constexpr std::string_view kMagic = "ATWATCH1";
constexpr uint32_t kVersion = 1;
constexpr size_t kMaxMapBytes = size_t{1} << 31;

void PutString(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}

// Reads the map body; false on truncation.
class Reader {
 public:
  Reader(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  bool Varint(uint64_t* v) {
    p_ = p_ ? GetVarint(p_, end_, v) : nullptr;
    return p_ != nullptr;
  }
  bool String(std::string* s) {
    uint64_t n = 0;
    if (!Varint(&n) || n > uint64_t(end_ - p_)) return false;
    s->assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  bool AtEnd() const { return p_ == end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

void Erase(std::vector<std::string>* v, const std::string& s) {
  auto it = std::lower_bound(v->begin(), v->end(), s);
  if (it != v->end() && *it == s) v->erase(it);
}

void Insert(std::vector<std::string>* v, const std::string& s) {
  auto it = std::lower_bound(v->begin(), v->end(), s);
  if (it == v->end() || *it != s) v->insert(it, s);
}

}  // namespace

std::filesystem::path WatchMap::FileFor(const std::filesystem::path& state_dir, const std::string& tenant,
                                        const std::string& root) {
  std::string key = tenant;
  key.push_back('\0');
  key += root;
  return state_dir / (Sha256Hex(key).substr(0, 16) + ".map");
}

Result<WatchMap> WatchMap::Load(const std::filesystem::path& state_dir, const std::string& tenant,
                                const std::string& root) {
  WatchMap map;
  map.path_ = FileFor(state_dir, tenant, root);
  map.tenant_ = tenant;
  map.root_ = root;
  std::error_code ec;
  if (!std::filesystem::exists(map.path_, ec)) return map;
  ATTEST_ASSIGN_OR_RETURN(std::string data, ReadFileToString(map.path_, kMaxMapBytes));
  const std::string where = "watch map " + map.path_.string() + ": ";
  if (data.size() < kMagic.size() + 8 || std::string_view(data).substr(0, kMagic.size()) != kMagic) {
    return Status::Corruption(where + "not a watch map (bad magic)");
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const uint32_t version = DecodeFixed32(bytes + kMagic.size());
  if (version != kVersion) {
    return Status::Corruption(where + "format version " + std::to_string(version) + ", this build reads " +
                            std::to_string(kVersion));
  }
  const size_t body_end = data.size() - 4;
  if (Crc32c(bytes, body_end) != DecodeFixed32(bytes + body_end)) return Status::Corruption(where + "checksum mismatch");
  Reader in(bytes + kMagic.size() + 4, bytes + body_end);
  std::string file_tenant, file_root;
  uint64_t count = 0;
  if (!in.String(&file_tenant) || !in.String(&file_root) || !in.Varint(&count)) {
    return Status::Corruption(where + "truncated header");
  }
  if (file_tenant != tenant || file_root != root) {
    return Status::Corruption(where + "belongs to tenant '" + file_tenant + "' and root '" + file_root + "'");
  }
  for (uint64_t i = 0; i < count; ++i) {
    std::string file;
    uint64_t n = 0;
    if (!in.String(&file) || !in.Varint(&n)) return Status::Corruption(where + "truncated entry");
    std::vector<std::string> ids;
    for (uint64_t j = 0; j < n; ++j) {
      std::string id;
      if (!in.String(&id)) return Status::Corruption(where + "truncated entry");
      ids.push_back(std::move(id));
    }
    map.Set(file, std::move(ids));
  }
  if (!in.AtEnd()) return Status::Corruption(where + "bytes after the last entry");
  return map;
}

Status WatchMap::Save() const {
  std::string out(kMagic);
  PutFixed32(&out, kVersion);
  PutString(&out, tenant_);
  PutString(&out, root_);
  PutVarint(&out, files_.size());
  for (const auto& [file, ids] : files_) {
    PutString(&out, file);
    PutVarint(&out, ids.size());
    for (const std::string& id : ids) PutString(&out, id);
  }
  PutFixed32(&out, Crc32c(out));
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  if (ec) return Status::IOError("cannot create " + path_.parent_path().string() + ": " + ec.message());
  return WriteFileAtomically(path_, out);
}

const std::vector<std::string>& WatchMap::IdsOf(const std::string& file) const {
  static const std::vector<std::string> kNone;
  auto it = files_.find(file);
  return it == files_.end() ? kNone : it->second;
}

void WatchMap::Set(const std::string& file, std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (auto it = files_.find(file); it != files_.end()) {
    for (const std::string& id : it->second) {
      auto c = claims_.find(id);
      Erase(&c->second, file);
      if (c->second.empty()) claims_.erase(c);
    }
    files_.erase(it);
  }
  if (ids.empty()) return;
  for (const std::string& id : ids) Insert(&claims_[id], file);
  files_.emplace(file, std::move(ids));
}

std::vector<std::string> WatchMap::FilesOf(const std::string& id) const {
  auto it = claims_.find(id);
  return it == claims_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> WatchMap::FilesAtOrUnder(const std::string& path) const {
  std::vector<std::string> out;
  if (files_.count(path)) out.push_back(path);
  const std::string prefix = path + "/";
  for (auto it = files_.lower_bound(prefix); it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    out.push_back(it->first);
  }
  return out;
}

}  // namespace attest
