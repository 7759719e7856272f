// Unit tests of the durable conversation store (src/service/conversation_store.h): threads, turns,
// remembered answers and feedback in conversations.db; quotas, eviction, retention, migrations and
// crash safety (kill -9 mid-write leaves a readable file with every acknowledged row).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "service/conversation_store.h"
#include "store/sqlite_util.h"
#include "support/process.h"

namespace attest::service {
namespace {

using testing_support::TempDir;

struct FakeClock {
  std::atomic<int64_t> now{1'700'000'000'000};
  std::function<int64_t()> fn() {
    return [this] { return now.load(); };
  }
};

ConversationStoreOptions Options(const TempDir& dir, FakeClock* clock = nullptr) {
  ConversationStoreOptions o;
  o.path = dir.path() / "conversations.db";
  o.purge_interval = std::chrono::milliseconds(0);  // tests purge explicitly
  if (clock) o.now_ms = clock->fn();
  return o;
}

std::unique_ptr<ConversationStore> OpenOrDie(ConversationStoreOptions o) {
  auto s = ConversationStore::Open(std::move(o));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

NewThread Thread(const std::string& id, const std::string& tenant, const std::string& user) {
  return NewThread{id, tenant, user, tenant, "title of " + id};
}

AnswerRecord Answer(const std::string& id, const std::string& tenant, const std::string& user,
                    const std::string& thread = "") {
  AnswerRecord r;
  r.answer_id = id;
  r.tenant = tenant;
  r.user = user;
  r.answer_tenant = tenant;
  r.thread_id = thread;
  r.question = "question of " + id;
  r.summary_json = R"({"outcome":"answer"})";
  return r;
}

FeedbackInput Feedback(const std::string& id, const std::string& answer, const std::string& claim,
                       const std::string& tenant, const std::string& user) {
  return FeedbackInput{id, answer, claim, "", tenant, user, "wrong", "comment", "req"};
}

int64_t Rows(const std::filesystem::path& path, const std::string& sql) {
  SqliteOpenArgs oa;
  oa.path = path;
  oa.read_only = true;
  auto db = SqliteDb::Open(oa);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return -1;
  auto n = QueryInt(**db, sql, -1);
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  return n.ok() ? *n : -1;
}

// The quota counters must always equal the rows they count.
void ExpectCountsMatchRows(const std::filesystem::path& path) {
  EXPECT_EQ(Rows(path, "SELECT count(*) FROM (SELECT tenant, user, count(*) AS n FROM threads GROUP BY 1, 2) t "
                       "LEFT JOIN usage u ON u.tenant = t.tenant AND u.user = t.user AND u.kind = 'threads' "
                       "WHERE u.used IS NOT t.n"),
            0);
  EXPECT_EQ(Rows(path, "SELECT count(*) FROM (SELECT tenant, count(*) AS n FROM threads GROUP BY 1) t "
                       "LEFT JOIN usage u ON u.tenant = t.tenant AND u.user = '' AND u.kind = 'tenant_threads' "
                       "WHERE u.used IS NOT t.n"),
            0);
  EXPECT_EQ(Rows(path, "SELECT count(*) FROM (SELECT tenant, count(*) AS n FROM answers WHERE thread_id IS NULL "
                       "GROUP BY 1) t LEFT JOIN usage u ON u.tenant = t.tenant AND u.user = '' AND "
                       "u.kind = 'tenant_answers' WHERE u.used IS NOT t.n"),
            0);
  EXPECT_EQ(Rows(path, "SELECT count(*) FROM (SELECT tenant, user, count(*) AS n FROM feedback GROUP BY 1, 2) t "
                       "LEFT JOIN usage u ON u.tenant = t.tenant AND u.user = t.user AND u.kind = 'feedback' "
                       "WHERE u.used IS NOT t.n"),
            0);
  EXPECT_EQ(Rows(path, "SELECT count(*) FROM usage WHERE used <= 0"), 0);
  // Every turn belongs to a live thread.
  EXPECT_EQ(Rows(path, "SELECT count(*) FROM answers a WHERE thread_id IS NOT NULL AND NOT EXISTS "
                       "(SELECT 1 FROM threads t WHERE t.thread_id = a.thread_id)"),
            0);
}

TEST(ConversationStore, ThreadsBelongToTheirOwner) {
  TempDir dir;
  auto s = OpenOrDie(Options(dir));
  ASSERT_TRUE(s);
  auto c = s->CreateThread(Thread("thr_a", "acme", "alice"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->evicted_thread_id.empty());
  auto mine = s->FindThread("acme", "alice", "thr_a");
  ASSERT_TRUE(mine.ok());
  ASSERT_TRUE(mine->has_value());
  EXPECT_EQ((*mine)->title, "title of thr_a");
  EXPECT_EQ((*mine)->turns, 0u);
  for (auto [tenant, user] : {std::pair{"acme", "bob"}, std::pair{"bolt", "alice"}}) {
    auto other = s->FindThread(tenant, user, "thr_a");
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(other->has_value()) << tenant << "/" << user;
  }
  // Thread ids are unique.
  EXPECT_FALSE(s->CreateThread(Thread("thr_a", "acme", "alice")).ok());
}

TEST(ConversationStore, PerUserQuotaEvictsOnlyTheOwnersOldestThread) {
  TempDir dir;
  auto o = Options(dir);
  o.limits.max_threads_per_user = 3;
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->CreateThread(Thread("bob1", "acme", "bob")).ok());
  ASSERT_TRUE(s->CreateThread(Thread("carol1", "bolt", "alice")).ok());  // same user name, other tenant
  for (int i = 0; i < 10; ++i) {
    auto c = s->CreateThread(Thread("a" + std::to_string(i), "acme", "alice"));
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->evicted_thread_id, i < 3 ? "" : "a" + std::to_string(i - 3)) << i;
  }
  for (int i = 0; i < 10; ++i) {
    auto t = s->FindThread("acme", "alice", "a" + std::to_string(i));
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->has_value(), i >= 7) << i;
  }
  EXPECT_TRUE(s->FindThread("acme", "bob", "bob1")->has_value());
  EXPECT_TRUE(s->FindThread("bolt", "alice", "carol1")->has_value());
  auto counts = s->Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->threads, 5u);
  ExpectCountsMatchRows(o.path);
}

TEST(ConversationStore, EvictedThreadTakesItsTurnsAlong) {
  TempDir dir;
  auto o = Options(dir);
  o.limits.max_threads_per_user = 1;
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->CreateThread(Thread("t1", "acme", "alice")).ok());
  ASSERT_TRUE(s->AddTurn(Answer("ans_1", "acme", "alice", "t1")).ok());
  ASSERT_TRUE(s->CreateThread(Thread("t2", "acme", "alice")).ok());
  auto gone = s->FindAnswer("ans_1");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  EXPECT_EQ(s->AddTurn(Answer("ans_2", "acme", "alice", "t1")).status().code(), StatusCode::kNotFound);
  ExpectCountsMatchRows(o.path);
}

TEST(ConversationStore, PerTenantQuotaRefusesNamingTheQuotaAndNeverEvictsOthers) {
  TempDir dir;
  auto o = Options(dir);
  o.limits.max_threads_per_user = 2;
  o.limits.max_threads_per_tenant = 3;
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->CreateThread(Thread("a1", "acme", "alice")).ok());
  ASSERT_TRUE(s->CreateThread(Thread("a2", "acme", "alice")).ok());
  ASSERT_TRUE(s->CreateThread(Thread("b1", "acme", "bob")).ok());
  auto refused = s->CreateThread(Thread("d1", "acme", "dave"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.status().message().rfind("max_threads_per_tenant:", 0), 0u) << refused.status().message();
  EXPECT_FALSE(s->FindThread("acme", "dave", "d1")->has_value());
  // Bob is under his own quota but the tenant is full: refused too (nobody else's thread goes).
  EXPECT_EQ(s->CreateThread(Thread("b2", "acme", "bob")).status().code(), StatusCode::kResourceExhausted);
  // Alice at her own quota replaces her own oldest: the tenant's count does not grow.
  auto again = s->CreateThread(Thread("a3", "acme", "alice"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->evicted_thread_id, "a1");
  EXPECT_TRUE(s->FindThread("acme", "bob", "b1")->has_value());
  EXPECT_TRUE(s->CreateThread(Thread("c1", "bolt", "carol")).ok());
  ExpectCountsMatchRows(o.path);
}

TEST(ConversationStore, TurnsAreNumberedInOrderAndCapped) {
  TempDir dir;
  auto o = Options(dir);
  o.limits.max_turns_per_thread = 3;
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->CreateThread(Thread("t", "acme", "alice")).ok());
  for (int i = 1; i <= 3; ++i) {
    auto turn = s->AddTurn(Answer("ans_" + std::to_string(i), "acme", "alice", "t"));
    ASSERT_TRUE(turn.ok()) << turn.status().ToString();
    EXPECT_EQ(*turn, static_cast<uint32_t>(i));
  }
  auto over = s->AddTurn(Answer("ans_4", "acme", "alice", "t"));
  EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(over.status().message().rfind("max_turns_per_thread:", 0), 0u);
  EXPECT_FALSE(s->FindAnswer("ans_4")->has_value()) << "a refused turn leaves nothing behind";
  auto questions = s->ThreadQuestions("t");
  ASSERT_TRUE(questions.ok());
  EXPECT_EQ(*questions, (std::vector<std::string>{"question of ans_1", "question of ans_2", "question of ans_3"}));
  auto last = s->LastTurns("t", 2);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[0].answer_id, "ans_2");
  EXPECT_EQ((*last)[0].turn, 2u);
  EXPECT_EQ((*last)[1].answer_id, "ans_3");
  EXPECT_EQ(s->FindThread("acme", "alice", "t").value()->turns, 3u);
}

TEST(ConversationStore, RecentAnswersForgetOnlyTheTenantsOwnOldest) {
  TempDir dir;
  auto o = Options(dir);
  o.limits.max_answers_per_tenant = 5;
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->RememberAnswer(Answer("bolt_1", "bolt", "carol")).ok());
  ASSERT_TRUE(s->CreateThread(Thread("t", "acme", "alice")).ok());
  ASSERT_TRUE(s->AddTurn(Answer("turn_1", "acme", "alice", "t")).ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(s->RememberAnswer(Answer("acme_" + std::to_string(i), "acme", "alice")).ok());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s->FindAnswer("acme_" + std::to_string(i))->has_value(), i >= 15) << i;
  EXPECT_TRUE(s->FindAnswer("bolt_1")->has_value());
  EXPECT_TRUE(s->FindAnswer("turn_1")->has_value()) << "a thread's turns are bounded by the thread quotas";
  auto a = s->FindAnswer("acme_19");
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->user, "alice");
  EXPECT_EQ((*a)->summary_json, R"({"outcome":"answer"})");
  EXPECT_TRUE((*a)->thread_id.empty());
  ExpectCountsMatchRows(o.path);
}

TEST(ConversationStore, FeedbackRepeatReplacesAndQuotasRefuse) {
  TempDir dir;
  auto o = Options(dir);
  o.limits.max_feedback_per_user = 2;
  o.limits.max_feedback_per_tenant = 3;
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  auto first = s->PutFeedback(Feedback("fb_1", "ans_1", "c1", "acme", "alice"));
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->replaced);
  for (int i = 0; i < 5; ++i) {
    auto again = s->PutFeedback(Feedback("fb_x" + std::to_string(i), "ans_1", "c1", "acme", "alice"));
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->replaced);
    EXPECT_EQ(again->feedback_id, "fb_1");
  }
  ASSERT_TRUE(s->PutFeedback(Feedback("fb_2", "ans_1", "", "acme", "alice")).ok());
  auto user_full = s->PutFeedback(Feedback("fb_3", "ans_2", "", "acme", "alice"));
  EXPECT_EQ(user_full.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(user_full.status().message().rfind("max_feedback_per_user:", 0), 0u);
  ASSERT_TRUE(s->PutFeedback(Feedback("fb_4", "ans_1", "c1", "acme", "dave")).ok());
  auto tenant_full = s->PutFeedback(Feedback("fb_5", "ans_2", "", "acme", "bob"));
  EXPECT_EQ(tenant_full.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(tenant_full.status().message().rfind("max_feedback_per_tenant:", 0), 0u);
  EXPECT_TRUE(s->PutFeedback(Feedback("fb_6", "ans_9", "", "bolt", "carol")).ok());
  EXPECT_EQ(Rows(o.path, "SELECT count(*) FROM feedback"), 4);
  EXPECT_EQ(Rows(o.path, "SELECT count(*) FROM feedback WHERE feedback_id = 'fb_1' AND kind = 'wrong'"), 1);
  ExpectCountsMatchRows(o.path);
}

TEST(ConversationStore, RetentionPurgeDeletesOldRowsAndFreesTheirQuota) {
  TempDir dir;
  FakeClock clock;
  auto o = Options(dir, &clock);
  o.limits.retention = std::chrono::hours(24);
  o.limits.max_threads_per_tenant = 3;
  o.purge_batch = 2;  // several rounds
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->CreateThread(Thread("old" + std::to_string(i), "acme", "u" + std::to_string(i))).ok());
  ASSERT_TRUE(s->AddTurn(Answer("old_turn", "acme", "u0", "old0")).ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(s->RememberAnswer(Answer("old_ans" + std::to_string(i), "acme", "u0")).ok());
  ASSERT_TRUE(s->PutFeedback(Feedback("old_fb", "old_ans0", "", "acme", "u0")).ok());
  clock.now += 20 * 3600 * 1000;  // 20 h later: u1's thread is used again
  ASSERT_TRUE(s->AddTurn(Answer("fresh_turn", "acme", "u1", "old1")).ok());
  ASSERT_TRUE(s->RememberAnswer(Answer("fresh_ans", "acme", "u0")).ok());
  EXPECT_EQ(s->CreateThread(Thread("new", "acme", "u9")).status().code(), StatusCode::kResourceExhausted);
  clock.now += 5 * 3600 * 1000;  // 25 h after the first writes
  auto p = s->Purge();
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->threads, 2u);
  EXPECT_EQ(p->answers, 6u);  // five answers and the turn of thread old0
  EXPECT_EQ(p->feedback, 1u);
  EXPECT_FALSE(s->FindThread("acme", "u0", "old0")->has_value());
  EXPECT_TRUE(s->FindThread("acme", "u1", "old1")->has_value()) << "kept by its recent activity";
  EXPECT_TRUE(s->FindAnswer("fresh_ans")->has_value());
  EXPECT_FALSE(s->FindAnswer("old_turn")->has_value());
  EXPECT_TRUE(s->CreateThread(Thread("new", "acme", "u9")).ok()) << "the purge freed the tenant's quota";
  ExpectCountsMatchRows(o.path);
}

TEST(ConversationStore, PeriodicPurgeRunsOnItsOwn) {
  TempDir dir;
  FakeClock clock;
  auto o = Options(dir, &clock);
  o.limits.retention = std::chrono::hours(1);
  o.purge_interval = std::chrono::milliseconds(20);
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->RememberAnswer(Answer("a", "acme", "u")).ok());
  clock.now += 2 * 3600 * 1000;
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    gone = !s->FindAnswer("a")->has_value();
  }
  EXPECT_TRUE(gone);
}

TEST(ConversationStore, ReopenKeepsEverything) {
  TempDir dir;
  auto o = Options(dir);
  {
    auto s = OpenOrDie(o);
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->CreateThread(Thread("t", "acme", "alice")).ok());
    ASSERT_TRUE(s->AddTurn(Answer("ans_t", "acme", "alice", "t")).ok());
    ASSERT_TRUE(s->RememberAnswer(Answer("ans_r", "acme", "bob")).ok());
    ASSERT_TRUE(s->PutFeedback(Feedback("fb", "ans_r", "c1", "acme", "bob")).ok());
  }
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->FindThread("acme", "alice", "t").value()->turns, 1u);
  EXPECT_EQ(s->ThreadQuestions("t").value(), std::vector<std::string>{"question of ans_t"});
  EXPECT_TRUE(s->FindAnswer("ans_r")->has_value());
  EXPECT_TRUE(s->PutFeedback(Feedback("fb2", "ans_r", "c1", "acme", "bob"))->replaced);
  EXPECT_EQ(Rows(o.path, "PRAGMA user_version"), kConversationSchemaVersion);
  EXPECT_EQ(Rows(o.path, "PRAGMA application_id"), kConversationApplicationId);
  EXPECT_EQ(Rows(o.path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
}

TEST(ConversationStore, ForeignNewerAndDamagedFilesAreRefusedWithThePath) {
  TempDir dir;
  auto write_db = [&](const std::string& name, const std::string& sql) {
    SqliteOpenArgs oa;
    oa.path = dir.path() / name;
    oa.create = true;
    auto db = SqliteDb::Open(oa);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec(sql).ok());
  };
  write_db("foreign.db", "PRAGMA application_id = 1234; CREATE TABLE x(y);");
  write_db("tables.db", "CREATE TABLE x(y);");
  write_db("newer.db", "PRAGMA application_id = " + std::to_string(kConversationApplicationId) +
                           "; PRAGMA user_version = " + std::to_string(kConversationSchemaVersion + 1) + ";");
  for (auto [name, code] : {std::pair{"foreign.db", StatusCode::kCorruption}, std::pair{"tables.db", StatusCode::kCorruption},
                            std::pair{"newer.db", StatusCode::kUnsupported}}) {
    ConversationStoreOptions o = Options(dir);
    o.path = dir.path() / name;
    auto s = ConversationStore::Open(o);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.status().code(), code) << s.status().ToString();
    EXPECT_NE(s.status().message().find(name), std::string::npos) << s.status().ToString();
  }
  // Garbage where the file should be.
  testing_support::WriteFile(dir.path() / "garbage.db", std::string(8192, 'x'));
  ConversationStoreOptions o = Options(dir);
  o.path = dir.path() / "garbage.db";
  auto s = ConversationStore::Open(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("garbage.db"), std::string::npos) << s.status().ToString();
}

TEST(ConversationStore, ConcurrentWritersOfManyTenantsAllLand) {
  TempDir dir;
  auto o = Options(dir);
  o.limits.max_threads_per_user = 10;
  auto s = OpenOrDie(o);
  ASSERT_TRUE(s);
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 8; ++w) {
    workers.emplace_back([&, w] {
      const std::string tenant = "t" + std::to_string(w % 4);
      const std::string user = "u" + std::to_string(w);
      for (int i = 0; i < 40; ++i) {
        const std::string id = user + "_" + std::to_string(i);
        if (!s->CreateThread(Thread(id, tenant, user)).ok()) ++failures;
        if (!s->AddTurn(Answer("ans_" + id, tenant, user, id)).ok()) ++failures;
        if (!s->RememberAnswer(Answer("rec_" + id, tenant, user)).ok()) ++failures;
        if (!s->PutFeedback(Feedback("fb_" + id, "rec_" + id, "", tenant, user)).ok() && i < 10) ++failures;
      }
    });
  }
  for (auto& t : workers) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto c = s->Counts();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->threads, 80u);
  EXPECT_EQ(c->answers, 320u);
  ExpectCountsMatchRows(o.path);
}

// A child process writes as fast as it can and reports each acknowledged thread; it is killed
// with SIGKILL at a random moment. The file must open (integrity check included) and hold every
// acknowledged thread with its turn, and the quota counters must match the rows.
TEST(ConversationStore, KillMidWriteLeavesAReadableFileWithEveryAcknowledgedRow) {
  TempDir dir;
  const auto path = dir.path() / "conversations.db";
  std::mt19937 rng(12345);
  std::set<std::string> acked;
  for (int round = 0; round < 12; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      ConversationStoreOptions o;
      o.path = path;
      o.purge_interval = std::chrono::milliseconds(0);
      o.limits.max_threads_per_user = 1000000;
      auto s = ConversationStore::Open(o);
      if (!s.ok()) ::_exit(3);
      std::vector<std::thread> writers;
      for (int w = 0; w < 3; ++w) {
        writers.emplace_back([&, w] {
          for (int i = 0;; ++i) {
            const std::string id = "r" + std::to_string(round) + "w" + std::to_string(w) + "i" + std::to_string(i);
            if (!(*s)->CreateThread(NewThread{id, "acme", "u" + std::to_string(w), "acme", std::string(300, 't')}).ok()) ::_exit(4);
            AnswerRecord a;
            a.answer_id = "ans_" + id;
            a.tenant = "acme";
            a.user = "u" + std::to_string(w);
            a.answer_tenant = "acme";
            a.thread_id = id;
            a.question = "q";
            a.summary_json = std::string(2000, 's');
            if (!(*s)->AddTurn(a).ok()) ::_exit(5);
            const std::string line = id + "\n";
            if (::write(fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(6);
          }
        });
      }
      for (auto& t : writers) t.join();
      ::_exit(0);
    }
    ::close(fds[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(40 + rng() % 200));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited on its own with " << WEXITSTATUS(status);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    for (size_t at = 0, nl; (nl = got.find('\n', at)) != std::string::npos; at = nl + 1) acked.insert(got.substr(at, nl - at));

    auto o = Options(dir);
    o.limits.max_threads_per_user = 1000000;
    auto s = ConversationStore::Open(o);
    ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.status().ToString();
    for (const std::string& id : acked) {
      const std::string user = "u" + id.substr(id.find('w') + 1, id.find('i') - id.find('w') - 1);
      auto t = (*s)->FindThread("acme", user, id);
      ASSERT_TRUE(t.ok() && t->has_value()) << "acknowledged thread lost: " << id;
      EXPECT_EQ((*t)->turns, 1u) << id;
      EXPECT_TRUE((*s)->FindAnswer("ans_" + id)->has_value()) << id;
    }
  }
  EXPECT_GT(acked.size(), 12u);
  std::printf("%zu acknowledged threads over 12 kills, all present\n", acked.size());
  ExpectCountsMatchRows(path);
}

}  // namespace
}  // namespace attest::service
