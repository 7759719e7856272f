// robots.txt per RFC 9309 (src/crawl/robots.h): the cases of google/robotstxt's suite, restated
// (grouping, merging, case, wildcards, '$', longest match, ties, encoding, line endings, limits,
// agents that match nothing, the '*' fallback), and the fetch-outcome policy with its cache age.
#include "crawl/robots.h"

#include <gtest/gtest.h>

#include <string>

#include "crawl/robots_match.h"
#include "support/fake_clock.h"

namespace attest {
namespace {

bool Allowed(std::string_view robots, std::string_view agent, std::string_view url) {
  return RobotsRules::Parse(robots, agent).Allowed(url);
}

TEST(CrawlRobotsTest, EmptyFileAllowsEverything) {
  EXPECT_TRUE(Allowed("", "FooBot", "/"));
  EXPECT_TRUE(Allowed("", "FooBot", "https://example.org/any/path?q=1"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\ndisallow: /\n", "", "/x"));
}

TEST(CrawlRobotsTest, ColonMayBeMissingButUnknownKeysAreIgnored) {
  EXPECT_FALSE(Allowed("user-agent: FooBot\ndisallow: /\n", "FooBot", "/x/y"));
  EXPECT_TRUE(Allowed("foo: FooBot\nbar: /\n", "FooBot", "/x/y"));
  EXPECT_FALSE(Allowed("user-agent FooBot\ndisallow /\n", "FooBot", "/x/y"));
  // Without a colon the value must be one word: "disallow / x" is not read as a rule.
  EXPECT_TRUE(Allowed("user-agent FooBot\ndisallow / x\n", "FooBot", "/x/y"));
}

TEST(CrawlRobotsTest, GroupsAreMergedAndRulesOutsideGroupsIgnored) {
  const std::string robots =
      "allow: /foo/bar/\n"
      "\n"
      "user-agent: FooBot\n"
      "disallow: /\n"
      "allow: /x/\n"
      "user-agent: BarBot\n"
      "disallow: /\n"
      "allow: /y/\n"
      "\n\n"
      "allow: /w/\n"
      "user-agent: BazBot\n"
      "\n"
      "user-agent: FooBot\n"
      "allow: /z/\n"
      "disallow: /\n";
  EXPECT_TRUE(Allowed(robots, "FooBot", "/x/b"));
  EXPECT_TRUE(Allowed(robots, "FooBot", "/z/d"));
  EXPECT_FALSE(Allowed(robots, "FooBot", "/y/c"));
  EXPECT_TRUE(Allowed(robots, "BarBot", "/y/c"));
  EXPECT_TRUE(Allowed(robots, "BarBot", "/w/a"));  // the allow after the blank lines is BarBot's
  EXPECT_FALSE(Allowed(robots, "BarBot", "/z/d"));
  EXPECT_TRUE(Allowed(robots, "BazBot", "/z/d"));  // BazBot shares the second FooBot group
  for (const char* agent : {"FooBot", "BarBot", "BazBot"}) {
    EXPECT_FALSE(Allowed(robots, agent, "/foo/bar/")) << agent;  // the leading allow is no rule
  }
}

TEST(CrawlRobotsTest, KeysAreCaseInsensitive) {
  for (const char* robots : {"USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
                             "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
                             "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"}) {
    EXPECT_TRUE(Allowed(robots, "FooBot", "/x/y")) << robots;
    EXPECT_FALSE(Allowed(robots, "FooBot", "/a/b")) << robots;
  }
}

TEST(CrawlRobotsTest, AgentIsMatchedByProductTokenIgnoringCase) {
  for (const char* robots : {"User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
                             "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
                             "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n"}) {
    for (const char* agent : {"Foo", "foo"}) {
      EXPECT_TRUE(Allowed(robots, agent, "/x/y")) << robots << agent;
      EXPECT_FALSE(Allowed(robots, agent, "/a/b")) << robots << agent;
    }
  }
  // The token ends at the first character outside [A-Za-z_-]: "FooBot/2.1" names FooBot.
  EXPECT_FALSE(Allowed("user-agent: FooBot/2.1\ndisallow: /\n", "FooBot", "/a"));
  EXPECT_FALSE(Allowed("user-agent: Foo_Bot-x\ndisallow: /\n", "foo_bot-X", "/a"));
  // A value whose token is empty names nobody.
  EXPECT_TRUE(Allowed("user-agent: /FooBot\ndisallow: /\n", "FooBot", "/a"));
  // A token is compared whole, not as a prefix.
  EXPECT_TRUE(Allowed("user-agent: FooBotExtra\ndisallow: /\n", "FooBot", "/a"));
  EXPECT_TRUE(Allowed("user-agent: Foo\ndisallow: /\n", "FooBot", "/a"));
}

TEST(CrawlRobotsTest, ValueUpToTheFirstSpaceNamesTheAgent) {
  const std::string robots =
      "User-Agent: *\nDisallow: /\n"
      "User-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n";
  EXPECT_TRUE(Allowed(robots, "Foo", "/x/y"));
  EXPECT_FALSE(Allowed(robots, "Bar", "/x/y"));  // falls back to '*'
}

TEST(CrawlRobotsTest, StarGroupOnlyWhenNoGroupNamesTheCrawler) {
  const std::string global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
  const std::string specific_only =
      "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n"
      "user-agent: BazBot\ndisallow: /\n";
  EXPECT_FALSE(Allowed(global, "FooBot", "/x/y"));
  EXPECT_TRUE(Allowed(global, "BarBot", "/x/y"));
  EXPECT_TRUE(Allowed(specific_only, "QuxBot", "/x/y"));
  // A group naming the crawler applies even when it has no rules; the '*' rules then do not.
  const RobotsRules empty_group =
      RobotsRules::Parse("user-agent: FooBot\n\nuser-agent: *\ndisallow: /\n", "FooBot");
  EXPECT_FALSE(empty_group.Allowed("/a"));  // FooBot and '*' share one group here
  const RobotsRules own =
      RobotsRules::Parse("user-agent: FooBot\nallow:\nuser-agent: *\ndisallow: /\n", "FooBot");
  EXPECT_TRUE(own.MatchedSpecificGroup());
  EXPECT_TRUE(own.Allowed("/a"));
  // '*' groups are merged too.
  const std::string two_stars = "user-agent: *\ndisallow: /a\nuser-agent: *\ndisallow: /b\n";
  EXPECT_FALSE(Allowed(two_stars, "QuxBot", "/a"));
  EXPECT_FALSE(Allowed(two_stars, "QuxBot", "/b"));
  EXPECT_TRUE(Allowed(two_stars, "QuxBot", "/c"));
}

TEST(CrawlRobotsTest, PathsAreCaseSensitive) {
  EXPECT_FALSE(Allowed("user-agent: FooBot\ndisallow: /x/\n", "FooBot", "/x/y"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\ndisallow: /X/\n", "FooBot", "/x/y"));
}

TEST(CrawlRobotsTest, LongestMatchWinsAndAllowWinsTies) {
  const std::string page = "/x/page.html";
  EXPECT_FALSE(Allowed("user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", page));
  EXPECT_TRUE(Allowed("user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", page));
  EXPECT_FALSE(Allowed("user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "/x/"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", page));
  EXPECT_TRUE(Allowed("user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", page));
  EXPECT_TRUE(Allowed("user-agent: FooBot\nallow: /\ndisallow: /\n", "FooBot", page));
  EXPECT_FALSE(Allowed("user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "/x"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "/x/"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
                      "FooBot", page));
  EXPECT_FALSE(Allowed("user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot",
                       "/page.html"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "/page"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", page));
  EXPECT_FALSE(Allowed("user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot",
                       "/x/y.html"));
  const std::string star_and_foo = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n";
  EXPECT_TRUE(Allowed(star_and_foo, "FooBot", "/x/page"));
  EXPECT_FALSE(Allowed(star_and_foo, "FooBot", "/y/page"));
  // Length counts octets of the normal form: "/%E3%83%84" (10 octets for one character) outranks "/*".
  const std::string encoded = "user-agent: a\ndisallow: /ツ\nallow: /*\n";
  EXPECT_FALSE(Allowed(encoded, "a", "/%E3%83%84"));
}

TEST(CrawlRobotsTest, EncodingFollowsTheRfc) {
  const std::string query =
      "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n";
  EXPECT_TRUE(Allowed(query, "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par"));
  // A non-ASCII pattern is percent-encoded; so is a non-ASCII path (the RFC asks for the encoded
  // octets on both sides; Google's matcher expects the caller to encode the URL).
  const std::string raw = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n";
  EXPECT_TRUE(Allowed(raw, "FooBot", "/foo/bar/%E3%83%84"));
  EXPECT_TRUE(Allowed(raw, "FooBot", "/foo/bar/ツ"));
  const std::string encoded = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n";
  EXPECT_TRUE(Allowed(encoded, "FooBot", "/foo/bar/%E3%83%84"));
  EXPECT_TRUE(Allowed(encoded, "FooBot", "/foo/bar/%e3%83%84"));  // hex case does not matter
  // RFC 9309 §2.2.2's table: "/foo/bar/%62%61%7A" matches "/foo/bar/baz" (an encoded unreserved
  // character is decoded). Google's suite expects the opposite; the RFC is followed here.
  const std::string unreserved = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n";
  EXPECT_TRUE(Allowed(unreserved, "FooBot", "/foo/bar/baz"));
  EXPECT_TRUE(Allowed(unreserved, "FooBot", "/foo/bar/%62%61%7A"));
  // An encoded reserved character stays distinct from the raw one.
  const std::string slash = "User-agent: FooBot\nDisallow: /a%2Fb\n";
  EXPECT_FALSE(Allowed(slash, "FooBot", "/a%2fb"));
  EXPECT_TRUE(Allowed(slash, "FooBot", "/a/b"));
  EXPECT_EQ(NormalizeRobotsPath("/a%7e%2f%zz b"), "/a~%2F%25zz%20b");
  EXPECT_EQ(NormalizeRobotsPath("/%%621"), "/%25b1");  // a stray '%' is the octet itself
  EXPECT_FALSE(Allowed("user-agent: a\ndisallow: /a%zz\n", "a", "/a%25zz"));  // the same octets
}

TEST(CrawlRobotsTest, SpecialCharacters) {
  const std::string star = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
  EXPECT_FALSE(Allowed(star, "FooBot", "/foo/bar/quz"));
  EXPECT_TRUE(Allowed(star, "FooBot", "/foo/quz"));
  EXPECT_TRUE(Allowed(star, "FooBot", "/foo//quz"));
  EXPECT_TRUE(Allowed(star, "FooBot", "/foo/bax/quz"));
  const std::string dollar = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
  EXPECT_FALSE(Allowed(dollar, "FooBot", "/foo/bar"));
  EXPECT_TRUE(Allowed(dollar, "FooBot", "/foo/bar/qux"));
  EXPECT_TRUE(Allowed(dollar, "FooBot", "/foo/bar/"));
  EXPECT_TRUE(Allowed(dollar, "FooBot", "/foo/bar/baz"));
  const std::string comment = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
  EXPECT_TRUE(Allowed(comment, "FooBot", "/foo/bar"));
  EXPECT_FALSE(Allowed(comment, "FooBot", "/foo/quz"));
  // A '$' inside a pattern is a literal character; "%2A" is a literal star.
  EXPECT_FALSE(Allowed("user-agent: a\ndisallow: /a$b\n", "a", "/a$b/c"));
  EXPECT_TRUE(Allowed("user-agent: a\ndisallow: /a%2Ab\n", "a", "/axb"));
  EXPECT_FALSE(Allowed("user-agent: a\ndisallow: /a%2Ab\n", "a", "/a%2Ab"));
}

TEST(CrawlRobotsTest, DocumentedPathExamples) {
  const std::string fish = "user-agent: FooBot\ndisallow: /\nallow: /fish\n";
  const std::string fish_star = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n";
  for (const std::string& robots : {fish, fish_star}) {
    EXPECT_FALSE(Allowed(robots, "FooBot", "/bar"));
    for (const char* ok : {"/fish", "/fish.html", "/fish/salmon.html", "/fishheads",
                           "/fishheads/yummy.html", "/fish.html?id=anything"}) {
      EXPECT_TRUE(Allowed(robots, "FooBot", ok)) << ok;
    }
    for (const char* no : {"/Fish.asp", "/catfish", "/?id=fish"}) {
      EXPECT_FALSE(Allowed(robots, "FooBot", no)) << no;
    }
  }
  const std::string dir = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n";
  for (const char* ok : {"/fish/", "/fish/salmon", "/fish/?salmon", "/fish/?id=anything"}) {
    EXPECT_TRUE(Allowed(dir, "FooBot", ok)) << ok;
  }
  for (const char* no : {"/fish", "/fish.html", "/Fish/Salmon.html"}) {
    EXPECT_FALSE(Allowed(dir, "FooBot", no)) << no;
  }
  const std::string php = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n";
  for (const char* ok : {"/filename.php", "/folder/filename.php", "/folder/filename.php?parameters",
                         "//folder/any.php.file.html", "/filename.php/", "/index?f=filename.php/"}) {
    EXPECT_TRUE(Allowed(php, "FooBot", ok)) << ok;
  }
  for (const char* no : {"/php/", "/index?php", "/windows.PHP"}) {
    EXPECT_FALSE(Allowed(php, "FooBot", no)) << no;
  }
  const std::string php_end = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n";
  EXPECT_TRUE(Allowed(php_end, "FooBot", "/filename.php"));
  EXPECT_TRUE(Allowed(php_end, "FooBot", "/folder/filename.php"));
  for (const char* no : {"/filename.php?parameters", "/filename.php/", "/filename.php5", "/php/",
                         "/filename?php", "/aaaphpaaa", "//windows.PHP"}) {
    EXPECT_FALSE(Allowed(php_end, "FooBot", no)) << no;
  }
  const std::string fish_php = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n";
  EXPECT_TRUE(Allowed(fish_php, "FooBot", "/fish.php"));
  EXPECT_TRUE(Allowed(fish_php, "FooBot", "/fishheads/catfish.php?parameters"));
  EXPECT_FALSE(Allowed(fish_php, "FooBot", "/Fish.PHP"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "/page"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot",
                      "/folder/page"));
  EXPECT_FALSE(Allowed("user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot",
                       "/page.htm"));
  EXPECT_TRUE(Allowed("user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "/"));
  EXPECT_FALSE(Allowed("user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "/page.html"));
}

TEST(CrawlRobotsTest, LineEndingsAndByteOrderMark) {
  for (const char* eol : {"\n", "\r\n", "\r"}) {
    std::string robots;
    for (const char* line : {"User-Agent: foo", "Allow: /some/path", "User-Agent: bar", "", "",
                             "Disallow: /"}) {
      robots += std::string(line) + eol;
    }
    EXPECT_TRUE(Allowed(robots, "foo", "/some/path")) << int(eol[0]);
    EXPECT_TRUE(Allowed(robots, "foo", "/other")) << int(eol[0]);  // foo's group ends at "bar"
    EXPECT_FALSE(Allowed(robots, "bar", "/other")) << int(eol[0]);
  }
  EXPECT_FALSE(Allowed("User-Agent: foo\nAllow: /a\r\nUser-Agent: bar\r\rDisallow: /", "bar", "/x"));
  EXPECT_FALSE(Allowed("\xEF\xBB\xBFUser-Agent: foo\nDisallow: /AnyValue\n", "foo", "/AnyValue"));
  // Only a whole BOM is skipped; anything else before the key makes the line unreadable.
  EXPECT_TRUE(Allowed("\xEF\x11\xBFUser-Agent: foo\nDisallow: /AnyValue\n", "foo", "/AnyValue"));
}

TEST(CrawlRobotsTest, SitemapsAndCrawlDelay) {
  const RobotsRules rules = RobotsRules::Parse(
      "Sitemap: http://foo.bar/sitemap.xml\n"
      "User-agent: FooBot\nCrawl-delay: 2.5\nDisallow: /x\n"
      "site-map: https://foo.bar/news.xml   # a comment\n"
      "User-agent: *\nCrawl-delay: 10\n"
      "Sitemap: http://foo.bar/sitemap.xml\n",
      "FooBot");
  ASSERT_EQ(rules.Sitemaps().size(), 2u);
  EXPECT_EQ(rules.Sitemaps()[0], "http://foo.bar/sitemap.xml");
  EXPECT_EQ(rules.Sitemaps()[1], "https://foo.bar/news.xml");
  // Relative or schemeless values are not URLs a crawler can fetch; the count is capped.
  const RobotsRules relative = RobotsRules::Parse(
      "Sitemap: /sitemap.xml\nSitemap: foo.bar/s.xml\nSitemap: ftp://foo.bar/s.xml\nSitemap: http:///s.xml\n"
      "Sitemap: HTTPS://Foo.bar/ok.xml\n",
      "FooBot");
  ASSERT_EQ(relative.Sitemaps().size(), 1u);
  EXPECT_EQ(relative.Sitemaps()[0], "HTTPS://Foo.bar/ok.xml");
  std::string many;
  for (size_t i = 0; i < kRobotsMaxSitemaps + 20; ++i) many += "Sitemap: https://foo.bar/s" + std::to_string(i) + ".xml\n";
  const RobotsRules capped = RobotsRules::Parse(many, "FooBot");
  ASSERT_EQ(capped.Sitemaps().size(), kRobotsMaxSitemaps);
  EXPECT_EQ(capped.Sitemaps().back(), "https://foo.bar/s" + std::to_string(kRobotsMaxSitemaps - 1) + ".xml");
  ASSERT_TRUE(rules.CrawlDelay().has_value());
  EXPECT_DOUBLE_EQ(*rules.CrawlDelay(), 2.5);
  EXPECT_DOUBLE_EQ(*RobotsRules::Parse("User-agent: *\nCrawl-delay: 10\n", "X").CrawlDelay(), 10);
  EXPECT_FALSE(RobotsRules::Parse("User-agent: *\nCrawl-delay: soon\n", "X").CrawlDelay());
  EXPECT_FALSE(RobotsRules::Parse("User-agent: *\nCrawl-delay: -1\n", "X").CrawlDelay());
  EXPECT_FALSE(RobotsRules::Parse("Crawl-delay: 3\n", "X").CrawlDelay());
  // The larger delay wins when merged groups give two.
  EXPECT_DOUBLE_EQ(
      *RobotsRules::Parse("User-agent: X\nCrawl-delay: 1\nUser-agent: X\nCrawl-delay: 4\n", "X")
           .CrawlDelay(),
      4);
}

TEST(CrawlRobotsTest, RobotsTxtIsAlwaysAllowed) {
  const RobotsRules rules = RobotsRules::Parse("user-agent: *\ndisallow: /\n", "FooBot");
  EXPECT_TRUE(rules.Allowed("/robots.txt"));
  EXPECT_TRUE(rules.Allowed("https://example.org/robots.txt"));
  EXPECT_FALSE(rules.Allowed("/robots.txt.bak"));
  EXPECT_TRUE(RobotsRules::DisallowAll().Allowed("/robots.txt"));
  EXPECT_FALSE(RobotsRules::DisallowAll().Allowed("/"));
  EXPECT_TRUE(RobotsRules::AllowAll().Allowed("/anything"));
}

TEST(CrawlRobotsTest, LongValuesAreCutAndTheParseLimitHolds) {
  // A value longer than the limit is cut there; the cut disallow still matches its prefix.
  std::string longpath = "/x/" + std::string(kRobotsMaxValueBytes, 'a');
  const std::string robots = "user-agent: FooBot\ndisallow: " + longpath + "/qux\n";
  EXPECT_TRUE(Allowed(robots, "FooBot", "/fux"));
  EXPECT_FALSE(Allowed(robots, "FooBot", longpath + "/fux"));

  // Content beyond 500 KiB is not read: a disallow placed after it has no effect.
  std::string big = "user-agent: FooBot\ndisallow: /early\n";
  while (big.size() < kRobotsParseLimitBytes) big += "# padding padding padding padding\n";
  big += "disallow: /late\n";
  EXPECT_FALSE(Allowed(big, "FooBot", "/early"));
  EXPECT_TRUE(Allowed(big, "FooBot", "/late"));
  // A line cut by the limit is dropped rather than read as a shorter pattern.
  std::string cut = "user-agent: FooBot\n";
  cut += std::string(kRobotsParseLimitBytes - cut.size() - 12, '#') + "\n";
  cut += "disallow: /abcdefgh\n";  // crosses the limit after "disallow: /"
  EXPECT_TRUE(Allowed(cut, "FooBot", "/zzz"));
  // A smaller limit may be configured.
  EXPECT_TRUE(RobotsRules::Parse("user-agent: a\ndisallow: /\n", "a", 14).Allowed("/x"));
}

TEST(CrawlRobotsTest, DecidingRuleExplains) {
  const RobotsRules rules =
      RobotsRules::Parse("user-agent: a\ndisallow: /docs/\nallow: /docs/public/\n", "a");
  const RobotsRule* rule = rules.DecidingRule("/docs/public/x");
  ASSERT_NE(rule, nullptr);
  EXPECT_TRUE(rule->allow);
  EXPECT_EQ(rule->pattern, "/docs/public/");
  EXPECT_EQ(rules.DecidingRule("/other"), nullptr);
}

TEST(CrawlRobotsTest, PathOfUrl) {
  EXPECT_EQ(RobotsPathOf("https://h.example:8080/a/b?q=1#frag"), "/a/b?q=1");
  EXPECT_EQ(RobotsPathOf("https://h.example"), "/");
  EXPECT_EQ(RobotsPathOf("https://h.example?x"), "/?x");
  EXPECT_EQ(RobotsPathOf("/a?b://c"), "/a?b://c");
  EXPECT_EQ(RobotsPathOf(""), "/");
}

TEST(CrawlRobotsTest, PatternMatcher) {
  EXPECT_TRUE(RobotsPatternMatches("/", "/anything"));
  EXPECT_TRUE(RobotsPatternMatches("*", "/"));
  EXPECT_TRUE(RobotsPatternMatches("/a*b*c$", "/aXbYc"));
  EXPECT_FALSE(RobotsPatternMatches("/a*b*c$", "/aXbYcd"));
  EXPECT_TRUE(RobotsPatternMatches("/a**$", "/a"));
  EXPECT_TRUE(RobotsPatternMatches("$", ""));
  EXPECT_FALSE(RobotsPatternMatches("/ab", "/a"));
}

RobotsFetchResult Response(int status, std::string body = "", int redirects = 0) {
  RobotsFetchResult r;
  r.http_status = status;
  r.body = std::move(body);
  r.redirects = redirects;
  return r;
}

TEST(CrawlRobotsTest, FetchOutcomePolicy) {
  RobotsPolicy policy;
  policy.crawler_token = "FooBot";
  const std::string body = "user-agent: FooBot\ndisallow: /private/\n";
  const RobotsDecision ok = DecideRobots(Response(200, body), policy);
  EXPECT_EQ(ok.status, RobotsStatus::kParsed);
  EXPECT_FALSE(ok.rules.Allowed("/private/a"));
  EXPECT_TRUE(ok.rules.Allowed("/public"));
  EXPECT_EQ(DecideRobots(Response(204, ""), policy).status, RobotsStatus::kParsed);

  for (int status : {400, 401, 403, 404, 410, 429, 499}) {
    const RobotsDecision d = DecideRobots(Response(status, body), policy);
    EXPECT_EQ(d.status, RobotsStatus::kUnavailable) << status;
    EXPECT_TRUE(d.rules.Allowed("/private/a")) << status;  // the body of an error is not read
  }
  for (int status : {500, 502, 503, 599, 0, 100, 600}) {
    const RobotsDecision d = DecideRobots(Response(status, body), policy);
    EXPECT_EQ(d.status, RobotsStatus::kUnreachable) << status;
    EXPECT_FALSE(d.rules.Allowed("/public")) << status;
    EXPECT_TRUE(d.rules.Allowed("/robots.txt")) << status;
  }
  RobotsFetchResult network;
  network.kind = RobotsFetchResult::Kind::kNetworkError;
  EXPECT_EQ(DecideRobots(network, policy).status, RobotsStatus::kUnreachable);

  // Five redirects are followed; a sixth, or a final 3xx, reaches no file.
  EXPECT_EQ(DecideRobots(Response(200, body, 5), policy).status, RobotsStatus::kParsed);
  EXPECT_EQ(DecideRobots(Response(200, body, 6), policy).status, RobotsStatus::kUnreachable);
  EXPECT_EQ(DecideRobots(Response(301, "", 5), policy).status, RobotsStatus::kUnreachable);
  policy.too_many_redirects_is_unavailable = true;
  EXPECT_EQ(DecideRobots(Response(200, body, 6), policy).status, RobotsStatus::kUnavailable);
  EXPECT_EQ(RobotsStatusName(RobotsStatus::kUnreachable), "unreachable");
}

TEST(CrawlRobotsTest, CacheEntryLivesAtMost24Hours) {
  testing_support::FakeClock clock;
  const RobotsCacheEntry entry = MakeRobotsCacheEntry(
      DecideRobots(Response(200, "user-agent: *\ndisallow: /a\n"), RobotsPolicy{}), clock);
  EXPECT_TRUE(entry.FreshAt(clock));
  clock.SleepFor(std::chrono::hours(23));
  EXPECT_TRUE(entry.FreshAt(clock));
  EXPECT_FALSE(entry.FreshAt(clock, std::chrono::hours(1)));  // a shorter age may be asked for
  clock.SleepFor(std::chrono::hours(1));
  EXPECT_FALSE(entry.FreshAt(clock));
  EXPECT_FALSE(entry.FreshAt(clock, std::chrono::hours(48)));  // never longer than 24 h
  EXPECT_FALSE(entry.decision.rules.Allowed("/a"));
}

}  // namespace
}  // namespace attest
