// Structure the markup gives (docs/formats.md, "Chunk structure"): definition lists and tables
// in HTML, with fixtures shaped like the real pages (asciidoc's git manuals, DocBook's PostgreSQL
// variable lists, SQLite's hand-written pages), and the real pages when they are installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ingest/html_extractor.h"
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

TEST(IngestStructure, AHeaderRowAloneIsAnOrdinaryTable) {
  EXPECT_EQ(BlocksToString(Extract("<body><table><tr><th>A</th><th>B</th></tr></table></body>")), "TABLE: A | B\n");
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
