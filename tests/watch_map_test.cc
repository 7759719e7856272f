// WatchMap (src/watch/watch_map.h): the durable file -> ids map of a watched folder, and the
// listing of single files of a walked root (ListSourcesUnder) that the watcher re-ingests.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/file_util.h"
#include "ingest/source_reader.h"
#include "support/process.h"
#include "watch/watch_map.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;
using testing_support::WriteFile;

TEST(WatchMapTest, RoundTripsAndTracksWhoProducesAnId) {
  TempDir dir;
  auto map = WatchMap::Load(dir.path(), "acme", "/srv/docs");
  ASSERT_TRUE(map.ok()) << map.status().ToString();
  EXPECT_EQ(map->size(), 0u);
  map->Set("a.html", {"https://x.org/p", "https://x.org/p"});  // duplicates dropped
  map->Set("b.html", {"https://x.org/p"});
  map->Set("data.jsonl", {"j2", "j1"});
  map->Set("dir/x.md", {"dir/x.md"});
  map->Set("dir-y.md", {"dir-y.md"});
  ASSERT_TRUE(map->Save().ok());

  auto loaded = WatchMap::Load(dir.path(), "acme", "/srv/docs");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->files(), map->files());
  EXPECT_EQ(loaded->IdsOf("data.jsonl"), (std::vector<std::string>{"j1", "j2"}));
  EXPECT_EQ(loaded->FilesOf("https://x.org/p"), (std::vector<std::string>{"a.html", "b.html"}));
  EXPECT_EQ(loaded->FilesAtOrUnder("dir"), (std::vector<std::string>{"dir/x.md"}));  // not "dir-y.md"
  loaded->Set("a.html", {});
  EXPECT_EQ(loaded->FilesOf("https://x.org/p"), (std::vector<std::string>{"b.html"}));
  EXPECT_TRUE(loaded->IdsOf("a.html").empty());

  // Another tenant or root has a map of its own.
  auto other = WatchMap::Load(dir.path(), "other", "/srv/docs");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->size(), 0u);
  EXPECT_NE(WatchMap::FileFor(dir.path(), "acme", "/srv/docs"), WatchMap::FileFor(dir.path(), "other", "/srv/docs"));
}

TEST(WatchMapTest, DamagedFilesAreRefusedNamingThem) {
  TempDir dir;
  auto map = WatchMap::Load(dir.path(), "", "/r");
  ASSERT_TRUE(map.ok());
  map->Set("a.md", {"a.md"});
  ASSERT_TRUE(map->Save().ok());
  const fs::path file = WatchMap::FileFor(dir.path(), "", "/r");
  auto bytes = ReadFileToString(file);
  ASSERT_TRUE(bytes.ok());
  auto expect_refused = [&](const std::string& content, const std::string& why) {
    ASSERT_TRUE(WriteFileAtomically(file, content).ok());
    auto r = WatchMap::Load(dir.path(), "", "/r");
    ASSERT_FALSE(r.ok()) << why;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << why;
    EXPECT_NE(r.status().message().find(file.string()), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().ToString();
  };
  expect_refused("NOTAMAP!" + bytes->substr(8), "bad magic");
  std::string flipped = *bytes;
  flipped[flipped.size() - 6] ^= 0x20;
  expect_refused(flipped, "checksum mismatch");
  std::string version = *bytes;
  version[8] = 9;
  expect_refused(version, "format version 9");
  expect_refused(bytes->substr(0, 10), "bad magic");  // too short for a header and a checksum
  // A map renamed onto another root's name is refused too.
  ASSERT_TRUE(WriteFileAtomically(file, *bytes).ok());
  fs::rename(file, WatchMap::FileFor(dir.path(), "", "/elsewhere"));
  auto moved = WatchMap::Load(dir.path(), "", "/elsewhere");
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(moved.status().message().find("belongs to tenant '' and root '/r'"), std::string::npos)
      << moved.status().ToString();
}

TEST(ListSourcesUnderTest, ListsFilesAsTheWalkOfTheRootDoes) {
  TempDir dir;
  const fs::path root = dir.path() / "root";
  WriteFile(root / "a.md", "# A\n");
  WriteFile(root / "sub" / "b.html", "<p>b</p>");
  WriteFile(root / "page.html.gz", "not really gzip");
  WriteFile(root / "style.css", "body{}");
  WriteFile(root / "ChangeLog.gz", "x");
  WriteFile(root / ".hidden" / "c.md", "# C\n");
  WriteFile(root / "sub" / ".d.md", "# D\n");
  WriteFile(root / "notes", "plain text without an extension\n");
  std::vector<SourceFile> walked, listed;
  std::vector<SourceError> walk_errors, errors;
  ListSources({root}, &walked, &walk_errors);
  std::vector<std::string> names;
  for (const auto& f : walked) names.push_back(f.relative);
  ListSourcesUnder(root, names, &listed, &errors);
  ASSERT_EQ(listed.size(), walked.size());
  for (size_t i = 0; i < walked.size(); ++i) {
    EXPECT_EQ(listed[i].relative, walked[i].relative);
    EXPECT_EQ(listed[i].format, walked[i].format) << walked[i].relative;
    EXPECT_EQ(listed[i].gzip, walked[i].gzip) << walked[i].relative;
    EXPECT_EQ(listed[i].path, walked[i].path) << walked[i].relative;
  }
  EXPECT_TRUE(errors.empty());

  // What the walk skips is skipped silently; what is not a relative path inside the root, or is
  // missing, is an error naming it.
  listed.clear();
  ListSourcesUnder(root, {"style.css", "ChangeLog.gz", ".hidden/c.md", "sub/.d.md", "sub", "../root/a.md", "/etc/passwd",
                          "", "sub//b.html", "gone.md"},
                   &listed, &errors);
  EXPECT_TRUE(listed.empty());
  std::vector<std::string> named;
  for (const auto& e : errors) named.push_back(e.file + ": " + e.message);
  EXPECT_EQ(named, (std::vector<std::string>{"../root/a.md: not a relative path inside the root",
                                             "/etc/passwd: not a relative path inside the root",
                                             ": not a relative path inside the root",
                                             "sub//b.html: not a relative path inside the root",
                                             "gone.md: no such file or directory"}));
}

}  // namespace
}  // namespace attest
