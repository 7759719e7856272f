// The payload of a change-log message (docs/cluster.md, "Payload"): a versioned JSON encoding of
// one document write.
//   {"v":1,"kind":"upsert","doc":{...every DocumentSpec field...}}
//   {"v":1,"kind":"acl","doc":{...}}       an ACL change: the same document with new acl/label
//   {"v":1,"kind":"delete","tenant":"t","id":"x"}
// Decoding treats the bytes as untrusted: an unknown version, kind or field, a field of the wrong
// type, or a missing id is kInvalidArgument naming the field. Upsert and acl decode alike (both put
// the document as given); the kind is kept for the record.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "attest/engine.h"
#include "attest/status.h"
#include "cluster/change_log.h"

namespace attest {

inline constexpr int kChangePayloadVersion = 1;

struct DecodedChange {
  DocumentChange::Kind kind = DocumentChange::Kind::kUpsert;
  DocumentSpec doc;  // kDelete: only tenant and id are set
};

// The payload of an upsert (kind kUpsert or kAcl) of `doc`.
std::string EncodeUpsert(const DocumentSpec& doc, DocumentChange::Kind kind = DocumentChange::Kind::kUpsert);
std::string EncodeDelete(const std::string& tenant, const std::string& id);
Result<DecodedChange> DecodeChange(std::string_view payload);

}  // namespace attest
