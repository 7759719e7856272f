// Links in untrusted passages, as the injection screen judges them.
//
// An injected passage usually wants the reader to go somewhere: a collection form, a download, a
// look-alike of the real site. Three checks:
//  - ScriptLink: a javascript:/vbscript: URL or an HTML/SVG data: URL anywhere in the passage.
//  - DeceptiveLink: a host that imitates another one: a label mixing ASCII letters with look-alike
//    letters of another script ("pоrtal.example.org" with a Cyrillic о, also after decoding an xn--
//    label), an all-look-alike label under an ASCII top-level domain, or user info that looks like a
//    host ("https://docs.example.org@evil.test/").
//  - UncorroboratedLink: a link (scheme://host, www.host, an e-mail address, host.tld/path) whose
//    host no *other* retrieved document names, in its text or its URL. A passage cannot vouch for
//    itself, and neither can other chunks of its own document. LinkCorroboration holds the
//    retrieved documents; the answer pipeline fills it from the candidates of one question.
// Hosts compare case-insensitively after NFKC, without a leading "www." and a port; look-alike
// letters are not folded, so a spoofed host never matches the real one.
//
// Thread-safety: the functions are pure; LinkCorroboration is filled by one thread, then only read.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attest {

struct LinkRef {
  std::string host;       // lower-case, NFKC, no "www.", no port
  std::string text;       // the link as written (after NFKC case folding)
  bool email = false;     // an e-mail address (host = its domain)
  bool userinfo = false;  // "scheme://user@host": user info present
  std::string userinfo_text;
};

// The links of `text` that name a host (http(s)://, ftp://, other scheme://, www., e-mail, host.tld/path).
std::vector<LinkRef> FindLinks(std::string_view text);

// Documents are case-folded when a Corroborated call first needs them, not when added: most
// passages carry no link, and then the retrieved texts are never folded.
class LinkCorroboration {
 public:
  void AddDocument(std::string_view doc_id, std::string_view url, std::string_view text);
  // True when a document other than `doc_id` names `host`.
  bool Corroborated(std::string_view host, std::string_view doc_id) const;
  size_t documents() const { return documents_; }

 private:
  struct Added {
    std::string doc_id, url, text;
  };
  size_t documents_ = 0;
  mutable std::mutex mu_;                     // guards the two below (Corroborated is const)
  mutable std::vector<Added> pending_;        // added, not folded yet
  mutable std::unordered_map<std::string, std::string> folded_;  // doc id -> case-folded url + text
};

std::string ScriptLink(std::string_view text);     // "" or the reason
std::string DeceptiveLink(std::string_view text);  // "" or the reason
std::string UncorroboratedLink(std::string_view text, const LinkCorroboration& links, std::string_view doc_id);

}  // namespace attest
