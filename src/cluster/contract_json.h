// The JSON plumbing of the shard contract's codecs (shard_contract.cc, document_contract.cc):
// a field reader that names the field it refuses, the body parser that checks size, nesting and
// the contract's version, and the caller's filter both ways. Internal to src/cluster.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/engine.h"
#include "cluster/shard_contract.h"
#include "common/json_guard.h"

namespace attest::contract_json {

using json = nlohmann::json;

constexpr int kMaxDepth = 16;
constexpr size_t kMaxValues = 2'000'000;

// A field read that names the field when it is missing or of the wrong type.
class Reader {
 public:
  Reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  const json& Field(const char* name, json::value_t type, bool required = true) const {
    static const json kNull;
    auto it = j_.find(name);
    if (it == j_.end()) {
      if (required) throw Bad{path_ + name + " is missing"};
      return kNull;
    }
    const bool number = type == json::value_t::number_unsigned || type == json::value_t::number_float;
    const bool ok = number ? (type == json::value_t::number_float ? it->is_number() : it->is_number_unsigned())
                           : it->type() == type;
    if (!ok) throw Bad{path_ + name + " has the wrong type"};
    return *it;
  }
  std::string Str(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::string, required);
    return v.is_null() ? std::string() : v.get<std::string>();
  }
  uint64_t U64(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::number_unsigned, required);
    return v.is_null() ? 0 : v.get<uint64_t>();
  }
  double Num(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::number_float, required);
    return v.is_null() ? 0 : v.get<double>();
  }
  bool Bool(const char* name, bool required = true) const {
    const json& v = Field(name, json::value_t::boolean, required);
    return !v.is_null() && v.get<bool>();
  }
  std::vector<std::string> Strings(const char* name) const {
    const json& v = Field(name, json::value_t::array, false);
    std::vector<std::string> out;
    for (const json& s : v.is_null() ? json::array() : v) {
      if (!s.is_string()) throw Bad{path_ + name + " must hold strings"};
      out.push_back(s.get<std::string>());
    }
    return out;
  }
  std::optional<std::vector<std::string>> OptStrings(const char* name) const {
    if (!j_.contains(name) || j_[name].is_null()) return std::nullopt;
    return Strings(name);
  }
  std::optional<std::string> OptStr(const char* name) const {
    if (!j_.contains(name) || j_[name].is_null()) return std::nullopt;
    return Str(name);
  }

  struct Bad {
    std::string message;
  };

 private:
  const json& j_;
  std::string path_;
};

inline Result<json> ParseBody(std::string_view body, const char* want) {
  if (JsonNestingExceeds(body, kMaxDepth) || ScanJsonShape(body, kMaxDepth, kMaxValues).problem !=
                                                    JsonShapeScan::Problem::kNone) {
    return Status::InvalidArgument("body: nests too deep or holds too many values");
  }
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument("body: not a JSON object");
  auto c = j.find("contract");
  if (c == j.end() || !c->is_string()) return Status::InvalidArgument("contract: missing");
  if (c->get<std::string>() != kShardContract) {
    return Status::InvalidArgument("contract: '" + c->get<std::string>() + "' is not " + std::string(kShardContract));
  }
  if (!j.contains(want) || !j[want].is_object()) return Status::InvalidArgument(std::string(want) + ": missing");
  return j;
}

// The caller's filter (what it may read: tenant, groups, clearance, and its narrowing).
inline json FilterJson(const SearchFilter& filter) {
  json f = {{"tenant", filter.tenant},
            {"source_types", filter.source_types},
            {"sites", filter.sites},
            {"versions", filter.versions}};
  if (filter.groups) f["groups"] = *filter.groups;
  if (filter.clearance) f["clearance"] = *filter.clearance;
  if (filter.date_from) f["date_from"] = *filter.date_from;
  if (filter.date_to) f["date_to"] = *filter.date_to;
  return f;
}

inline SearchFilter FilterFrom(const json& j, const std::string& path) {
  Reader f(j, path);
  SearchFilter filter;
  filter.tenant = f.Str("tenant");
  filter.groups = f.OptStrings("groups");
  filter.clearance = f.OptStr("clearance");
  filter.source_types = f.Strings("source_types");
  filter.sites = f.Strings("sites");
  filter.versions = f.Strings("versions");
  filter.date_from = f.OptStr("date_from");
  filter.date_to = f.OptStr("date_to");
  return filter;
}

// Runs a decoder, turning a refused field or a JSON error into kInvalidArgument.
template <typename T, typename Fn>
Result<T> Guarded(Fn fn) {
  try {
    return fn();
  } catch (const Reader::Bad& b) {
    return Status::InvalidArgument(b.message);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(CleanJsonErrorMessage(e.what()));
  }
}


}  // namespace attest::contract_json
