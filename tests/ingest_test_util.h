// Helpers shared by the ingest tests: a unique temporary directory per test and file writing.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ingest/source_reader.h"

namespace attest::testing_ingest {

inline std::filesystem::path MakeTempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              ("attest_ingest_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
                               std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void WriteFile(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  ASSERT_TRUE(out.good()) << path;
}

struct Parsed {
  std::vector<ParsedDocument> docs;
  std::vector<uint64_t> bytes;
  std::vector<SourceError> errors;
};

// Parses a listed source file (its format, size and gzip flag as given).
inline Parsed ParseSourceFile(const SourceFile& f, const SourceOptions& options = {}) {
  Parsed p;
  ParseSource(
      f, options,
      [&](ParsedDocument&& d, uint64_t b) {
        p.docs.push_back(std::move(d));
        p.bytes.push_back(b);
      },
      [&](SourceError&& e) { p.errors.push_back(std::move(e)); });
  return p;
}

inline Parsed ParseFile(const std::filesystem::path& path, SourceFormat format, const SourceOptions& options = {}) {
  return ParseSourceFile(SourceFile{path, path.filename().string(), format, std::filesystem::file_size(path)},
                         options);
}

// Writes `content` to a fresh file named `name` in `dir` and parses it.
inline Parsed ParseContent(const std::filesystem::path& dir, const std::string& name, std::string_view content,
                           SourceFormat format, const SourceOptions& options = {}) {
  WriteFile(dir / name, content);
  return ParseFile(dir / name, format, options);
}

inline std::string BlocksToString(const ParsedDocument& doc) {
  static const char* kKinds[] = {"H", "P", "LI", "TABLE", "CODE", "DEF", "ROW"};
  std::string out;
  for (const Block& b : doc.blocks) {
    out += kKinds[static_cast<int>(b.kind)];
    if (b.level) out += std::to_string(b.level);
    if (!b.subject.empty()) out += "[" + b.subject + "]";
    out += ": " + b.text + "\n";
  }
  return out;
}

}  // namespace attest::testing_ingest
