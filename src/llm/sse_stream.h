// SseStream: an incremental parser of server-sent events (the text/event-stream format used by
// OpenAI-compatible chat completions with "stream": true).
//
// Feed() takes the bytes of the body in whatever pieces the network delivers (an event, a line, or
// even a "\r\n" pair may be split across pieces); complete events are returned in order.
// Rules (WHATWG HTML, "server-sent events", simplified to what chat servers send):
// - lines end with "\n", "\r\n" or a lone "\r";
// - a line starting with ":" is a comment (keep-alive) and is ignored;
// - "field: value" or "field:value" (one leading space removed); a line without ":" is a field
//   with an empty value; "data" lines of one event are joined with "\n"; "event" sets the type;
//   other fields (id, retry) are ignored;
// - an empty line dispatches the event (when it has data); Finish() dispatches a last event whose
//   blank line never came (servers that close right after "data: [DONE]\n").
// - A line longer than max_line_bytes is an error (kResourceExhausted), not unbounded growth.
//
// Thread-safety: none; one SseStream per response.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest {

struct SseEvent {
  std::string type;  // "event:" field, "" when absent (the default "message")
  std::string data;  // data lines joined with "\n"
};

class SseStream {
 public:
  explicit SseStream(size_t max_line_bytes = size_t{8} << 20) : max_line_bytes_(max_line_bytes) {}

  // Appends the complete events found so far to `out`.
  Status Feed(std::string_view bytes, std::vector<SseEvent>* out);
  // End of body: dispatches a pending event (if any).
  void Finish(std::vector<SseEvent>* out);

 private:
  Status Line(std::string_view line, std::vector<SseEvent>* out);
  void Dispatch(std::vector<SseEvent>* out);

  size_t max_line_bytes_;
  std::string line_;          // the current, unterminated line
  bool after_cr_ = false;     // the previous byte was "\r" (a following "\n" belongs to it)
  bool has_data_ = false;
  SseEvent pending_;
};

}  // namespace attest
