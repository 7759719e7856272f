// DecodeCapped over zlib's inflate (windowBits 15 + 16: gzip only) and XmlStream over libexpat with
// namespace processing (names arrive as "URI\x01local").
#include "crawl/xml_stream.h"

// Debian's libexpat is built with XML_DTD (DTD and parameter entity support, and with it the
// amplification guard's setters); the header declares those setters only when it is defined.
#ifndef XML_DTD
#define XML_DTD
#endif
#include <expat.h>
#include <zlib.h>

#include <algorithm>
#include <array>

namespace attest {

void SeedNotes::Add(std::string reason, SeedPosition where) {
  if (notes.size() >= kMaxNotes) {
    ++dropped;
    return;
  }
  notes.push_back(SeedNote{std::move(reason), where});
}

bool HasGzipMagic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

constexpr size_t kChunk = 64 * 1024;

// Inflates gzip members one after another; stops at the cap, at the end, at corrupt data, or when
// the sink asks to.
void Inflate(std::string_view bytes, uint64_t cap, const std::function<bool(std::string_view)>& sink,
             DecodeReport& report) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) {
    report.error = "zlib could not be initialised";
    return;
  }
  std::array<unsigned char, kChunk> out;
  size_t consumed = 0;
  const auto feed_input = [&] {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
    z.avail_in = static_cast<uInt>(std::min<size_t>(bytes.size() - consumed, 1u << 30));
    return static_cast<size_t>(z.avail_in);
  };
  while (true) {
    if (report.decoded_bytes >= cap) {
      // At the cap: truncated when one more byte would still come out (or another member follows).
      unsigned char probe = 0;
      const size_t offered = feed_input();
      z.next_out = &probe;
      z.avail_out = 1;
      const int rc = inflate(&z, Z_NO_FLUSH);
      consumed += offered - z.avail_in;
      report.truncated = z.avail_out == 0 || (rc == Z_STREAM_END && HasGzipMagic(bytes.substr(consumed)));
      break;
    }
    const size_t offered = feed_input();
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(std::min<uint64_t>(out.size(), cap - report.decoded_bytes));
    const int rc = inflate(&z, Z_NO_FLUSH);
    consumed += offered - z.avail_in;
    const size_t produced = static_cast<size_t>(z.next_out - out.data());
    if (produced > 0) {
      report.decoded_bytes += produced;
      if (!sink(std::string_view(reinterpret_cast<const char*>(out.data()), produced))) break;
    }
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated gzip); anything else after the end is ignored.
      if (!HasGzipMagic(bytes.substr(consumed))) break;
      inflateReset(&z);
      continue;
    }
    if (rc == Z_BUF_ERROR && produced == 0) {
      report.error = "gzip data ends before its end marker";
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      report.error = std::string("corrupt gzip data: ") + (z.msg ? z.msg : "inflate failed");
      break;
    }
  }
  inflateEnd(&z);
}

}  // namespace

DecodeReport DecodeCapped(std::string_view bytes, uint64_t max_decoded_bytes,
                          const std::function<bool(std::string_view)>& sink) {
  DecodeReport report;
  if (HasGzipMagic(bytes)) {
    report.gzip = true;
    Inflate(bytes, max_decoded_bytes, sink, report);
    return report;
  }
  const uint64_t take = std::min<uint64_t>(bytes.size(), max_decoded_bytes);
  report.truncated = take < bytes.size();
  for (uint64_t at = 0; at < take; at += kChunk) {
    const std::string_view piece = bytes.substr(at, std::min<uint64_t>(kChunk, take - at));
    report.decoded_bytes += piece.size();
    if (!sink(piece)) break;
  }
  return report;
}

struct XmlStream::Impl {
  XML_Parser parser = nullptr;
  std::vector<XmlAttribute> attrs;

  static std::pair<std::string_view, std::string_view> Split(const XML_Char* name) {
    const std::string_view n(name);
    const size_t sep = n.find('\x01');
    if (sep == std::string_view::npos) return {std::string_view(), n};
    return {n.substr(0, sep), n.substr(sep + 1)};
  }

  static void OnStart(void* data, const XML_Char* name, const XML_Char** atts) {
    auto* self = static_cast<XmlStream*>(data);
    if (self->stopped_) return;
    if (++self->depth_ > kMaxDepth) {
      self->Fail("elements nested deeper than " + std::to_string(kMaxDepth));
      return;
    }
    Impl& impl = *self->impl_;
    impl.attrs.clear();
    for (size_t i = 0; atts[i] != nullptr && atts[i + 1] != nullptr; i += 2) {
      const auto [ns, local] = Split(atts[i]);
      impl.attrs.push_back(XmlAttribute{ns, local, atts[i + 1]});
    }
    const auto [ns, local] = Split(name);
    self->handler_.StartElement(ns, local, impl.attrs);
  }

  static void OnEnd(void* data, const XML_Char* name) {
    auto* self = static_cast<XmlStream*>(data);
    if (self->stopped_) return;
    --self->depth_;
    const auto [ns, local] = Split(name);
    self->handler_.EndElement(ns, local);
  }

  static void OnText(void* data, const XML_Char* s, int len) {
    auto* self = static_cast<XmlStream*>(data);
    if (self->stopped_) return;
    self->handler_.Text(std::string_view(s, static_cast<size_t>(len)));
  }

  static void OnDoctype(void* data, const XML_Char*, const XML_Char*, const XML_Char*, int) {
    static_cast<XmlStream*>(data)->saw_doctype_ = true;
  }

  // Records an external entity reference and returns without reading anything: the entity's
  // replacement text is simply absent from the document.
  static int OnExternalEntity(XML_Parser p, const XML_Char*, const XML_Char*, const XML_Char* system_id,
                              const XML_Char*) {
    auto* self = static_cast<XmlStream*>(XML_GetUserData(p));
    if (self->unloaded_entities_.size() < 64) self->unloaded_entities_.emplace_back(system_id ? system_id : "");
    return XML_STATUS_OK;
  }
};

XmlStream::XmlStream(XmlHandler& handler) : handler_(handler), impl_(std::make_unique<Impl>()) {
  XML_Parser p = XML_ParserCreateNS(nullptr, '\x01');
  impl_->parser = p;
  if (p == nullptr) {
    error_ = SeedError{"the XML parser could not be created", {}};
    stopped_ = true;
    return;
  }
  XML_SetUserData(p, this);
  XML_SetElementHandler(p, &Impl::OnStart, &Impl::OnEnd);
  XML_SetCharacterDataHandler(p, &Impl::OnText);
  XML_SetStartDoctypeDeclHandler(p, &Impl::OnDoctype);
  XML_SetParamEntityParsing(p, XML_PARAM_ENTITY_PARSING_NEVER);
  XML_SetExternalEntityRefHandler(p, &Impl::OnExternalEntity);
  XML_SetBillionLaughsAttackProtectionMaximumAmplification(p, kMaxAmplification);
  XML_SetBillionLaughsAttackProtectionActivationThreshold(p, kAmplificationThreshold);
}

XmlStream::~XmlStream() {
  if (impl_->parser != nullptr) XML_ParserFree(impl_->parser);
}

SeedPosition XmlStream::Position() const {
  if (impl_->parser == nullptr) return {};
  const XML_Index byte = XML_GetCurrentByteIndex(impl_->parser);
  return SeedPosition{XML_GetCurrentLineNumber(impl_->parser), XML_GetCurrentColumnNumber(impl_->parser) + 1,
                      byte < 0 ? 0 : static_cast<uint64_t>(byte)};
}

void XmlStream::Fail(std::string message) {
  if (stopped_) return;
  error_ = SeedError{std::move(message), Position()};
  stopped_ = true;
  XML_StopParser(impl_->parser, XML_FALSE);
}

void XmlStream::Stop() {
  if (stopped_) return;
  stopped_ = true;
  XML_StopParser(impl_->parser, XML_FALSE);
}

bool XmlStream::Feed(std::string_view chunk, bool last) {
  if (stopped_) return false;
  // XML_Parse takes an int length: feed huge chunks in pieces.
  constexpr size_t kMaxPiece = 1u << 30;
  do {
    const std::string_view piece = chunk.substr(0, std::min(chunk.size(), kMaxPiece));
    chunk.remove_prefix(piece.size());
    const bool final_piece = last && chunk.empty();
    if (XML_Parse(impl_->parser, piece.data(), static_cast<int>(piece.size()), final_piece ? 1 : 0) ==
        XML_STATUS_ERROR) {
      if (!stopped_) {
        const XML_Error code = XML_GetErrorCode(impl_->parser);
        error_ = SeedError{std::string("malformed XML: ") + XML_ErrorString(code), Position()};
        stopped_ = true;
      }
      return false;
    }
  } while (!chunk.empty());
  return !stopped_;
}

}  // namespace attest
