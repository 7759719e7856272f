// Byte-level pieces of the HTTP transport that need no socket: splitting and percent-decoding a
// request target, and writing response heads, bodies and SSE event chunks. Pure functions, so
// they are safe from any thread; the writers append to a caller-owned string so buffers are reused.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "server/http_server.h"

namespace attest::http::wire {

enum class TargetParse { kOk, kMalformed, kRepeatedKey };

// Fills `path` (percent-decoded, no query) and `query` (decoded, '+' = space) from an origin-form
// ("/a?b=c") or absolute-form ("http://h/a") target. kMalformed when the target is not of those
// forms or holds an invalid %-escape; kRepeatedKey (with the decoded key in `repeated`) when a
// query key occurs twice: "?tenant=a&tenant=b" is refused rather than letting one of them win.
TargetParse ParseTarget(std::string_view target, std::string& path, std::map<std::string, std::string>& query,
                        std::string& repeated);

// Why a request's Transfer-Encoding cannot be accepted (RFC 9112 §6.1, §6.3): status 0 = it can
// (absent, or exactly "chunked" in HTTP/1.1); 400 when the framing is faulty (Transfer-Encoding in
// an HTTP/1.0 request, an empty list, chunked applied twice or not as the final coding); 501 when
// it names a coding this server does not implement (anything but chunked: "xchunked", "gzip,
// chunked", "chunked;x=1"). Either way the server answers and closes the connection: the body's
// length is unknown, so whatever follows must never be read as another request.
struct FramingVerdict {
  int status = 0;
  std::string message;
};
// `values`: every Transfer-Encoding field value of the request, in order; `version` 10 or 11.
FramingVerdict CheckTransferEncoding(const std::vector<std::string_view>& values, unsigned version);

// The still-encoded path of a target ParseTarget accepted (no scheme, host or query): routing
// splits it on '/' before decoding, so "%2F" inside a segment stays part of that segment.
std::string_view RawPath(std::string_view target);

// Percent-decodes one path segment; false for an invalid escape or a NUL.
bool DecodeSegment(std::string_view in, std::string& out);

// Appends a complete response: status line, Content-Type, the extra headers (CR/LF stripped),
// Content-Length, `Connection: close` when !keep_alive (or `keep-alive` for HTTP/1.0), and body.
void AppendResponse(const Response& response, unsigned version, bool keep_alive, std::string& out);

// Appends the head of an SSE response. `chunked` for HTTP/1.1 (the stream may be followed by more
// requests); otherwise the body is delimited by closing the connection.
void AppendStreamHead(const std::vector<std::pair<std::string, std::string>>& headers, unsigned version,
                      bool chunked, bool keep_alive, std::string& out);

// Bytes that AppendEvent() will append for this event (used for the per-stream buffer bound).
size_t EventSize(std::string_view event, std::string_view data, bool chunked);

// Appends `event: <event>\ndata: <data>\n\n`, as one chunk when `chunked`. A newline inside `data`
// starts another `data:` line (the SSE way to carry multi-line data); CR/LF in `event` are dropped.
void AppendEvent(std::string_view event, std::string_view data, bool chunked, std::string& out);

// The terminating chunk "0\r\n\r\n".
void AppendLastChunk(std::string& out);

}  // namespace attest::http::wire
