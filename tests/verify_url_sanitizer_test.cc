// Tests of the output link policy (verify/url_sanitizer.h): unsafe targets are dropped and the link
// text kept, safe links and prose are left alone, obfuscated schemes are caught, the result is
// idempotent, and the streaming filter gives the same text however the input is split. An oracle
// check runs over random combinations of hostile fragments.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "verify/url_sanitizer.h"

namespace attest {
namespace {

// Issue 10: `[the official docs](javascript:alert(1))` was copied verbatim into `answer`.
TEST(UrlSanitizer, Issue10JavascriptLinkKeepsTheTextAndDropsTheTarget) {
  EXPECT_EQ(SanitizeLinks("See [the official docs](javascript:alert(1)) for the sign-in steps."),
            "See the official docs for the sign-in steps.");
}

TEST(UrlSanitizer, UnsafeMarkdownTargets) {
  EXPECT_EQ(SanitizeLinks("[a](data:text/html;base64,PHNjcmlwdD4=)"), "a");
  EXPECT_EQ(SanitizeLinks("[a](vbscript:msgbox(1))"), "a");
  EXPECT_EQ(SanitizeLinks("[a](file:///etc/passwd)"), "a");
  EXPECT_EQ(SanitizeLinks("[mail us](mailto:x@example.org)"), "mail us");
  EXPECT_EQ(SanitizeLinks("![logo](javascript:alert(1))"), "logo");
  EXPECT_EQ(SanitizeLinks("[a](<javascript:alert(1)> \"title\")"), "a");
  EXPECT_EQ(SanitizeLinks("[a]( javascript:alert(1) 'x')"), "a");
  // Obfuscated schemes: case, tabs and line breaks inside, invisible characters, character references.
  EXPECT_EQ(SanitizeLinks("[a](JaVaScRiPt:alert(1))"), "a");
  // A tab or line break inside the target is no Markdown link, but browsers drop them inside a URL.
  EXPECT_EQ(SanitizeLinks("[a](java\tscript:alert(1))"), "[a]((link removed))");
  EXPECT_EQ(SanitizeLinks("<a href=\"java\nscript:alert(1)\">a</a>"), "<a>a</a>");
  EXPECT_EQ(SanitizeLinks("[a](java\u200Bscript:alert(1))"), "a");
  EXPECT_EQ(SanitizeLinks("[a](&#106;avascript:alert(1))"), "a");
  EXPECT_EQ(SanitizeLinks("[a](javascript&colon;alert(1))"), "a");
  EXPECT_EQ(SanitizeLinks("[a](jav&#x61;script:alert(1))"), "a");
  EXPECT_EQ(SanitizeLinks("[a](\uFF4A\uFF41\uFF56\uFF41script:alert(1))"), "a");
  // The link text itself is sanitized too.
  EXPECT_EQ(SanitizeLinks("[javascript:alert(1)](javascript:alert(2))"), std::string(kLinkRemoved));
}

TEST(UrlSanitizer, SafeLinksAndProseAreUnchanged) {
  for (const char* s :
       {"See [the docs](https://docs.example.org/a_(b)) now.", "[rel](/docs/install.html)", "[frag](#options)",
        "[proto-relative](//cdn.example.org/x.js)", "<https://example.org/x>", "JavaScript: the good parts",
        "data: 42 rows", "metadata:foo", "postgresql://host/db", "Use C:\\Program Files\\PostgreSQL for the install.",
        "a < b and c > d", "<b>bold</b> and <a href=\"https://example.org\">a link</a>", "[not a link] (really)",
        "[ref]: https://example.org/x", "Rows [1] and [2] differ.", ""}) {
    EXPECT_EQ(SanitizeLinks(s), s) << s;
  }
}

TEST(UrlSanitizer, AutolinksHtmlAndBareUrls) {
  EXPECT_EQ(SanitizeLinks("Go to <javascript:alert(1)> now"), "Go to (link removed) now");
  EXPECT_EQ(SanitizeLinks("<a href=\"javascript:alert(1)\">docs</a>"), "<a>docs</a>");
  EXPECT_EQ(SanitizeLinks("<a href='https://x.org' onclick=\"steal()\">docs</a>"), "<a href='https://x.org'>docs</a>");
  EXPECT_EQ(SanitizeLinks("<img src=x onerror=alert(1)>"), "<img src=x>");
  EXPECT_EQ(SanitizeLinks("<iframe src=\"data:text/html,<script>x</script>\"></iframe>"), "<iframe></iframe>");
  EXPECT_EQ(SanitizeLinks("Open javascript:alert(document.cookie) in the console."),
            "Open (link removed) in the console.");
  EXPECT_EQ(SanitizeLinks("(see javascript:alert(1))."), "(see (link removed)).");
  EXPECT_EQ(SanitizeLinks("Fetch file:///etc/shadow, then data:text/plain,hi."),
            "Fetch (link removed), then (link removed).");
  EXPECT_EQ(SanitizeLinks("[x]: javascript:alert(1)"), "[x]: (link removed)");
}

TEST(UrlSanitizer, SafeUrlAndTargets) {
  EXPECT_EQ(SafeUrl("https://docs.example.org/x"), "https://docs.example.org/x");
  EXPECT_EQ(SafeUrl("/relative/path"), "/relative/path");
  EXPECT_EQ(SafeUrl("javascript:alert(1)"), "");
  EXPECT_EQ(SafeUrl(" \tjavascript:alert(1)"), "");
  EXPECT_EQ(SafeUrl("file:///tmp/x"), "");
  EXPECT_TRUE(IsSafeLinkTarget("HTTPS://EXAMPLE.ORG"));
  EXPECT_TRUE(IsSafeLinkTarget("docs/a:b"));  // a colon after a slash: a relative path
  EXPECT_FALSE(IsSafeLinkTarget("ftp://example.org"));
}

// ---- the oracle: random combinations of hostile and benign fragments -----------------------------

const std::vector<std::string>& Fragments() {
  static const std::vector<std::string> f = {"See ",
                                             "[the docs]",
                                             "(javascript:alert(1))",
                                             "(https://ok.example/x)",
                                             "[x](",
                                             "java",
                                             "script",
                                             ":",
                                             "alert(1)",
                                             ")",
                                             " ",
                                             "\n",
                                             "<a href=\"",
                                             "javascript:void(0)",
                                             "\">t</a>",
                                             "<",
                                             ">",
                                             "data:text/html,hi",
                                             "&#106;",
                                             "avascript:",
                                             "vbscript:x",
                                             "file:///etc/passwd",
                                             "JaVaScRiPt:go()",
                                             "\u200B",
                                             "![",
                                             "img",
                                             "]",
                                             "(",
                                             "mailto:a@b.c",
                                             " the end.",
                                             "[a](<",
                                             "javascript:x>",
                                             "onclick=",
                                             "x",
                                             "'",
                                             "\"",
                                             ".",
                                             ","};
  return f;
}

// True when `s` holds a URL of a script-capable or local scheme that a browser could follow: the
// scheme (ignoring case, tabs, line breaks and zero-width spaces) directly followed by ':' and a
// non-space character, at a word start.
bool HasDangerousUrl(const std::string& s) {
  std::string folded;  // lower case, without tab/newline/zero-width (U+200B is E2 80 8B)
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "\xE2\x80\x8B") == 0) {
      i += 2;
      continue;
    }
    const char c = s[i];
    if (c == '\t' || c == '\n' || c == '\r') continue;
    folded.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (const char* scheme : {"javascript:", "vbscript:", "data:", "file:"}) {
    for (size_t p = folded.find(scheme); p != std::string::npos; p = folded.find(scheme, p + 1)) {
      const size_t after = p + std::char_traits<char>::length(scheme);
      const bool word_start = p == 0 || !std::isalnum(static_cast<unsigned char>(folded[p - 1]));
      if (word_start && after < folded.size() && folded[after] != ' ') return true;
    }
  }
  return false;
}

TEST(UrlSanitizer, NoDangerousUrlSurvivesAndTheResultIsStable) {
  std::mt19937 rng(10);
  const auto& f = Fragments();
  for (int round = 0; round < 3000; ++round) {
    std::string s;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) s += f[rng() % f.size()];
    const std::string out = SanitizeLinks(s);
    EXPECT_FALSE(HasDangerousUrl(out)) << "input: " << s << "\noutput: " << out;
    EXPECT_EQ(SanitizeLinks(out), out) << "not idempotent: " << s;
  }
}

// The fast paths (an ASCII word read without decoding, no confirming round when the first changed
// nothing) against the exhaustive oracle: hostile fragments, and plain prose of the kind every hit
// and source carries, which is where the fast paths apply.
TEST(UrlSanitizer, FastPathsEqualTheExhaustiveOracle) {
  std::mt19937 rng(12);
  const auto& f = Fragments();
  const std::vector<std::string> prose = {"Results", ":", " ", "\n", "\t", "java", "script", "&", "#58;", "colon;",
                                          "data", "0", "x", ".", "-", "+", "\xEF\xBC\x9A", "\xE2\x80\x8B",
                                          std::string(40, 'a'), std::string(33, 'j'), "(", ")", "[", "]"};
  for (int round = 0; round < 4000; ++round) {
    std::string s;
    const int n = 1 + static_cast<int>(rng() % 16);
    for (int i = 0; i < n; ++i) s += rng() % 3 == 0 ? f[rng() % f.size()] : prose[rng() % prose.size()];
    EXPECT_EQ(SanitizeLinks(s), SanitizeLinksExhaustive(s)) << "input: " << s;
  }
  const std::string long_break_run = "java" + std::string(5000, '\t') + "script:alert(1) and more words";
  EXPECT_EQ(SanitizeLinks(long_break_run), SanitizeLinksExhaustive(long_break_run));
  const std::string plain = "Plain prose, with commas; numbers 1.5 and e-mail-like words. No links here\n";
  EXPECT_EQ(SanitizeLinks(plain), plain);
  // Text the whole-text fast path returns as it is (ASCII, no ':', '&' or '<', under 4,096 bytes):
  // relative links and images, brackets and padding the passes read without changing anything.
  for (const std::string& s : {std::string("see [the guide](docs/guide.html \"Guide\") and ![a chart](img/c.png)"),
                               std::string("[id] (x) [a]( b ) ![](#top) javascript javascript\t\t\tx"),
                               "java" + std::string(4000, '\t') + "script alert(1)",
                               std::string("[x](//host/path) (data) vbscript file blob")}) {
    EXPECT_EQ(SanitizeLinks(s), SanitizeLinksExhaustive(s)) << "input: " << s;
    EXPECT_EQ(SanitizeLinks(s), s);
  }
  // Over the budget the passes decide: letters padded by 4,096 line breaks or more are cut as a link.
  const std::string padded = "java" + std::string(5000, '\t') + "script alert(1)";
  EXPECT_EQ(SanitizeLinks(padded), SanitizeLinksExhaustive(padded));
}

TEST(UrlSanitizer, StreamingEqualsWholeTextForAnySplit) {
  std::mt19937 rng(11);
  const auto& f = Fragments();
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) s += f[rng() % f.size()];
    LinkStreamFilter filter;
    std::string streamed;
    for (size_t i = 0; i < s.size();) {
      const size_t len = 1 + rng() % 7;
      streamed += filter.Feed(std::string_view(s).substr(i, len));
      i += len;
    }
    streamed += filter.Flush();
    EXPECT_EQ(streamed, SanitizeLinks(s)) << "input: " << s;
    EXPECT_FALSE(HasDangerousUrl(streamed)) << "input: " << s;
  }
}

// Feeds `input` to a LinkStreamFilter cut at every one and every two points and expects the
// streamed text to equal SanitizeLinks of the whole (reports the first split that differs).
void ExpectEverySplitMatchesTheWhole(const std::string& input) {
  const std::string whole = SanitizeLinks(input);
  auto stream = [&](const std::vector<size_t>& cuts) {
    LinkStreamFilter filter;
    std::string streamed;
    size_t from = 0;
    for (size_t cut : cuts) {
      streamed += filter.Feed(std::string_view(input).substr(from, cut - from));
      from = cut;
    }
    streamed += filter.Feed(std::string_view(input).substr(from));
    return streamed + filter.Flush();
  };
  std::vector<std::vector<size_t>> splits;
  for (size_t a = 0; a <= input.size(); ++a) {
    splits.push_back({a});
    for (size_t b = a; b <= input.size(); ++b) splits.push_back({a, b});
  }
  size_t differing = 0;
  std::string first;
  for (const std::vector<size_t>& cuts : splits) {
    const std::string streamed = stream(cuts);
    if (streamed == whole || differing++ > 0) continue;
    first = "cuts at";
    for (size_t cut : cuts) first += " " + std::to_string(cut);
    first += ": \"" + streamed + "\"";
  }
  EXPECT_EQ(differing, 0u) << "input: \"" << input << "\"\nwhole: \"" << whole << "\"\nfirst: " << first;
}

// Found by fuzzing: after "[]:" the filter took the rest of the line for a reference definition and
// released "[\n](t: " before the link "[\n](t: \"\")" it starts was complete; the whole text drops
// that link's unsafe target.
TEST(UrlSanitizer, Regression_StreamedTextEqualsTheWholeForBracketsAcrossANewline) {
  ExpectEverySplitMatchesTheWhole("[]:[\n](t: \"\")");
  EXPECT_EQ(SanitizeLinks("[]:[\n](t: \"\")"), "[]:\n");
  // The input the fuzzer found (a reference-definition-like "[c]: " that is not at a line start).
  static constexpr char kFound[] =
      "[a]pt\x82,\xff\xff\xff\xff\xff\xff\xff\xff_p\x00\xa3\x11\x80)rgb.)##### [c]: fid\x15:///et+/pa[ds\ndsw]("
      "\x1cjavascript:y> \"t\")";
  ExpectEverySplitMatchesTheWhole(std::string(kFound, sizeof(kFound) - 1));
}

// Found by fuzzing: removing the unsafe link "[[](&#10t:](d:)" leaves "[](&#10t:", which with the
// following ` "")` forms a new link "[](&#10t: "")" in the second round; the filter had released
// the first part already.
TEST(UrlSanitizer, Regression_StreamedTextEqualsTheWholeWhenARemovedLinkLeavesANewOne) {
  ExpectEverySplitMatchesTheWhole("[[](&#10t:](d:) \"\")");
  EXPECT_EQ(SanitizeLinks("[[](&#10t:](d:) \"\")"), "");
  // The same in later rounds: a title holding a blank line stops the outer bracket in the first
  // round only; and a link removed after a line break makes "[x]: t:y" start a line.
  ExpectEverySplitMatchesTheWhole("[b [a](javascript:x \"\n\n\") ](t:y)");
  ExpectEverySplitMatchesTheWhole("\n[](javascript:x)  [x]: t:y");
}

// The filter used to release everything once 8 KiB were pending, half a link included: the rest of
// the link then arrived as harmless-looking text and "[a](javascript:alert(1))" left whole.
TEST(UrlSanitizer, Regression_StreamingNeverReleasesHalfALinkAfterLongText) {
  const std::string head = std::string(8190, 'x') + " [a](java";
  const std::string tail = "script:alert(1)) end";
  LinkStreamFilter filter;
  std::string streamed = filter.Feed(head);
  streamed += filter.Feed(tail);
  streamed += filter.Flush();
  EXPECT_EQ(streamed, SanitizeLinks(head + tail));
  EXPECT_EQ(streamed, std::string(8190, 'x') + " a end");
  EXPECT_EQ(ScriptLinkScheme(streamed), "");
}

// What the filter holds back is bounded: every rule decides within about 2 * 4096 bytes, also on
// input that never closes what it opens. Each of the 9 rounds decides again on the previous round's
// output, so text that keeps opening such constructs can make the holds add up, to 9 times that.
TEST(UrlSanitizer, StreamingHoldsBackABoundedAmount) {
  auto repeat = [](std::string_view piece, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += piece;
    return out;
  };
  constexpr size_t kOneConstruct = 2 * 4096 + 64;
  constexpr size_t kAnyInput = 9 * kOneConstruct;
  const std::pair<std::string, size_t> cases[] = {
      {"[" + repeat("word ", 6000), kOneConstruct},
      {"[x](<" + repeat("a", 30000), kOneConstruct},
      {"[" + repeat("a", 4000) + "](y \"" + repeat("b ", 12000), kOneConstruct},
      {"x <a title=\"" + repeat("d ", 12000), kOneConstruct},
      {"![" + repeat("[", 10000) + repeat("c ", 5000), kAnyInput},
      {repeat("[" + repeat("x", 4000) + "](y \"", 12), kAnyInput}};
  for (const auto& [input, bound] : cases) {
    ASSERT_EQ(SanitizeLinks(input), input) << input.substr(0, 20);  // all text: the output is the input
    LinkStreamFilter filter;
    std::string released;
    size_t most = 0;
    for (size_t i = 0; i < input.size(); i += 5) {
      released += filter.Feed(std::string_view(input).substr(i, 5));
      most = std::max(most, std::min(input.size(), i + 5) - released.size());
    }
    EXPECT_LE(most, bound) << input.substr(0, 20);
    released += filter.Flush();
    EXPECT_EQ(released, input);
  }
  // A bare URL too long to hold is removed over its first 4096 bytes; the rest streams as text.
  const std::string url = "javascript:" + repeat("a", 20000);
  LinkStreamFilter filter;
  std::string released;
  for (size_t i = 0; i < url.size(); i += 5) released += filter.Feed(std::string_view(url).substr(i, 5));
  EXPECT_GE(released.size(), url.size() - 4096 - kOneConstruct);
  released += filter.Flush();
  EXPECT_EQ(released, SanitizeLinks(url));
  EXPECT_EQ(released.substr(0, kLinkRemoved.size()), kLinkRemoved);
  EXPECT_EQ(ScriptLinkScheme(released), "");
}

// Schemes padded past the 4096-byte look-ahead with what browsers skip (tabs, line breaks, invisible
// characters) are removed where they could still become a dangerous scheme; a complete target
// (SafeUrl, link targets, attribute values) is read whole.
TEST(UrlSanitizer, OverlongSchemesAndUrls) {
  const std::string tabs(5000, '\t');
  EXPECT_EQ(SafeUrl("java" + tabs + "script:alert(1)"), "");
  EXPECT_FALSE(IsSafeLinkTarget("java" + std::string(5000, '\n') + "script:alert(1)"));
  const std::string padded = SanitizeLinks("See java" + tabs + "script:alert(1) now");
  EXPECT_EQ(padded.substr(0, 4 + kLinkRemoved.size()), "See " + std::string(kLinkRemoved));
  EXPECT_EQ(ScriptLinkScheme(padded), "");
  EXPECT_EQ(SanitizeLinks(padded), padded);
  // Letters that cannot become a dangerous scheme stay, however much follows them.
  EXPECT_EQ(SanitizeLinks("Summary" + tabs + "Details"), "Summary" + tabs + "Details");
  // A dangerous scheme followed by more line breaks than the look-ahead is still a URL.
  EXPECT_EQ(SanitizeLinks("javascript:" + std::string(5000, '\n') + "alert(1)"),
            std::string(kLinkRemoved) + std::string(5000, '\n') + "alert(1)");
  const std::string invisible = "\xE2\x80\x8B";  // U+200B, 3 bytes
  std::string many;
  for (int i = 0; i < 2000; ++i) many += invisible;
  const std::string hidden = SanitizeLinks(many + "javascript:alert(1)");
  EXPECT_EQ(ScriptLinkScheme(hidden), "");
}

TEST(UrlSanitizer, StreamingReleasesCompleteWordsEarly) {
  LinkStreamFilter filter;
  EXPECT_EQ(filter.Feed("The server "), "The server ");
  EXPECT_EQ(filter.Feed("restarts"), "");  // the word may still grow into a URL
  EXPECT_EQ(filter.Feed(" now. See [the"), "restarts now. See ");
  EXPECT_EQ(filter.Feed(" docs](javascript:alert(1)"), "");
  EXPECT_EQ(filter.Feed(") today."), "the docs ");  // the link is complete: its text is shown, the target dropped
  EXPECT_EQ(filter.Flush(), "today.");
}

}  // namespace
}  // namespace attest
