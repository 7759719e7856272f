// The conversations database's schema (docs/store_format.md, "conversations.db"). Internal to
// ConversationStore.
#pragma once

#include <string>

#include "attest/status.h"
#include "store/sqlite_util.h"

namespace attest::service {

// WAL mode and synchronous=FULL; then, in one immediate transaction, checks application_id and
// user_version (kCorruption for another database, kUnsupported for a newer schema) and applies the
// migrations a file below kConversationSchemaVersion needs. `where` names the file in log lines.
Status EnsureConversationSchema(SqliteDb& db, const std::string& where);

// PRAGMA quick_check: kCorruption naming the first problem.
Status QuickCheckConversations(SqliteDb& db);

}  // namespace attest::service
