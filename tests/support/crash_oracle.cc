#include "support/crash_oracle.h"

#include <algorithm>
#include <set>
#include <system_error>
#include <unordered_set>

#include "index/document_api.h"
#include "index/document_indexer.h"
#include "ingest/jsonl_reader.h"
#include "lexical/lexical_query.h"
#include "store/store.h"
#include "text/analyzer.h"
#include "vector/segment_vectors.h"

namespace attest::testing_support {
namespace fs = std::filesystem;

struct CrashOracle::Impl {
  Analyzer analyzer;
  DocumentIndexer indexer{analyzer, ChunkerOptions{}};

  ExpectedDocument Expect(const ParsedDocument& doc, const DocumentDefaults& defaults, uint64_t bytes) const {
    PreparedDocument p = indexer.Prepare(doc, defaults, bytes);
    ExpectedDocument e;
    e.sha256 = p.record.sha256;
    for (const TextChunk& c : p.chunks) e.chunk_texts.push_back(c.text);
    return e;
  }
};

CrashOracle::CrashOracle() : impl_(std::make_unique<Impl>()) {}
CrashOracle::~CrashOracle() = default;

ExpectedDocument CrashOracle::FromJsonlLine(const std::string& line) const {
  ParsedDocument doc;
  Status s = ParseJsonlLine(line, SourceOptions{}, &doc);
  if (!s.ok()) return ExpectedDocument{"unparsable: " + s.ToString(), {}};
  return impl_->Expect(doc, DocumentDefaults{}, line.size());
}

ExpectedDocument CrashOracle::FromSpec(const DocumentSpec& spec) const {
  auto p = Prepare(spec);
  if (!p.ok()) return ExpectedDocument{"unparsable: " + p.status().ToString(), {}};
  ExpectedDocument e;
  e.sha256 = p->record.sha256;
  for (const TextChunk& c : p->chunks) e.chunk_texts.push_back(c.text);
  return e;
}

Result<PreparedDocument> CrashOracle::Prepare(const DocumentSpec& spec) const {
  ATTEST_ASSIGN_OR_RETURN(ParsedDocument doc, ParseDocumentSpec(spec));
  DocumentDefaults defaults;  // as Engine::PutDocuments
  defaults.tenant = spec.tenant;
  defaults.acl_groups = spec.acl_groups;
  return impl_->indexer.Prepare(doc, defaults, spec.text.size());
}

void DocumentLedger::Sent(const std::string& id, const std::string& token, int version, ExpectedDocument expected) {
  tokens[id] = token;
  sent[id].emplace(version, std::move(expected));
}

void DocumentLedger::Acknowledged(const std::string& id, int version) {
  auto [it, inserted] = acknowledged.emplace(id, version);
  if (!inserted) it->second = std::max(it->second, version);
}

int VersionFromTitle(const std::string& title) {
  const std::string marker = " version ";
  size_t at = title.rfind(marker);
  if (at == std::string::npos) return -1;
  return std::atoi(title.c_str() + at + marker.size());
}

namespace {

bool IsTempName(const std::string& name) {
  return name.find(".tmp-") != std::string::npos || name.find(".tmp") != std::string::npos;
}

std::vector<std::string> TempFilesIn(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (IsTempName(e.path().filename().string())) out.push_back(e.path().string());
  }
  return out;
}

class Checker {
 public:
  explicit Checker(const StoreCheckArgs& args) : args_(args) {}

  StoreCheck Run() {
    {
      StoreOptions so;
      so.dir = args_.data_dir;
      so.create_if_missing = false;
      auto store = Store::Open(so);
      if (!store.ok()) {
        Fail("reopen failed: " + store.status().ToString());
        return std::move(out_);
      }
      auto snap = (*store)->Pin();
      CheckDocuments(*snap);
      CheckIndexEqualsCatalog(*snap);
      CheckFiles(*snap);
      if (!snap->embedders().empty()) CheckVectorFiles(*snap);
      snap.reset();
      CheckAcceptsWrites(**store);
    }
    // Segments whose vectors a kill left unbuilt are absent, not wrong (the next vector work of a
    // writer builds them); a vector search needs at least one segment with vectors.
    if (out_.embedder_active && out_.vector_segments > 0) CheckVectorSearch();
    return std::move(out_);
  }

 private:
  void Fail(std::string message) {
    if (out_.failures.size() < 50) out_.failures.push_back(std::move(message));
  }

  std::vector<ChunkId> Search(const Snapshot& snap, const std::string& token) {
    LexicalQuery q;
    q.clauses.push_back({Occur::kShould, {token}, {0}, false});
    LexicalSearchArgs a;
    a.query = &q;
    a.k = 10000;
    std::vector<ChunkId> ids;
    for (const auto& h : snap.lexical().TopK(a)) ids.push_back(h.id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  void CheckDocuments(const Snapshot& snap) {
    const DocumentLedger& ledger = *args_.ledger;
    for (const auto& [id, versions] : ledger.sent) {
      auto ack = ledger.acknowledged.find(id);
      auto doc = snap.FindDocument({"", id});
      if (!doc.ok()) {
        if (ack != ledger.acknowledged.end()) {
          ++out_.lost;
          Fail("acknowledged " + id + " (version " + std::to_string(ack->second) + ") is missing: " +
               doc.status().ToString());
        }
        continue;
      }
      ++out_.live_documents;
      out_.live_chunks += doc->chunk_count;
      const int v = VersionFromTitle(doc->title);
      if (ack != ledger.acknowledged.end() && v < ack->second) {
        ++out_.lost;
        Fail(id + " went back to version " + std::to_string(v) + " after version " + std::to_string(ack->second) +
             " was acknowledged");
      }
      auto expected = versions.find(v);
      if (expected == versions.end()) {
        Fail(id + " is at version " + std::to_string(v) + ", which was never sent");
        continue;
      }
      const ExpectedDocument& e = expected->second;
      if (doc->sha256 != e.sha256) Fail(id + " version " + std::to_string(v) + ": digest differs from a clean ingest");
      if (doc->chunk_count != e.chunk_texts.size()) {
        Fail(id + " version " + std::to_string(v) + ": catalog says " + std::to_string(doc->chunk_count) +
             " chunks, a clean ingest makes " + std::to_string(e.chunk_texts.size()));
      }
      auto chunks = snap.ChunksOfDocument(doc->num);
      if (!chunks.ok()) {
        Fail(id + ": chunks unreadable: " + chunks.status().ToString());
        continue;
      }
      std::vector<std::string> texts;
      std::vector<ChunkId> ids;
      for (const auto& c : *chunks) {
        texts.push_back(c.text);
        ids.push_back(c.id);
      }
      if (texts != e.chunk_texts) {
        Fail(id + " version " + std::to_string(v) + ": " + std::to_string(texts.size()) +
             " chunk texts differ from a clean ingest (partial or stale document)");
      }
      std::sort(ids.begin(), ids.end());
      auto token = ledger.tokens.find(id);
      if (token != ledger.tokens.end() && Search(snap, token->second) != ids) {
        Fail(id + ": a search for '" + token->second + "' does not return exactly its " +
             std::to_string(ids.size()) + " chunks");
      }
    }
  }

  void CheckIndexEqualsCatalog(const Snapshot& snap) {
    std::vector<ChunkId> live;
    std::unordered_set<uint64_t> seen;
    out_.segments = snap.segments().size();
    for (const SegmentView& view : snap.segments()) {
      for (LocalDoc d = 0; d < view.segment->num_docs(); ++d) {
        if (view.deleted && view.deleted->Test(d)) continue;
        const ChunkId id = view.segment->chunk_id(d);
        if (!seen.insert(id.get()).second) Fail("chunk " + std::to_string(id.get()) + " is live in two segments");
        live.push_back(id);
      }
    }
    auto stats = snap.Stats();
    if (!stats.ok()) return Fail("stats: " + stats.status().ToString());
    if (stats->chunks != live.size()) {
      Fail("the catalog has " + std::to_string(stats->chunks) + " live chunks, the segments " +
           std::to_string(live.size()));
    }
    auto rows = snap.GetChunks(live);
    if (!rows.ok()) return Fail("chunks: " + rows.status().ToString());
    if (rows->size() != live.size()) {
      Fail(std::to_string(live.size() - rows->size()) + " chunks of the segments are not in the catalog");
    }
    auto docs = snap.DocumentsOf(live);
    if (!docs.ok()) return Fail("chunk -> document map: " + docs.status().ToString());
    for (size_t i = 0; i < rows->size() && i < docs->size(); ++i) {
      if ((*rows)[i].id == live[i] && (*rows)[i].doc != (*docs)[i]) {
        Fail("chunk " + std::to_string(live[i].get()) + ": segment and catalog disagree on its document");
      }
    }
    if (stats->documents != out_.live_documents) {
      Fail("the catalog has " + std::to_string(stats->documents) + " live documents, the ledger knows " +
           std::to_string(out_.live_documents));
    }
  }

  void CheckFiles(const Snapshot& snap) {
    std::set<std::string> listed;
    for (const SegmentView& v : snap.segments()) {
      char name[64];
      std::snprintf(name, sizeof name, "seg-%016llx.ats", static_cast<unsigned long long>(v.id.get()));
      listed.insert(name);
    }
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(args_.data_dir / "segments", ec)) {
      const std::string name = e.path().filename().string();
      if (!listed.count(name)) Fail("segment file " + name + " is not listed in the catalog after recovery");
    }
    // The writer open removes temporary files of its own folders; vectors/ and models/ belong to the
    // engine, which cleans them after its next vector work (checked with expect_no_debris).
    std::vector<fs::path> folders = {args_.data_dir, args_.data_dir / "segments"};
    if (args_.expect_no_debris) {
      folders.push_back(args_.data_dir / "vectors");
      folders.push_back(args_.data_dir / "models");
    }
    for (const fs::path& d : folders) {
      for (const std::string& f : TempFilesIn(d)) Fail("temporary file left behind: " + f);
    }
  }

  // Each tenant's embedder: its model file exists, and every vector file of one of the tenant's
  // live segments is valid for it (a missing one is absent, not wrong).
  void CheckVectorFiles(const Snapshot& snap) {
    out_.embedder_active = true;
    for (const auto& [tenant, rec] : snap.embedders()) {
      out_.embedder_key = rec.key;
      std::error_code ec;
      if (!rec.model_file.empty() && !fs::exists(args_.data_dir / "models" / rec.model_file, ec)) {
        Fail("the active embedder's model file models/" + rec.model_file + " is missing");
      }
      VectorFiles files(args_.data_dir / "vectors");
      auto loaded = files.Load(snap, tenant, rec.key);
      if (!loaded.ok()) return Fail("vector files: " + loaded.status().ToString());
      std::set<uint64_t> valid;
      for (const auto& sv : *loaded) valid.insert(sv.view.id.get());
      out_.vector_segments += valid.size();
      for (const SegmentView& v : snap.segments()) {
        if (!SegmentOfTenant(v, tenant)) continue;
        const fs::path path = files.PathOf(v.id, rec.key);
        if (fs::exists(path, ec) && !valid.count(v.id.get())) {
          Fail("vector file " + path.filename().string() + " exists for a live segment but is invalid or stale");
        }
      }
    }
  }

  void CheckAcceptsWrites(Store& store) {
    DocumentSpec spec;
    spec.id = args_.probe_id;
    spec.title = "Probe";
    spec.text = "A probe document proves that the reopened store takes a write.";
    auto prepared = args_.oracle->Prepare(spec);
    if (!prepared.ok()) return Fail("probe: " + prepared.status().ToString());
    WriteBatch add;
    add.upserts.push_back(std::move(prepared).value());
    auto r = store.Commit(std::move(add));
    if (!r.ok() || r->added != 1) {
      return Fail("the reopened store refuses a write: " + (r.ok() ? std::string("not added") : r.status().ToString()));
    }
    if (!store.Pin()->FindDocument({"", args_.probe_id}).ok()) Fail("the probe write is not visible");
    WriteBatch del;
    del.deletes.push_back({"", args_.probe_id});
    auto d = store.Commit(std::move(del));
    if (!d.ok() || d->deleted != 1) Fail("the probe document cannot be deleted");
  }

  void CheckVectorSearch() {
    EngineOptions eo;
    eo.data_dir = args_.data_dir.string();
    eo.read_only = true;
    eo.threads = 1;
    auto engine = Engine::Open(eo);
    if (!engine.ok()) return Fail("engine open: " + engine.status().ToString());
    SearchOptions so;
    so.query = args_.ledger->tokens.empty() ? "probe" : args_.ledger->tokens.begin()->second;
    so.mode = SearchMode::kVector;
    so.k = 5;
    auto r = (*engine)->Search(so);
    if (!r.ok()) Fail("a vector search fails after recovery: " + r.status().ToString());
  }

  const StoreCheckArgs& args_;
  StoreCheck out_;
};

}  // namespace

StoreCheck CheckReopenedStore(const StoreCheckArgs& args) { return Checker(args).Run(); }

}  // namespace attest::testing_support
