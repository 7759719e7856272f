// Service: conversation threads, remembered answers and feedback (docs/http_api.md, "Threads" and
// "Feedback"), kept durably by the ConversationStore.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "service/conversation_view.h"
#include "service/service.h"
#include "service/service_internal.h"

namespace attest::service {

using nlohmann::json;

namespace {

// Earlier turns shown again with each message (the planner still reads every earlier question).
constexpr size_t kShownTurns = 5;

ApiError NoStore() {
  return ApiError{ApiErrorCode::kUnavailable, "conversations are not available on this server (no conversation store)", ""};
}

std::string Format(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

// A quota refusal names the quota (the store's message starts with it); anything else is the
// store failing, which the caller may retry.
ApiError Service::ConversationError(const Status& status) {
  if (status.code() == StatusCode::kResourceExhausted) {
    const std::string& m = status.message();
    metrics_.GetCounter("attest_quota_refusals_total", "Requests refused by a conversation or feedback quota",
                        {{"quota", m.substr(0, m.find(':'))}})->Add();
    return ApiError{ApiErrorCode::kQuotaExceeded, m, ""};
  }
  spdlog::error("conversation store: {}", status.ToString());
  return ApiError{ApiErrorCode::kUnavailable, "the conversation store could not take the request; retry", ""};
}

ApiResult<std::string> Service::CreateThread(const Identity& who, const ThreadCreateRequest& req,
                                             const RequestContext& ctx) {
  auto tenant = EffectiveTenant(who, req.tenant);
  if (!tenant.ok()) return tenant.error();
  if (!options_.conversations) return NoStore();
  // The owner (and the quotas) are the caller's; the tenant is where its messages read.
  NewThread args{internal::RandomId("thr_"), who.tenant, who.user, tenant.value(), req.title};
  auto created = options_.conversations->CreateThread(args);
  if (!created.ok()) return ConversationError(created.status());
  json body = {{"request_id", ctx.request_id}, {"thread_id", args.thread_id}, {"tenant", tenant.value()},
               {"title", req.title}, {"versions", Versions()}};
  if (!created->evicted_thread_id.empty()) {
    metrics_.GetCounter("attest_threads_evicted_total", "Threads forgotten to make room under the owner's quota")->Add();
    body["evicted_thread_id"] = created->evicted_thread_id;
  }
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

ApiResult<std::string> Service::PostMessage(const Identity& who, const std::string& thread_id, const AnswerRequest& req,
                                            const RequestContext& ctx, EventSink* sink) {
  if (!options_.conversations) return NoStore();
  ConversationStore& store = *options_.conversations;
  // Another caller's thread is indistinguishable from a missing one.
  const ApiError missing{ApiErrorCode::kNotFound, "no thread '" + thread_id + "' of yours", "thread_id"};
  auto found = store.FindThread(who.tenant, who.user, thread_id);
  if (!found.ok()) return ConversationError(found.status());
  if (!found->has_value()) return missing;
  if (req.tenant && *req.tenant != (*found)->answer_tenant) {
    return ApiError{ApiErrorCode::kInvalidRequest, "the thread belongs to tenant '" + (*found)->answer_tenant + "'", "tenant"};
  }
  auto turn_lock = thread_locks_.Lock(thread_id);
  // Read again under the lock: a message just before this one added a turn, or the thread went.
  found = store.FindThread(who.tenant, who.user, thread_id);
  if (!found.ok()) return ConversationError(found.status());
  if (!found->has_value()) return missing;
  ThreadTurn thread;
  thread.info = **found;
  const size_t max_turns = store.limits().max_turns_per_thread;
  if (thread.info.turns >= max_turns) {
    return ConversationError(Status::ResourceExhausted("max_turns_per_thread: thread '" + thread_id + "' already has " +
                                                std::to_string(thread.info.turns) + " turns (the limit is " +
                                                std::to_string(max_turns) + "); start a new thread"));
  }
  auto questions = store.ThreadQuestions(thread_id);
  if (!questions.ok()) return ConversationError(questions.status());
  thread.questions = std::move(questions).value();
  auto shown = store.LastTurns(thread_id, kShownTurns);
  if (!shown.ok()) return ConversationError(shown.status());
  thread.shown = std::move(shown).value();
  AnswerRequest r = req;
  r.tenant = thread.info.answer_tenant;
  return RunAnswer(who, r, ctx, sink, &thread);
}

std::string Service::RememberAnswer(const Identity& who, const std::string& answer_tenant, const std::string& question,
                                    const std::string& cache_id, const ThreadTurn* thread, json* body) {
  if (!options_.conversations) return "this answer is not remembered (no conversation store): feedback on it is not accepted";
  AnswerRecord rec;
  rec.answer_id = body->value("answer_id", "");
  rec.tenant = who.tenant;
  rec.user = who.user;
  rec.answer_tenant = answer_tenant;
  rec.question = question;
  rec.cache_id = cache_id;
  rec.summary_json = AnswerSummary(*body).dump(-1, ' ', false, json::error_handler_t::replace);
  if (!thread) {
    Status s = options_.conversations->RememberAnswer(std::move(rec));
    if (s.ok()) return "";
    spdlog::error("answer {} not remembered: {}", body->value("answer_id", ""), s.ToString());
    return "this answer could not be remembered: feedback on it is not accepted";
  }
  rec.thread_id = thread->info.thread_id;
  // The earlier turns as the caller may see them now (deleted or unreadable sources withdrawn).
  json view = {{"thread_id", thread->info.thread_id},
               {"earlier", RenderTurns(engine_, FilterFor(who, answer_tenant), thread->shown)}};
  auto turn = options_.conversations->AddTurn(std::move(rec));
  view["saved"] = turn.ok();
  view["turn"] = turn.ok() ? *turn : thread->info.turns + 1;
  (*body)["thread"] = std::move(view);
  if (turn.ok()) return "";
  if (turn.status().code() == StatusCode::kResourceExhausted) (void)ConversationError(turn.status());
  spdlog::warn("turn of thread {} not saved: {}", thread->info.thread_id, turn.status().ToString());
  return "this turn could not be added to the thread (" + turn.status().message() + ")";
}

bool Service::MaySeeAnswer(const Identity& who, const AnswerRecord& answer, const json& summary) const {
  if (answer.tenant != who.tenant) return false;
  if (answer.user == who.user) return true;  // the asker
  if (answer.answer_tenant != who.tenant && !who.admin) return false;
  // Anyone else must be able to read every source the answer showed, now.
  const std::vector<CitedChunk> shown = ShownChunks(summary);
  if (shown.empty()) return who.admin;
  auto states = engine_.CheckCitations(FilterFor(who, answer.answer_tenant), shown);
  return states.ok() && states->size() == shown.size() &&
         std::all_of(states->begin(), states->end(),
                     [](CitationState s) { return s == CitationState::kCurrent || s == CitationState::kChanged; });
}

ApiResult<std::string> Service::Feedback(const Identity& who, const FeedbackRequest& req, const RequestContext& ctx) {
  if (!options_.conversations) return NoStore();
  ConversationStore& store = *options_.conversations;
  // Charged before anything is looked up, so probing ids costs the same as flagging.
  const std::string bucket = who.credential_id.empty() ? "user:" + who.tenant + ":" + who.user : who.credential_id;
  if (auto d = feedback_limiter_.Acquire(bucket); !d.allowed) {
    metrics_.GetCounter("attest_feedback_rate_limited_total", "Feedback refused by the per-credential feedback rate")
        ->Add();
    const int retry = std::max(1, static_cast<int>(std::ceil(d.retry_after_seconds)));
    return ApiError{ApiErrorCode::kRateLimited,
                    "feedback rate limit exceeded for this credential (" + Format(options_.feedback_rate.rate_per_second) +
                        " per second, burst " + Format(options_.feedback_rate.burst) + "); retry in " +
                        std::to_string(retry) + " s",
                    "", retry};
  }
  // An answer the caller could not see is indistinguishable from one that does not exist.
  const ApiError hidden{ApiErrorCode::kNotFound, "no answer '" + req.answer_id + "' that you can see", "answer_id"};
  auto found = store.FindAnswer(req.answer_id);
  if (!found.ok()) return ConversationError(found.status());
  if (!found->has_value()) return hidden;
  const AnswerRecord& answer = **found;
  const json summary = json::parse(answer.summary_json, nullptr, false);
  if (!summary.is_object() || !MaySeeAnswer(who, answer, summary)) return hidden;
  auto has_id = [&](const char* list, const std::string& id) {
    for (const json& x : summary.value(list, json::array())) {
      if (x.value("id", "") == id) return true;
    }
    return false;
  };
  if (!req.claim_id.empty() && !has_id("claims", req.claim_id)) {
    return ApiError{ApiErrorCode::kInvalidRequest, "answer '" + req.answer_id + "' has no claim '" + req.claim_id + "'", "claim_id"};
  }
  if (!req.source_id.empty() && !has_id("sources", req.source_id)) {
    return ApiError{ApiErrorCode::kInvalidRequest, "answer '" + req.answer_id + "' has no source '" + req.source_id + "'",
                    "source_id"};
  }
  FeedbackInput in{internal::RandomId("fb_"), req.answer_id, req.claim_id, req.source_id, who.tenant, who.user,
                   req.kind, req.comment, ctx.request_id};
  auto stored = store.PutFeedback(in);
  if (!stored.ok()) return ConversationError(stored.status());
  // Feedback on any copy of a cached answer drops the cache entry it was served from.
  const bool invalidated = answer_cache_.InvalidateAnswer(answer.cache_id.empty() ? answer.answer_id : answer.cache_id);
  metrics_.GetCounter("attest_feedback_total", "Feedback received, by kind", {{"kind", req.kind}})->Add();
  return json{{"request_id", ctx.request_id}, {"feedback_id", stored->feedback_id}, {"answer_id", req.answer_id},
              {"replaced", stored->replaced}, {"cache_invalidated", invalidated}, {"versions", Versions()}}
      .dump();
}

}  // namespace attest::service
