// UnsupportedActions (declared in verify/injection_screen.h): links, host names, executable names,
// shell commands and calls to action in an answer that no kept quote contains.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <initializer_list>

#include "verify/injection_screen.h"
#include "verify/quote_match.h"

namespace attest {
namespace {

struct Piece {
  std::string_view text;
  size_t begin;
};

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool StartsWithIgnoreCase(std::string_view s, size_t pos, std::string_view prefix) {
  if (pos + prefix.size() > s.size()) return false;
  for (size_t k = 0; k < prefix.size(); ++k) {
    if (Lower(s[pos + k]) != prefix[k]) return false;
  }
  return true;
}

std::string LowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

// Whitespace-separated tokens of the raw answer with surrounding punctuation removed.
std::vector<Piece> Tokens(std::string_view s) {
  std::vector<Piece> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    size_t b = i, e = j;
    while (b < e && std::strchr("([{\"'<*`", s[b]) != nullptr) ++b;
    while (e > b && std::strchr(".,;:)]}\"'!?>*`", s[e - 1]) != nullptr) --e;
    if (b < e) out.push_back({s.substr(b, e - b), b});
    i = j;
  }
  return out;
}

bool IsHostName(std::string_view t) {
  static constexpr std::string_view kTlds[] = {
      "com", "org", "net", "io", "dev", "app", "ai", "co", "edu", "gov", "info", "biz", "example", "test",
      "invalid", "uk", "de", "fr", "eu", "ru", "cn", "xyz", "top", "me", "ly", "gg", "cc", "us", "ca",
      "au", "in", "jp", "site", "online", "link", "click", "zip", "mov"};
  const size_t last_dot = t.rfind('.');
  if (last_dot == std::string_view::npos || last_dot == 0 || t.find('@') != std::string_view::npos) return false;
  for (char c : t) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-')) return false;
  }
  if (t.find("..") != std::string_view::npos) return false;
  const std::string tld = LowerCopy(t.substr(last_dot + 1));
  return std::find(std::begin(kTlds), std::end(kTlds), tld) != std::end(kTlds);
}

bool IsExecutableName(std::string_view t) {
  const std::string lower = LowerCopy(t);
  for (std::string_view ext : {".exe", ".msi", ".bat", ".cmd", ".ps1", ".scr", ".vbs", ".jar", ".apk", ".dmg", ".sh"}) {
    if (lower.size() > ext.size() && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0) return true;
  }
  return false;
}

// Where a shell command starting at byte `begin` ends: the end of its clause.
size_t CommandEnd(std::string_view s, size_t begin) {
  size_t e = begin;
  while (e < s.size()) {
    const char c = s[e];
    if (c == '\n' || c == '`' || c == ';') break;
    if ((c == '.' || c == ',') && (e + 1 == s.size() || std::isspace(static_cast<unsigned char>(s[e + 1])))) break;
    if (StartsWithIgnoreCase(s, e, " and ") || StartsWithIgnoreCase(s, e, " then ")) break;
    ++e;
  }
  while (e > begin && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return e;
}

// True when token `i` starts a shell command (a package manager install, sudo, curl with arguments...).
bool StartsCommand(const std::vector<Piece>& tokens, size_t i) {
  const std::string t = LowerCopy(tokens[i].text);
  if (i + 1 >= tokens.size()) return false;
  const std::string next = LowerCopy(tokens[i + 1].text);
  auto in = [](std::string_view w, std::initializer_list<std::string_view> l) {
    return std::find(l.begin(), l.end(), w) != l.end();
  };
  if (t == "sudo") return true;
  if (in(t, {"apt", "apt-get", "yum", "dnf", "brew", "pip", "pip3", "npm", "yarn", "pnpm", "gem", "cargo", "go",
             "choco", "winget", "snap"})) {
    return in(next, {"install", "add", "i", "upgrade", "update", "uninstall", "remove", "get"});
  }
  if (in(t, {"docker", "podman"})) return in(next, {"run", "pull", "exec"});
  if (t == "git") return in(next, {"clone", "pull"});
  if (in(t, {"curl", "wget", "bash", "sh", "chmod", "powershell", "iex", "npx"})) {
    return next.find_first_of("-/:.+") != std::string::npos || next.rfind("http", 0) == 0;
  }
  return false;
}

}  // namespace

std::vector<std::string> UnsupportedActions(std::string_view answer_text, const std::vector<std::string>& kept_quotes) {
  std::vector<std::string> quotes;
  quotes.reserve(kept_quotes.size());
  for (const std::string& q : kept_quotes) quotes.push_back(NormalizeForQuoteMatch(q));
  auto supported = [&](std::string_view item) {
    std::string n = NormalizeForQuoteMatch(item);
    while (!n.empty() && n.back() == '/') n.pop_back();
    if (n.empty()) return true;
    return std::any_of(quotes.begin(), quotes.end(), [&](const std::string& q) { return q.find(n) != std::string::npos; });
  };
  std::vector<std::string> out;
  auto report = [&](std::string_view item) {
    if (!supported(item) && std::find(out.begin(), out.end(), item) == out.end()) out.emplace_back(item);
  };

  const std::vector<Piece> tokens = Tokens(answer_text);
  std::vector<std::pair<size_t, size_t>> covered;  // byte ranges already reported as URLs or commands
  auto is_covered = [&](size_t pos) {
    return std::any_of(covered.begin(), covered.end(), [&](auto r) { return pos >= r.first && pos < r.second; });
  };
  // Inline code spans are commands.
  for (size_t open = answer_text.find('`'); open != std::string_view::npos;) {
    const size_t close = answer_text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    if (close > open + 1) {
      report(answer_text.substr(open + 1, close - open - 1));
      covered.emplace_back(open, close + 1);
    }
    open = answer_text.find('`', close + 1);
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Piece& tok = tokens[i];
    if (is_covered(tok.begin)) continue;
    const std::string lower = LowerCopy(tok.text);
    if (lower.rfind("http://", 0) == 0 || lower.rfind("https://", 0) == 0 || lower.rfind("ftp://", 0) == 0 ||
        lower.rfind("www.", 0) == 0) {
      report(tok.text);
      covered.emplace_back(tok.begin, tok.begin + tok.text.size());
      continue;
    }
    if (StartsCommand(tokens, i)) {
      const size_t end = CommandEnd(answer_text, tok.begin);
      report(answer_text.substr(tok.begin, end - tok.begin));
      covered.emplace_back(tok.begin, end);
      continue;
    }
    if (IsExecutableName(tok.text) || IsHostName(tok.text)) {
      report(tok.text);
      continue;
    }
    // Calls to action: the word itself must be backed by a quote.
    for (std::string_view cta : {"download", "click", "administrator"}) {
      if (lower.rfind(cta, 0) == 0) {
        report(tok.text);
        break;
      }
    }
  }
  return out;
}

}  // namespace attest
