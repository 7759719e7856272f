#include "cluster/change_codec.h"

#include <nlohmann/json.hpp>

#include <initializer_list>

namespace attest {
namespace {

using nlohmann::json;

// The string fields of a DocumentSpec, by their payload name.
struct StringField {
  const char* name;
  std::string DocumentSpec::*member;
};
constexpr StringField kStringFields[] = {
    {"id", &DocumentSpec::id},
    {"tenant", &DocumentSpec::tenant},
    {"title", &DocumentSpec::title},
    {"text", &DocumentSpec::text},
    {"content_type", &DocumentSpec::content_type},
    {"url", &DocumentSpec::url},
    {"site", &DocumentSpec::site},
    {"version", &DocumentSpec::version},
    {"source_type", &DocumentSpec::source_type},
    {"language", &DocumentSpec::language},
    {"published", &DocumentSpec::published},
    {"updated", &DocumentSpec::updated},
    {"access_label", &DocumentSpec::access_label},
    {"feed", &DocumentSpec::feed},
    {"license", &DocumentSpec::license},
    {"fetched_at", &DocumentSpec::fetched_at},
};

Status Bad(const std::string& field, const std::string& what) {
  return Status::InvalidArgument("change payload: " + field + " " + what);
}

Result<std::string> StringOf(const json& j, const std::string& field) {
  if (!j.is_string()) return Bad(field, std::string("must be a string, not ") + j.type_name());
  return j.get<std::string>();
}

Status RequireId(const std::string& id, const std::string& field) {
  if (id.empty()) return Bad(field, "is missing or empty");
  if (id.size() > 256) return Bad(field, "is longer than 256 bytes");
  return Status::Ok();
}

Result<DocumentSpec> DecodeDoc(const json& j) {
  if (!j.is_object()) return Bad("doc", std::string("must be an object, not ") + j.type_name());
  DocumentSpec doc;
  for (const auto& [key, value] : j.items()) {
    const std::string field = "doc." + key;
    bool known = false;
    for (const StringField& f : kStringFields) {
      if (key != f.name) continue;
      ATTEST_ASSIGN_OR_RETURN(doc.*f.member, StringOf(value, field));
      known = true;
    }
    if (known) continue;
    if (key == "acl_groups") {
      if (!value.is_array()) return Bad(field, "must be an array of strings");
      for (size_t i = 0; i < value.size(); ++i) {
        ATTEST_ASSIGN_OR_RETURN(std::string g, StringOf(value[i], field + "[" + std::to_string(i) + "]"));
        doc.acl_groups.push_back(std::move(g));
      }
    } else if (key == "metadata") {
      if (!value.is_object()) return Bad(field, "must be an object of strings");
      for (const auto& [k, v] : value.items()) {
        ATTEST_ASSIGN_OR_RETURN(doc.metadata[k], StringOf(v, field + "." + k));
      }
    } else {
      return Bad(field, "is not a field of version " + std::to_string(kChangePayloadVersion));
    }
  }
  if (!j.contains("id")) return Bad("doc.id", "is missing");
  ATTEST_RETURN_IF_ERROR(RequireId(doc.id, "doc.id"));
  return doc;
}

Status OnlyKeys(const json& j, std::initializer_list<const char*> keys) {
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    for (const char* k : keys) ok = ok || key == k;
    if (!ok) return Bad(key, "is not a field of a version " + std::to_string(kChangePayloadVersion) + " change");
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeUpsert(const DocumentSpec& doc, DocumentChange::Kind kind) {
  json d = json::object();
  for (const StringField& f : kStringFields) d[f.name] = doc.*f.member;
  d["acl_groups"] = doc.acl_groups;
  d["metadata"] = json::object();
  for (const auto& [k, v] : doc.metadata) d["metadata"][k] = v;
  json out = {{"v", kChangePayloadVersion},
              {"kind", kind == DocumentChange::Kind::kAcl ? "acl" : "upsert"},
              {"doc", std::move(d)}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string EncodeDelete(const std::string& tenant, const std::string& id) {
  json out = {{"v", kChangePayloadVersion}, {"kind", "delete"}, {"tenant", tenant}, {"id", id}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<DecodedChange> DecodeChange(std::string_view payload) {
  json j = json::parse(payload.begin(), payload.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("change payload: not valid JSON");
  if (!j.is_object()) return Bad("payload", std::string("must be an object, not ") + j.type_name());
  if (!j.contains("v")) return Bad("v", "is missing");
  if (!j["v"].is_number_integer()) return Bad("v", "must be an integer");
  if (j["v"].get<int64_t>() != kChangePayloadVersion) {
    return Bad("v", "is " + j["v"].dump() + ": this build reads version " + std::to_string(kChangePayloadVersion));
  }
  if (!j.contains("kind")) return Bad("kind", "is missing");
  ATTEST_ASSIGN_OR_RETURN(std::string kind, StringOf(j["kind"], "kind"));
  DecodedChange out;
  if (kind == "delete") {
    ATTEST_RETURN_IF_ERROR(OnlyKeys(j, {"v", "kind", "tenant", "id"}));
    out.kind = DocumentChange::Kind::kDelete;
    if (j.contains("tenant")) {
      ATTEST_ASSIGN_OR_RETURN(out.doc.tenant, StringOf(j["tenant"], "tenant"));
    }
    if (!j.contains("id")) return Bad("id", "is missing");
    ATTEST_ASSIGN_OR_RETURN(out.doc.id, StringOf(j["id"], "id"));
    ATTEST_RETURN_IF_ERROR(RequireId(out.doc.id, "id"));
    return out;
  }
  if (kind != "upsert" && kind != "acl") return Bad("kind", "is '" + kind + "': expected upsert, acl or delete");
  ATTEST_RETURN_IF_ERROR(OnlyKeys(j, {"v", "kind", "doc"}));
  out.kind = kind == "acl" ? DocumentChange::Kind::kAcl : DocumentChange::Kind::kUpsert;
  if (!j.contains("doc")) return Bad("doc", "is missing");
  ATTEST_ASSIGN_OR_RETURN(out.doc, DecodeDoc(j["doc"]));
  return out;
}

}  // namespace attest
