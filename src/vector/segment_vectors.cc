#include "vector/segment_vectors.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace attest {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kTagMagic = "ATVTAG1\n";

struct DecodedTag {
  uint64_t segment = 0;
  uint32_t segment_crc = 0;
  std::string embedder_key;
  std::vector<uint64_t> chunk_ids;
};

std::string EncodeTag(SegmentId segment, uint32_t crc, const EmbedderIdentity& id,
                      const std::vector<uint64_t>& chunk_ids) {
  nlohmann::json j = {{"segment", segment.get()}, {"segment_crc", crc}, {"embedder", id.Key()},
                      {"name", id.name}, {"dim", id.dim}, {"version", id.version}};
  std::string tag(kTagMagic);
  tag += j.dump();
  tag.push_back('\n');
  const size_t at = tag.size();
  tag.resize(at + chunk_ids.size() * 8);
  for (size_t i = 0; i < chunk_ids.size(); ++i) {
    for (int b = 0; b < 8; ++b) tag[at + i * 8 + b] = static_cast<char>((chunk_ids[i] >> (8 * b)) & 0xff);
  }
  return tag;
}

Result<DecodedTag> DecodeTag(const std::string& tag, const fs::path& where) {
  auto bad = [&](const std::string& why) { return Status::Corruption(where.string() + ": vector file tag " + why); };
  if (tag.compare(0, kTagMagic.size(), kTagMagic) != 0) return bad("lacks its magic");
  size_t nl = tag.find('\n', kTagMagic.size());
  if (nl == std::string::npos) return bad("has no JSON line");
  nlohmann::json j = nlohmann::json::parse(tag.substr(kTagMagic.size(), nl - kTagMagic.size()), nullptr, false);
  if (!j.is_object() || !j.contains("segment") || !j["segment"].is_number_unsigned() ||
      !j.contains("segment_crc") || !j["segment_crc"].is_number_unsigned() || !j.contains("embedder") ||
      !j["embedder"].is_string()) {
    return bad("has a malformed JSON line");
  }
  DecodedTag d;
  d.segment = j["segment"].get<uint64_t>();
  d.segment_crc = j["segment_crc"].get<uint32_t>();
  d.embedder_key = j["embedder"].get<std::string>();
  const size_t rest = tag.size() - nl - 1;
  if (rest % 8 != 0) return bad("has a truncated chunk id list");
  d.chunk_ids.resize(rest / 8);
  const auto* p = reinterpret_cast<const unsigned char*>(tag.data() + nl + 1);
  for (size_t i = 0; i < d.chunk_ids.size(); ++i) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= uint64_t{p[i * 8 + b]} << (8 * b);
    d.chunk_ids[i] = v;
  }
  return d;
}

// Parses "seg-<id>-<key>.vec".
bool ParseFileName(const std::string& name, uint64_t* segment, std::string* key) {
  if (name.size() < 10 || name.compare(0, 4, "seg-") != 0 || name.compare(name.size() - 4, 4, ".vec") != 0) {
    return false;
  }
  size_t dash = name.find('-', 4);
  if (dash == std::string::npos || dash == 4) return false;
  uint64_t v = 0;
  for (size_t i = 4; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + (name[i] - '0');
  }
  *segment = v;
  *key = name.substr(dash + 1, name.size() - 4 - dash - 1);
  return !key->empty();
}

}  // namespace

std::string ChunkEmbeddingText(const std::string& title, const std::string& section, const std::string& body) {
  std::string text = title;
  if (!section.empty() && section != title) {
    text.push_back('\n');
    text += section;
  }
  text.push_back('\n');
  text += body;
  return text;
}

std::string VectorFiles::FileName(SegmentId segment, const std::string& embedder_key) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "seg-%010llu-", static_cast<unsigned long long>(segment.get()));
  return std::string(buf) + embedder_key + ".vec";
}

Result<std::shared_ptr<const VectorFiles::Loaded>> VectorFiles::Open(SegmentId segment, const std::string& key) {
  fs::path path = PathOf(segment, key);
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::NotFound(path.string());
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<VectorIndex> index, VectorIndex::Open(path));
  ATTEST_ASSIGN_OR_RETURN(DecodedTag tag, DecodeTag(index->tag(), path));
  if (tag.segment != segment.get() || tag.embedder_key != key) {
    return Status::Corruption(path.string() + ": its tag names segment " + std::to_string(tag.segment) +
                              " and embedder " + tag.embedder_key);
  }
  if (tag.chunk_ids.size() != index->size()) {
    return Status::Corruption(path.string() + ": " + std::to_string(index->size()) + " rows but " +
                              std::to_string(tag.chunk_ids.size()) + " chunk ids");
  }
  auto loaded = std::make_shared<Loaded>();
  loaded->segment_crc = tag.segment_crc;
  loaded->chunk_ids = std::move(tag.chunk_ids);
  loaded->index = std::move(index);
  return std::shared_ptr<const Loaded>(std::move(loaded));
}

Result<std::shared_ptr<const VectorFiles::Loaded>> VectorFiles::Get(SegmentId segment, const std::string& key) {
  {
    MutexLock lock(mu_);
    auto it = cache_.find({segment.get(), key});
    if (it != cache_.end()) return it->second;
  }
  ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const Loaded> loaded, Open(segment, key));
  MutexLock lock(mu_);
  cache_[{segment.get(), key}] = loaded;
  return loaded;
}

bool SegmentOfTenant(const SegmentView& view, const std::string& tenant) {
  const std::optional<std::string> t = view.segment->sole_tenant();
  return t && *t == tenant;
}

Result<std::vector<SegmentVectors>> VectorFiles::Load(const Snapshot& snapshot, const std::string& tenant,
                                                     const std::string& key) {
  std::vector<SegmentVectors> out;
  for (const SegmentView& view : snapshot.segments()) {
    if (!SegmentOfTenant(view, tenant)) continue;
    auto loaded = Get(view.id, key);
    if (!loaded.ok()) {
      if (loaded.status().code() != StatusCode::kNotFound) {
        spdlog::warn("vectors: ignoring {}: {}", PathOf(view.id, key).string(), loaded.status().ToString());
      }
      continue;
    }
    const Loaded& l = **loaded;
    if (l.segment_crc != view.segment->content_crc() || l.index->size() != view.segment->num_docs()) continue;
    out.push_back(SegmentVectors{view, l.index});
  }
  return out;
}

uint64_t VectorFiles::BytesOf(const std::vector<SegmentVectors>& loaded, const std::string& key) const {
  uint64_t total = 0;
  for (const auto& sv : loaded) {
    std::error_code ec;
    uintmax_t n = fs::file_size(PathOf(sv.view.id, key), ec);
    if (!ec) total += n;
  }
  return total;
}

Result<VectorSyncStats> VectorFiles::Sync(const VectorSyncArgs& args) {
  const auto t0 = std::chrono::steady_clock::now();
  VectorSyncStats stats;
  const Snapshot& snap = *args.snapshot;
  const EmbedderIdentity& identity = args.embedder->identity();
  const std::string key = identity.Key();
  const uint32_t dim = identity.dim;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Status::IOError("cannot create " + dir_.string() + ": " + ec.message());

  ATTEST_ASSIGN_OR_RETURN(std::vector<SegmentVectors> have, Load(snap, args.tenant, key));
  std::set<uint64_t> covered;  // files of another index kind are rebuilt (from their own rows)
  for (const auto& sv : have) {
    if (sv.index->kind() == args.index.kind) covered.insert(sv.view.id.get());
  }
  std::vector<const SegmentView*> missing;
  for (const SegmentView& view : snap.segments()) {
    if (SegmentOfTenant(view, args.tenant) && !covered.count(view.id.get())) missing.push_back(&view);
  }
  if (missing.empty()) return stats;

  // Rows to reuse: chunk id -> (file, row) over every file of this embedder in the directory.
  std::unordered_map<uint64_t, std::pair<const Loaded*, uint32_t>> reuse;
  std::vector<std::shared_ptr<const Loaded>> sources;
  {
    std::unordered_map<uint64_t, bool> wanted;
    for (const SegmentView* v : missing) {
      for (uint32_t d = 0; d < v->segment->num_docs(); ++d) wanted[v->segment->chunk_id(d).get()] = true;
    }
    for (const auto& entry : fs::directory_iterator(dir_, ec)) {
      uint64_t seg;
      std::string file_key;
      if (!ParseFileName(entry.path().filename().string(), &seg, &file_key) || file_key != key) continue;
      auto loaded = Get(SegmentId(seg), key);
      if (!loaded.ok()) continue;
      sources.push_back(*loaded);
      const Loaded* l = sources.back().get();
      if (l->index->dim() != dim) continue;
      for (uint32_t r = 0; r < l->chunk_ids.size(); ++r) {
        if (wanted.count(l->chunk_ids[r])) reuse.emplace(l->chunk_ids[r], std::make_pair(l, r));
      }
    }
  }

  for (const SegmentView* view : missing) {
    const Segment& seg = *view->segment;
    const uint32_t n = seg.num_docs();
    std::vector<float> data(size_t(n) * dim, 0.0f);
    std::vector<uint64_t> chunk_ids(n);
    std::vector<uint32_t> to_embed;
    for (uint32_t d = 0; d < n; ++d) {
      chunk_ids[d] = seg.chunk_id(d).get();
      if (view->deleted && view->deleted->Test(d)) continue;  // never searched: left as zeros
      auto it = reuse.find(chunk_ids[d]);
      if (it != reuse.end()) {
        it->second.first->index->Vector(it->second.second, &data[size_t(d) * dim]);
        ++stats.rows_reused;
      } else {
        to_embed.push_back(d);
      }
    }

    // Embed the rest in batches on `threads` threads.
    const size_t batch = std::max<size_t>(1, args.batch);
    const size_t batches = (to_embed.size() + batch - 1) / batch;
    std::atomic<size_t> next{0};
    Mutex err_mu;
    Status first_error;
    auto work = [&] {
      std::unordered_map<uint64_t, std::string> titles;
      for (size_t b; (b = next.fetch_add(1)) < batches;) {
        {
          MutexLock lock(err_mu);
          if (!first_error.ok()) return;
        }
        const size_t lo = b * batch, hi = std::min(to_embed.size(), lo + batch);
        std::vector<ChunkId> ids;
        for (size_t i = lo; i < hi; ++i) ids.push_back(ChunkId(chunk_ids[to_embed[i]]));
        auto fail = [&](const Status& s) {
          MutexLock lock(err_mu);
          if (first_error.ok()) first_error = s;
        };
        auto records = snap.GetChunks(ids);
        if (!records.ok()) return fail(records.status());
        std::vector<ChunkId> got;
        for (const auto& r : *records) got.push_back(r.id);
        auto docs = snap.DocumentsOf(got);
        if (!docs.ok()) return fail(docs.status());
        std::vector<DocNum> unread;  // documents of this batch without a title yet, read together
        for (DocNum d : *docs) {
          if (titles.emplace(d.get(), std::string()).second) unread.push_back(d);  // filled below
        }
        auto read = snap.GetDocuments(unread);
        if (!read.ok()) return fail(read.status());
        for (size_t i = 0; i < unread.size(); ++i) titles[unread[i].get()] = std::move((*read)[i].title);
        std::vector<std::string> texts;
        for (size_t i = 0; i < records->size(); ++i) {
          const ChunkRecord& c = (*records)[i];
          texts.push_back(ChunkEmbeddingText(titles.at((*docs)[i].get()), c.section_path, c.text));
        }
        std::vector<std::string_view> views(texts.begin(), texts.end());
        auto vecs = args.embedder->Embed(views, EmbedPurpose::kDocument);
        if (!vecs.ok()) return fail(vecs.status());
        if (vecs->size() != texts.size() * dim) return fail(Status::Internal("embedder returned a wrong number of floats"));
        for (size_t i = 0; i < got.size(); ++i) {
          std::optional<LocalDoc> local = seg.local_of(got[i]);
          if (!local) return fail(Status::Internal("chunk not in its segment"));
          std::memcpy(&data[size_t(*local) * dim], vecs->data() + i * dim, dim * sizeof(float));
        }
      }
    };
    const unsigned threads = std::max(1u, std::min<unsigned>(args.threads, static_cast<unsigned>(batches)));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    ATTEST_RETURN_IF_ERROR(first_error);
    stats.rows_embedded += to_embed.size();

    VectorBuildArgs build;
    build.vectors = data.data();
    build.n = n;
    build.dim = dim;
    build.config = args.index;
    build.tag = EncodeTag(view->id, seg.content_crc(), identity, chunk_ids);
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<VectorIndex> index, VectorIndex::Build(build));
    fs::path path = PathOf(view->id, key);
    if (args.fault_hook) ATTEST_RETURN_IF_ERROR(args.fault_hook("vectors.before_file_write"));
    ATTEST_RETURN_IF_ERROR(index->Write(path));
    auto loaded = std::make_shared<Loaded>();
    loaded->segment_crc = seg.content_crc();
    loaded->chunk_ids = std::move(chunk_ids);
    loaded->index = std::move(index);
    {
      MutexLock lock(mu_);
      cache_[{view->id.get(), key}] = std::move(loaded);
    }
    ++stats.segments_built;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

Status VectorFiles::RemoveExcept(const std::map<SegmentId, std::string>& keep) {
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return Status::Ok();
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    uint64_t seg;
    std::string key;
    const std::string name = entry.path().filename().string();
    bool temp = name.find(".tmp") != std::string::npos;
    if (!temp && !ParseFileName(name, &seg, &key)) continue;
    if (!temp) {
      auto it = keep.find(SegmentId(seg));
      if (it != keep.end() && it->second == key) continue;
    }
    std::error_code rm;
    fs::remove(entry.path(), rm);
    if (rm) spdlog::warn("vectors: cannot remove {}: {}", entry.path().string(), rm.message());
    if (!temp) {
      MutexLock lock(mu_);
      cache_.erase({seg, key});
    }
  }
  return Status::Ok();
}

}  // namespace attest
