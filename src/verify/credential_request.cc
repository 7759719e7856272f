#include "verify/credential_request.h"

#include <vector>

#include "verify/screen_tokens.h"

namespace attest {
namespace {

using namespace screen;  // NOLINT: the tokens' vocabulary

constexpr std::string_view kSendVerb[] = {
    "send",     "sends",     "sent",      "sending",   "email",       "emails",     "emailed",  "emailing",
    "mail",     "mailed",    "submit",    "submits",   "submitted",   "submitting", "provide",  "provides",
    "provided", "providing", "share",     "shares",    "shared",      "sharing",    "enter",    "enters",
    "entered",  "entering",  "type",      "typed",     "typing",      "paste",      "pasted",   "pasting",
    "upload",   "uploaded",  "uploading", "forward",   "forwarded",   "forwarding", "give",     "gave",
    "given",    "giving",    "hand",      "transfer",  "transferred", "text",       "dm",       "message",
    "disclose", "disclosed", "confirm",   "confirmed", "confirming",  "verify",     "verified", "verifying",
    "fax",      "deliver",   "delivered", "reply",     "input"};

// Length of a credential noun phrase at `i`, or 0.
size_t Credential(const Sentence& s, size_t i) {
  if (s.IsIn(i,
             {"password", "passwords", "passcode", "passcodes", "passphrase", "passphrases", "credential",
              "credentials", "token", "tokens", "mnemonic", "otp", "cvv", "ssn", "pin", "pins", "secrets", "secret"})) {
    return 1;
  }
  if (s.IsIn(i, {"api", "secret", "private", "access", "ssh", "license", "licence", "product", "recovery", "seed",
                 "session", "auth", "authentication", "bearer", "refresh"}) &&
      s.IsIn(i + 1, {"key", "keys", "phrase", "phrases", "token", "tokens", "cookie", "cookies", "code", "codes"})) {
    return 2;
  }
  if (s.IsIn(i, {"login", "account", "bank", "banking", "card", "payment", "sign"}) &&
      s.IsIn(i + 1, {"details", "credentials", "information", "info", "data", "number", "numbers", "in"})) {
    return s.Is(i + 1, "in") && s.IsIn(i + 2, {"details", "credentials"}) ? 3 : (s.Is(i + 1, "in") ? 0 : 2);
  }
  if (s.IsIn(i, {"verification", "2fa", "mfa", "security", "one", "authenticator"}) &&
      s.IsIn(i + 1, {"code", "codes", "time"})) {
    return s.Is(i + 1, "time") ? (s.IsIn(i + 2, {"code", "password", "passcode"}) ? 3 : 0) : 2;
  }
  if (s.Is(i, "credit") && s.Is(i + 1, "card")) return 2;
  if (s.Is(i, "social") && s.Is(i + 1, "security")) return 2;
  if (s.Is(i, "username") && s.Is(i + 1, "and") && s.Is(i + 2, "password")) return 3;
  return 0;
}

// A destination outside the system: a link, an e-mail address or a person/team.
size_t Destination(const Sentence& s, size_t from, size_t limit) {
  for (size_t k = from; k < s.size() && k < limit && !s.PunctIn(k, ".;!?"); ++k) {
    if (s.t[k].kind == Kind::kLink) return k;
    if (!s.IsIn(k, {"to", "at", "via", "through", "on", "using", "into"})) continue;
    size_t m = k + 1;
    if (s.IsIn(m, {"us", "me"})) return m;
    if (s.IsIn(m, {"our", "the", "this", "these"})) ++m;
    while (s.IsIn(m, {"support", "security", "admin", "it", "helpdesk", "help", "account", "billing", "verification",
                      "following", "official"})) {
      ++m;
    }
    if (s.IsIn(m, {"team",          "staff",  "desk",           "department", "admins", "administrators",
                   "administrator", "agent",  "representative", "address",    "email",  "mail",
                   "number",        "link",   "form",           "url",        "page",   "site",
                   "portal",        "website"}) &&
        (m > k + 1)) {
      if (s.IsIn(m, {"page", "site", "portal", "website", "form"}) && !s.IsIn(k + 1, {"this", "the"})) continue;
      if (s.IsIn(m, {"page", "site", "portal", "website", "form", "link", "url"}) &&
          !(s.IsIn(m + 1, {"below", "above"}) || s.Is(k + 1, "this") || s.IsIn(m - 1, {"following", "verification"}))) {
        continue;
      }
      return m;
    }
  }
  return std::string::npos;
}

}  // namespace

std::string FindCredentialRequest(std::string_view folded) {
  const std::vector<Tok> tokens = Tokenize(folded);
  const Sentence s{tokens};
  for (size_t v = 0; v < s.size(); ++v) {
    if (!s.IsIn(v, kSendVerb)) continue;
    // The credential within a few words of the verb (before it in the passive).
    size_t cred = std::string::npos, cred_len = 0;
    for (size_t k = v >= 6 ? v - 6 : 0; k < s.size() && k <= v + 6; ++k) {
      if (k != v && (cred_len = Credential(s, k)) > 0) {
        cred = k;
        break;
      }
    }
    if (cred == std::string::npos) continue;
    bool sentence_break = false;
    for (size_t k = std::min(cred, v); k < std::max(cred, v); ++k) sentence_break |= s.PunctIn(k, ".;!?");
    if (sentence_break) continue;
    const size_t dest = Destination(s, std::max(v, cred) + 1, std::max(v, cred) + 12);
    if (dest == std::string::npos) continue;
    // Said to a person: "your/their password", "users must ...", or an imperative.
    bool negated = false, person = false;
    for (size_t k = v >= 5 ? v - 5 : 0; k < v; ++k) {
      if (s.IsIn(k, {"not", "never", "no", "nobody"})) negated = true;
      if (s.IsIn(k, {"you", "users", "user", "customers", "customer", "employees", "everyone", "members", "staff",
                     "people", "visitors", "readers", "clients", "all"})) {
        person = true;
      }
    }
    if (cred > 0 && s.IsIn(cred - 1, {"your", "their", "his", "her", "my", "our"})) person = true;
    if (cred > 1 && s.IsIn(cred - 2, {"your", "their"})) person = true;
    size_t lead = v;
    while (lead > 0 && (s.IsIn(lead - 1, kLead) || s.IsIn(lead - 1, {"must", "should", "to"}))) --lead;
    if (lead == 0 || s.Punct(lead - 1)) person = true;
    if (negated || !person) continue;
    const size_t b = std::min(v, cred), e = std::max(dest, cred + cred_len - 1);
    return "credential request: \"" + s.Span(b, e) + "\"";
  }
  return "";
}

}  // namespace attest
