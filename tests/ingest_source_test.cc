#include <gtest/gtest.h>
#include <unistd.h>

#include "ingest/source_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::MakeTempDir;
using testing_ingest::ParseContent;
using testing_ingest::WriteFile;

TEST(IngestSource, DirectoryRecursionIsSortedAndSkipsHiddenAndAssets) {
  const auto dir = MakeTempDir();
  WriteFile(dir / "b.md", "# b");
  WriteFile(dir / "a.html", "<p>a</p>");
  WriteFile(dir / "B_upper.txt", "x");
  WriteFile(dir / "sub/z.jsonl", "{}");
  WriteFile(dir / "sub/c.htm", "<p>c</p>");
  WriteFile(dir / "sub/deeper/d.XHTML", "<p>d</p>");
  WriteFile(dir / ".hidden/secret.md", "no");
  WriteFile(dir / ".dotfile.txt", "no");
  WriteFile(dir / "style.css", "p { color: red }");
  WriteFile(dir / "logo.svg", "<svg/>");
  WriteFile(dir / "README", "plain text without extension");
  WriteFile(dir / "data.ndjson", "{}");
  WriteFile(dir / "notes.markdown", "x");
  WriteFile(dir / "blob.bin", std::string("\x7f" "ELF\0\0\1", 7));
  WriteFile(dir / "latin1.dat", "caf\xE9 au lait");

  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
  ListSources({dir, dir / "missing-thing"}, &files, &errors);
  std::vector<std::string> got;
  for (const auto& f : files) got.push_back(f.relative + "=" + std::string(SourceFormatName(f.format)));
  const std::vector<std::string> want = {"B_upper.txt=text",  "README=text",        "a.html=html",
                                         "b.md=markdown",     "data.ndjson=beir-jsonl", "notes.markdown=markdown",
                                         "sub/c.htm=html",    "sub/deeper/d.XHTML=html", "sub/z.jsonl=beir-jsonl"};
  EXPECT_EQ(got, want);
  EXPECT_EQ(files[0].size, 1u);
  EXPECT_EQ(files[0].path, dir / "B_upper.txt");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].file, "blob.bin");
  EXPECT_NE(errors[0].message.find("binary file"), std::string::npos);
  EXPECT_EQ(errors[1].file, "latin1.dat");
  EXPECT_NE(errors[1].message.find("binary file"), std::string::npos);
  EXPECT_EQ(errors[2].file, (dir / "missing-thing").string());
  EXPECT_NE(errors[2].message.find("no such file"), std::string::npos);

  // Deterministic: a second walk gives the same list.
  std::vector<SourceFile> again;
  std::vector<SourceError> again_errors;
  ListSources({dir}, &again, &again_errors);
  ASSERT_EQ(again.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) EXPECT_EQ(again[i].relative, files[i].relative);
}

TEST(IngestSource, SingleFileRootAndSymlinkCycle) {
  const auto dir = MakeTempDir();
  WriteFile(dir / "docs/page.html", "<p>x</p>");
  WriteFile(dir / "docs/style.css", "p{}");
  std::filesystem::create_directory_symlink(dir / "docs", dir / "docs/loop");
  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
  ListSources({dir / "docs/page.html", dir / "docs", dir / "docs/style.css"}, &files, &errors);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].relative, "page.html");
  EXPECT_EQ(files[1].relative, "page.html");  // from the directory root; the loop is not followed
  EXPECT_EQ(files[2].relative, "style.css");  // named explicitly: sniffed as text
  EXPECT_EQ(files[2].format, SourceFormat::kText);
  EXPECT_TRUE(errors.empty());
}

TEST(IngestSource, IdUrlSiteForFiles) {
  const auto dir = MakeTempDir();
  SourceOptions options;
  options.site = "local-docs";
  auto plain = ParseContent(dir, "page.html", "<title>T</title><p>body</p>", SourceFormat::kHtml, options);
  ASSERT_EQ(plain.docs.size(), 1u);
  EXPECT_EQ(plain.docs[0].id, "page.html");
  EXPECT_EQ(plain.docs[0].url, "page.html");
  EXPECT_EQ(plain.docs[0].site, "local-docs");
  EXPECT_EQ(plain.bytes[0], 27u);

  auto canon = ParseContent(dir, "c.html",
                            "<link rel=canonical href=\"https://www.PostgreSQL.org/docs/15/x.html\"><p>body</p>",
                            SourceFormat::kHtml, options);
  ASSERT_EQ(canon.docs.size(), 1u);
  EXPECT_EQ(canon.docs[0].id, "https://www.PostgreSQL.org/docs/15/x.html");
  EXPECT_EQ(canon.docs[0].url, "https://www.PostgreSQL.org/docs/15/x.html");
  EXPECT_EQ(canon.docs[0].site, "www.postgresql.org");
  EXPECT_EQ(canon.docs[0].title, "c.html");

  auto md = ParseContent(dir, "n.md", "no heading here\n", SourceFormat::kMarkdown, options);
  ASSERT_EQ(md.docs.size(), 1u);
  EXPECT_EQ(md.docs[0].title, "n.md");
  EXPECT_EQ(md.docs[0].id, "n.md");
}

TEST(IngestSource, InvalidUtf8BinaryAndEmptyAreErrorsNamingTheFile) {
  const auto dir = MakeTempDir();
  const std::pair<const char*, std::string> cases[] = {
      {"bad.html", "<p>caf\xE9</p>"},
      {"bad.md", "ok\n\xF5\x80\x80\x80"},
      {"bad.txt", "overlong \xC0\xAF"},
  };
  for (const auto& [name, content] : cases) {
    const SourceFormat format = std::string(name).ends_with(".html") ? SourceFormat::kHtml
                                : std::string(name).ends_with(".md") ? SourceFormat::kMarkdown
                                                                     : SourceFormat::kText;
    auto p = ParseContent(dir, name, content, format);
    EXPECT_TRUE(p.docs.empty()) << name;
    ASSERT_EQ(p.errors.size(), 1u) << name;
    EXPECT_EQ(p.errors[0].file, name);
    EXPECT_NE(p.errors[0].message.find("invalid UTF-8 at byte offset"), std::string::npos) << p.errors[0].message;
  }
  auto bin = ParseContent(dir, "nul.txt", std::string("text\0more", 9), SourceFormat::kText);
  ASSERT_EQ(bin.errors.size(), 1u);
  EXPECT_NE(bin.errors[0].message.find("binary file: NUL byte at offset 4"), std::string::npos);

  const std::pair<const char*, const char*> empties[] = {
      {"e.html", "<html><head><title>Only a title</title></head><body><script>x()</script><nav>menu</nav></body></html>"},
      {"e.md", "---\ntitle: x\n---\n\n<!-- nothing -->\n***\n"},
      {"e.txt", " \n\t\n\r\n"},
      {"zero.txt", ""},
  };
  for (const auto& [name, content] : empties) {
    const std::string n(name);
    const SourceFormat format = n.ends_with(".html") ? SourceFormat::kHtml
                                : n.ends_with(".md") ? SourceFormat::kMarkdown
                                                     : SourceFormat::kText;
    auto p = ParseContent(dir, n, content, format);
    EXPECT_TRUE(p.docs.empty()) << name;
    ASSERT_EQ(p.errors.size(), 1u) << name;
    EXPECT_NE(p.errors[0].message.find("empty document"), std::string::npos) << name << ": " << p.errors[0].message;
  }
}

TEST(IngestSource, OversizeFileIsRejectedWithoutReadingIt) {
  const auto dir = MakeTempDir();
  const auto path = dir / "huge.txt";
  {
    std::ofstream out(path, std::ios::binary);
    out << "start";
  }
  const uint64_t size = 51ull << 20;
  std::filesystem::resize_file(path, size);  // sparse: no 51 MB written
  for (SourceFormat format : {SourceFormat::kText, SourceFormat::kHtml, SourceFormat::kMarkdown}) {
    auto p = testing_ingest::ParseFile(path, format);
    EXPECT_TRUE(p.docs.empty());
    ASSERT_EQ(p.errors.size(), 1u);
    EXPECT_EQ(p.errors[0].file, "huge.txt");
    EXPECT_NE(p.errors[0].message.find(std::to_string(size) + " bytes, over the limit of " +
                                       std::to_string(50ull << 20)),
              std::string::npos)
        << p.errors[0].message;
  }
  // A sparse JSONL file is one 51 MB line of NUL bytes: rejected as oversize, streamed not loaded.
  const auto jsonl = dir / "huge.jsonl";
  std::filesystem::copy_file(path, jsonl);
  auto p = testing_ingest::ParseFile(jsonl, SourceFormat::kBeirJsonl);
  EXPECT_TRUE(p.docs.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].line, 1u);
  EXPECT_NE(p.errors[0].message.find(std::to_string(size) + " bytes"), std::string::npos) << p.errors[0].message;
}

TEST(IngestSource, UnreadableOrVanishedFile) {
  const auto dir = MakeTempDir();
  SourceFile gone{dir / "gone.md", "gone.md", SourceFormat::kMarkdown, 10};
  std::vector<SourceError> errors;
  ParseSource(gone, SourceOptions{}, [](ParsedDocument&&, uint64_t) { FAIL() << "no document expected"; },
              [&](SourceError&& e) { errors.push_back(std::move(e)); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, "gone.md");
  EXPECT_NE(errors[0].message.find("gone.md"), std::string::npos) << errors[0].message;
}

}  // namespace
}  // namespace attest
