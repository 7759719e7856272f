// Black-box tests of `attest mcp`, the MCP server over stdio (docs/mcp.md, "stdio"): the real
// binary reads newline-delimited JSON-RPC from stdin and writes one response per line to stdout
// (nothing else), takes its key from ATTEST_API_KEY (exit 2 and an empty stdout without a valid
// one), refuses an oversized line and goes on, serves both protocol eras, and stops with status 0
// at end of input.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/process.h"

extern char** environ;

namespace attest {
namespace {

using nlohmann::json;
using testing_support::CreateApiKey;
using testing_support::ProcessResult;
using testing_support::TempDir;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `attest --data DATA mcp EXTRA...` with `input` on stdin and ATTEST_API_KEY=`key` ("" = unset).
ProcessResult RunMcp(const TempDir& dir, const std::string& data, const std::string& key, const std::string& input,
                     const std::vector<std::string>& extra = {}) {
  static int run = 0;
  const std::string in = dir.str("in" + std::to_string(run)), out = dir.str("out" + std::to_string(run)),
                    err = dir.str("err" + std::to_string(run));
  ++run;
  std::ofstream(in, std::ios::binary) << input;
  std::vector<std::string> args = {ATTEST_BINARY, "--data", data, "mcp"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::string(*e).rfind("ATTEST_API_KEY=", 0) != 0) env_strings.push_back(*e);
  }
  if (!key.empty()) env_strings.push_back("ATTEST_API_KEY=" + key);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  ProcessResult r;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) {
    ADD_FAILURE() << "cannot start " << ATTEST_BINARY;
    return r;
  }
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.out = ReadAll(out);
  r.err = ReadAll(err);
  return r;
}

// Every stdout line parsed; a line that is not a JSON-RPC message fails the test.
std::vector<json> Lines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, false);
    EXPECT_TRUE(j.is_object() || j.is_array()) << "not a JSON-RPC message on stdout: " << line;
    if (j.is_object()) {
      EXPECT_EQ(j.value("jsonrpc", ""), "2.0") << line;
    }
    lines.push_back(j);
  }
  EXPECT_TRUE(out.empty() || out.back() == '\n');
  return lines;
}

std::string Modern(int id, const std::string& method, json params = json::object()) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", json::object()}};
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump() + "\n";
}

class CliMcpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.str("data");
    admin_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    reader_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "reader"});
    ASSERT_FALSE(admin_.empty());
    ASSERT_FALSE(reader_.empty());
  }
  TempDir dir_;
  std::string data_, admin_, reader_;
};

TEST_F(CliMcpTest, WithoutAValidKeyExits2AndWritesNothingOnStdout) {
  ProcessResult none = RunMcp(dir_, data_, "", Modern(1, "tools/list"));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("ATTEST_API_KEY"), std::string::npos) << none.err;
  ProcessResult wrong = RunMcp(dir_, data_, "att_nope_nope", Modern(1, "tools/list"));
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_EQ(wrong.out, "");
  EXPECT_NE(wrong.err.find("not accepted"), std::string::npos) << wrong.err;
}

TEST_F(CliMcpTest, AddsAsksAndSearchesOverStdioThenStopsAtEndOfInput) {
  const std::string add = Modern(1, "tools/call", {{"name", "add_document"},
                                                   {"arguments", {{"id", "kettle"}, {"title", "Zephyr kettle warranty"},
                                                                  {"url", "https://acme.example/kettle"},
                                                                  {"text", "The Zephyr kettle comes with a two-year "
                                                                           "warranty that covers the heating element."}}}});
  ProcessResult admin = RunMcp(dir_, data_, admin_, add);
  ASSERT_EQ(admin.exit_code, 0) << admin.err;
  std::vector<json> a = Lines(admin.out);
  ASSERT_EQ(a.size(), 1u) << admin.out;
  EXPECT_FALSE(a[0]["result"]["isError"].get<bool>()) << a[0];

  const std::string input = Modern(1, "tools/list") +
                            Modern(2, "tools/call", {{"name", "ask"},
                                                     {"arguments", {{"question", "How long is the Zephyr kettle warranty?"}}}}) +
                            "\n" +  // a blank line is skipped
                            Modern(3, "tools/call", {{"name", "search"}, {"arguments", {{"query", "kettle"}}}}) +
                            Modern(4, "tools/call", {{"name", "add_document"}, {"arguments", {{"id", "y"}, {"text", "t"}}}});
  ProcessResult r = RunMcp(dir_, data_, reader_, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0]["result"]["tools"].size(), 4u);
  const json& ask = lines[1]["result"];
  ASSERT_EQ(ask["structuredContent"]["outcome"], "answer") << ask;
  EXPECT_NE(ask["structuredContent"]["answer"].get<std::string>().find("[1]"), std::string::npos) << ask;
  EXPECT_EQ(ask["structuredContent"]["sources"][0]["url"], "https://acme.example/kettle");
  EXPECT_NE(ask["content"][0]["text"].get<std::string>().find("Sources:\n[1] Zephyr kettle warranty"),
            std::string::npos);
  EXPECT_EQ(lines[2]["result"]["structuredContent"]["hits"][0]["doc_id"], "kettle");
  EXPECT_TRUE(lines[3]["result"]["isError"].get<bool>()) << "a reader's key added a document: " << lines[3];
  // The same audit log as the HTTP API.
  EXPECT_NE(ReadAll(data_ + "/audit.jsonl").find("stdio:mcp"), std::string::npos);
}

TEST_F(CliMcpTest, AnOversizedLineIsRefusedAndTheNextOneServed) {
  const std::string big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"" +
                          std::string(5000, 'x') + "\"}}\n";
  ProcessResult r = RunMcp(dir_, data_, reader_, big + Modern(2, "server/discover"), {"--max-line-bytes", "1024"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0]["error"]["code"], -32600);
  EXPECT_NE(lines[0]["error"]["message"].get<std::string>().find("longer than 1024 bytes"), std::string::npos);
  EXPECT_EQ(lines[1]["id"], 2);
  EXPECT_EQ(lines[1]["result"]["supportedVersions"][0], "2026-07-28");
}

TEST_F(CliMcpTest, TheLegacyHandshakeHoldsForTheProcess) {
  const std::string input =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n"  // before initialize: no version known
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
      "\"capabilities\":{},\"clientInfo\":{\"name\":\"old\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n"
      "not json\n";
  ProcessResult r = RunMcp(dir_, data_, reader_, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;  // nothing for the notification
  EXPECT_EQ(lines[0]["error"]["code"], -32602);
  EXPECT_EQ(lines[1]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(lines[2]["id"], 3);
  EXPECT_EQ(lines[2]["result"]["tools"].size(), 4u);
  EXPECT_FALSE(lines[2]["result"].contains("resultType"));
  EXPECT_EQ(lines[3]["result"], json::object());
  EXPECT_EQ(lines[4]["error"]["code"], -32700);
  EXPECT_FALSE(lines[4].contains("id"));
}

}  // namespace
}  // namespace attest
