// Credential requests in untrusted text: a request that a person send a password, token, key or
// similar to a destination outside the system (docs/verification.md, "Prompt-injection screen").
//
// Fires on a send verb (send, e-mail, submit, provide, share, enter, type, paste, upload, forward,
// give, confirm, verify ...) within six words of a credential (password, passcode, credentials,
// token, API/secret/private/access/SSH key, recovery/seed phrase, login/account/bank details, card
// number, verification code ...), a destination after both that is a URL, an e-mail address or a
// person/team ("to us", "to our support team", "the address below"), said to a person ("your/their
// password", a person as subject, or an imperative), and not negated. "Send the password in the
// Authorization header" and "The client sends the password to the server" have no such destination.
//
// Input is folded text (screen_fold.h). Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>

namespace attest {

// "" or "credential request: \"<the words that matched>\"".
std::string FindCredentialRequest(std::string_view folded);

}  // namespace attest
