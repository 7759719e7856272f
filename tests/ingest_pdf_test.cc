// PDF sources: text through pdftotext (a child process under limits), pages to blocks, errors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>

#include "ingest/child_process.h"
#include "ingest/pdf_reader.h"
#include "ingest/source_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::MakeTempDir;
using testing_ingest::WriteFile;

// A minimal valid PDF: one page per entry, each a list of text lines ("" = a paragraph gap),
// Helvetica, with the xref offsets computed.
std::string MakePdf(const std::vector<std::vector<std::string>>& pages) {
  std::vector<std::string> objects;  // object i+1
  const int n = static_cast<int>(pages.size());
  const int font = 3 + 2 * n;
  objects.push_back("<< /Type /Catalog /Pages 2 0 R >>");
  std::string kids;
  for (int i = 0; i < n; ++i) kids += std::to_string(3 + 2 * i) + " 0 R ";
  objects.push_back("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(n) + " >>");
  for (int i = 0; i < n; ++i) {
    objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 " +
                      std::to_string(font) + " 0 R >> >> /Contents " + std::to_string(4 + 2 * i) + " 0 R >>");
    std::string content = "BT /F1 12 Tf 72 720 Td\n";
    for (const std::string& line : pages[i]) {
      content += line.empty() ? "0 -14 Td\n" : "(" + line + ") Tj 0 -14 Td\n";
    }
    content += "ET\n";
    objects.push_back("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream");
  }
  objects.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char row[32];
    std::snprintf(row, sizeof row, "%010zu 00000 n \n", off);
    pdf += row;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

bool HavePdftotext() { return ingest::FindProgram("pdftotext").has_value(); }

testing_ingest::Parsed ParsePdf(const std::filesystem::path& path, const SourceOptions& options = {}) {
  return testing_ingest::ParseFile(path, SourceFormat::kPdf, options);
}

void WriteScript(const std::filesystem::path& path, const std::string& body) {
  WriteFile(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
}

TEST(IngestPdf, ListedByExtension) {
  const auto dir = MakeTempDir();
  WriteFile(dir / "a.pdf", MakePdf({{"x"}}));
  WriteFile(dir / "B.PDF", MakePdf({{"y"}}));
  WriteFile(dir / "c.pdf.gz", "whatever");
  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
  ListSources({dir}, &files, &errors);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].relative, "B.PDF");
  EXPECT_EQ(files[0].format, SourceFormat::kPdf);
  EXPECT_EQ(files[1].format, SourceFormat::kPdf);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("gzip-compressed pdf is not supported"), std::string::npos);
}

TEST(IngestPdf, TextAndPagesBecomeBlocks) {
  if (!HavePdftotext()) GTEST_SKIP() << "pdftotext (poppler-utils) is not installed";
  const auto dir = MakeTempDir();
  WriteFile(dir / "guide.pdf", MakePdf({{"Replication Guide", "", "", "Streaming replication ships the WAL.", "",
                                         "", "Standbys replay it continuously.", "", "", "", "Guide footer"},
                                        {"Failover promotes a standby to primary.", "", "", "", "Guide footer"},
                                        {"Synchronous commit waits for the standby.", "", "", "", "Guide footer"}}));
  const auto p = ParsePdf(dir / "guide.pdf");
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].ToString();
  ASSERT_EQ(p.docs.size(), 1u);
  const ParsedDocument& d = p.docs[0];
  EXPECT_EQ(d.id, "guide.pdf");
  EXPECT_EQ(d.title, "Replication Guide");
  const std::string blocks = testing_ingest::BlocksToString(d);
  EXPECT_NE(blocks.find("H1: Page 1\n"), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("H1: Page 3\n"), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("Streaming replication ships the WAL."), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("Failover promotes a standby to primary."), std::string::npos) << blocks;
  EXPECT_LT(blocks.find("H1: Page 2\n"), blocks.find("Failover promotes"));
  EXPECT_EQ(blocks.find("Guide footer"), std::string::npos) << "running footer kept:\n" << blocks;
}

TEST(IngestPdf, CorruptPdfIsAClearError) {
  if (!HavePdftotext()) GTEST_SKIP() << "pdftotext (poppler-utils) is not installed";
  const auto dir = MakeTempDir();
  WriteFile(dir / "broken.pdf", "%PDF-1.4\nthis is not a PDF body at all\n");
  const auto p = ParsePdf(dir / "broken.pdf");
  EXPECT_TRUE(p.docs.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].file, "broken.pdf");
  EXPECT_NE(p.errors[0].message.find("pdftotext failed"), std::string::npos) << p.errors[0].message;
}

TEST(IngestPdf, MissingConverterNamesThePackage) {
  const auto dir = MakeTempDir();
  WriteFile(dir / "a.pdf", MakePdf({{"x"}}));
  SourceOptions options;
  options.pdf.pdftotext = (dir / "no-such-pdftotext").string();
  const auto p = ParsePdf(dir / "a.pdf", options);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("PDF support needs pdftotext (Debian package poppler-utils)"),
            std::string::npos)
      << p.errors[0].message;
}

TEST(IngestPdf, SlowConverterIsKilledAtTheTimeout) {
  const auto dir = MakeTempDir();
  WriteFile(dir / "a.pdf", MakePdf({{"x"}}));
  WriteScript(dir / "slow-pdftotext", "sleep 30\necho late\n");
  SourceOptions options;
  options.pdf.pdftotext = (dir / "slow-pdftotext").string();
  options.pdf.timeout_ms = 300;
  const auto t0 = std::chrono::steady_clock::now();
  const auto p = ParsePdf(dir / "a.pdf", options);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  EXPECT_LT(ms.count(), 10'000);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("killed after 300 ms (timeout)"), std::string::npos) << p.errors[0].message;
}

TEST(IngestPdf, EndlessOutputStopsAtTheCap) {
  const auto dir = MakeTempDir();
  WriteFile(dir / "a.pdf", MakePdf({{"x"}}));
  WriteScript(dir / "chatty-pdftotext", "while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done\n");
  SourceOptions options;
  options.pdf.pdftotext = (dir / "chatty-pdftotext").string();
  options.max_document_bytes = 64 * 1024;
  const auto p = ParsePdf(dir / "a.pdf", options);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].message.find("output passes the limit of 65536 bytes"), std::string::npos)
      << p.errors[0].message;
}

TEST(IngestPdf, ConverterRunsUnderLimits) {
  const auto dir = MakeTempDir();
  // No file writes (RLIMIT_FSIZE = 0), the argv without a shell, stderr in the error message.
  WriteScript(dir / "probe", "echo written > \"$OUT\" 2>/dev/null\necho \"args:$*\"\n");
  ingest::ChildLimits limits;
  ::setenv("OUT", (dir / "out.txt").c_str(), 1);
  Result<std::string> r = ingest::RunCapturingStdout({(dir / "probe").string(), "a b", "$HOME;x"}, limits);
  ::unsetenv("OUT");
  ASSERT_TRUE(r.ok() || r.status().message().find("signal") != std::string::npos) << r.status().message();
  std::error_code ec;
  EXPECT_EQ(std::filesystem::file_size(dir / "out.txt", ec), 0u);
  if (r.ok()) EXPECT_EQ(*r, "args:a b $HOME;x\n");

  WriteScript(dir / "fails", "echo 'Syntax Error: broken xref' >&2\nexit 3\n");
  Result<std::string> f = ingest::RunCapturingStdout({(dir / "fails").string()}, limits);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "fails failed (exit status 3): Syntax Error: broken xref");
}

TEST(IngestPdf, FurnitureAndSinglePage) {
  ParsedDocument one;
  ParsePdfText("Only page title\n\nSome text 42.\n\n7\n\f", "file.pdf", &one);
  EXPECT_EQ(one.title, "Only page title");
  EXPECT_EQ(testing_ingest::BlocksToString(one), "H1: Only page title\nP: Some text 42.\nP: 7\n");

  ParsedDocument two;
  ParsePdfText("A long first paragraph that is certainly not a title because it goes on and on and on past the "
               "title length limit of the plain text parser.\n\n1\n\fsecond page line\n\n- 2 -\n\f",
               "file.pdf", &two);
  EXPECT_EQ(two.title, "file.pdf");
  const std::string blocks = testing_ingest::BlocksToString(two);
  EXPECT_EQ(blocks.find("P: 1\n"), std::string::npos) << blocks;
  EXPECT_EQ(blocks.find("- 2 -"), std::string::npos) << blocks;
  EXPECT_NE(blocks.find("H1: Page 2\nP: second page line\n"), std::string::npos) << blocks;

  // A running header is dropped from the pages and becomes the title; lone bullets are dropped.
  ParsedDocument three;
  ParsePdfText("Cover line\n\nintro\n\f Storage Manual \n\nfirst item\n\n\u2022\n\nsecond item\n\f"
               "Storage Manual\n\nmore\n\fStorage Manual\n\nend\n\f",
               "file.pdf", &three);
  EXPECT_EQ(three.title, "Storage Manual");
  const std::string b3 = testing_ingest::BlocksToString(three);
  EXPECT_EQ(b3.find("Storage Manual"), std::string::npos) << b3;
  EXPECT_EQ(b3.find("\u2022"), std::string::npos) << b3;
  EXPECT_NE(b3.find("P: first item\nP: second item\n"), std::string::npos) << b3;
}

}  // namespace
}  // namespace attest
