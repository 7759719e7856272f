// Office documents: DOCX (Word 2007+) and ODT (OpenDocument text), both ZIP archives of XML.
//
// ReadOfficeDocument reads the one XML entry that holds the body (`word/document.xml`,
// `content.xml`) through ReadZipEntry (entry-count limit; decompressed bytes capped at
// max_document_bytes) and parses it with expat, namespace-aware. A DTD, an entity declaration or an
// external entity is refused (the XML of these formats never has one; refusing it rules out entity
// expansion bombs and external fetches).
//
// DOCX: each `w:p` is a block; its text is the `w:t` runs (`w:tab`, `w:br`, `w:cr` become spaces,
// deleted text and field codes are not `w:t` and are skipped, `mc:Fallback` copies are skipped).
// Paragraph style `Heading1`..`Heading9` (or `w:outlineLvl`) makes a heading (levels above 6 are
// 6), style `Title` a level-1 heading that is also the document title, `w:numPr` a list item.
// ODT: `text:h` is a heading of its `text:outline-level`, `text:p` a paragraph (a list item inside
// `text:list-item`; style `Title` the title); `text:s` gives its `text:c` spaces; footnotes,
// annotations and tracked changes are skipped. Title: the Title paragraph, else the first heading,
// else the first block when shorter than 120 bytes, else `fallback_title`. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "attest/status.h"
#include "ingest/document.h"
#include "ingest/zip_reader.h"

namespace attest {

enum class OfficeFormat { kDocx, kOdt };

// Parses the body XML of a DOCX or ODT (already out of the archive) into `doc`.
Status ParseOfficeXml(std::string_view xml, OfficeFormat format, std::string_view fallback_title,
                      ParsedDocument* doc);

// Reads the archive at `path` and parses its body XML.
Status ReadOfficeDocument(const std::filesystem::path& path, OfficeFormat format, const ingest::ZipLimits& limits,
                          std::string_view fallback_title, ParsedDocument* doc);

}  // namespace attest
