#include "verify/injection_screen.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "verify/addressed_instructions.h"
#include "verify/credential_request.h"
#include "verify/screen_fold.h"

namespace attest {
namespace {

using Alts = std::vector<std::string_view>;

struct Step {
  Alts alts;
  int max_gap = 0;  // arbitrary words allowed before this step's word
};

struct PhrasePattern {
  const char* name;
  std::vector<Step> steps;
};

struct WordSpan {
  std::string_view text;
  size_t begin;
};

// Lower-case words of normalized text: runs of letters, digits and apostrophes.
std::vector<WordSpan> SplitWords(std::string_view s) {
  std::vector<WordSpan> out;
  size_t i = 0;
  auto is_word = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '\'' || u >= 0x80;
  };
  while (i < s.size()) {
    while (i < s.size() && !is_word(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && is_word(s[j])) ++j;
    if (j > i) out.push_back({s.substr(i, j - i), i});
    i = j;
  }
  return out;
}

bool In(std::string_view w, const Alts& alts) { return std::find(alts.begin(), alts.end(), w) != alts.end(); }

// The phrase patterns that address a model or reader. Each is a sequence of word alternatives with
// small gaps; documentation rarely produces them (see the negatives in verify_injection_test.cc).
const std::vector<PhrasePattern>& Patterns() {
  static const std::vector<PhrasePattern> patterns = {
      {"persona change",
       {{{"you"}}, {{"are"}}, {{"now"}}, {{"a", "an"}}, {{"ai", "assistant", "chatbot", "bot", "unrestricted", "unfiltered", "jailbroken", "dan", "different"}, 1}}},
      {"persona change",
       {{{"you"}}, {{"are"}}, {{"now"}}, {{"dan", "jailbroken", "unrestricted", "unfiltered", "uncensored", "freed"}}}},
      {"persona change",
       {{{"you"}}, {{"are"}}, {{"now"}}, {{"in"}}, {{"developer", "god", "jailbreak", "dan", "unrestricted"}}, {{"mode"}}}},
      {"persona change",
       {{{"you"}}, {{"are"}}, {{"no"}}, {{"longer"}}, {{"bound", "restricted", "limited", "an", "chatgpt", "required"}}}},
      {"persona change", {{{"from"}}, {{"now"}}, {{"on"}}, {{"you"}}, {{"must", "are"}}}},
      {"system prompt",
       {{{"reveal", "print", "show", "repeat", "output", "leak", "display", "ignore", "disregard", "forget", "override", "disclose"}},
        {{"system", "initial", "hidden", "original"}, 2}, {{"prompt", "instructions", "message"}}}},
      {"system prompt", {{{"new", "updated", "real", "actual", "hidden"}}, {{"system"}}, {{"prompt", "instructions", "message"}}}},
      {"addresses the model", {{{"as"}}, {{"an"}}, {{"ai"}}, {{"language", "model", "assistant"}}}},
      {"addresses the model", {{{"as"}}, {{"a"}}, {{"language"}, 1}, {{"model"}}}},
      {"addresses the model",
       {{{"note", "message", "instructions"}}, {{"to", "for"}}, {{"ai", "ais", "llm", "llms", "assistant", "assistants", "chatbot", "chatbots", "models"}, 1}}},
      {"addresses the model", {{{"if"}}, {{"you"}}, {{"are"}}, {{"an", "a"}}, {{"ai", "llm", "chatbot", "assistant"}, 1}}},
      {"addresses the model", {{{"if"}}, {{"you"}}, {{"are"}}, {{"a"}}, {{"language"}, 1}, {{"model"}}}},
      {"addresses the model", {{{"when", "while"}}, {{"summarizing", "summarising"}}, {{"this"}}}},
      {"addresses the model", {{{"respond", "reply"}}, {{"only"}}, {{"with"}}}},
      {"call to action", {{{"click"}}, {{"here"}}}},
      {"call to action", {{{"click"}}, {{"this"}}, {{"link"}}}},
      {"elevated execution",
       {{{"run", "execute", "launch", "open", "start"}}, {{"it", "this", "that"}}, {{"administrator", "admin"}, 2}}},
  };
  return patterns;
}

// The matched words ("ignore all previous instructions") or "" when the pattern does not occur.
std::string MatchPattern(const std::vector<WordSpan>& words, std::string_view text, const PhrasePattern& p) {
  for (size_t start = 0; start < words.size(); ++start) {
    auto step = p.steps.begin();
    if (!In(words[start].text, step->alts)) continue;
    size_t pos = start;
    bool ok = true;
    for (++step; step != p.steps.end() && ok; ++step) {
      ok = false;
      for (size_t j = pos + 1; j < words.size() && j <= pos + 1 + static_cast<size_t>(step->max_gap); ++j) {
        if (In(words[j].text, step->alts)) {
          pos = j;
          ok = true;
          break;
        }
      }
    }
    if (ok) {
      const size_t end = words[pos].begin + words[pos].text.size();
      return std::string(text.substr(words[start].begin, end - words[start].begin));
    }
  }
  return "";
}

// Decodes a UTF-8 code point (invalid bytes count as one byte each and decode to 0).
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b0 = static_cast<unsigned char>(s[*i]);
  const int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || *i + len > s.size()) {
    ++*i;
    return 0;
  }
  uint32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += len;
  return cp;
}

std::string HiddenText(std::string_view raw) {
  int zero_width = 0, tags = 0;
  for (size_t i = 0; i < raw.size();) {
    const uint32_t cp = NextCodePoint(raw, &i);
    if (cp == 0x200B || cp == 0x200C || cp == 0x200D || cp == 0x2060 || cp == 0xFEFF || cp == 0x180E) ++zero_width;
    if (cp >= 0xE0000 && cp <= 0xE007F) ++tags;
  }
  if (tags >= 2) return "hidden text: " + std::to_string(tags) + " Unicode tag characters";
  if (zero_width >= 8) return "hidden text: " + std::to_string(zero_width) + " zero-width characters";
  return "";
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// A run of >= 64 base64 characters (upper, lower and digits mixed) that decodes to mostly printable
// text: hidden instructions. Random keys and hashes decode to binary and are not flagged.
std::string Base64Blob(std::string_view raw) {
  size_t i = 0;
  while (i < raw.size()) {
    while (i < raw.size() && Base64Value(raw[i]) < 0) ++i;
    size_t j = i;
    bool upper = false, lower = false, digit = false;
    while (j < raw.size() && Base64Value(raw[j]) >= 0) {
      upper |= std::isupper(static_cast<unsigned char>(raw[j])) != 0;
      lower |= std::islower(static_cast<unsigned char>(raw[j])) != 0;
      digit |= std::isdigit(static_cast<unsigned char>(raw[j])) != 0;
      ++j;
    }
    if (j - i >= 64 && upper && lower && digit) {
      std::string decoded;
      uint32_t acc = 0;
      int bits = 0;
      for (size_t k = i; k < j; ++k) {
        acc = (acc << 6) | static_cast<uint32_t>(Base64Value(raw[k]));
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          decoded.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
      }
      const size_t printable = static_cast<size_t>(std::count_if(decoded.begin(), decoded.end(), [](char c) {
        return (c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t';
      }));
      if (!decoded.empty() && printable * 100 >= decoded.size() * 90) {
        return "encoded text: a base64 blob of " + std::to_string(j - i) + " characters decodes to readable text";
      }
    }
    i = j;
  }
  return "";
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsExecutableName(std::string_view path) {
  for (std::string_view ext : {".exe", ".msi", ".bat", ".cmd", ".ps1", ".scr", ".vbs", ".jar", ".apk", ".dmg", ".pkg"}) {
    if (EndsWith(path, ext)) return true;
  }
  return false;
}

bool IsIpv4Host(std::string_view host) {
  if (host.empty()) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return dots == 3;
}

// Executables to download from plain-http or raw-IP URLs, with a download/run/install verb nearby.
std::string ExecutableDownload(std::string_view normalized) {
  for (size_t pos = normalized.find("://"); pos != std::string_view::npos; pos = normalized.find("://", pos + 3)) {
    size_t b = pos;
    while (b > 0 && std::isalpha(static_cast<unsigned char>(normalized[b - 1]))) --b;
    size_t e = pos + 3;
    while (e < normalized.size() && std::strchr(" \"'<>`)", normalized[e]) == nullptr) ++e;
    std::string_view url = normalized.substr(b, e - b);
    while (!url.empty() && std::strchr(".,;:!?]", url.back()) != nullptr) url.remove_suffix(1);
    const std::string_view scheme = normalized.substr(b, pos - b);
    std::string_view rest = url.substr(std::min(url.size(), pos + 3 - b));
    const std::string_view host = rest.substr(0, rest.find_first_of("/:?#"));
    std::string_view path = rest.substr(host.size());
    path = path.substr(0, path.find_first_of("?#"));
    if (!IsExecutableName(path) || !(scheme == "http" || scheme == "ftp" || IsIpv4Host(host))) continue;
    const size_t window_begin = b > 120 ? b - 120 : 0;
    const std::string_view around = normalized.substr(window_begin, std::min(normalized.size(), e + 120) - window_begin);
    for (std::string_view verb : {"download", "run", "install", "execute", "open", "launch"}) {
      if (around.find(verb) != std::string_view::npos) {
        return "executable download: \"" + std::string(verb) + "\" " + std::string(url);
      }
    }
  }
  return "";
}

}  // namespace

InjectionFinding ScreenPassage(std::string_view text, const ScreenContext& context) {
  if (std::string r = HiddenText(text); !r.empty()) return {true, r};
  if (std::string r = Base64Blob(text); !r.empty()) return {true, r};
  const ScreenText screen = FoldForScreening(text);
  const std::string& folded = screen.folded;
  for (std::string_view token : {"<|im_start|>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>",
                                 "<|endoftext|>", "<|eot_id|>", "<|start_header_id|>", "<start_of_turn>", "[system]",
                                 "[inst]", "[/inst]", "<<sys>>", "### instruction", "### system", "begin system prompt",
                                 "as an ai,"}) {
    if (folded.find(token) != std::string::npos) {
      return {true, "chat-template or role marker: \"" + std::string(token) + "\""};
    }
  }
  if (std::string r = FindAddressedInstruction(folded); !r.empty()) return {true, r};
  const std::vector<WordSpan> words = SplitWords(folded);
  for (const PhrasePattern& p : Patterns()) {
    if (std::string m = MatchPattern(words, folded, p); !m.empty()) {
      return {true, std::string(p.name) + ": \"" + m + "\""};
    }
  }
  if (std::string r = FindCredentialRequest(folded); !r.empty()) return {true, r};
  if (std::string r = ExecutableDownload(folded); !r.empty()) return {true, r};
  if (std::string r = ScriptLink(text); !r.empty()) return {true, r};
  if (std::string r = DeceptiveLink(text); !r.empty()) return {true, r};
  if (screen.homoglyph_words >= 2) {
    return {true, "homoglyphs: " + std::to_string(screen.homoglyph_words) +
                      " words mix Latin letters with look-alike letters of another script"};
  }
  if (context.links != nullptr) {
    if (std::string r = UncorroboratedLink(text, *context.links, context.doc_id); !r.empty()) return {true, r};
  }
  return {};
}

}  // namespace attest
