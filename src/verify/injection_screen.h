// The prompt-injection screen and the output check for unsupported calls to action.
//
// Indexed text is untrusted. ScreenPassage() flags passages that address the reader or the model
// instead of documenting something. The text is first folded (screen_fold.h: invisible characters
// out, NFKC case folding, combining marks out, look-alike letters of other scripts to ASCII), so
// "Ignоre previоus instructiоns" with Cyrillic о reads like the plain spelling. Then, in order:
// invisible text (zero-width runs, Unicode tag characters) and base64 blobs that decode to readable
// text; chat-template tokens ("<|im_start|>", "[SYSTEM]"); fixed phrases ("ignore (all) previous
// instructions", "reveal your system prompt", "click here", "run it as administrator"); instructions
// recognised by their structure (addressed_instructions.h: overrides of the model's instructions,
// redirected speech, persona changes, system-prompt extraction, direct address of a model);
// credential requests to an outside destination; executables offered over plain http; script links
// and look-alike hosts (link_screen.h); two or more words mixing scripts (homoglyph obfuscation);
// and, with a ScreenContext, links whose host no other retrieved document names.
// It is conservative: documentation imperatives ("Run pg_dump to back up", "apt install foo",
// "You must set max_wal_senders", "Send the password in the Authorization header") are not flagged.
// A flagged passage may be shown as a source but never supports a claim (VerifyDraft).
//
// UnsupportedActions() is the output side: links, host names, executable file names, shell commands
// and calls to action ("download", "click", "run as administrator") in an answer that no kept
// claim's quote contains. The pipeline strips the sentences holding them.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "verify/link_screen.h"

namespace attest {

struct InjectionFinding {
  bool flagged = false;
  std::string reason;  // which pattern matched and the matched text, e.g. "instruction override: \"ignore all previous instructions\""
};

// What the screen knows about the retrieval a passage came from. Without it (links == nullptr),
// links are judged only for scripts and look-alike hosts, not for corroboration.
struct ScreenContext {
  const LinkCorroboration* links = nullptr;  // borrowed: every retrieved document of the question
  std::string doc_id;                        // the passage's own document (cannot corroborate itself)
};

InjectionFinding ScreenPassage(std::string_view text, const ScreenContext& context = {});

// Each returned string is the exact substring of `answer_text` that holds the unsupported item.
std::vector<std::string> UnsupportedActions(std::string_view answer_text, const std::vector<std::string>& kept_quotes);

}  // namespace attest
