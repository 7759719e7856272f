#include "service/conversation_store.h"

#include <algorithm>
#include <deque>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/thread_annotations.h"
#include "service/conversation_schema.h"
#include "store/sqlite_util.h"

namespace attest::service {
namespace {

constexpr size_t kMaxBatch = 512;   // operations per group commit
constexpr size_t kIdleReaders = 8;  // read connections kept open

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<int64_t> Usage(SqliteDb& db, const std::string& tenant, const std::string& user, const char* kind) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("SELECT used FROM usage WHERE tenant = ? AND user = ? AND kind = ?"));
  st->Bind(1, tenant).Bind(2, user).Bind(3, std::string_view(kind));
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  return row ? st->ColumnInt(0) : 0;
}

constexpr char kAnswerColumns[] =
    "answer_id, tenant, user, answer_tenant, thread_id, turn, question, cache_id, created_ms, summary";

AnswerRecord ReadAnswer(const SqliteStmt& st) {
  AnswerRecord r;
  r.answer_id = st.ColumnText(0);
  r.tenant = st.ColumnText(1);
  r.user = st.ColumnText(2);
  r.answer_tenant = st.ColumnText(3);
  if (!st.ColumnIsNull(4)) r.thread_id = st.ColumnText(4);
  if (!st.ColumnIsNull(5)) r.turn = static_cast<uint32_t>(st.ColumnInt(5));
  r.question = st.ColumnText(6);
  r.cache_id = st.ColumnText(7);
  r.created_ms = st.ColumnInt(8);
  r.summary_json = st.ColumnText(9);
  return r;
}

Status InsertAnswer(SqliteDb& db, const AnswerRecord& r) {
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db.Prepare(std::string("INSERT INTO answers(") + kAnswerColumns + ") VALUES(?,?,?,?,?,?,?,?,?,?)"));
  st->Bind(1, r.answer_id).Bind(2, r.tenant).Bind(3, r.user).Bind(4, r.answer_tenant);
  if (r.thread_id.empty()) {
    st->BindNull(5).BindNull(6);
  } else {
    st->Bind(5, r.thread_id).Bind(6, static_cast<int64_t>(r.turn));
  }
  st->Bind(7, r.question).Bind(8, r.cache_id).Bind(9, r.created_ms).Bind(10, r.summary_json);
  return st->Run();
}

// One round of retention: at most `batch` rows of each table older than `cutoff_ms`.
Status PurgeRound(SqliteDb& db, int64_t cutoff_ms, size_t batch, PurgeReport* out, bool* more) {
  *more = false;
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare(
        "DELETE FROM threads WHERE seq IN (SELECT seq FROM threads WHERE updated_ms < ? LIMIT ?) RETURNING turns"));
    st->Bind(1, cutoff_ms).Bind(2, static_cast<int64_t>(batch));
    size_t n = 0;
    for (;;) {
      ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
      if (!row) break;
      ++n;
      out->answers += static_cast<uint64_t>(st->ColumnInt(0));
    }
    out->threads += n;
    *more |= n == batch;
  }
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare(
        "DELETE FROM answers WHERE seq IN (SELECT seq FROM answers WHERE thread_id IS NULL AND created_ms < ? "
        "LIMIT ?)"));
    st->Bind(1, cutoff_ms).Bind(2, static_cast<int64_t>(batch));
    ATTEST_RETURN_IF_ERROR(st->Run());
    const auto n = static_cast<size_t>(db.changes());
    out->answers += n;
    *more |= n == batch;
  }
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare(
        "DELETE FROM feedback WHERE rowid IN (SELECT rowid FROM feedback WHERE created_ms < ? LIMIT ?)"));
    st->Bind(1, cutoff_ms).Bind(2, static_cast<int64_t>(batch));
    ATTEST_RETURN_IF_ERROR(st->Run());
    const auto n = static_cast<size_t>(db.changes());
    out->feedback += n;
    *more |= n == batch;
  }
  return Status::Ok();
}

}  // namespace

struct ConversationStore::Impl {
  ConversationStoreOptions options;
  std::string where;  // "conversations database <path>" for messages

  // --- the writer: one connection, one thread, group commit ---
  struct Op {
    std::function<Status(SqliteDb&)> fn;
    Status status;
    bool done = false;
  };
  std::unique_ptr<SqliteDb> writer_db;  // used only by the writer thread after Open()
  Mutex mu;
  CondVar wake;      // the writer: work queued or stopping
  CondVar finished;  // callers: a batch completed
  std::deque<Op*> queue GUARDED_BY(mu);
  bool stopping GUARDED_BY(mu) = false;
  std::thread writer;

  // --- readers: a pool of connections ---
  Mutex pool_mu;
  std::vector<std::unique_ptr<SqliteDb>> idle GUARDED_BY(pool_mu);

  int64_t Now() const { return options.now_ms(); }

  Status Submit(std::function<Status(SqliteDb&)> fn) {
    Op op{std::move(fn), Status::Ok(), false};
    MutexLock lock(mu);
    if (stopping) return Status::Cancelled(where + " is closing");
    queue.push_back(&op);
    wake.NotifyOne();
    while (!op.done) finished.Wait(lock);
    return op.status;
  }

  void RunBatch(const std::vector<Op*>& batch) {
    SqliteDb& db = *writer_db;
    Status begun = db.Exec("BEGIN IMMEDIATE");
    if (!begun.ok()) {
      for (Op* op : batch) op->status = begun.WithContext(where);
      return;
    }
    for (Op* op : batch) {
      Status s = db.Exec("SAVEPOINT op");
      if (s.ok()) {
        s = op->fn(db);
        if (s.ok()) {
          s = db.Exec("RELEASE op");
        } else {
          (void)db.Exec("ROLLBACK TO op");
          (void)db.Exec("RELEASE op");
        }
      }
      op->status = s;
    }
    Status committed = db.Exec("COMMIT");
    if (!committed.ok()) {
      (void)db.Exec("ROLLBACK");
      spdlog::error("{}: commit failed: {}", where, committed.ToString());
      for (Op* op : batch) {
        if (op->status.ok()) op->status = committed.WithContext(where);
      }
    }
  }

  // One retention round in its own transaction (the writer thread, between batches).
  bool PurgeStep(PurgeReport* report) {
    SqliteDb& db = *writer_db;
    bool more = false;
    Status s = db.Exec("BEGIN IMMEDIATE");
    if (s.ok()) s = PurgeRound(db, Now() - options.limits.retention.count(), options.purge_batch, report, &more);
    if (s.ok()) s = db.Exec("COMMIT");
    if (!s.ok()) {
      (void)db.Exec("ROLLBACK");
      spdlog::error("{}: retention purge failed (retried at the next interval): {}", where, s.ToString());
      return false;
    }
    return more;
  }

  void WriterLoop() {
    using Clock = std::chrono::steady_clock;
    const bool periodic = options.purge_interval.count() > 0;
    Clock::time_point next_purge = Clock::now();  // a first purge right after opening
    bool purging = periodic;
    PurgeReport purged;
    for (;;) {
      std::vector<Op*> batch;
      {
        MutexLock lock(mu);
        if (purging) {
          // Between purge rounds only queued work is waited for.
        } else if (periodic) {
          while (!stopping && queue.empty() && wake.WaitUntil(lock, next_purge) != std::cv_status::timeout) {
          }
        } else {
          while (!stopping && queue.empty()) wake.Wait(lock);
        }
        if (queue.empty() && stopping) return;
        while (!queue.empty() && batch.size() < kMaxBatch) {
          batch.push_back(queue.front());
          queue.pop_front();
        }
      }
      if (!batch.empty()) {
        RunBatch(batch);
        MutexLock lock(mu);
        for (Op* op : batch) op->done = true;
        finished.NotifyAll();
        continue;
      }
      if (periodic && (purging || Clock::now() >= next_purge)) {
        purging = PurgeStep(&purged);
        if (!purging) {
          if (purged.threads + purged.answers + purged.feedback > 0) {
            spdlog::info("{}: retention purge deleted {} threads, {} answers, {} feedback records", where,
                         purged.threads, purged.answers, purged.feedback);
          }
          purged = PurgeReport{};
          next_purge = Clock::now() + options.purge_interval;
        }
      }
    }
  }

  // --- readers ---
  class Reader {
   public:
    Reader(Impl* impl, std::unique_ptr<SqliteDb> db) : impl_(impl), db_(std::move(db)) {}
    ~Reader() {
      if (!db_) return;
      MutexLock lock(impl_->pool_mu);
      if (impl_->idle.size() < kIdleReaders) impl_->idle.push_back(std::move(db_));
    }
    Reader(Reader&&) = default;
    SqliteDb& db() { return *db_; }

   private:
    Impl* impl_;
    std::unique_ptr<SqliteDb> db_;
  };

  Result<Reader> Read() {
    {
      MutexLock lock(pool_mu);
      if (!idle.empty()) {
        std::unique_ptr<SqliteDb> db = std::move(idle.back());
        idle.pop_back();
        return Reader(this, std::move(db));
      }
    }
    SqliteOpenArgs oa;
    oa.path = options.path;
    auto db = SqliteDb::Open(oa);
    if (!db.ok()) return db.status().WithContext(where);
    ATTEST_RETURN_IF_ERROR((*db)->Exec("PRAGMA query_only = 1"));
    return Reader(this, std::move(db).value());
  }
};

ConversationStore::ConversationStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ConversationStore::~ConversationStore() {
  {
    MutexLock lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->wake.NotifyAll();
  if (impl_->writer.joinable()) impl_->writer.join();
}

Result<std::unique_ptr<ConversationStore>> ConversationStore::Open(ConversationStoreOptions options) {
  if (!options.now_ms) options.now_ms = SystemNowMs;
  if (options.purge_batch == 0) options.purge_batch = 1;
  auto impl = std::make_unique<Impl>();
  impl->where = "conversations database " + options.path.string();
  impl->options = std::move(options);
  SqliteOpenArgs oa;
  oa.path = impl->options.path;
  oa.create = true;
  auto db = SqliteDb::Open(oa);
  if (!db.ok()) return db.status().WithContext(impl->where);
  if (Status s = EnsureConversationSchema(**db, impl->where); !s.ok()) return s.WithContext(impl->where);
  if (Status s = QuickCheckConversations(**db); !s.ok()) return s.WithContext(impl->where);
  impl->writer_db = std::move(db).value();
  Impl* raw = impl.get();
  impl->writer = std::thread([raw] { raw->WriterLoop(); });
  return std::unique_ptr<ConversationStore>(new ConversationStore(std::move(impl)));
}

const ConversationLimits& ConversationStore::limits() const { return impl_->options.limits; }
const std::filesystem::path& ConversationStore::path() const { return impl_->options.path; }

Result<CreatedThread> ConversationStore::CreateThread(const NewThread& args) {
  CreatedThread out;
  const ConversationLimits& lim = impl_->options.limits;
  const int64_t now = impl_->Now();
  Status s = impl_->Submit([&](SqliteDb& db) -> Status {
    out.evicted_thread_id.clear();
    ATTEST_ASSIGN_OR_RETURN(int64_t mine, Usage(db, args.tenant, args.user, "threads"));
    if (mine >= static_cast<int64_t>(lim.max_threads_per_user)) {
      // The caller's own oldest threads make room (more than one only after the limit was lowered).
      ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare(
          "DELETE FROM threads WHERE seq IN (SELECT seq FROM threads WHERE tenant = ? AND user = ? ORDER BY seq "
          "LIMIT ?) RETURNING thread_id"));
      st->Bind(1, args.tenant).Bind(2, args.user).Bind(3, mine - static_cast<int64_t>(lim.max_threads_per_user) + 1);
      for (;;) {
        ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
        if (!row) break;
        if (out.evicted_thread_id.empty()) out.evicted_thread_id = st->ColumnText(0);
      }
    }
    ATTEST_ASSIGN_OR_RETURN(int64_t tenant_used, Usage(db, args.tenant, "", "tenant_threads"));
    if (tenant_used >= static_cast<int64_t>(lim.max_threads_per_tenant)) {
      return Status::ResourceExhausted("max_threads_per_tenant: tenant '" + args.tenant + "' already keeps " +
                                       std::to_string(tenant_used) + " threads (the limit is " +
                                       std::to_string(lim.max_threads_per_tenant) + ")");
    }
    ATTEST_ASSIGN_OR_RETURN(StmtRef ins, db.Prepare(
        "INSERT INTO threads(thread_id, tenant, user, answer_tenant, title, created_ms, updated_ms, turns) "
        "VALUES(?,?,?,?,?,?,?,0)"));
    ins->Bind(1, args.thread_id).Bind(2, args.tenant).Bind(3, args.user).Bind(4, args.answer_tenant)
        .Bind(5, args.title).Bind(6, now).Bind(7, now);
    return ins->Run();
  });
  if (!s.ok()) return s;
  out.thread = ThreadInfo{args.thread_id, args.tenant, args.user, args.answer_tenant, args.title, now, now, 0};
  return out;
}

Result<std::optional<ThreadInfo>> ConversationStore::FindThread(const std::string& tenant, const std::string& user,
                                                                const std::string& thread_id) {
  ATTEST_ASSIGN_OR_RETURN(Impl::Reader r, impl_->Read());
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, r.db().Prepare(
      "SELECT thread_id, tenant, user, answer_tenant, title, created_ms, updated_ms, turns FROM threads "
      "WHERE thread_id = ? AND tenant = ? AND user = ?"));
  st->Bind(1, thread_id).Bind(2, tenant).Bind(3, user);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<ThreadInfo>();
  ThreadInfo t{st->ColumnText(0), st->ColumnText(1), st->ColumnText(2), st->ColumnText(3), st->ColumnText(4),
               st->ColumnInt(5), st->ColumnInt(6), static_cast<uint32_t>(st->ColumnInt(7))};
  return std::optional<ThreadInfo>(std::move(t));
}

Result<std::vector<std::string>> ConversationStore::ThreadQuestions(const std::string& thread_id) {
  ATTEST_ASSIGN_OR_RETURN(Impl::Reader r, impl_->Read());
  ATTEST_ASSIGN_OR_RETURN(StmtRef st,
                          r.db().Prepare("SELECT question FROM answers WHERE thread_id = ? ORDER BY turn"));
  st->Bind(1, thread_id);
  std::vector<std::string> out;
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(st->ColumnText(0));
  }
  return out;
}

Result<std::vector<AnswerRecord>> ConversationStore::LastTurns(const std::string& thread_id, size_t n) {
  ATTEST_ASSIGN_OR_RETURN(Impl::Reader r, impl_->Read());
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, r.db().Prepare(std::string("SELECT ") + kAnswerColumns +
                                                     " FROM answers WHERE thread_id = ? ORDER BY turn DESC LIMIT ?"));
  st->Bind(1, thread_id).Bind(2, static_cast<int64_t>(n));
  std::vector<AnswerRecord> out;
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(ReadAnswer(*st));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

Result<uint32_t> ConversationStore::AddTurn(AnswerRecord record) {
  if (record.thread_id.empty()) return Status::InvalidArgument("AddTurn needs a thread id");
  record.created_ms = impl_->Now();
  const size_t max_turns = impl_->options.limits.max_turns_per_thread;
  Status s = impl_->Submit([&](SqliteDb& db) -> Status {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("SELECT turns FROM threads WHERE thread_id = ?"));
    st->Bind(1, record.thread_id);
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) return Status::NotFound("thread '" + record.thread_id + "' no longer exists");
    const int64_t turns = st->ColumnInt(0);
    if (turns >= static_cast<int64_t>(max_turns)) {
      return Status::ResourceExhausted("max_turns_per_thread: thread '" + record.thread_id + "' already has " +
                                       std::to_string(turns) + " turns (the limit is " +
                                       std::to_string(max_turns) + "); start a new thread");
    }
    record.turn = static_cast<uint32_t>(turns + 1);
    ATTEST_ASSIGN_OR_RETURN(StmtRef up,
                            db.Prepare("UPDATE threads SET turns = ?, updated_ms = ? WHERE thread_id = ?"));
    up->Bind(1, static_cast<int64_t>(record.turn)).Bind(2, record.created_ms).Bind(3, record.thread_id);
    ATTEST_RETURN_IF_ERROR(up->Run());
    return InsertAnswer(db, record);
  });
  if (!s.ok()) return s;
  return record.turn;
}

Status ConversationStore::RememberAnswer(AnswerRecord record) {
  record.thread_id.clear();
  record.turn = 0;
  record.created_ms = impl_->Now();
  const auto max_answers = static_cast<int64_t>(impl_->options.limits.max_answers_per_tenant);
  return impl_->Submit([&](SqliteDb& db) -> Status {
    ATTEST_RETURN_IF_ERROR(InsertAnswer(db, record));
    ATTEST_ASSIGN_OR_RETURN(int64_t used, Usage(db, record.tenant, "", "tenant_answers"));
    if (used <= max_answers) return Status::Ok();
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare(
        "DELETE FROM answers WHERE seq IN (SELECT seq FROM answers WHERE tenant = ? AND thread_id IS NULL "
        "ORDER BY seq LIMIT ?)"));
    st->Bind(1, record.tenant).Bind(2, used - max_answers);
    return st->Run();
  });
}

Result<std::optional<AnswerRecord>> ConversationStore::FindAnswer(const std::string& answer_id) {
  ATTEST_ASSIGN_OR_RETURN(Impl::Reader r, impl_->Read());
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, r.db().Prepare(std::string("SELECT ") + kAnswerColumns +
                                                     " FROM answers WHERE answer_id = ?"));
  st->Bind(1, answer_id);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<AnswerRecord>();
  return std::optional<AnswerRecord>(ReadAnswer(*st));
}

Result<FeedbackStored> ConversationStore::PutFeedback(const FeedbackInput& in) {
  FeedbackStored out;
  const ConversationLimits& lim = impl_->options.limits;
  const int64_t now = impl_->Now();
  Status s = impl_->Submit([&](SqliteDb& db) -> Status {
    ATTEST_ASSIGN_OR_RETURN(StmtRef find, db.Prepare(
        "SELECT feedback_id FROM feedback WHERE answer_id = ? AND claim_id = ? AND tenant = ? AND user = ?"));
    find->Bind(1, in.answer_id).Bind(2, in.claim_id).Bind(3, in.tenant).Bind(4, in.user);
    ATTEST_ASSIGN_OR_RETURN(bool found, find->Step());
    if (found) {
      out.feedback_id = find->ColumnText(0);
      out.replaced = true;
      ATTEST_ASSIGN_OR_RETURN(StmtRef up, db.Prepare(
          "UPDATE feedback SET source_id = ?, kind = ?, comment = ?, request_id = ?, created_ms = ? "
          "WHERE feedback_id = ?"));
      up->Bind(1, in.source_id).Bind(2, in.kind).Bind(3, in.comment).Bind(4, in.request_id).Bind(5, now)
          .Bind(6, out.feedback_id);
      return up->Run();
    }
    out.feedback_id = in.feedback_id;
    out.replaced = false;
    ATTEST_ASSIGN_OR_RETURN(int64_t mine, Usage(db, in.tenant, in.user, "feedback"));
    if (mine >= static_cast<int64_t>(lim.max_feedback_per_user)) {
      return Status::ResourceExhausted("max_feedback_per_user: you already keep " + std::to_string(mine) +
                                       " feedback records (the limit is " + std::to_string(lim.max_feedback_per_user) +
                                       "); older ones expire after the retention period");
    }
    ATTEST_ASSIGN_OR_RETURN(int64_t tenant_used, Usage(db, in.tenant, "", "tenant_feedback"));
    if (tenant_used >= static_cast<int64_t>(lim.max_feedback_per_tenant)) {
      return Status::ResourceExhausted("max_feedback_per_tenant: tenant '" + in.tenant + "' already keeps " +
                                       std::to_string(tenant_used) + " feedback records (the limit is " +
                                       std::to_string(lim.max_feedback_per_tenant) +
                                       "); older ones expire after the retention period");
    }
    ATTEST_ASSIGN_OR_RETURN(StmtRef ins, db.Prepare(
        "INSERT INTO feedback(feedback_id, answer_id, claim_id, source_id, tenant, user, kind, comment, request_id, "
        "created_ms) VALUES(?,?,?,?,?,?,?,?,?,?)"));
    ins->Bind(1, in.feedback_id).Bind(2, in.answer_id).Bind(3, in.claim_id).Bind(4, in.source_id).Bind(5, in.tenant)
        .Bind(6, in.user).Bind(7, in.kind).Bind(8, in.comment).Bind(9, in.request_id).Bind(10, now);
    return ins->Run();
  });
  if (!s.ok()) return s;
  return out;
}

Result<PurgeReport> ConversationStore::Purge() {
  PurgeReport total;
  const int64_t cutoff = impl_->Now() - impl_->options.limits.retention.count();
  for (bool more = true; more;) {
    PurgeReport round;
    Status s = impl_->Submit([&](SqliteDb& db) {
      round = PurgeReport{};
      return PurgeRound(db, cutoff, impl_->options.purge_batch, &round, &more);
    });
    if (!s.ok()) return s;
    total.threads += round.threads;
    total.answers += round.answers;
    total.feedback += round.feedback;
  }
  return total;
}

Result<ConversationCounts> ConversationStore::Counts() {
  ATTEST_ASSIGN_OR_RETURN(Impl::Reader r, impl_->Read());
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, r.db().Prepare("SELECT kind, sum(used) FROM usage WHERE user = '' GROUP BY kind"));
  ConversationCounts c;
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    const std::string kind = st->ColumnText(0);
    const auto n = static_cast<uint64_t>(std::max<int64_t>(0, st->ColumnInt(1)));
    if (kind == "tenant_threads") c.threads = n;
    if (kind == "tenant_answers") c.answers = n;
    if (kind == "tenant_feedback") c.feedback = n;
  }
  return c;
}

}  // namespace attest::service
