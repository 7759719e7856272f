#include "verify/link_screen.h"

#include <unicode/uchar.h>
#include <unicode/uidna.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstring>

#include "text/case_fold.h"
#include "verify/screen_fold.h"
#include "verify/url_sanitizer.h"

namespace attest {
namespace {

bool HostByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || u >= 0x80;
}

bool IsAlpha(char c) { return c >= 'a' && c <= 'z'; }

std::string Fold(std::string_view s) {
  std::string out;
  AppendCaseFolded(s, &out);
  return out;
}

// Host as compared: no trailing dots, no port, no leading "www.".
std::string NormalizeHost(std::string_view host) {
  if (const size_t colon = host.find(':'); colon != std::string_view::npos) host = host.substr(0, colon);
  while (!host.empty() && (host.back() == '.' || host.back() == '-')) host.remove_suffix(1);
  while (!host.empty() && host.front() == '.') host.remove_prefix(1);
  if (host.size() > 4 && host.substr(0, 4) == "www.") host.remove_prefix(4);
  return std::string(host);
}

// A host on the network: dotted, ending in an alphabetic label of 2+ characters or an IPv4 address
// ("localhost", "hostname" and template placeholders are not links anyone can be sent to).
bool PlausibleHost(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  const size_t dot = host.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= host.size()) return false;
  const std::string_view last = host.substr(dot + 1);
  const bool alpha = last.size() >= 2 && std::all_of(last.begin(), last.end(), [](char c) {
                       return IsAlpha(c) || static_cast<unsigned char>(c) >= 0x80 || c == '-';
                     });
  const bool ipv4 = std::count(host.begin(), host.end(), '.') == 3 &&
                    std::all_of(host.begin(), host.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
  return alpha || ipv4;
}

bool KnownTld(std::string_view host) {
  static constexpr std::string_view kTlds[] = {
      "com",  "org",     "net",  "io",      "dev",  "app",  "ai",    "co",   "edu", "gov",  "info",
      "biz",  "example", "test", "invalid", "uk",   "de",   "fr",    "eu",   "ru",  "cn",   "xyz",
      "top",  "me",      "ly",   "gg",      "us",   "ca",   "au",    "in",   "jp",  "site", "online",
      "link", "click",   "zip",  "mov",     "live", "shop", "store", "cloud"};
  const size_t dot = host.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  const std::string_view tld = host.substr(dot + 1);
  return std::find(std::begin(kTlds), std::end(kTlds), tld) != std::end(kTlds);
}

// Decodes an "xn--" label to Unicode UTF-8 (or returns it unchanged).
std::string DecodeLabel(std::string_view label) {
  if (label.size() < 5 || label.substr(0, 4) != "xn--") return std::string(label);
  UErrorCode status = U_ZERO_ERROR;
  static UIDNA* idna = uidna_openUTS46(UIDNA_DEFAULT, &status);
  if (idna == nullptr) return std::string(label);
  char buf[256];
  UIDNAInfo info = UIDNA_INFO_INITIALIZER;
  status = U_ZERO_ERROR;
  const int32_t n =
      uidna_labelToUnicodeUTF8(idna, label.data(), static_cast<int32_t>(label.size()), buf, sizeof buf, &info, &status);
  if (U_FAILURE(status) || n <= 0 || n > static_cast<int32_t>(sizeof buf)) return std::string(label);
  return std::string(buf, static_cast<size_t>(n));
}

bool NonAscii(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

// A label spelled with look-alike letters: non-ASCII, but its confusable skeleton is plain ASCII.
bool LookalikeLabel(std::string_view label) {
  const std::string decoded = DecodeLabel(label);
  if (!NonAscii(decoded)) return false;
  // A non-ASCII letter, not just punctuation such as U+2010 HYPHEN in "aist‐nara".
  bool letter = false;
  const auto* bytes = reinterpret_cast<const uint8_t*>(decoded.data());
  const int32_t len = static_cast<int32_t>(decoded.size());
  for (int32_t i = 0; i < len && !letter;) {
    UChar32 c;
    U8_NEXT(bytes, i, len, c);
    letter = c >= 0x80 && u_isalpha(c);
  }
  return letter && !NonAscii(FoldForScreening(decoded).folded);
}

}  // namespace

std::vector<LinkRef> FindLinks(std::string_view raw) {
  const std::string s = Fold(raw);
  std::vector<LinkRef> out;
  std::vector<std::pair<size_t, size_t>> covered;
  auto is_covered = [&](size_t pos) {
    return std::any_of(covered.begin(), covered.end(), [&](auto r) { return pos >= r.first && pos < r.second; });
  };
  // scheme://[user@]host[:port]
  for (size_t p = s.find("://"); p != std::string::npos; p = s.find("://", p + 3)) {
    size_t b = p;
    while (b > 0 && (IsAlpha(s[b - 1]) || s[b - 1] == '+' || s[b - 1] == '-' || s[b - 1] == '.')) --b;
    if (b == p) continue;
    size_t e = p + 3;
    while (e < s.size() && std::strchr(" \t\n\r/?#<>\"'`)]", s[e]) == nullptr) ++e;
    std::string_view authority = std::string_view(s).substr(p + 3, e - p - 3);
    LinkRef l;
    if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
      l.userinfo = true;
      l.userinfo_text = std::string(authority.substr(0, at));
      authority = authority.substr(at + 1);
    }
    size_t host_len = 0;
    while (host_len < authority.size() && (HostByte(authority[host_len]) || authority[host_len] == ':')) ++host_len;
    l.host = NormalizeHost(authority.substr(0, host_len));
    size_t url_end = e;
    while (url_end < s.size() && std::strchr(" \t\n\r<>\"'`", s[url_end]) == nullptr) ++url_end;
    l.text = s.substr(b, url_end - b);
    covered.emplace_back(b, url_end);
    if (PlausibleHost(l.host)) out.push_back(std::move(l));
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (is_covered(i)) continue;
    const bool word_start = i == 0 || !(HostByte(s[i - 1]) || s[i - 1] == '/' || s[i - 1] == '_');
    // www.host
    if (word_start && s.compare(i, 4, "www.") == 0) {
      size_t e = i;
      while (e < s.size() && HostByte(s[e])) ++e;
      LinkRef l;
      l.host = NormalizeHost(s.substr(i, e - i));
      l.text = s.substr(i, e - i);
      covered.emplace_back(i, e);
      if (PlausibleHost(l.host) && l.host.find('.') != std::string::npos) out.push_back(std::move(l));
      i = e;
      continue;
    }
    // local@domain.tld
    if (s[i] == '@' && i > 0 &&
        (std::isalnum(static_cast<unsigned char>(s[i - 1])) || std::strchr("._%+-", s[i - 1]))) {
      size_t b = i;
      while (b > 0 && (std::isalnum(static_cast<unsigned char>(s[b - 1])) || std::strchr("._%+-", s[b - 1]))) --b;
      size_t e = i + 1;
      while (e < s.size() && HostByte(s[e])) ++e;
      const std::string host = NormalizeHost(s.substr(i + 1, e - i - 1));
      const size_t dot = host.rfind('.');
      if (b < i && dot != std::string::npos && host.size() - dot - 1 >= 2 && IsAlpha(host.back())) {
        LinkRef l;
        l.host = host;
        l.email = true;
        l.text = s.substr(b, e - b);
        out.push_back(std::move(l));
        covered.emplace_back(b, e);
        i = e;
      }
      continue;
    }
    // host.tld/path
    if (word_start && HostByte(s[i]) && s[i] != '.' && s[i] != '-') {
      size_t e = i;
      while (e < s.size() && HostByte(s[e])) ++e;
      if (e < s.size() && s[e] == '/' && (e + 1 >= s.size() || s[e + 1] != '/')) {
        const std::string host = NormalizeHost(s.substr(i, e - i));
        if (KnownTld(host) && PlausibleHost(host)) {
          size_t url_end = e;
          while (url_end < s.size() && std::strchr(" \t\n\r<>\"'`", s[url_end]) == nullptr) ++url_end;
          LinkRef l;
          l.host = host;
          l.text = s.substr(i, url_end - i);
          out.push_back(std::move(l));
          covered.emplace_back(i, url_end);
          i = url_end;
          continue;
        }
      }
      i = e > i ? e - 1 : i;
    }
  }
  return out;
}

void LinkCorroboration::AddDocument(std::string_view doc_id, std::string_view url, std::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!folded_.count(std::string(doc_id)) &&
      std::none_of(pending_.begin(), pending_.end(), [&](const Added& a) { return a.doc_id == doc_id; })) {
    ++documents_;
  }
  pending_.push_back(Added{std::string(doc_id), std::string(url), std::string(text)});
}

bool LinkCorroboration::Corroborated(std::string_view host, std::string_view doc_id) const {
  const std::string h = NormalizeHost(Fold(host));
  if (h.empty()) return true;
  std::lock_guard<std::mutex> lock(mu_);
  for (const Added& a : pending_) {
    std::string& folded = folded_[a.doc_id];
    folded.push_back('\n');
    AppendCaseFolded(a.url, &folded);
    folded.push_back('\n');
    AppendCaseFolded(a.text, &folded);
  }
  pending_.clear();
  for (const auto& [id, text] : folded_) {
    if (id == doc_id) continue;
    for (size_t p = text.find(h); p != std::string::npos; p = text.find(h, p + 1)) {
      const bool before_ok = p == 0 || !HostByte(text[p - 1]) || text[p - 1] == '.';
      const size_t e = p + h.size();
      const bool after_ok = e >= text.size() || (!HostByte(text[e]) ||
                                                 (text[e] == '.' && (e + 1 >= text.size() || !HostByte(text[e + 1]))));
      if (before_ok && after_ok) return true;
    }
  }
  return false;
}

std::string ScriptLink(std::string_view text) {
  const std::string scheme = ScriptLinkScheme(text);
  return scheme.empty() ? "" : "script link: a " + scheme + " URL";
}

std::string DeceptiveLink(std::string_view text) {
  for (const LinkRef& l : FindLinks(text)) {
    if (l.userinfo && l.userinfo_text.find('.') != std::string::npos) {
      return "disguised host: \"" + l.userinfo_text + "@\" before the real host " + l.host;
    }
    size_t b = 0;
    const std::string_view host = l.host;
    while (b <= host.size()) {
      size_t e = host.find('.', b);
      if (e == std::string_view::npos) e = host.size();
      if (LookalikeLabel(host.substr(b, e - b))) return "look-alike host: " + l.host;
      b = e + 1;
    }
  }
  return "";
}

std::string UncorroboratedLink(std::string_view text, const LinkCorroboration& links, std::string_view doc_id) {
  for (const LinkRef& l : FindLinks(text)) {
    // An e-mail address is not a link to follow (a request to send something to one is the
    // credential rule's business); author credits name addresses no other page repeats.
    if (l.email) continue;
    if (!links.Corroborated(l.host, doc_id)) {
      return "uncorroborated link: " + l.host + " is named by no other retrieved source";
    }
  }
  return "";
}

}  // namespace attest
