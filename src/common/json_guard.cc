#include "common/json_guard.h"

#include <cstdint>

namespace attest {

JsonShapeScan ScanJsonShape(std::string_view body, int max_depth, size_t max_values) {
  int depth = 0;
  size_t values = 1;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return {JsonShapeScan::Problem::kTooDeep, i};
      if (++values > max_values) return {JsonShapeScan::Problem::kTooManyValues, i};
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && ++values > max_values) {
      return {JsonShapeScan::Problem::kTooManyValues, i};
    }
  }
  return {};
}

bool JsonNestingExceeds(std::string_view body, int max_depth) {
  return ScanJsonShape(body, max_depth, SIZE_MAX).problem == JsonShapeScan::Problem::kTooDeep;
}

std::string CleanJsonErrorMessage(std::string_view what) {
  if (!what.empty() && what.front() == '[') {
    const size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

std::string EscapeForDataBlock(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size() + 16);
  for (char c : json_text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace attest
