#include "answer/dedupe.h"
#include "common/strings.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "common/checksum.h"
#include "text/analyzer.h"

namespace attest {
namespace {

bool IsMovingSegment(std::string_view seg) {
  std::string l = AsciiLower(seg);
  return l == "current" || l == "stable" || l == "latest";
}

bool IsTrackingParam(std::string_view key) {
  std::string k = AsciiLower(key);
  if (k.rfind("utm_", 0) == 0) return true;
  for (const char* t : {"gclid", "fbclid", "mc_cid", "mc_eid", "ref", "source", "igshid", "_ga"}) {
    if (k == t) return true;
  }
  return false;
}

}  // namespace

std::string CanonicalUrl(std::string_view url, std::string_view version) {
  if (url.empty()) return "";
  std::string_view rest = url;
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  std::string scheme;
  if (size_t p = rest.find("://"); p != std::string_view::npos) {
    scheme = AsciiLower(rest.substr(0, p));
    rest = rest.substr(p + 3);
  }
  size_t slash = rest.find_first_of("/?");
  std::string host = AsciiLower(rest.substr(0, slash));
  if (host.rfind("www.", 0) == 0) host.erase(0, 4);
  if (size_t colon = host.find(':'); colon != std::string::npos) {
    std::string port = host.substr(colon + 1);
    if ((scheme == "http" && port == "80") || (scheme == "https" && port == "443")) host.erase(colon);
  }
  std::string_view path_query = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  std::string_view path = path_query, query;
  if (size_t q = path_query.find('?'); q != std::string_view::npos) {
    path = path_query.substr(0, q);
    query = path_query.substr(q + 1);
  }
  std::string out_path;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i + 1);
    std::string_view seg = path.substr(i + 1, (j == std::string_view::npos ? path.size() : j) - i - 1);
    if (!seg.empty()) {
      out_path += '/';
      out_path += IsMovingSegment(seg) && !version.empty() ? std::string(version) : std::string(seg);
    }
    if (j == std::string_view::npos) break;
    i = j;
  }
  for (const char* index : {"/index.html", "/index.htm"}) {
    size_t n = std::string(index).size();
    if (out_path.size() >= n && out_path.compare(out_path.size() - n, n, index) == 0) out_path.erase(out_path.size() - n);
  }
  std::vector<std::string> params;
  size_t k = 0;
  while (k < query.size()) {
    size_t amp = query.find('&', k);
    std::string_view kv = query.substr(k, (amp == std::string_view::npos ? query.size() : amp) - k);
    std::string_view key = kv.substr(0, kv.find('='));
    if (!kv.empty() && !IsTrackingParam(key)) params.emplace_back(kv);
    if (amp == std::string_view::npos) break;
    k = amp + 1;
  }
  std::sort(params.begin(), params.end());
  std::string out = (scheme == "http" ? std::string("https") : scheme) + "://" + host + out_path;
  for (size_t p = 0; p < params.size(); ++p) out += (p ? "&" : "?") + params[p];
  return out;
}

std::string ContentFingerprint(std::string_view text) {
  std::string folded = Analyzer::Fold(text);
  std::string words;
  std::string cur;
  for (unsigned char c : folded) {
    if (std::isalnum(c) || c >= 0x80) {
      cur.push_back(static_cast<char>(c));
    } else if (!cur.empty()) {
      if (!words.empty()) words.push_back(' ');
      words += cur;
      cur.clear();
    }
  }
  if (!cur.empty()) {
    if (!words.empty()) words.push_back(' ');
    words += cur;
  }
  return Sha256Hex(words).substr(0, 16);
}

}  // namespace attest
