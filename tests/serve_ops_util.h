// Helpers shared by the black-box operations tests (serve_ops_test, serve_integrity_test): keys
// made with the real CLI, one HTTP call with a bearer key, and the JSON body of a reply.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "support/http_test_client.h"
#include "support/process.h"

namespace attest::ops_test {

inline std::string CreateKey(const std::string& data, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--data", data, "keys", "create", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = testing_support::RunAttest(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return j.is_object() && j.contains("key") ? j["key"].get<std::string>() : std::string();
}

inline testing_support::HttpReply Call(uint16_t port, const std::string& method, const std::string& path,
                                       const std::string& key, const std::string& body = "") {
  testing_support::HttpCall c;
  c.method = method;
  c.path = path;
  c.body = body;
  if (!key.empty()) c.headers["Authorization"] = "Bearer " + key;
  return testing_support::HttpRequest(port, c);
}

inline nlohmann::json Body(const testing_support::HttpReply& r) {
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "status " << r.status << ": " << r.body;
  return j;
}

inline std::string ErrorCode(const testing_support::HttpReply& r) {
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("error")) return "";
  return j["error"].value("code", "");
}

// Runs `sql` on the SQLite database at `path` (what an operator's sqlite3 shell would do) and
// returns the first column of the first row as text ("" when none). Fails the test on an error.
inline std::string SqlText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path << ": " << (db ? sqlite3_errmsg(db) : "?");
    sqlite3_close(db);
    return out;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
  } else {
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0)) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

inline std::string ErrorMessage(const testing_support::HttpReply& r) {
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return "";
  return j["error"].value("message", "");
}

}  // namespace attest::ops_test
