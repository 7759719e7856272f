// DOCX and ODT sources: ZIP entry limits, expat parsing, headings, lists, refused DTDs.
#include <gtest/gtest.h>
#include <zip.h>

#include <map>

#include "ingest/office_reader.h"
#include "ingest/source_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::BlocksToString;
using testing_ingest::MakeTempDir;

// Writes a ZIP archive holding `entries` (name -> content), deflated.
void WriteZip(const std::filesystem::path& path, const std::map<std::string, std::string>& entries) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr) << err;
  for (const auto& [name, content] : entries) {
    zip_source_t* src = zip_source_buffer(z, content.data(), content.size(), 0);
    ASSERT_NE(src, nullptr);
    ASSERT_GE(zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

const std::string kDocxHead =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
    "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\" "
    "xmlns:mc=\"http://schemas.openxmlformats.org/markup-compatibility/2006\"><w:body>";
const std::string kDocxTail = "</w:body></w:document>";

std::string DocxPara(const std::string& style, const std::string& runs, bool list = false) {
  std::string ppr;
  if (!style.empty() || list) {
    ppr = "<w:pPr>" + (style.empty() ? "" : "<w:pStyle w:val=\"" + style + "\"/>") +
          (list ? "<w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"1\"/></w:numPr>" : "") + "</w:pPr>";
  }
  return "<w:p>" + ppr + runs + "</w:p>";
}

std::string TextRun(const std::string& text) { return "<w:r><w:t xml:space=\"preserve\">" + text + "</w:t></w:r>"; }

const std::string kOdtHead =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
    "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">"
    "<office:body><office:text>";
const std::string kOdtTail = "</office:text></office:body></office:document-content>";

testing_ingest::Parsed Parse(const std::filesystem::path& path, SourceFormat format, const SourceOptions& o = {}) {
  return testing_ingest::ParseFile(path, format, o);
}

TEST(IngestOffice, ListedByExtension) {
  const auto dir = MakeTempDir();
  WriteZip(dir / "a.docx", {{"word/document.xml", kDocxHead + DocxPara("", TextRun("x")) + kDocxTail}});
  WriteZip(dir / "b.ODT", {{"content.xml", kOdtHead + "<text:p>y</text:p>" + kOdtTail}});
  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
  ListSources({dir}, &files, &errors);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].format, SourceFormat::kDocx);
  EXPECT_EQ(files[1].format, SourceFormat::kOdt);
  EXPECT_TRUE(errors.empty());
}

TEST(IngestOffice, DocxParagraphsHeadingsAndLists) {
  const auto dir = MakeTempDir();
  const std::string body =
      DocxPara("Title", TextRun("Backup Handbook")) + DocxPara("Heading1", TextRun("Base ") + TextRun("backups")) +
      DocxPara("", TextRun("Take a base backup") + "<w:r><w:tab/></w:r>" + TextRun("with pg_basebackup.") +
      "<w:del><w:r><w:delText>removed words</w:delText></w:r></w:del>" +
      "<w:r><w:instrText>PAGEREF _Toc1</w:instrText></w:r>") +
      DocxPara("", TextRun("First step"), /*list=*/true) + DocxPara("heading 3", TextRun("Restore")) +
      "<w:p><w:pPr><w:outlineLvl w:val=\"1\"/></w:pPr>" + TextRun("Outline two") + "</w:p>" +
      DocxPara("", "<w:r><mc:AlternateContent><mc:Choice><w:p>" + TextRun("Box text") +
                       "</w:p></mc:Choice><mc:Fallback><w:p>" + TextRun("Box text") +
                       "</w:p></mc:Fallback></mc:AlternateContent></w:r>" + TextRun("Around the box.")) +
      DocxPara("", "") + "<w:tbl><w:tr><w:tc>" + DocxPara("", TextRun("cell one")) + "</w:tc></w:tr></w:tbl>";
  WriteZip(dir / "handbook.docx", {{"[Content_Types].xml", "<Types/>"},
                                   {"word/document.xml", kDocxHead + body + kDocxTail},
                                   {"word/styles.xml", "<styles/>"}});
  const auto p = Parse(dir / "handbook.docx", SourceFormat::kDocx);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].ToString();
  ASSERT_EQ(p.docs.size(), 1u);
  EXPECT_EQ(p.docs[0].id, "handbook.docx");
  EXPECT_EQ(p.docs[0].title, "Backup Handbook");
  EXPECT_EQ(BlocksToString(p.docs[0]),
            "H1: Backup Handbook\n"
            "H1: Base backups\n"
            "P: Take a base backup with pg_basebackup.\n"
            "LI: First step\n"
            "H3: Restore\n"
            "H2: Outline two\n"
            "P: Box text\n"
            "P: Around the box.\n"
            "P: cell one\n");
}

TEST(IngestOffice, OdtHeadingsParagraphsAndLists) {
  const auto dir = MakeTempDir();
  const std::string body =
      "<text:sequence-decls/>"
      "<text:h text:outline-level=\"1\">Replication</text:h>"
      "<text:p text:style-name=\"P1\">Ships<text:s text:c=\"3\"/>the WAL<text:note text:note-class=\"footnote\">"
      "<text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote.</text:p></text:note-body>"
      "</text:note>.<text:line-break/>Second line.</text:p>"
      "<text:list><text:list-item><text:p>Item one</text:p></text:list-item></text:list>"
      "<text:h text:outline-level=\"9\">Deep</text:h>"
      "<text:p><office:annotation><text:p>a comment</text:p></office:annotation>After.</text:p>";
  WriteZip(dir / "r.odt", {{"mimetype", "application/vnd.oasis.opendocument.text"},
                           {"content.xml", kOdtHead + body + kOdtTail}});
  const auto p = Parse(dir / "r.odt", SourceFormat::kOdt);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].ToString();
  ASSERT_EQ(p.docs.size(), 1u);
  EXPECT_EQ(p.docs[0].title, "Replication");
  EXPECT_EQ(BlocksToString(p.docs[0]),
            "H1: Replication\n"
            "P: Ships the WAL. Second line.\n"
            "LI: Item one\n"
            "H6: Deep\n"
            "P: After.\n");
}

TEST(IngestOffice, TitleFallsBackToTheFileName) {
  ParsedDocument doc;
  const std::string long_text(200, 'x');
  ASSERT_TRUE(ParseOfficeXml(kOdtHead + "<text:p>" + long_text + "</text:p>" + kOdtTail, OfficeFormat::kOdt,
                             "f.odt", &doc)
                  .ok());
  EXPECT_EQ(doc.title, "f.odt");
}

TEST(IngestOffice, DtdAndEntitiesAreRefused) {
  const std::string bomb =
      "<?xml version=\"1.0\"?><!DOCTYPE w:document [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">]>" +
      kDocxHead.substr(kDocxHead.find("<w:document")) + DocxPara("", TextRun("&b;")) + kDocxTail;
  ParsedDocument doc;
  Status st = ParseOfficeXml(bomb, OfficeFormat::kDocx, "x", &doc);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("DOCX XML has a DTD (refused)"), std::string::npos) << st.message();
  EXPECT_TRUE(doc.blocks.empty());

  ParsedDocument broken;
  Status bad = ParseOfficeXml(kOdtHead + "<text:p>unclosed", OfficeFormat::kOdt, "x", &broken);
  EXPECT_EQ(bad.code(), StatusCode::kCorruption);
  EXPECT_NE(bad.message().find("ODT XML error at line"), std::string::npos) << bad.message();
}

TEST(IngestOffice, ZipLimitsAndDamage) {
  const auto dir = MakeTempDir();
  // A zip bomb: 4 MiB of spaces inside the body compress to a few KiB.
  const std::string padded = kDocxHead + DocxPara("", TextRun("x")) + std::string(4u << 20, ' ') + kDocxTail;
  WriteZip(dir / "bomb.docx", {{"word/document.xml", padded}});
  ASSERT_LT(std::filesystem::file_size(dir / "bomb.docx"), 64u * 1024);
  SourceOptions options;
  options.max_document_bytes = 1u << 20;
  auto p = Parse(dir / "bomb.docx", SourceFormat::kDocx, options);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("word/document.xml decompresses past the limit of 1048576 bytes"),
            std::string::npos)
      << p.errors[0].message;

  std::map<std::string, std::string> many;
  for (int i = 0; i < 20; ++i) many["part" + std::to_string(i)] = "x";
  many["content.xml"] = kOdtHead + "<text:p>y</text:p>" + kOdtTail;
  WriteZip(dir / "many.odt", many);
  options = SourceOptions{};
  options.max_archive_entries = 10;
  p = Parse(dir / "many.odt", SourceFormat::kOdt, options);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("21 entries, over the limit of 10"), std::string::npos) << p.errors[0].message;
  EXPECT_EQ(Parse(dir / "many.odt", SourceFormat::kOdt).docs.size(), 1u);

  WriteZip(dir / "empty.docx", {{"word/other.xml", "<x/>"}});
  p = Parse(dir / "empty.docx", SourceFormat::kDocx);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("no entry word/document.xml"), std::string::npos) << p.errors[0].message;

  testing_ingest::WriteFile(dir / "fake.docx", "this is not a zip archive");
  p = Parse(dir / "fake.docx", SourceFormat::kDocx);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("not a readable ZIP archive"), std::string::npos) << p.errors[0].message;
}

}  // namespace
}  // namespace attest
