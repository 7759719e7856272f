// The folder watcher (src/watch/folder_watcher.h) against a real engine and real inotify: created,
// written, renamed, moved in and out, deleted files; directories created later; an editor's atomic
// save; a lost event queue; files that vanished while nobody watched; canonical-URL ids; and the
// same documents and chunks as `Engine::Ingest` of the folder.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "attest/engine.h"
#include "support/process.h"
#include "watch/folder_watcher.h"
#include "watch/watch_map.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;
using testing_support::WriteFile;

EngineOptions TestEngineOptions(const std::string& data) {
  EngineOptions o;
  o.data_dir = data;
  o.threads = 1;
  o.embedder.kind = EmbedderKind::kNone;
  return o;
}

std::set<std::string> LiveIds(Engine& engine) {
  std::set<std::string> ids;
  ListDocumentsOptions o;
  o.limit = 1000;
  for (;;) {
    auto page = engine.ListDocuments(o);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return ids;
    for (const auto& d : page->documents) ids.insert(d.id);
    if (!page->next_after_id) return ids;
    o.after_id = *page->next_after_id;
  }
}

std::set<std::string> Hits(Engine& engine, const std::string& query) {
  SearchOptions so;
  so.query = query;
  so.mode = SearchMode::kBm25;
  so.k = 100;
  auto r = engine.Search(so);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::set<std::string> out;
  if (r.ok()) {
    for (const auto& h : r->hits) out.insert(h.doc_id);
  }
  return out;
}

class WatchFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    docs_ = dir_.path() / "docs";
    fs::create_directories(docs_);
    auto e = Engine::Open(TestEngineOptions(dir_.str("data")));
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
  }

  FolderWatchOptions Options() {
    FolderWatchOptions o;
    o.roots = {docs_.string()};
    o.state_dir = dir_.str("data") + "/watch";
    o.debounce = std::chrono::milliseconds(30);
    o.max_delay = std::chrono::milliseconds(300);
    o.observer.on_change = [this](const WatchChange& c) { changes_.push_back(c); };
    o.observer.on_rescan = [this](const std::string&, const std::string& reason) { rescans_.push_back(reason); };
    o.observer.on_error = [this](const std::string& where, const Status& st) {
      errors_.push_back(where + ": " + st.message());
    };
    return o;
  }

  void StartWatching() {
    auto w = FolderWatcher::Open(*engine_, Options());
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    watcher_ = std::move(w).value();
    ASSERT_TRUE(watcher_->Sync().ok());
    changes_.clear();
  }

  // Steps until the events are read and applied and nothing new comes (bounded: 10 s).
  void Settle() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    int quiet = 0;
    while (quiet < 3 && std::chrono::steady_clock::now() < deadline) {
      auto did = watcher_->Step(std::chrono::milliseconds(40));
      ASSERT_TRUE(did.ok()) << did.status().ToString();
      quiet = (*did || watcher_->pending() > 0) ? 0 : quiet + 1;
    }
    ASSERT_EQ(watcher_->pending(), 0u) << "the watcher did not settle";
  }

  std::vector<std::string> ChangeLog() const {
    std::vector<std::string> out;
    for (const auto& c : changes_) out.push_back(std::string(WatchChangeKindName(c.kind)) + " " + c.id);
    return out;
  }

  TempDir dir_;
  fs::path docs_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<FolderWatcher> watcher_;
  std::vector<WatchChange> changes_;
  std::vector<std::string> rescans_, errors_;
};

TEST_F(WatchFolderTest, CreateModifyDelete) {
  WriteFile(docs_ / "a.md", "# Alpha\n\nThe alpha page mentions quasarfrost.\n");
  StartWatching();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"a.md"}));

  WriteFile(docs_ / "b.txt", "The beta note mentions nebulaquill.\n");
  Settle();
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"added b.txt"}));
  EXPECT_EQ(Hits(*engine_, "nebulaquill"), (std::set<std::string>{"b.txt"}));
  EXPECT_GE(changes_[0].lag_ms, 0);
  EXPECT_FALSE(changes_[0].rescan);

  changes_.clear();
  WriteFile(docs_ / "b.txt", "The beta note now mentions cometbrindle instead.\n");
  Settle();
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"replaced b.txt"}));
  EXPECT_FALSE(changes_[0].superseded_chunks.empty());
  EXPECT_TRUE(Hits(*engine_, "nebulaquill").empty());
  EXPECT_EQ(Hits(*engine_, "cometbrindle"), (std::set<std::string>{"b.txt"}));

  changes_.clear();
  WriteFile(docs_ / "b.txt", "The beta note now mentions cometbrindle instead.\n");  // same bytes
  Settle();
  EXPECT_TRUE(changes_.empty()) << "an identical rewrite changes nothing";

  fs::remove(docs_ / "b.txt");
  Settle();
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"deleted b.txt"}));
  EXPECT_FALSE(changes_[0].superseded_chunks.empty());
  EXPECT_TRUE(Hits(*engine_, "cometbrindle").empty());
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"a.md"}));
  EXPECT_TRUE(errors_.empty()) << errors_[0];
}

TEST_F(WatchFolderTest, RenameWithinTheTreeIsADeleteAndAnAdd) {
  WriteFile(docs_ / "old.md", "# Old\n\nA page about glimmerstone.\n");
  fs::create_directories(docs_ / "sub");
  StartWatching();
  fs::rename(docs_ / "old.md", docs_ / "sub" / "new.md");
  Settle();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"sub/new.md"}));
  EXPECT_EQ(Hits(*engine_, "glimmerstone"), (std::set<std::string>{"sub/new.md"}));
  std::vector<std::string> log = ChangeLog();
  std::sort(log.begin(), log.end());
  EXPECT_EQ(log, (std::vector<std::string>{"added sub/new.md", "deleted old.md"}));

  // A directory renamed: every file below it gets its new id.
  fs::create_directories(docs_ / "sub" / "deep");
  WriteFile(docs_ / "sub" / "deep" / "x.txt", "deep file of the renamed folder, word thornwhistle\n");
  Settle();
  fs::rename(docs_ / "sub", docs_ / "renamed");
  Settle();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"renamed/new.md", "renamed/deep/x.txt"}));
  // The renamed directory is still watched under its new name.
  WriteFile(docs_ / "renamed" / "deep" / "y.txt", "a later file, word emberlatch\n");
  Settle();
  EXPECT_EQ(Hits(*engine_, "emberlatch"), (std::set<std::string>{"renamed/deep/y.txt"}));
}

TEST_F(WatchFolderTest, MovedOutIsDeletedMovedInIsAdded) {
  const fs::path outside = dir_.path() / "outside";
  fs::create_directories(outside / "tree" / "inner");
  WriteFile(outside / "tree" / "one.md", "# One\n\nword pelicanridge\n");
  WriteFile(outside / "tree" / "inner" / "two.md", "# Two\n\nword marrowlight\n");
  WriteFile(docs_ / "leaving.txt", "this file leaves, word saltmarsh\n");
  StartWatching();

  fs::rename(docs_ / "leaving.txt", outside / "leaving.txt");
  Settle();
  EXPECT_TRUE(Hits(*engine_, "saltmarsh").empty());
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"deleted leaving.txt"}));

  changes_.clear();
  fs::rename(outside / "tree", docs_ / "tree");  // a whole directory moves in
  Settle();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"tree/one.md", "tree/inner/two.md"}));
  // ... and is watched: a change inside it is seen.
  WriteFile(docs_ / "tree" / "inner" / "two.md", "# Two\n\nword copperfinch\n");
  Settle();
  EXPECT_EQ(Hits(*engine_, "copperfinch"), (std::set<std::string>{"tree/inner/two.md"}));

  changes_.clear();
  fs::rename(docs_ / "tree", outside / "tree-back");  // the directory moves out again
  Settle();
  EXPECT_TRUE(LiveIds(*engine_).empty());
  EXPECT_EQ(changes_.size(), 2u);
  // The moved-out directory is no longer watched: changes there do nothing.
  changes_.clear();
  WriteFile(outside / "tree-back" / "one.md", "# One\n\nword never-indexed\n");
  Settle();
  EXPECT_TRUE(changes_.empty());
}

TEST_F(WatchFolderTest, SubdirectoriesCreatedLaterAreWatched) {
  StartWatching();
  // Written right after the mkdir: possibly before the watch on the new directory exists, which
  // the scan of a new directory covers.
  fs::create_directories(docs_ / "x" / "y");
  WriteFile(docs_ / "x" / "y" / "z.md", "# Zed\n\nword lanternmoth\n");
  Settle();
  EXPECT_EQ(Hits(*engine_, "lanternmoth"), (std::set<std::string>{"x/y/z.md"}));
  WriteFile(docs_ / "x" / "y" / "later.md", "# Later\n\nword driftmallow\n");
  Settle();
  EXPECT_EQ(Hits(*engine_, "driftmallow"), (std::set<std::string>{"x/y/later.md"}));
  // Deleting the directory deletes its documents.
  fs::remove_all(docs_ / "x");
  Settle();
  EXPECT_TRUE(LiveIds(*engine_).empty());
}

TEST_F(WatchFolderTest, AFileStillBeingWrittenWaitsForItsClose) {
  StartWatching();
  std::ofstream slow(docs_ / "slow.md", std::ios::binary);
  slow << "# Slow\n\nfirst half, word earlyhalf\n" << std::flush;
  // Longer than the debounce (30 ms), shorter than max_delay (300 ms): the half-written file is
  // not ingested.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(150);
  while (std::chrono::steady_clock::now() < until) ASSERT_TRUE(watcher_->Step(std::chrono::milliseconds(20)).ok());
  EXPECT_TRUE(changes_.empty()) << "ingested while still being written";
  slow << "\nsecond half, word latehalf\n";
  slow.close();
  Settle();
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"added slow.md"}));
  EXPECT_EQ(Hits(*engine_, "latehalf"), (std::set<std::string>{"slow.md"}));

  // A hard link has no IN_CLOSE_WRITE: it is applied after max_delay.
  changes_.clear();
  fs::create_hard_link(docs_ / "slow.md", docs_ / "linked.md");
  Settle();
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"added linked.md"}));
}

TEST_F(WatchFolderTest, SkipsWhatIngestSkips) {
  StartWatching();
  fs::create_directories(docs_ / ".git");
  WriteFile(docs_ / ".git" / "notes.txt", "hidden folder, word hiddenword\n");
  WriteFile(docs_ / ".draft.md", "hidden file, word hiddenword\n");
  WriteFile(docs_ / "style.css", "body { color: red } /* hiddenword */\n");
  WriteFile(docs_ / "shown.md", "# Shown\n\nword visibleword\n");
  Settle();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"shown.md"}));
  EXPECT_TRUE(Hits(*engine_, "hiddenword").empty());
}

TEST_F(WatchFolderTest, EditorAtomicSaveIsOneUpdate) {
  WriteFile(docs_ / "page.md", "# Page\n\nfirst version, word oldspruce\n");
  StartWatching();
  // What editors do: write the new text to a temporary file beside the page, then rename it over.
  WriteFile(docs_ / "page.md.tmp~4821", "# Page\n\nsecond version, word newcedar\n");
  fs::rename(docs_ / "page.md.tmp~4821", docs_ / "page.md");
  Settle();
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"replaced page.md"}));
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"page.md"}));
  EXPECT_EQ(Hits(*engine_, "newcedar"), (std::set<std::string>{"page.md"}));
  EXPECT_TRUE(Hits(*engine_, "oldspruce").empty());

  // What vim does (backupcopy=no): probe file, original renamed to a backup, new file written,
  // backup deleted. Still one update of the page, and the backup never becomes a document.
  changes_.clear();
  WriteFile(docs_ / "4913", "");
  fs::remove(docs_ / "4913");
  fs::rename(docs_ / "page.md", docs_ / "page.md~");
  WriteFile(docs_ / "page.md", "# Page\n\nthird version, word birchbark\n");
  fs::remove(docs_ / "page.md~");
  Settle();
  EXPECT_EQ(ChangeLog(), (std::vector<std::string>{"replaced page.md"}));
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"page.md"}));
  EXPECT_EQ(Hits(*engine_, "birchbark"), (std::set<std::string>{"page.md"}));
  EXPECT_TRUE(errors_.empty()) << errors_[0];
}

TEST_F(WatchFolderTest, QueueOverflowIsAFullRescan) {
  WriteFile(docs_ / "stays.md", "# Stays\n\nword anchorweed\n");
  WriteFile(docs_ / "goes.md", "# Goes\n\nword vanishfern\n");
  StartWatching();
  // Fill the kernel's queue past its limit without reading it: alternate two files so that no two
  // consecutive events are identical (the kernel merges those).
  std::ifstream limit_file("/proc/sys/fs/inotify/max_queued_events");
  long limit = 16384;
  limit_file >> limit;
  ASSERT_GT(limit, 0);
  ASSERT_LT(limit, 2'000'000) << "max_queued_events is too large to overflow in a test";
  const std::string a = (docs_ / "stays.md").string(), b = (docs_ / "noise.txt").string();
  WriteFile(b, "noise file, word clatterbox\n");
  for (long i = 0; i < limit / 2 + 100; ++i) {
    for (const std::string* p : {&a, &b}) {
      const int fd = ::open(p->c_str(), O_WRONLY | O_APPEND);
      ASSERT_GE(fd, 0);
      ::close(fd);  // IN_CLOSE_WRITE
    }
  }
  // These events come after the overflow and are lost: only the rescan can find them.
  fs::remove(docs_ / "goes.md");
  WriteFile(docs_ / "arrived.md", "# Arrived\n\nword latecomer\n");
  Settle();
  EXPECT_NE(std::find(rescans_.begin(), rescans_.end(), "overflow"), rescans_.end());
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"stays.md", "noise.txt", "arrived.md"}));
  EXPECT_TRUE(Hits(*engine_, "vanishfern").empty());
  EXPECT_EQ(Hits(*engine_, "latecomer"), (std::set<std::string>{"arrived.md"}));
  // Still watching after the rescan.
  WriteFile(docs_ / "after.md", "# After\n\nword postflood\n");
  Settle();
  EXPECT_EQ(Hits(*engine_, "postflood"), (std::set<std::string>{"after.md"}));
}

TEST_F(WatchFolderTest, FilesGoneWhileNotWatchingAreDeletedAtSync) {
  WriteFile(docs_ / "kept.md", "# Kept\n\nword steadfast\n");
  WriteFile(docs_ / "removed.md", "# Removed\n\nword ephemeral\n");
  // A page with a canonical URL: its id is the URL, and only the map can say which file gave it.
  WriteFile(docs_ / "canon.html",
            "<html><head><title>Canon</title><link rel=\"canonical\" href=\"https://docs.example.org/canon\">"
            "</head><body><p>word canonicity</p></body></html>");
  StartWatching();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"kept.md", "removed.md", "https://docs.example.org/canon"}));
  watcher_.reset();  // nobody watches now

  fs::remove(docs_ / "removed.md");
  fs::remove(docs_ / "canon.html");
  WriteFile(docs_ / "new.md", "# New\n\nword newcomer\n");
  StartWatching();  // Sync brings the index in line
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"kept.md", "new.md"}));

  // A canonical page deleted while watched is deleted by its URL too.
  WriteFile(docs_ / "canon2.html",
            "<html><head><title>Canon</title><link rel=\"canonical\" href=\"https://docs.example.org/two\">"
            "</head><body><p>word secondcanon</p></body></html>");
  Settle();
  EXPECT_EQ(Hits(*engine_, "secondcanon"), (std::set<std::string>{"https://docs.example.org/two"}));
  fs::remove(docs_ / "canon2.html");
  Settle();
  EXPECT_TRUE(Hits(*engine_, "secondcanon").empty());
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"kept.md", "new.md"}));
}

TEST_F(WatchFolderTest, AnIdTwoFilesProduceSurvivesOneOfThem) {
  const std::string page = "<html><head><title>Mirror</title><link rel=\"canonical\" href=\"https://m.example.org/p\">"
                           "</head><body><p>word %s</p></body></html>";
  auto html = [&](const std::string& word) {
    std::string s = page;
    s.replace(s.find("%s"), 2, word);
    return s;
  };
  WriteFile(docs_ / "a.html", html("mirrorone"));
  WriteFile(docs_ / "b.html", html("mirrortwo"));  // the walk lists b after a: b's text wins
  StartWatching();
  EXPECT_EQ(Hits(*engine_, "mirrortwo"), (std::set<std::string>{"https://m.example.org/p"}));
  fs::remove(docs_ / "b.html");  // a still produces the id: it is re-ingested, not deleted
  Settle();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"https://m.example.org/p"}));
  EXPECT_EQ(Hits(*engine_, "mirrorone"), (std::set<std::string>{"https://m.example.org/p"}));
  fs::remove(docs_ / "a.html");
  Settle();
  EXPECT_TRUE(LiveIds(*engine_).empty());
}

TEST_F(WatchFolderTest, TwoRootsWithTheSameRelativeName) {
  // `attest ingest A B` gives both A/index.md and B/index.md the id "index.md": the last one wins.
  // Deleting one of them leaves the other's text, not nothing.
  const fs::path other = dir_.path() / "other";
  WriteFile(docs_ / "index.md", "# Index\n\nword firstroot\n");
  WriteFile(other / "index.md", "# Index\n\nword secondroot\n");
  FolderWatchOptions o = Options();
  o.roots = {docs_.string(), other.string()};
  auto w = FolderWatcher::Open(*engine_, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  watcher_ = std::move(w).value();
  ASSERT_TRUE(watcher_->Sync().ok());
  EXPECT_EQ(Hits(*engine_, "secondroot"), (std::set<std::string>{"index.md"}));
  fs::remove(other / "index.md");
  Settle();
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"index.md"}));
  EXPECT_EQ(Hits(*engine_, "firstroot"), (std::set<std::string>{"index.md"}));
  fs::remove(docs_ / "index.md");
  Settle();
  EXPECT_TRUE(LiveIds(*engine_).empty());
}

TEST_F(WatchFolderTest, ADirectoryAboveTheRootRenamed) {
  const fs::path parent = dir_.path() / "parent";
  docs_ = parent / "docs";
  WriteFile(docs_ / "a.md", "# A\n\nword upstairs\n");
  StartWatching();
  fs::rename(parent, dir_.path() / "parent2");
  WriteFile(dir_.path() / "parent2" / "docs" / "b.md", "# B\n\nword sidestep\n");  // an event, under the new path
  Settle();
  EXPECT_NE(std::find(rescans_.begin(), rescans_.end(), "root_gone"), rescans_.end());
  EXPECT_TRUE(LiveIds(*engine_).empty()) << "nothing was resolved against the stale path";
  fs::rename(dir_.path() / "parent2", parent);  // back where it was watched
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (LiveIds(*engine_).size() < 2 && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(watcher_->Step(std::chrono::milliseconds(100)).ok());
  }
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"a.md", "b.md"}));
}

TEST_F(WatchFolderTest, OneWatcherPerFolderAndTenant) {
  StartWatching();
  auto second = FolderWatcher::Open(*engine_, Options());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy) << second.status().ToString();
  FolderWatchOptions other = Options();
  other.tenant = "other";
  EXPECT_TRUE(FolderWatcher::Open(*engine_, other).ok()) << "another tenant may watch the same folder";
}

TEST_F(WatchFolderTest, ACorruptMapIsRefusedNamingIt) {
  WriteFile(docs_ / "a.md", "# A\n\nword alpha\n");
  StartWatching();
  watcher_.reset();
  const fs::path map = WatchMap::FileFor(dir_.str("data") + "/watch", "", fs::canonical(docs_).string());
  ASSERT_TRUE(fs::exists(map));
  std::fstream f(map, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(14);
  f.put('\x7f');
  f.close();
  auto w = FolderWatcher::Open(*engine_, Options());
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kCorruption);
  EXPECT_NE(w.status().message().find(map.string()), std::string::npos) << w.status().ToString();
}

TEST_F(WatchFolderTest, RootDeletedThenBack) {
  WriteFile(docs_ / "a.md", "# A\n\nword rootword\n");
  StartWatching();
  fs::remove_all(docs_);
  Settle();
  EXPECT_TRUE(LiveIds(*engine_).empty()) << "a deleted root takes its documents with it";
  fs::create_directories(docs_);
  WriteFile(docs_ / "b.md", "# B\n\nword returned\n");
  // The lost root is checked for every retry delay (1 s by default).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (Hits(*engine_, "returned").empty() && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(watcher_->Step(std::chrono::milliseconds(100)).ok());
  }
  EXPECT_EQ(LiveIds(*engine_), (std::set<std::string>{"b.md"}));
  EXPECT_NE(std::find(rescans_.begin(), rescans_.end(), "root_back"), rescans_.end());
}

}  // namespace
}  // namespace attest
