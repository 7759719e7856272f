#include "llm/sse_stream.h"

namespace attest {

Status SseStream::Feed(std::string_view bytes, std::vector<SseEvent>* out) {
  size_t start = 0;  // first byte of `bytes` not yet copied into line_
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') {  // second half of a "\r\n" (possibly split across pieces)
        start = i + 1;
        continue;
      }
    }
    if (c != '\n' && c != '\r') continue;
    line_.append(bytes.data() + start, i - start);
    start = i + 1;
    after_cr_ = c == '\r';
    if (line_.size() > max_line_bytes_) {
      return Status::ResourceExhausted("event stream: a line is longer than " + std::to_string(max_line_bytes_) +
                                       " bytes");
    }
    Status st = Line(line_, out);
    line_.clear();
    ATTEST_RETURN_IF_ERROR(st);
  }
  line_.append(bytes.data() + start, bytes.size() - start);
  if (line_.size() > max_line_bytes_) {
    return Status::ResourceExhausted("event stream: a line is longer than " + std::to_string(max_line_bytes_) +
                                     " bytes");
  }
  return Status::Ok();
}

void SseStream::Finish(std::vector<SseEvent>* out) {
  if (!line_.empty()) {
    Status st = Line(line_, out);  // cannot fail: the size was checked in Feed()
    (void)st;
    line_.clear();
  }
  Dispatch(out);
}

Status SseStream::Line(std::string_view line, std::vector<SseEvent>* out) {
  if (line.empty()) {
    Dispatch(out);
    return Status::Ok();
  }
  if (line.front() == ':') return Status::Ok();  // comment / keep-alive
  std::string_view field = line;
  std::string_view value;
  if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) pending_.data.push_back('\n');
    pending_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    pending_.type.assign(value);
  }
  return Status::Ok();
}

void SseStream::Dispatch(std::vector<SseEvent>* out) {
  if (has_data_) out->push_back(std::move(pending_));
  pending_ = SseEvent{};
  has_data_ = false;
}

}  // namespace attest
