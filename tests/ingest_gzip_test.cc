// gzip-compressed sources: classification, decoding, the decoded-size cap, ids without ".gz".
#include <gtest/gtest.h>
#include <zlib.h>

#include "ingest/gzip_reader.h"
#include "ingest/source_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::MakeTempDir;
using testing_ingest::WriteFile;

std::string Gzip(std::string_view data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

struct Listed {
  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
};

Listed List(const std::filesystem::path& dir) {
  Listed l;
  ListSources({dir}, &l.files, &l.errors);
  return l;
}

TEST(IngestGzip, ClassifiedByInnerExtensionAndSniffed) {
  const auto dir = MakeTempDir();
  WriteFile(dir / "a.html.gz", Gzip("<title>A page</title><p>alpha body</p>"));
  WriteFile(dir / "b.md.GZ", Gzip("# Bee\n\nbee body\n"));
  WriteFile(dir / "c.txt.gz", Gzip("see body\n"));
  WriteFile(dir / "changelog.gz", Gzip("plain notes without an inner extension\n"));
  WriteFile(dir / "blob.gz", Gzip(std::string("\x7f" "ELF\0\0\1", 7)));
  WriteFile(dir / "style.css.gz", Gzip("p { color: red }"));
  WriteFile(dir / "d.jsonl.gz", Gzip("{}\n"));
  const Listed l = List(dir);
  std::vector<std::string> got;
  for (const auto& f : l.files) {
    got.push_back(f.relative + "=" + std::string(SourceFormatName(f.format)) + (f.gzip ? "+gz" : ""));
  }
  // A ".gz" with no format extension inside is skipped in a walk (changelog.gz, blob.gz).
  EXPECT_EQ(got, (std::vector<std::string>{"a.html.gz=html+gz", "b.md.GZ=markdown+gz", "c.txt.gz=text+gz"}));
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_EQ(l.errors[0].file, "d.jsonl.gz");
  EXPECT_NE(l.errors[0].message.find("gzip-compressed beir-jsonl is not supported"), std::string::npos);

  // Named as roots, they are decoded and sniffed (like an uncompressed file named as a root).
  Listed roots;
  ListSources({dir / "changelog.gz", dir / "blob.gz", dir / "style.css.gz"}, &roots.files, &roots.errors);
  ASSERT_EQ(roots.files.size(), 2u);
  EXPECT_EQ(roots.files[0].relative, "changelog.gz");
  EXPECT_EQ(roots.files[0].format, SourceFormat::kText);
  EXPECT_TRUE(roots.files[0].gzip);
  EXPECT_EQ(roots.files[1].relative, "style.css.gz");
  ASSERT_EQ(roots.errors.size(), 1u);
  EXPECT_EQ(roots.errors[0].file, "blob.gz");
  EXPECT_NE(roots.errors[0].message.find("binary file (gzip-compressed"), std::string::npos) << roots.errors[0].message;
}

TEST(IngestGzip, DecodedDocumentKeepsTheIdOfTheUncompressedFile) {
  const auto dir = MakeTempDir();
  const std::string html = "<title>A page</title><h1>Head</h1><p>alpha body</p>";
  WriteFile(dir / "plain/a.html", html);
  WriteFile(dir / "packed/a.html.gz", Gzip(html));
  WriteFile(dir / "packed/notes.gz", Gzip("Notes title\n\nthe notes body\n"));
  const Listed plain = List(dir / "plain");
  Listed packed;
  ListSources({dir / "packed" / "a.html.gz", dir / "packed" / "notes.gz"}, &packed.files, &packed.errors);
  ASSERT_EQ(plain.files.size(), 1u);
  ASSERT_EQ(packed.files.size(), 2u);
  const auto p = testing_ingest::ParseSourceFile(plain.files[0]);
  const auto q = testing_ingest::ParseSourceFile(packed.files[0]);
  ASSERT_EQ(p.docs.size(), 1u);
  ASSERT_EQ(q.docs.size(), 1u) << (q.errors.empty() ? "" : q.errors[0].ToString());
  EXPECT_EQ(q.docs[0].id, "a.html");
  EXPECT_EQ(q.docs[0].id, p.docs[0].id);
  EXPECT_EQ(q.docs[0].url, p.docs[0].url);
  EXPECT_EQ(q.docs[0].title, p.docs[0].title);
  EXPECT_EQ(testing_ingest::BlocksToString(q.docs[0]), testing_ingest::BlocksToString(p.docs[0]));
  EXPECT_EQ(q.bytes[0], html.size());  // decoded bytes

  const auto n = testing_ingest::ParseSourceFile(packed.files[1]);
  ASSERT_EQ(n.docs.size(), 1u);
  EXPECT_EQ(n.docs[0].id, "notes");
  EXPECT_EQ(n.docs[0].title, "Notes title");
}

TEST(IngestGzip, BombStopsAtTheDecodedCap) {
  const auto dir = MakeTempDir();
  const std::string big(8u << 20, 'a');  // 8 MiB of one letter: ~8 KiB compressed
  const std::string packed = Gzip(big);
  ASSERT_LT(packed.size(), 64u * 1024);
  WriteFile(dir / "bomb.txt.gz", packed);
  SourceOptions options;
  options.max_document_bytes = 1u << 20;
  const auto p = testing_ingest::ParseSourceFile(SourceFile{dir / "bomb.txt.gz", "bomb.txt.gz", SourceFormat::kText, packed.size(), true},
                       options);
  EXPECT_TRUE(p.docs.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].file, "bomb.txt.gz");
  EXPECT_NE(p.errors[0].message.find("decoded size passes the limit of 1048576 bytes"), std::string::npos)
      << p.errors[0].message;

  // The same stream under a cap it fits decodes completely.
  Result<std::string> ok = ingest::GunzipCapped(packed, big.size());
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size(), big.size());
  EXPECT_EQ(ingest::GunzipCapped(packed, big.size() - 1).status().code(), StatusCode::kResourceExhausted);
}

TEST(IngestGzip, DamagedTruncatedAndConcatenatedStreams) {
  const std::string packed = Gzip("hello gzip world\n");
  Result<std::string> truncated = ingest::GunzipCapped(packed.substr(0, packed.size() / 2), 1024);
  EXPECT_EQ(truncated.status().code(), StatusCode::kCorruption);
  EXPECT_NE(truncated.status().message().find("truncated"), std::string::npos);

  std::string damaged = packed;
  damaged[12] = static_cast<char>(damaged[12] ^ 0x5a);
  damaged[13] = static_cast<char>(damaged[13] ^ 0xa5);
  EXPECT_FALSE(ingest::GunzipCapped(damaged, 1024).ok());
  EXPECT_FALSE(ingest::GunzipCapped("not gzip at all", 1024).ok());
  EXPECT_FALSE(ingest::GunzipCapped("", 1024).ok());

  Result<std::string> two = ingest::GunzipCapped(packed + Gzip("second member\n"), 1024);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(*two, "hello gzip world\nsecond member\n");

  const auto dir = MakeTempDir();
  WriteFile(dir / "bad.txt.gz", "not gzip at all");
  const auto p = testing_ingest::ParseSourceFile(SourceFile{dir / "bad.txt.gz", "bad.txt.gz", SourceFormat::kText, 15, true});
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("gzip"), std::string::npos) << p.errors[0].message;
}

}  // namespace
}  // namespace attest
