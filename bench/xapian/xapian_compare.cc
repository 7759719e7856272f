// The Xapian 1.4 side of the comparison benchmark. Xapian is GPL: this file is compiled only with
// -DATTEST_BENCH_XAPIAN=ON into its own binary and is never linked into attest or attest_core.
//   Build: glass backend, XAPIAN_FLUSH_THRESHOLD = --xapian-flush (default 1,000,000 documents, so
//          a 1M corpus is flushed once), TermGenerator with Stem("english"), STEM_ALL (stemmed terms
//          only, with positions), SimpleStopper of the same 33 Lucene stopwords with STOP_ALL;
//          title, then body (positions continue after a gap); ACL as the boolean term "XA<group>".
//          Then Database::compact(DBCOMPACT_SINGLE_FILE) into one compacted file.
//   Query: the query text goes through the same TermGenerator settings; its distinct terms are
//          combined with OP_OR (a repeated term repeated, so it gets wqf > 1); BM25Weight(k1=0.9, k2=0, k3=1, b=0.4, min_normlen=0.5);
//          get_mset(0, k). ACL: OP_FILTER with the group's boolean term, applied inside Xapian's
//          matcher.
// Usage: see bench/common/bench_driver.h and bench/README.md.
#include <xapian.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <system_error>

#include "common/bench_driver.h"
#include "common/corpus_reader.h"

namespace attest::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kDbFile = "xapian.glass";
constexpr const char* kAclPrefix = "XA";

class XapianSystem final : public BenchSystem {
 public:
  XapianSystem() {
    for (const std::string& w : LuceneEnglishStopwords()) stopper_.add(w);
  }
  std::string name() const override { return "xapian"; }

  std::map<std::string, std::string> Describe() const override {
    return {{"weighting", "BM25Weight(k1=0.9, k2=0, k3=1, b=0.4, min_normlen=0.5)"},
            {"analyzer", "TermGenerator, Stem(english), STEM_ALL, SimpleStopper(33 Lucene stopwords), STOP_ALL"},
            {"query", "OP_OR of the query terms (repeats kept: wqf), get_mset(0, k)"},
            {"acl", "OP_FILTER with boolean term XA<group> (inside the matcher)"},
            {"xapian", Xapian::version_string()},
            {"index", "glass, compacted to a single file"}};
  }

  Status Build(const BuildArgs& args, BuildStats* stats) override {
    try {
      const std::string threshold = std::to_string(args.xapian_flush_threshold);
      ::setenv("XAPIAN_FLUSH_THRESHOLD", threshold.c_str(), 1);
      const fs::path tmp = args.index_dir / "build.glass";
      ATTEST_ASSIGN_OR_RETURN(IdMapWriter ids, IdMapWriter::Create(args.index_dir));
      const auto t0 = Clock::now();
      {
        Xapian::WritableDatabase db(tmp.string(), Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_BACKEND_GLASS);
        Xapian::TermGenerator tg = MakeTermGenerator();
        ATTEST_RETURN_IF_ERROR(ForEachBenchDoc(args.corpus, [&](BenchDoc&& d) -> Status {
          Xapian::Document doc;
          tg.set_document(doc);
          tg.index_text(d.title);
          tg.increase_termpos();
          tg.index_text(d.text);
          if (!d.acl.empty()) doc.add_boolean_term(kAclPrefix + d.acl);
          db.add_document(doc);
          ATTEST_RETURN_IF_ERROR(ids.Add(d.id));
          stats->docs += 1;
          stats->raw_text_bytes += d.title.size() + d.text.size();
          return Status::Ok();
        }));
        db.commit();
      }
      ATTEST_RETURN_IF_ERROR(ids.Close());
      const auto t1 = Clock::now();
      {
        Xapian::Database src(tmp.string());
        src.compact((args.index_dir / kDbFile).string(), Xapian::DBCOMPACT_SINGLE_FILE);
      }
      const auto t2 = Clock::now();
      std::error_code ec;
      fs::remove_all(tmp, ec);
      stats->phases_s["index_and_commit"] = std::chrono::duration<double>(t1 - t0).count();
      stats->phases_s["compact"] = std::chrono::duration<double>(t2 - t1).count();
      stats->notes["flush_threshold"] = threshold;
      stats->notes["build_threads"] = "1 (Xapian writes from one thread)";
    } catch (const Xapian::Error& e) {
      return Status::IOError("xapian: " + e.get_description());
    }
    return Status::Ok();
  }

  Status Open(const fs::path& index_dir) override {
    ATTEST_ASSIGN_OR_RETURN(ids_, IdMap::Read(index_dir));
    try {
      db_ = Xapian::Database((index_dir / kDbFile).string());
      enquire_ = std::make_unique<Xapian::Enquire>(db_);
      enquire_->set_weighting_scheme(Xapian::BM25Weight(0.9, 0, 1, 0.4, 0.5));
      enquire_->set_docid_order(Xapian::Enquire::ASCENDING);
      query_tg_ = MakeTermGenerator();
    } catch (const Xapian::Error& e) {
      return Status::IOError("xapian: " + e.get_description());
    }
    if (db_.get_doccount() != ids_.size()) {
      return Status::Corruption("database has " + std::to_string(db_.get_doccount()) + " documents but ids.txt has " +
                                std::to_string(ids_.size()));
    }
    return Status::Ok();
  }

  Status Search(const SearchArgs& args, std::vector<std::string>* ids) override {
    try {
      Xapian::Document scratch;
      query_tg_.set_document(scratch);
      query_tg_.index_text(std::string(args.text));
      // Each term as often as it occurs in the query (wdf), so Xapian's query term frequency (wqf,
      // with k3 = 1) sees repeats as Attest and FTS5 do.
      std::vector<std::string> terms;
      for (auto t = scratch.termlist_begin(); t != scratch.termlist_end(); ++t) {
        for (Xapian::termcount i = 0; i < std::max<Xapian::termcount>(1, t.get_wdf()); ++i) terms.push_back(*t);
      }
      Xapian::Query query(Xapian::Query::OP_OR, terms.begin(), terms.end());
      if (query.empty()) return Status::Ok();
      if (args.acl_group) {
        query = Xapian::Query(Xapian::Query::OP_FILTER, query, Xapian::Query(kAclPrefix + *args.acl_group));
      }
      enquire_->set_query(query);
      Xapian::MSet mset = enquire_->get_mset(0, static_cast<Xapian::doccount>(args.k));
      for (auto it = mset.begin(); it != mset.end(); ++it) {
        const Xapian::docid did = *it;
        if (did < 1 || did > ids_.size()) return Status::Internal("docid out of range: " + std::to_string(did));
        ids->push_back(ids_[did - 1]);
      }
    } catch (const Xapian::Error& e) {
      return Status::IOError("xapian: " + e.get_description());
    }
    return Status::Ok();
  }

  Result<uint64_t> IndexBytes(const fs::path& index_dir) const override { return DirectoryBytesExceptIds(index_dir); }

 private:
  Xapian::TermGenerator MakeTermGenerator() const {
    Xapian::TermGenerator tg;
    tg.set_stemmer(Xapian::Stem("english"));
    tg.set_stemming_strategy(Xapian::TermGenerator::STEM_ALL);
    tg.set_stopper(&stopper_);
    tg.set_stopper_strategy(Xapian::TermGenerator::STOP_ALL);
    return tg;
  }

  Xapian::SimpleStopper stopper_;
  Xapian::Database db_;
  std::unique_ptr<Xapian::Enquire> enquire_;
  Xapian::TermGenerator query_tg_;
  IdMap ids_;
};

}  // namespace
}  // namespace attest::bench

int main(int argc, char** argv) {
  return attest::bench::RunBenchMain(argc, argv, [] { return std::make_unique<attest::bench::XapianSystem>(); });
}
