// The OpenAPI document against the route table (issue 15): every route of server/routes.cc is an
// operation of the document and every operation a route, each with a unique operationId, a 4xx
// response, servers and a licence; no `nullable` without a `type` (OpenAPI 3.0.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "server/routes.h"
#include "service/contracts.h"

namespace attest {
namespace {

using nlohmann::json;
using Pairs = std::set<std::pair<std::string, std::string>>;

std::string Document() { return service::OpenApiJson("9.9.9", &server::HttpStatusOf); }

TEST(OpenApiRoutes, TheDocumentHasExactlyTheRoutesOfTheTable) {
  server::RouteContext ctx;  // no page: "/" and "/assets/{name}" are the web page, not the API
  const auto routes = server::BuildRoutes(&ctx).Routes();
  ASSERT_GT(routes.size(), 10u);
  const Pairs table(routes.begin(), routes.end());
  const auto ops = service::OpenApiOperations(Document());
  const Pairs documented(ops.begin(), ops.end());
  EXPECT_EQ(table.size(), routes.size()) << "a route is added twice";
  for (const auto& r : table) EXPECT_TRUE(documented.count(r)) << "not in the OpenAPI document: " << r.first << " " << r.second;
  for (const auto& d : documented) EXPECT_TRUE(table.count(d)) << "not a route: " << d.first << " " << d.second;
}

TEST(OpenApiRoutes, TheComparisonSeesAMissingOperation) {
  json doc = json::parse(Document());
  doc["paths"].erase("/v1/me");
  const auto ops = service::OpenApiOperations(doc.dump());
  EXPECT_EQ(std::count(ops.begin(), ops.end(), std::make_pair(std::string("GET"), std::string("/v1/me"))), 0);
  EXPECT_TRUE(service::OpenApiOperations("not json").empty());
}

TEST(OpenApiRoutes, EveryOperationHasAUniqueCamelCaseIdAndA4xxResponse) {
  const json doc = json::parse(Document());
  std::set<std::string> ids;
  size_t operations = 0;
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      ++operations;
      ASSERT_TRUE(op.contains("operationId")) << method << " " << path;
      const std::string id = op["operationId"];
      EXPECT_TRUE(!id.empty() && std::islower(static_cast<unsigned char>(id[0])) &&
                  std::all_of(id.begin(), id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
          << id;
      EXPECT_TRUE(ids.insert(id).second) << "duplicate operationId " << id;
      bool has_4xx = false;
      for (const auto& [status, response] : op["responses"].items()) has_4xx |= status[0] == '4';
      EXPECT_TRUE(has_4xx) << method << " " << path;
    }
  }
  EXPECT_EQ(ids.size(), operations);
  EXPECT_EQ(doc["paths"]["/v1/search"]["post"]["operationId"], "search");
  EXPECT_EQ(doc["servers"][0]["url"], "/");
  EXPECT_EQ(doc["info"]["license"]["name"], "Apache-2.0");
  EXPECT_EQ(doc["info"]["license"]["url"], "https://www.apache.org/licenses/LICENSE-2.0");
}

// Walks every schema-like object: `nullable` needs a `type` beside it in OpenAPI 3.0.3.
void ExpectNoUntypedNullable(const json& j, const std::string& where) {
  if (j.is_object()) {
    if (j.contains("nullable")) {
      EXPECT_TRUE(j.contains("type")) << where;
    }
    for (const auto& [k, v] : j.items()) ExpectNoUntypedNullable(v, where + "/" + k);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) ExpectNoUntypedNullable(j[i], where + "/" + std::to_string(i));
  }
}

TEST(OpenApiRoutes, NoNullableWithoutType) {
  const json doc = json::parse(Document());
  ExpectNoUntypedNullable(doc, "#");
  // The nested-object fields keep their $ref (through allOf) and are typed objects.
  const json& filters = doc["components"]["schemas"]["SearchRequest"]["properties"]["filters"];
  EXPECT_EQ(filters["type"], "object");
  EXPECT_TRUE(filters.contains("allOf"));
}

TEST(OpenApiRoutes, EveryErrorResponseComponentIsUsed) {
  const json doc = json::parse(Document());
  const std::string paths = doc["paths"].dump();
  for (const auto& [name, response] : doc["components"]["responses"].items()) {
    EXPECT_NE(paths.find("#/components/responses/" + name + "\""), std::string::npos) << name;
  }
  EXPECT_NE(doc["components"]["schemas"]["Error"]["description"].get<std::string>().find("method_not_allowed:"),
            std::string::npos);
}

}  // namespace
}  // namespace attest
