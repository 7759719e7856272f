// Structure the markup gives (docs/formats.md, "Chunk structure"): definition lists and tables
// in HTML, with fixtures shaped like the real pages (asciidoc's git manuals, DocBook's PostgreSQL
// variable lists, SQLite's hand-written pages), and the real pages when they are installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ingest/html_extractor.h"
#include "ingest/markdown_parser.h"
#include "ingest/text_parser.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::BlocksToString;

ParsedDocument Extract(std::string_view html) {
  ParsedDocument doc;
  const Status st = ExtractHtml(html, &doc);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return doc;
}

// asciidoc (git-doc): <div class="dlist"><dl><dt class="hdlist1">, paragraphs and listings in <dd>.
TEST(IngestStructure, AsciidocDefinitionListGivesEachParagraphItsTerm) {
  const ParsedDocument doc = Extract(R"(<body><h2 id="_options">OPTIONS</h2><div class="sectionbody">
<div class="dlist"><dl>
<dt class="hdlist1">
core.eol
</dt>
<dd>
<p>
        Sets the line ending type.  The default value is <code>native</code>.
</p>
<div class="listingblock"><div class="content"><pre><code>[core]
        eol = lf</code></pre></div></div>
<p>Second paragraph.</p>
</dd>
<dt class="hdlist1">
-i
</dt>
<dt class="hdlist1">
--interactive
</dt>
<dd>
<p>Make a list of the commits.</p>
</dd>
</dl></div></div><p>After the list.</p></body>)");
  EXPECT_EQ(BlocksToString(doc),
            "H2: OPTIONS\n"
            "DEF[core.eol]: core.eol\n"
            "DEF[core.eol]: Sets the line ending type. The default value is native.\n"
            "CODE[core.eol]: [core]\n        eol = lf\n"
            "DEF[core.eol]: Second paragraph.\n"
            "DEF[-i, --interactive]: -i, --interactive\n"
            "DEF[-i, --interactive]: Make a list of the commits.\n"
            "P: After the list.\n");
}

// DocBook (postgresql-doc): the term holds the name and its type; the description several <p>.
TEST(IngestStructure, DocbookVariableListKeepsTheTermTextAsSubject) {
  const ParsedDocument doc = Extract(R"(<body><div class="variablelist"><dl class="variablelist">
<dt id="GUC-MAX-WAL-SENDERS"><span class="term"><code class="varname">max_wal_senders</code> (<code class="type">integer</code>)
       <a id="id-1" class="indexterm"></a>
       </span></dt><dd><p>
        Specifies the maximum number of concurrent connections. The default is
        <code class="literal">10</code>.
       </p><p>
         When running a standby server, you must set this parameter.
        </p></dd><dt id="GUC-MAX-REPLICATION-SLOTS"><span class="term"><code class="varname">max_replication_slots</code> (<code class="type">integer</code>)
       </span></dt><dd><p>Specifies the maximum number of replication slots. The default is 10.</p></dd></dl></div></body>)");
  EXPECT_EQ(BlocksToString(doc),
            "DEF[max_wal_senders (integer)]: max_wal_senders (integer)\n"
            "DEF[max_wal_senders (integer)]: Specifies the maximum number of concurrent connections. The default is "
            "10.\n"
            "DEF[max_wal_senders (integer)]: When running a standby server, you must set this parameter.\n"
            "DEF[max_replication_slots (integer)]: max_replication_slots (integer)\n"
            "DEF[max_replication_slots (integer)]: Specifies the maximum number of replication slots. The default is "
            "10.\n");
}

// SQLite's pages put bare text in <dd>; a list nested in a description has its own terms and the
// outer term resumes after it.
TEST(IngestStructure, NestedListsHaveTheirOwnSubjectsAndTheOuterResumes) {
  const ParsedDocument doc = Extract(R"(<body><dl>
<dt><b>synchronous</b></dt>
<dd>Sets the flag.
  <dl><dt><b>FULL</b> (2)</dt><dd>Syncs everything.</dd><dt>OFF (0)</dt><dd>Syncs nothing.</dd></dl>
  <p>The default is FULL.</p>
  <ul><li>an item</li></ul>
</dd></dl></body>)");
  EXPECT_EQ(BlocksToString(doc),
            "DEF[synchronous]: synchronous\n"
            "DEF[synchronous]: Sets the flag.\n"
            "DEF[FULL (2)]: FULL (2)\n"
            "DEF[FULL (2)]: Syncs everything.\n"
            "DEF[OFF (0)]: OFF (0)\n"
            "DEF[OFF (0)]: Syncs nothing.\n"
            "DEF[synchronous]: The default is FULL.\n"
            "LI[synchronous]: an item\n");
}

TEST(IngestStructure, TermsWithoutADescriptionStayParagraphs) {
  EXPECT_EQ(BlocksToString(Extract("<body><dl><dt>alone</dt></dl><p>next</p></body>")), "P: alone\nP: next\n");
  EXPECT_EQ(BlocksToString(Extract("<body><dl><dd>no term</dd></dl></body>")), "P: no term\n");
  EXPECT_EQ(BlocksToString(Extract("<body><dl><dt></dt><dd>empty term</dd></dl></body>")), "P: empty term\n");
}

// A book index: many bare <dt> in a row, the last with a <dd> of sub-entries. The bare terms are
// entries of their own, not aliases of the last one (its subject stays short).
TEST(IngestStructure, ALongRunOfBareTermsIsNotOneSubject) {
  EXPECT_EQ(BlocksToString(Extract("<body><dl><dt>wal_buffers, Settings</dt><dt>wal_level, Settings</dt>"
                                   "<dt>wal_log_hints, Settings</dt><dt>warm standby, Replication</dt>"
                                   "<dt>WHERE, The WHERE Clause</dt><dt>WHILE</dt>"
                                   "<dd><dl><dt>in PL/pgSQL, Loops</dt></dl></dd></dl></body>")),
            "DEF[wal_buffers, Settings]: wal_buffers, Settings\n"
            "DEF[wal_level, Settings]: wal_level, Settings\n"
            "DEF[wal_log_hints, Settings]: wal_log_hints, Settings\n"
            "DEF[warm standby, Replication]: warm standby, Replication\n"
            "DEF[WHERE, The WHERE Clause]: WHERE, The WHERE Clause\n"
            "DEF[WHILE]: WHILE\n"
            "DEF[WHILE]: in PL/pgSQL, Loops\n");
  // Aliases of one option stay one subject.
  EXPECT_EQ(BlocksToString(Extract("<body><dl><dt>-i</dt><dt>--interactive</dt><dd><p>Edit the list.</p></dd></dl></body>")),
            "DEF[-i, --interactive]: -i, --interactive\nDEF[-i, --interactive]: Edit the list.\n");
}

TEST(IngestStructure, RowHeadersNameTheRowAndColspanKeepsColumns) {
  const ParsedDocument doc = Extract(R"(<body><table>
<tr><th>&nbsp;</th><th>SQLite</th><th>PostgreSQL</th></tr>
<tr><td>Adding anything to null gives null</td><td>Yes</td><td>Yes</td></tr>
<tr><th scope="row">Wide</th><td colspan="2">both</td></tr>
</table><table><tbody><tr><th>Key</th><td>v1</td></tr><tr><th>Other</th><td>v2</td></tr></tbody></table></body>)");
  EXPECT_EQ(BlocksToString(doc),
            "ROW[Adding anything to null gives null]: Adding anything to null gives null | SQLite: Yes | "
            "PostgreSQL: Yes\n"
            "ROW[Wide]: Wide | SQLite: both\n"
            "ROW[Key]: Key | v1\n"
            "ROW[Other]: Other | v2\n");
}

TEST(IngestStructure, ATableInADescriptionNamesRowsByTheirHeadersElseByTheTerm) {
  EXPECT_EQ(BlocksToString(Extract("<body><dl><dt>mode</dt><dd><p>One of:</p><table>"
                                   "<tr><th>Value</th><th>Meaning</th></tr><tr><td>fast</td><td>no sync</td></tr>"
                                   "<tr><td></td><td>reserved</td></tr></table></dd></dl></body>")),
            "DEF[mode]: mode\nDEF[mode]: One of:\nROW[fast]: Value: fast | Meaning: no sync\n"
            "ROW[mode]: Meaning: reserved\n");
}

TEST(IngestStructure, AHeaderRowAloneIsAnOrdinaryTable) {
  EXPECT_EQ(BlocksToString(Extract("<body><table><tr><th>A</th><th>B</th></tr></table></body>")), "TABLE: A | B\n");
}

// --- Markdown ---

ParsedDocument Md(std::string_view text) {
  ParsedDocument doc;
  const Status st = ParseMarkdown(text, &doc);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return doc;
}

TEST(IngestStructureMarkdown, DefinitionListsInTheColonForm) {
  EXPECT_EQ(BlocksToString(Md("## Options\n"
                              "\n"
                              "`core.eol`\n"
                              ": Sets the line ending.\n"
                              "  The default is `native`.\n"
                              "\n"
                              "    A second paragraph of the same entry.\n"
                              "\n"
                              "timeout\n"
                              "\n"
                              ": Seconds to wait.\n"
                              ": Zero waits forever.\n"
                              "\n"
                              "Ordinary paragraph after the list.\n")),
            "H2: Options\n"
            "DEF[core.eol]: core.eol\n"
            "DEF[core.eol]: Sets the line ending. The default is native.\n"
            "DEF[core.eol]: A second paragraph of the same entry.\n"
            "DEF[timeout]: timeout\n"
            "DEF[timeout]: Seconds to wait.\n"
            "DEF[timeout]: Zero waits forever.\n"
            "P: Ordinary paragraph after the list.\n");
}

TEST(IngestStructureMarkdown, ListItemsThatLeadWithATerm) {
  EXPECT_EQ(BlocksToString(Md("- `--force`: Overwrite the file.\n"
                              "- **timeout** - Seconds to wait.\n"
                              "- **retries:** How often.\n"
                              "- __mode__ \xE2\x80\x94 One of a, b.\n"
                              "- `code` in running text: no term.\n"
                              "- plain item: no term\n"
                              "- **bold** words without a separator\n")),
            "LI[--force]: --force: Overwrite the file.\n"
            "LI[timeout]: timeout - Seconds to wait.\n"
            "LI[retries]: retries: How often.\n"
            "LI[mode]: mode \xE2\x80\x94 One of a, b.\n"
            "LI: code in running text: no term.\n"
            "LI: plain item: no term\n"
            "LI: bold words without a separator\n");
}

TEST(IngestStructureMarkdown, PipeTableRowsCarryTheirHeaders) {
  EXPECT_EQ(BlocksToString(Md("| Setting | Default | Notes |\n|---|---|---|\n| `max_connections` | 100 | |\n"
                              "| work_mem | 4MB | per sort |\n\n| Only | Header |\n|---|---|\n")),
            "ROW[max_connections]: Setting: max_connections | Default: 100\n"
            "ROW[work_mem]: Setting: work_mem | Default: 4MB | Notes: per sort\n"
            "TABLE: Only | Header\n");
}

// Prose that merely has a colon, a long line before ": ", or a quote is not a definition.
TEST(IngestStructureMarkdown, ProseStaysProse) {
  EXPECT_EQ(BlocksToString(Md("Note: this is a sentence with a colon.\n\nA paragraph.\n: not after a short term? "
                              "It is: the paragraph is one short line.\n")),
            "P: Note: this is a sentence with a colon.\nDEF[A paragraph.]: A paragraph.\n"
            "DEF[A paragraph.]: not after a short term? It is: the paragraph is one short line.\n");
  const std::string long_line(120, 'x');
  EXPECT_EQ(BlocksToString(Md(long_line + "\n: colon line\n")), "P: " + long_line + " : colon line\n");
  EXPECT_EQ(BlocksToString(Md("> quoted\n: colon\n")), "P: quoted\nP: : colon\n");
  EXPECT_EQ(BlocksToString(Md("- item\n: colon\n")), "LI: item : colon\n");
}

// --- plain text ---

std::string Text(std::string_view text) {
  ParsedDocument doc;
  ParsePlainText(text, "file.txt", &doc);
  return BlocksToString(doc);
}

// The shape of git's Documentation/*.txt (asciidoc labelled lists with "+" continuations).
TEST(IngestStructureText, AsciidocLabelledLists) {
  EXPECT_EQ(Text("blame options\n\n"
                 "-b::\n\tShow blank SHA-1 for boundary commits.  This can also\n\tbe controlled via config.\n\n"
                 "-L <start>,<end>::\n-L :<funcname>::\n\tAnnotate only the line range.\n+\n"
                 "'<start>' and '<end>' are optional.\n\n"
                 "--root::\n\n    Do not treat root commits as boundaries.\n\n"
                 "An ordinary closing paragraph.\n"),
            "H1: blame options\n"
            "DEF[-b]: -b\n"
            "DEF[-b]: Show blank SHA-1 for boundary commits. This can also be controlled via config.\n"
            "DEF[-L <start>,<end>, -L :<funcname>]: -L <start>,<end>, -L :<funcname>\n"
            "DEF[-L <start>,<end>, -L :<funcname>]: Annotate only the line range.\n"
            "DEF[-L <start>,<end>, -L :<funcname>]: '<start>' and '<end>' are optional.\n"
            "DEF[--root]: --root\n"
            "DEF[--root]: Do not treat root commits as boundaries.\n"
            "P: An ordinary closing paragraph.\n");
}

// The shape of a formatted manual page (man git-rebase | col -b).
TEST(IngestStructureText, ManPageOptionLists) {
  EXPECT_EQ(Text("GIT-REBASE(1)\n\nOPTIONS\n"
                 "       --onto <newbase>\n"
                 "           Starting point at which to create the new commits.\n"
                 "           The default is upstream.\n\n"
                 "           See also the examples.\n\n"
                 "       -i, --interactive[=<mode>]\n"
                 "           Make a list of the commits.\n\n"
                 "       Some prose at the option indentation ends the entry.\n"),
            "H1: GIT-REBASE(1)\n"
            "P: OPTIONS\n"
            "DEF[--onto <newbase>]: --onto <newbase>\n"
            "DEF[--onto <newbase>]: Starting point at which to create the new commits. The default is upstream.\n"
            "DEF[--onto <newbase>]: See also the examples.\n"
            "DEF[-i, --interactive[=<mode>]]: -i, --interactive[=<mode>]\n"
            "DEF[-i, --interactive[=<mode>]]: Make a list of the commits.\n"
            "P: Some prose at the option indentation ends the entry.\n");
}

// Prose with dashes, colons and indentation stays ordinary paragraphs.
TEST(IngestStructureText, ProseIsNotADefinition) {
  const std::string prose =
      "Notes\n\n"
      "- first point of a dash list\n  continued on an indented line\n\n"
      "-- a signature line\n    indented text after it\n\n"
      "-- sig\n    indented text after it\n\n"
      "The following applies: see below.\n    An indented quotation follows.\n\n"
      "-5 degrees is cold, as everyone knows, and people say so often in winter\n   indented\n\n"
      "Note::this is not a term\n\n"
      "  Label::\n  indented label line, not at the start\n\n"
      "Term::\n\nNo description: the next paragraph is not indented.\n";
  EXPECT_EQ(Text(prose),
            "H1: Notes\n"
            "P: - first point of a dash list continued on an indented line\n"
            "P: -- a signature line indented text after it\n"
            "P: -- sig indented text after it\n"
            "P: The following applies: see below. An indented quotation follows.\n"
            "P: -5 degrees is cold, as everyone knows, and people say so often in winter indented\n"
            "P: Note::this is not a term\n"
            "P: Label:: indented label line, not at the start\n"
            "P: Term::\n"
            "P: No description: the next paragraph is not indented.\n");
  ParsedDocument doc;
  ParsePlainText("Release Notes\n\nFirst para\nline two\n\n\n\nSecond para\n", "notes.txt", &doc);
  for (const Block& b : doc.blocks) EXPECT_EQ(b.subject, "");
}

// --- the real pages, when installed ---

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The blocks whose subject is `subject`, joined by newlines.
std::string TextAbout(const ParsedDocument& doc, std::string_view subject) {
  std::string out;
  for (const Block& b : doc.blocks) {
    if (b.subject == subject) out += b.text + "\n";
  }
  return out;
}

ParsedDocument ExtractFile(const std::filesystem::path& p) {
  ParsedDocument doc;
  const Status st = ExtractHtml(ReadAll(p), &doc);
  EXPECT_TRUE(st.ok()) << p << ": " << st.ToString();
  return doc;
}

TEST(IngestStructureRealPages, GitConfigAndRebase) {
  const std::filesystem::path dir = "/usr/share/doc/git-doc";
  if (!std::filesystem::exists(dir / "git-config.html")) GTEST_SKIP() << "git-doc not installed";
  const ParsedDocument config = ExtractFile(dir / "git-config.html");
  const std::string eol = TextAbout(config, "core.eol");
  EXPECT_NE(eol.find("The default value is native."), std::string::npos) << eol;
  EXPECT_EQ(eol.find("core.autocrlf\n"), std::string::npos) << eol;
  const ParsedDocument rebase = ExtractFile(dir / "git-rebase.html");
  const std::string onto = TextAbout(rebase, "--onto <newbase>");
  EXPECT_NE(onto.find("Starting point at which to create the new commits"), std::string::npos) << onto;
}

TEST(IngestStructureRealPages, GitAsciidocText) {
  const std::filesystem::path page = "/usr/share/doc/git-doc/blame-options.txt";
  if (!std::filesystem::exists(page)) GTEST_SKIP() << "git-doc not installed";
  ParsedDocument doc;
  ParsePlainText(ReadAll(page), "blame-options.txt", &doc);
  EXPECT_NE(TextAbout(doc, "--root").find("Do not treat root commits as boundaries."), std::string::npos);
  EXPECT_NE(TextAbout(doc, "-L <start>,<end>, -L :<funcname>").find("optional"), std::string::npos);
}

TEST(IngestStructureRealPages, PostgresVariableList) {
  const std::filesystem::path page = "/usr/share/doc/postgresql-doc-15/html/runtime-config-replication.html";
  if (!std::filesystem::exists(page)) GTEST_SKIP() << "postgresql-doc-15 not installed";
  const ParsedDocument doc = ExtractFile(page);
  const std::string senders = TextAbout(doc, "max_wal_senders (integer)");
  EXPECT_NE(senders.find("The default is 10."), std::string::npos) << senders;
  EXPECT_EQ(senders.find("max_replication_slots"), std::string::npos) << senders;
}

}  // namespace
}  // namespace attest
