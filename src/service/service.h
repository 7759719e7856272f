// The orchestrator behind `attest serve` (docs/http_api.md): every v1 route as a method that takes
// an authenticated Identity and a validated request, and returns the response body or an
// ApiError. It owns the caches and the audit records; threads, their turns, the answers feedback
// refers to and the feedback itself are kept durably by a ConversationStore it borrows. It knows
// nothing about HTTP (server/routes.cc adapts it).
//
// Authorization happens in three places: inside retrieval (the caller's tenant and groups are the
// search filter), again when sources are rendered (a document deleted or an ACL narrowed since the
// answer's snapshot is not shown, and claims citing it are withdrawn), and at every sentence
// boundary of a stream (the identity is refreshed through the group cache; sentences whose sources
// were deleted or became unreadable are retracted, and a caller who lost access gets a notice and
// the stream ends).
//
// Thread-safety: all methods may be called concurrently. No lock is shared by all requests: the
// caches are sharded, the conversation store has its own (see conversation_store.h), and messages
// of one thread are serialized by a lock of that thread only (KeyedLocks).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attest/answer.h"
#include "attest/engine.h"
#include "service/api_error.h"
#include "service/audit_log.h"
#include "service/authenticator.h"
#include "service/contracts.h"
#include "service/conversation_store.h"
#include "service/event_applier.h"
#include "service/event_log.h"
#include "service/identity.h"
#include "service/keyed_locks.h"
#include "service/metrics.h"
#include "service/rate_limiter.h"
#include "service/result_cache.h"
#include "service/webhook_signature.h"

namespace attest::service {

inline constexpr const char* kApiVersion = "v1";
inline constexpr const char* kPipelineVersion = "p1";      // bump when retrieval/answer output changes
inline constexpr const char* kPromptVersion = "prompt-1";  // the LLM writer's prompt template

struct RequestContext {
  std::string request_id;
  std::string route;                                  // the route pattern, e.g. "/v1/answer"
  std::chrono::steady_clock::time_point received;     // deadlines count from here
};

// Where a streamed answer's events go. Emit returns false once the client is gone.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual bool Emit(std::string_view event, const std::string& json) = 0;
  virtual bool Closed() const = 0;
  // The answer's body (the non-streamed response's JSON), given just before `done` is emitted: a
  // sink that renders the answer in another format reads the final claims and sources from it
  // (the chat face). Never called when the stream ended early.
  virtual void Answered(const nlohmann::json& body) {}
};

struct ServiceOptions {
  uint32_t default_deadline_ms = 800;       // planning + retrieval + reranking
  bool caches = true;
  // Answers that find nothing the caller may read say `filtered_by_access` when the tenant's hidden
  // documents would have matched. Off: the difference tells a reader whether hidden text contains
  // its words (docs/security.md); readers then always get `no_documents`.
  bool report_access_filtered = false;
  size_t retrieval_cache_bytes = 64u << 20;
  std::chrono::milliseconds retrieval_cache_ttl{60000};
  size_t answer_cache_bytes = 64u << 20;
  std::chrono::milliseconds answer_cache_ttl{300000};
  // Threads, turns, remembered answers and feedback (borrowed; null = those routes answer 503).
  ConversationStore* conversations = nullptr;
  RateLimit feedback_rate{1, 10};           // feedback posts per second per credential, and burst
  std::string llm_model;                    // part of the answer cache key
  std::string embedder;                     // echoed in versions
  std::string manifest_key;                 // HMAC key for answer manifests ("" = unsigned)
  // Pushed events (POST /v1/events): the durable log and the connectors' verifier (both borrowed;
  // either null = the events routes answer 404). The Service runs the applier over the log.
  EventLog* event_log = nullptr;
  const WebhookVerifier* webhooks = nullptr;
  const Clock* clock = nullptr;             // wall time of events (received, applied); null = real
};

// The answer to POST /v1/events: whether events are still queued (202) or every one has its
// outcome (200), whether this is the first answer replayed for a repeated webhook-id, the body,
// and the greatest sequence number in it (what a waiter waits for).
struct EventsReply {
  bool pending = false;
  bool replayed = false;
  std::string body;
  uint64_t last_seq = 0;
};

inline constexpr uint32_t kMaxEventWaitMs = 10000;  // ?wait_ms= of the events routes

class Service {
 public:
  Service(Engine& engine, Authenticator& auth, Registry& metrics, AuditLog* audit, ServiceOptions options);
  ~Service();

  ApiResult<std::string> Search(const Identity& who, const SearchRequest& req, const RequestContext& ctx);
  // `sink` null = one JSON body; else events are emitted and the returned body is empty.
  ApiResult<std::string> Answer(const Identity& who, const AnswerRequest& req, const RequestContext& ctx,
                                EventSink* sink);
  ApiResult<std::string> PutDocuments(const Identity& who, std::vector<DocumentInput> docs, const RequestContext& ctx);
  ApiResult<std::string> GetDocument(const Identity& who, const std::string& id, const std::string& tenant,
                                     const RequestContext& ctx);
  // GET /v1/documents: a page of the tenant's live documents (admin or operator only).
  ApiResult<std::string> ListDocuments(const Identity& who, const DocumentListRequest& req, const RequestContext& ctx);
  ApiResult<std::string> DeleteDocument(const Identity& who, const std::string& id, const std::string& tenant,
                                        const RequestContext& ctx);
  ApiResult<std::string> CreateThread(const Identity& who, const ThreadCreateRequest& req, const RequestContext& ctx);
  ApiResult<std::string> PostMessage(const Identity& who, const std::string& thread_id, const AnswerRequest& req,
                                     const RequestContext& ctx, EventSink* sink);
  ApiResult<std::string> Feedback(const Identity& who, const FeedbackRequest& req, const RequestContext& ctx);
  // GET /v1/me: the caller's own identity as a page needs it to choose its views (tenant, user,
  // admin, operator, groups, clearance, credential method); never a secret, a hash or a key id.
  ApiResult<std::string> Me(const Identity& who, const RequestContext& ctx) const;

  // Pushed events (docs/http_api.md, "Events"). AuthenticateConnector checks the Standard
  // Webhooks headers against the configured connectors and returns the connector's identity
  // (tenant from the configuration, admin of it, method "webhook", user = the connector's name).
  bool events_enabled() const { return options_.event_log && options_.webhooks; }
  ApiResult<Identity> AuthenticateConnector(const WebhookHeaders& headers, std::string_view body);
  ApiResult<EventsReply> PostEvents(const Identity& connector, const std::string& webhook_id, std::string_view body,
                                    const ParseLimits& limits, const RequestContext& ctx);
  // `reply` with each event's current state (after a wait); pending when any is still queued.
  ApiResult<EventsReply> RefreshEvents(const EventsReply& reply);
  // GET /v1/events/{seq}: the event's state, for its connector or an admin of its tenant.
  ApiResult<std::string> GetEvent(const Identity& who, uint64_t seq, const RequestContext& ctx);
  // Calls `callback` once every event up to `seq` has an outcome, or after `timeout` (never on the
  // caller's thread while waiting: no request thread is held).
  void WhenEventsDone(uint64_t seq, std::chrono::milliseconds timeout, std::function<void()> callback);
  // Stops the applier and calls every pending WhenEventsDone callback now. Call once no request is
  // running any more, while the transport their callbacks answer through still exists (after the
  // server's Run() returned, before it is destroyed). Queued events stay queued for the next start.
  void StopEvents();

  // {"attest": "...", "api": "v1", "pipeline": "p1", "snapshot": N, "embedder": "..."}
  nlohmann::json Versions() const;
  std::string VersionHeader() const;  // "attest/0.1.0 api/v1 pipeline/p1"
  Registry& metrics() { return metrics_; }
  // Why the service should not receive traffic now (empty = ready): the model of a tenant with an
  // active embedder cannot be loaded, the audit log cannot be written or is full.
  std::vector<std::string> NotReadyReasons() const;
  // Documents changed outside the documents routes (a watched folder): answers citing these chunks
  // (of replaced or deleted versions) leave the answer cache. Retrieval entries are keyed by
  // snapshot and need nothing.
  void DocumentsChanged(const std::vector<ChunkId>& superseded_chunks);
  // Publishes the caches' and the engine's counters as gauges (called before rendering /metrics).
  void RefreshGauges();

 private:
  struct ThreadTurn;  // the thread a message belongs to (service_internal.h)
  ApiResult<std::string> RunAnswer(const Identity& who, const AnswerRequest& req, const RequestContext& ctx,
                                   EventSink* sink, const ThreadTurn* thread);
  struct AnswerRun;  // one answer request (service_answer.cc)
  void LookUpCachedAnswer(AnswerRun& run);
  ApiResult<std::string> ReplayCachedAnswer(AnswerRun& run);
  ApiResult<std::string> RunFreshAnswer(AnswerRun& run);
  ApiResult<std::string> EffectiveTenant(const Identity& who, const std::optional<std::string>& requested) const;
  SearchFilter FilterFor(const Identity& who, const std::string& tenant) const;
  uint32_t RemainingMs(const RequestContext& ctx, std::optional<uint32_t> deadline) const;
  // Room for the request's audit record, claimed before any work: a request that could not be
  // audited is refused (audit_unavailable) and never runs.
  ApiResult<AuditSlot> ReserveAudit();
  void Audit(AuditSlot slot, const Identity& who, const RequestContext& ctx, AuditRecord record);
  // Keeps the answer durably (a thread's turn, or a recent answer for feedback) and, in a thread,
  // adds the `thread` object to `body`. A failure to keep it is returned as a notice ("" = kept):
  // the answer itself is still delivered.
  // `who` is the identity as of rendering (its groups decide which earlier turns' sources show).
  std::string RememberAnswer(const Identity& who, const std::string& answer_tenant, const std::string& question,
                             const std::string& cache_id, const ThreadTurn* thread, nlohmann::json* body);
  bool MaySeeAnswer(const Identity& who, const AnswerRecord& answer, const nlohmann::json& summary) const;
  // A conversation store failure as an ApiError: a quota (kResourceExhausted) is quota_exceeded
  // naming the quota, anything else unavailable (logged).
  ApiError ConversationError(const Status& status);
  void ObserveAnswer(const AnswerResult& r);

  Engine& engine_;
  Authenticator& auth_;
  Registry& metrics_;
  AuditLog* audit_;
  ServiceOptions options_;
  LruCache retrieval_cache_;
  AnswerCache answer_cache_;
  RateLimiter feedback_limiter_;
  KeyedLocks thread_locks_;  // one message of a thread at a time
  // Last member: stopped first, while the caches it invalidates still exist.
  std::unique_ptr<EventApplier> event_applier_;
};

}  // namespace attest::service
