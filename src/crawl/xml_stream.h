// The input side shared by the sitemap and feed parsers: bytes that may be gzip-compressed are
// decoded with a cap on the DECODED size (a gzip bomb stops at the cap), and XML is read by a
// streaming libexpat parser configured so that nothing outside the document is ever read:
//
// - external entities (SYSTEM/PUBLIC, e.g. file:// or http:// URLs) are never loaded: the external
//   entity handler only records the reference (and its system id) and returns without reading;
// - parameter entities are never parsed (XML_PARAM_ENTITY_PARSING_NEVER), so an external DTD
//   subset or a "%x;" reference in the internal subset is not followed;
// - entity expansion is bounded by expat's amplification guard (expat >= 2.4): once the output
//   passes an activation threshold, more than kMaxAmplification output bytes per input byte stops
//   the parse with an error ("billion laughs");
// - element nesting deeper than kMaxDepth stops the parse (the handlers keep a stack).
//
// Internal entities declared in an internal DTD subset are expanded (within the guard), as XML
// requires; the five predefined entities and character references are decoded by expat.
// Errors are values naming the line, the column and the byte offset in the decoded input.
// Not thread-safe per object; objects are independent.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attest {

// Where something happened in the (decoded) input: line and column from 1, byte offset from 0.
struct SeedPosition {
  uint64_t line = 0;
  uint64_t column = 0;
  uint64_t byte_offset = 0;
};

// A parse error: what went wrong and where. Entries read before it are kept by the parsers.
struct SeedError {
  std::string message;
  SeedPosition position;
};

// Something skipped on purpose (a limit, an invalid field, an unresolved entity), and where.
struct SeedNote {
  std::string reason;
  SeedPosition position;
};

// Notes are capped so that a hostile file cannot grow them without bound; the rest are counted.
struct SeedNotes {
  static constexpr size_t kMaxNotes = 100;
  std::vector<SeedNote> notes;
  uint64_t dropped = 0;

  void Add(std::string reason, SeedPosition where);
};

bool HasGzipMagic(std::string_view bytes);

struct DecodeReport {
  bool gzip = false;             // the input began with the gzip magic (1f 8b) and was inflated
  uint64_t decoded_bytes = 0;    // bytes handed to the sink
  bool truncated = false;        // the cap was reached with input left over
  std::optional<std::string> error;  // corrupt or truncated gzip data (bytes before it were handed on)
};

// Hands the input to `sink` in chunks, inflating it first when it has the gzip magic (several
// concatenated members are read in turn), and stops after `max_decoded_bytes` decoded bytes. The
// sink returns false to stop early (its own error); that is not reported as truncation.
DecodeReport DecodeCapped(std::string_view bytes, uint64_t max_decoded_bytes,
                          const std::function<bool(std::string_view)>& sink);

struct XmlAttribute {
  std::string_view ns;     // namespace URI, empty when none
  std::string_view local;  // local name
  std::string_view value;  // entity-decoded
};

// Receives the document's events. Names arrive split into namespace URI and local name.
class XmlHandler {
 public:
  virtual ~XmlHandler() = default;
  virtual void StartElement(std::string_view ns, std::string_view local, const std::vector<XmlAttribute>& attrs) = 0;
  virtual void EndElement(std::string_view ns, std::string_view local) = 0;
  // Character data (CDATA sections included), possibly in several pieces per text node.
  virtual void Text(std::string_view text) = 0;
};

class XmlStream {
 public:
  static constexpr int kMaxDepth = 256;
  static constexpr float kMaxAmplification = 100.0f;
  static constexpr unsigned long long kAmplificationThreshold = 1ull << 20;  // 1 MiB of expansion

  explicit XmlStream(XmlHandler& handler);
  ~XmlStream();
  XmlStream(const XmlStream&) = delete;
  XmlStream& operator=(const XmlStream&) = delete;

  // Parses the next chunk; `last` marks the end of the input. Returns false once the parse has
  // failed or was stopped; the error (if any) is in error().
  bool Feed(std::string_view chunk, bool last);
  // From inside a handler: stop the parse with this error (a limit, a wrong root element).
  void Fail(std::string message);
  // From inside a handler: stop the parse without an error (nothing more is wanted).
  void Stop();

  SeedPosition Position() const;
  const std::optional<SeedError>& error() const { return error_; }
  bool stopped() const { return stopped_; }
  // External entity references met (never loaded), with their system ids.
  const std::vector<std::string>& unloaded_entities() const { return unloaded_entities_; }
  bool saw_doctype() const { return saw_doctype_; }

 private:
  struct Impl;
  friend struct Impl;
  XmlHandler& handler_;
  std::unique_ptr<Impl> impl_;
  std::optional<SeedError> error_;
  bool stopped_ = false;
  bool saw_doctype_ = false;
  int depth_ = 0;
  std::vector<std::string> unloaded_entities_;
};

}  // namespace attest
