// Durable conversations: threads, their turns, the answers that feedback refers to, and the
// feedback itself, in one SQLite file `<data_dir>/conversations.db` (layout and migrations in
// docs/conversations.md; behaviour in docs/http_api.md, "Threads" and "Feedback").
//
// Every write is acknowledged only after its transaction committed with synchronous=FULL in WAL
// mode, so what a caller was told exists survives kill -9. Writes go through one writer thread that
// commits whatever is queued as one transaction (group commit): a flood of creates from one
// tenant costs the others at most one shared commit, never a lock held per create. Each queued
// operation runs in its own savepoint, so one refused operation (a quota) never undoes another.
// Reads use a small pool of connections and never wait for the writer (WAL readers see the last
// commit).
//
// Quotas are counted by triggers in the same transaction as the rows they count (table `usage`),
// so a count can never drift from the rows, whatever is rolled back, evicted or purged. The caller's
// own oldest thread is found through an index: eviction costs O(log n), never a scan.
//
// Retention: rows older than `retention` (threads by last activity, answers and feedback by
// creation) are deleted by the writer every `purge_interval`, in batches between other writes.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest::service {

// PRAGMA application_id of conversations.db ("ATCV") and the schema version this build writes.
inline constexpr int64_t kConversationApplicationId = 0x41544356;
inline constexpr int64_t kConversationSchemaVersion = 1;

// What one tenant and one user may keep. A refused operation is kResourceExhausted whose message
// starts with the quota's name (e.g. "max_threads_per_tenant: ...").
struct ConversationLimits {
  std::chrono::milliseconds retention{std::chrono::hours(24 * 30)};
  size_t max_threads_per_user = 1000;       // at the limit a new thread replaces the user's oldest
  size_t max_threads_per_tenant = 100000;   // at the limit a new thread is refused
  size_t max_turns_per_thread = 100;        // at the limit a new turn is refused
  size_t max_answers_per_tenant = 100000;   // answers outside threads; the tenant's oldest is forgotten
  size_t max_feedback_per_user = 1000;      // refused beyond (a repeat replaces, never refused)
  size_t max_feedback_per_tenant = 100000;  // refused beyond
};

struct ConversationStoreOptions {
  std::filesystem::path path;               // created if missing
  ConversationLimits limits;
  std::chrono::milliseconds purge_interval{std::chrono::minutes(10)};  // 0 = only Purge() purges
  size_t purge_batch = 1000;                // rows per table per purge transaction
  std::function<int64_t()> now_ms;          // Unix epoch ms; default the system clock
};

struct ThreadInfo {
  std::string thread_id;
  std::string tenant, user;                 // the owner (the caller who created it)
  std::string answer_tenant;                // the tenant its messages read
  std::string title;
  int64_t created_ms = 0, updated_ms = 0;
  uint32_t turns = 0;
};

struct NewThread {
  std::string thread_id;                    // chosen by the caller (random)
  std::string tenant, user, answer_tenant, title;
};

struct CreatedThread {
  ThreadInfo thread;
  std::string evicted_thread_id;            // the owner's oldest thread, forgotten to make room; "" = none
};

// An answer as remembered: who asked, where it read, and its summary (docs/conversations.md: the
// claims, the source cards without passage text, the result list's chunks).
struct AnswerRecord {
  std::string answer_id;
  std::string tenant, user;                 // the asker
  std::string answer_tenant;
  std::string thread_id;                    // "" = asked outside a thread
  uint32_t turn = 0;                        // 1-based position in the thread (set by AddTurn)
  std::string question;
  std::string cache_id;                     // the answer-cache entry it was served from ("" = computed)
  int64_t created_ms = 0;                   // set by the store
  std::string summary_json;
};

struct FeedbackInput {
  std::string feedback_id;                  // used when no earlier record is replaced
  std::string answer_id, claim_id, source_id;
  std::string tenant, user;
  std::string kind, comment, request_id;
};

struct FeedbackStored {
  std::string feedback_id;
  bool replaced = false;                    // an earlier record of (answer, claim, user) was replaced
};

struct PurgeReport {
  uint64_t threads = 0, answers = 0, feedback = 0;  // rows deleted (a thread's turns count as answers)
};

struct ConversationCounts {
  uint64_t threads = 0, answers = 0, feedback = 0;
};

class ConversationStore {
 public:
  // Opens or creates the file, migrates an older schema, checks it (quick_check). kCorruption for a
  // foreign or damaged file, kUnsupported for a newer schema; both name the path.
  static Result<std::unique_ptr<ConversationStore>> Open(ConversationStoreOptions options);
  ~ConversationStore();  // writes what is queued, then stops the writer
  ConversationStore(const ConversationStore&) = delete;
  ConversationStore& operator=(const ConversationStore&) = delete;

  Result<CreatedThread> CreateThread(const NewThread& args);
  // The thread if it exists and belongs to (tenant, user); nullopt otherwise (hidden = missing).
  Result<std::optional<ThreadInfo>> FindThread(const std::string& tenant, const std::string& user,
                                               const std::string& thread_id);
  // The thread's questions, oldest first (what a follow-up is planned with).
  Result<std::vector<std::string>> ThreadQuestions(const std::string& thread_id);
  // The last `n` turns of a thread with their answers, oldest first.
  Result<std::vector<AnswerRecord>> LastTurns(const std::string& thread_id, size_t n);
  // Appends a turn (record.thread_id set): returns its number. kNotFound when the thread is gone,
  // kResourceExhausted at max_turns_per_thread.
  Result<uint32_t> AddTurn(AnswerRecord record);
  // Remembers an answer given outside a thread; the tenant's oldest beyond the limit is forgotten.
  Status RememberAnswer(AnswerRecord record);
  Result<std::optional<AnswerRecord>> FindAnswer(const std::string& answer_id);
  // One record per (answer, claim, tenant, user): a repeat replaces the earlier one.
  Result<FeedbackStored> PutFeedback(const FeedbackInput& input);
  // Deletes everything older than the retention now (all batches).
  Result<PurgeReport> Purge();
  Result<ConversationCounts> Counts();
  const ConversationLimits& limits() const;
  const std::filesystem::path& path() const;

 private:
  struct Impl;
  explicit ConversationStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace attest::service
