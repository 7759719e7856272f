// Fuzz target: the byte-level pieces of the HTTP transport that decide what a request is
// (server/http_wire.h): request targets (path, query, repeated keys), Transfer-Encoding framing
// (RFC 9112 §6.1, §6.3: the smuggling checks) and SSE event framing.
//
// The first byte picks a mode; the rest is the input:
//   0: a request target. Invariants: an accepted target's decoded path and every decoded segment of
//      its raw path hold no NUL, and the raw path holds no query.
//   1: Transfer-Encoding values split on '\n' (version 1.0 or 1.1 from the next byte). Invariants:
//      the verdict is 0, 400 or 501 with a message when refused; exactly "chunked" in 1.1 is the
//      only accepted non-empty list; anything in 1.0 is refused.
//   2: an SSE event name and data. Invariants: the framed bytes have exactly EventSize() bytes; the
//      event is one event line (named events only), `data: ` lines and a blank line, whatever CR or
//      LF the name or the data held.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "server/http_wire.h"

namespace {

using namespace attest::http;

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      std::string path, repeated;
      std::map<std::string, std::string> query;
      const wire::TargetParse r = wire::ParseTarget(in, path, query, repeated);
      if (r == wire::TargetParse::kOk) {
        FUZZ_CHECK(path.find('\0') == std::string::npos);
        FUZZ_CHECK(repeated.empty());
        const std::string_view raw = wire::RawPath(in);
        FUZZ_CHECK(raw.find('?') == std::string_view::npos);
        for (const std::string_view seg : Split(raw, '/')) {
          std::string decoded;
          if (wire::DecodeSegment(seg, decoded)) FUZZ_CHECK(decoded.find('\0') == std::string::npos);
        }
      }
      break;
    }
    case 1: {
      if (in.empty()) break;
      const unsigned version = (uint8_t(in[0]) & 1) ? 11 : 10;
      const std::vector<std::string_view> values = Split(in.substr(1), '\n');
      const wire::FramingVerdict v = wire::CheckTransferEncoding(values, version);
      FUZZ_CHECK(v.status == 0 || v.status == 400 || v.status == 501);
      FUZZ_CHECK((v.status == 0) == v.message.empty());
      if (version == 10) FUZZ_CHECK(v.status != 0);
      if (v.status == 0) {
        // Accepted: the codings, split on commas across all values, are exactly one "chunked".
        std::vector<std::string> codings;
        for (const std::string_view value : values) {
          for (const std::string_view c : Split(value, ',')) {
            const std::string t = Trim(c);
            if (!t.empty()) codings.push_back(t);
          }
        }
        FUZZ_CHECK(codings.size() == 1);
        std::string lower = codings[0];
        for (char& ch : lower) ch = char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
        FUZZ_CHECK(lower == "chunked");
      }
      break;
    }
    default: {
      const size_t cut = in.empty() ? 0 : uint8_t(in[0]) % (in.size() + 1);
      const std::string_view event = in.substr(in.empty() ? 0 : 1, cut > 0 ? cut - 1 : 0);
      const std::string_view body = in.substr(std::min(in.size(), cut));
      for (const bool chunked : {false, true}) {
        std::string out;
        wire::AppendEvent(event, body, chunked, out);
        FUZZ_CHECK(out.size() == wire::EventSize(event, body, chunked));
        if (!chunked) {
          // An event line (only for a named event) whose name lost its CR and LF, then only data
          // lines and the blank line that ends the event: nothing the caller passed can start a
          // field or an event of its own.
          size_t pos = 0;
          if (!event.empty()) {
            FUZZ_CHECK(out.compare(0, 7, "event: ") == 0);
            pos = out.find('\n');
            FUZZ_CHECK(pos != std::string::npos);
            FUZZ_CHECK(out.substr(0, pos).find('\r') == std::string::npos);
            ++pos;
          }
          FUZZ_CHECK(out.size() >= pos + 2 && out.compare(out.size() - 2, 2, "\n\n") == 0);
          const std::string_view rest(out.data() + pos, out.size() - pos - 2);
          FUZZ_CHECK(rest.find('\r') == std::string_view::npos);
          for (const std::string_view line : Split(rest, '\n')) FUZZ_CHECK(line.substr(0, 6) == "data: ");
        }
      }
      break;
    }
  }
  return 0;
}
