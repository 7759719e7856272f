// The background applier of pushed events (service/event_applier.h).
#include "service/event_applier.h"

#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "service/service_internal.h"

namespace attest::service {
namespace {

using nlohmann::json;

// A refusal of the document itself: retrying cannot help, so the event fails.
bool Permanent(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kResourceExhausted:
    case StatusCode::kNotFound:
    case StatusCode::kAlreadyExists:
      return true;
    default:
      return false;
  }
}

SearchFilter AdminFilter(const std::string& store_tenant) {
  SearchFilter f;
  f.tenant = store_tenant;  // groups and clearance unset: the whole tenant (an administrator's view)
  return f;
}

std::vector<uint64_t> Numbers(const std::vector<ChunkId>& ids) {
  std::vector<uint64_t> out;
  out.reserve(ids.size());
  for (ChunkId id : ids) out.push_back(id.get());
  return out;
}

}  // namespace

EventApplier::EventApplier(EventLog& log, Engine& engine, Registry& metrics, EventApplierOptions options)
    : log_(log), engine_(engine), metrics_(metrics), options_(std::move(options)) {
  if (!options_.clock) options_.clock = RealClock();
  if (options_.batch == 0) options_.batch = 1;
}

EventApplier::~EventApplier() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  if (thread_.joinable()) thread_.join();
  FireWaiters(/*all=*/true);
}

void EventApplier::Start() {
  if (auto done = log_.DoneThrough(); done.ok()) {
    MutexLock lock(mu_);
    done_through_ = *done;
  }
  thread_ = std::thread([this] { Run(); });
}

void EventApplier::Notify() {
  {
    MutexLock lock(mu_);
    work_ = true;
  }
  cv_.NotifyAll();
}

uint64_t EventApplier::done_through() const {
  MutexLock lock(mu_);
  return done_through_;
}

void EventApplier::WhenDone(uint64_t seq, std::chrono::milliseconds timeout, std::function<void()> callback) {
  {
    MutexLock lock(mu_);
    if (seq > done_through_ && timeout.count() > 0 && !stop_) {
      waiters_.push_back(Waiter{seq, std::chrono::steady_clock::now() + timeout, std::move(callback)});
      cv_.NotifyAll();  // the thread's next wake-up may now be earlier
      return;
    }
  }
  callback();
}

int64_t EventApplier::WallMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(options_.clock->WallNow().time_since_epoch()).count();
}

void EventApplier::FireWaiters(bool all) {
  std::vector<std::function<void()>> due;
  {
    MutexLock lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < waiters_.size();) {
      if (all || waiters_[i].seq <= done_through_ || waiters_[i].deadline <= now) {
        due.push_back(std::move(waiters_[i].callback));
        waiters_[i] = std::move(waiters_.back());
        waiters_.pop_back();
      } else {
        ++i;
      }
    }
  }
  for (auto& f : due) f();  // outside the lock: a callback reads the log and answers its request
}

void EventApplier::Run() {
  bool retrying = false;
  while (true) {
    {
      MutexLock lock(mu_);
      while (!stop_ && !work_) {
        // Sleep until work arrives, the retry delay passes, or the nearest waiter's deadline.
        auto wake = std::chrono::steady_clock::now() + std::chrono::hours(1);
        if (retrying) wake = std::chrono::steady_clock::now() + options_.retry_delay;
        for (const Waiter& w : waiters_) wake = std::min(wake, w.deadline);
        if (cv_.WaitUntil(lock, wake) == std::cv_status::timeout) {
          if (retrying) break;
          lock.Unlock();
          FireWaiters(false);
          lock.Lock();
        }
      }
      if (stop_) return;
      work_ = false;
    }
    retrying = !ApplyPass();
    Result<uint64_t> done = log_.DoneThrough();
    Result<uint64_t> queued = log_.QueuedCount();
    {
      MutexLock lock(mu_);
      if (done.ok()) done_through_ = *done;
      // More may be queued than one pass took: look again at once.
      if (!retrying && queued.ok() && *queued > 0) work_ = true;
    }
    if (queued.ok()) {
      metrics_.GetGauge("attest_events_queue_depth", "Pushed events durable but not yet applied")->Set(double(*queued));
    }
    FireWaiters(false);
  }
}

bool EventApplier::ApplyPass() {
  Result<std::vector<EventRecord>> queued = log_.Queued(options_.batch);
  if (!queued.ok()) {
    spdlog::error("events: cannot read the queue: {}", queued.status().ToString());
    return false;
  }
  const std::vector<EventRecord>& events = *queued;
  size_t i = 0;
  while (i < events.size()) {
    if (events[i].kind == EventKind::kDelete) {
      if (!ApplyDelete(events[i])) return false;
      ++i;
      continue;
    }
    // A run of upserts and ACL changes of distinct documents: one commit.
    std::vector<EventRecord> run;
    std::set<std::pair<std::string, std::string>> docs;
    while (i < events.size() && events[i].kind != EventKind::kDelete &&
           docs.insert({events[i].tenant, events[i].document_id}).second) {
      run.push_back(events[i]);
      ++i;
    }
    if (!ApplyRun(run)) return false;
  }
  return true;
}

Result<std::optional<DocumentSpec>> EventApplier::AclSpec(const EventRecord& e) {
  const std::string store_tenant = internal::StoreTenant(e.tenant);
  Result<DocumentInfo> live = engine_.GetDocument(AdminFilter(store_tenant), e.document_id);
  if (!live.ok()) {
    if (live.status().code() == StatusCode::kNotFound) return std::optional<DocumentSpec>();
    return live.status();
  }
  const json acl = json::parse(e.data);
  DocumentSpec spec;
  ATTEST_ASSIGN_OR_RETURN(std::optional<std::string> base, log_.LastAppliedUpsert(e.tenant, e.document_id, e.seq));
  if (base) {
    spec = DocumentSpecFromEventData(json::parse(*base), store_tenant);
  } else {
    // A document that came another way (POST /v1/documents, attest ingest): its stored text and
    // fields. Its free-form metadata is not kept by this path (docs/http_api.md, "Events").
    spec.id = live->id;
    spec.tenant = store_tenant;
    spec.title = live->title;
    spec.text = live->text;
    spec.url = live->url;
    spec.site = live->site;
    spec.version = live->version;
    spec.source_type = live->source_type;
    spec.language = live->language;
    spec.published = live->published;
    spec.updated = live->updated;
    spec.feed = live->feed;
    spec.license = live->license;
  }
  spec.acl_groups = acl.value("acl_groups", std::vector<std::string>{});
  spec.access_label = acl.value("access_label", std::string());
  return std::optional<DocumentSpec>(std::move(spec));
}

bool EventApplier::ApplyRun(const std::vector<EventRecord>& run) {
  std::vector<DocumentSpec> specs;
  std::vector<const EventRecord*> applied;
  std::vector<EventOutcome> outcomes;
  for (const EventRecord& e : run) {
    if (e.kind == EventKind::kUpsert) {
      specs.push_back(DocumentSpecFromEventData(json::parse(e.data), internal::StoreTenant(e.tenant)));
      applied.push_back(&e);
      continue;
    }
    Result<std::optional<DocumentSpec>> spec = AclSpec(e);
    if (!spec.ok()) {
      spdlog::warn("events: seq {}: {} (will retry)", e.seq, spec.status().ToString());
      (void)log_.NoteRetry(e.seq, spec.status().ToString());
      return false;
    }
    if (!*spec) {
      outcomes.push_back(EventOutcome{e.seq, EventState::kFailed,
                                      "no live document '" + e.document_id + "' in tenant '" + e.tenant +
                                          "' to change the access of",
                                      engine_.CurrentSnapshot(), WallMs()});
      Record({outcomes.back()}, {&e});
      outcomes.clear();
      continue;
    }
    specs.push_back(std::move(**spec));
    applied.push_back(&e);
  }
  if (specs.empty()) return true;
  Result<PutDocumentsReport> r = engine_.PutDocuments(specs);
  if (!r.ok()) {
    if (!Permanent(r.status())) {
      spdlog::warn("events: applying seq {}..{}: {} (will retry)", applied.front()->seq, applied.back()->seq,
                   r.status().ToString());
      (void)log_.NoteRetry(applied.front()->seq, r.status().ToString());
      return false;
    }
    if (specs.size() > 1) {
      // One document is refused: apply them one by one so only that one fails.
      for (const EventRecord* e : applied) {
        if (!ApplyRun({*e})) return false;
      }
      return true;
    }
    outcomes.push_back(EventOutcome{applied[0]->seq, EventState::kFailed, r.status().message(),
                                    engine_.CurrentSnapshot(), WallMs()});
    Record(outcomes, applied);
    return true;
  }
  if (!r->superseded_chunks.empty() && options_.invalidate_chunks) {
    options_.invalidate_chunks(Numbers(r->superseded_chunks));
  }
  const int64_t now = WallMs();
  for (const EventRecord* e : applied) {
    outcomes.push_back(EventOutcome{e->seq, EventState::kApplied, "", r->snapshot_version, now});
  }
  Record(outcomes, applied);
  return true;
}

bool EventApplier::ApplyDelete(const EventRecord& e) {
  const std::string store_tenant = internal::StoreTenant(e.tenant);
  std::vector<uint64_t> chunks;
  if (auto before = engine_.GetDocument(AdminFilter(store_tenant), e.document_id); before.ok()) {
    chunks = Numbers(before->chunk_ids);
  }
  Result<uint64_t> r = engine_.Delete(store_tenant, e.document_id);
  EventOutcome o{e.seq, EventState::kApplied, "", 0, WallMs()};
  if (r.ok()) {
    o.snapshot = *r;
  } else if (r.status().code() == StatusCode::kNotFound) {
    o.detail = "the document was not in the index (the tombstone is kept)";
    o.snapshot = engine_.CurrentSnapshot();
  } else {
    spdlog::warn("events: delete seq {}: {} (will retry)", e.seq, r.status().ToString());
    (void)log_.NoteRetry(e.seq, r.status().ToString());
    return false;
  }
  if (!chunks.empty() && options_.invalidate_chunks) options_.invalidate_chunks(chunks);
  Record({o}, {&e});
  return true;
}

void EventApplier::Record(const std::vector<EventOutcome>& outcomes, const std::vector<const EventRecord*>& events) {
  if (Status s = log_.Finish(outcomes); !s.ok()) {
    // The engine holds the outcome; the log will show the events queued and a later pass applies
    // them again (a no-op) and records it.
    spdlog::error("events: cannot record outcomes: {}", s.ToString());
    return;
  }
  for (size_t i = 0; i < outcomes.size() && i < events.size(); ++i) {
    const EventOutcome& o = outcomes[i];
    const char* kind = EventKindName(events[i]->kind);
    if (o.state == EventState::kApplied) {
      metrics_.GetCounter("attest_events_applied_total", "Pushed events applied to the index", {{"kind", kind}})->Add();
      metrics_.GetHistogram("attest_event_apply_lag_seconds",
                            "Time from a pushed event's durable receipt to its outcome being searchable")
          ->Observe(double(o.done_ms - events[i]->received_ms) / 1000.0);
    } else if (o.state == EventState::kFailed) {
      metrics_.GetCounter("attest_events_failed_total", "Pushed events the index refused", {{"kind", kind}})->Add();
    }
  }
}

}  // namespace attest::service
