// The query planner: turns the raw question into a validated, JSON-serialisable plan that later
// stages (retrieve, rank, write, verify) act on deterministically.
//
// Everything here is pure, rule-based code: no model, no index access, no clock of its own (the
// caller passes `today`). The pipeline fills `QueryPlan::resolved_version` later from the index.
// The rules (intents, entities, time, constraints, operators, follow-ups, the rewrite and its
// validator) are documented one by one in docs/planner.md.
//
// Thread-safety: all functions are pure and thread-safe; a PlannerConfig is immutable once built
// and may be shared by threads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "attest/status.h"
#include "plan/calculator.h"

namespace attest {

enum class Intent {
  kFact,
  kReleaseDelta,
  kComparison,
  kHowTo,
  kDefinition,
  kNavigational,
  kCalculation,
  kGreeting,
  kMultiHop,
};
// "fact", "release_delta", "comparison", "how_to", "definition", "navigational", "calculation",
// "greeting", "multi_hop".
const char* IntentName(Intent intent);

// What the question asks for (docs/planner.md, "focus"): the kind of content that answers it.
enum class Focus {
  kNone,        // not recognised: any relevant sentence may answer
  kValue,       // a value or default ("What is the default value of X?", "what is X set to")
  kNumber,      // a number or quantity ("how many", "how much", "how long")
  kDate,        // a date or time ("when", "what year")
  kVersion,     // a version ("which version", "since which release")
  kName,        // a name ("who", "which command/function/option")
  kDefinition,  // what something is or does ("what is X", "what does X do")
  kProcedure,   // how to do something ("how do I", "how to")
  kYesNo,       // a yes/no question ("does X support Y?", "is X ...?")
  kList,        // several items ("which ... are", "list the ...")
  kComparison,  // a comparison ("X vs Y", "difference between")
  kReason,      // a cause or purpose ("why")
};
// "none", "value", "number", "date", "version", "name", "definition", "procedure", "yes_no",
// "list", "comparison", "reason".
const char* FocusName(Focus focus);

struct PlanEntity {
  std::string text;       // as written in the question ("Postgres")
  std::string canonical;  // normalised ("postgresql")
  std::string type;       // "software", "product", "org", ...
};

struct PlanTime {
  // "", "latest", "current", "this_year", "this_quarter", "this_month", "last_n_days", "since",
  // "explicit".
  std::string relative;
  std::optional<std::string> from, to;  // resolved YYYY-MM-DD bounds (inclusive), when any
  std::string resolved_at;              // the clock's date, YYYY-MM-DD
  bool needs_current_version = false;   // "latest"/"current"/"newest" about a versioned entity
};

// Terms are singular and lowercase ("publisher"); multi-word terms keep their words in order and
// singularise the last one ("logical replication").
struct PlanConstraints {
  std::vector<std::string> exclude, scope;
};

// Parsed deterministically from the question text; removed from the text used for q0 (a quoted
// phrase keeps its words, without the quotes).
struct PlanOperators {
  std::vector<std::string> phrases, sites, versions, types;
  std::optional<std::string> before, after;  // YYYY-MM-DD
};

struct SubQuery {
  std::string id;       // "q0" is always the standalone question; then "q1", "q2", ...
  std::string text;
  std::string purpose;  // "original", "rewrite", "side: X", "part 1", "hop 1", ...
};

// Which planner produced a plan (docs/planner.md, "The model planner"). `--explain` shows it.
struct PlanProvenance {
  std::string kind = "deterministic";  // "deterministic" or "model" (the model's plan was merged in)
  std::string model;                   // the planner model asked; "" = none configured
  std::optional<std::string> fallback; // why the model's plan was not used ("timeout: ...", ...)
  std::optional<double> latency_ms;    // of the model call, when one was made
  // The model's classification, when its reply was valid (kind "model"); the merge rules decide
  // what of it the plan adopts.
  std::string model_intent, freshness, complexity;
  std::optional<bool> model_needs_search;
};

struct QueryPlan {
  std::string original;    // the user's words
  std::string standalone;  // a follow-up rewritten as a standalone question (== original otherwise)
  Intent intent = Intent::kFact;
  Focus focus = Focus::kNone;
  // The thing the question is about, as written ("max_wal_senders", "core.eol", "--onto",
  // "git rebase"); "" when none is recognised. Evidence about another subject does not answer.
  std::string subject;
  std::vector<PlanEntity> entities;
  std::vector<std::string> topic_terms;         // content phrases ("logical replication")
  std::vector<std::string> mentioned_versions;  // versions written next to an entity ("ExampleDB 17")
  PlanTime time;
  PlanConstraints constraints;
  PlanOperators operators;
  std::vector<SubQuery> subqueries;  // q0 = standalone question (operators stripped); then the rewrite(s)
  std::string rewritten;             // keyword rewrite used as retrieval leg q1 (validated)
  bool needs_search = true;
  std::optional<Calculation> calculation;
  std::string resolved_version;      // filled by the pipeline from the index ("" here)
  std::vector<std::string> notes;    // validator repairs and other decisions, human-readable
  PlanProvenance planner;            // set by the model planner (plan/model_planner.h); else deterministic

  // Every field, stable snake_case key names; absent optionals are null.
  nlohmann::json ToJson() const;
};

struct PlannerConfig {
  // alias (case-insensitive, may be multi-word) -> canonical entity. Keys are stored lowercase.
  std::map<std::string, std::string> aliases;
  std::map<std::string, std::string> entity_types;  // canonical -> type

  // postgres/pg/postgresql/pgsql -> postgresql, k8s/kube/kubernetes -> kubernetes, and a few more.
  static PlannerConfig Defaults();
  // Defaults() plus the entries of a JSON object {"aliases": {alias: canonical, ...},
  // "entity_types": {canonical: type, ...}}. Strict: unknown keys, wrong types and empty strings
  // are errors naming the field.
  static Result<PlannerConfig> FromJson(const std::string& json);
};

struct PlanArgs {
  std::string question;
  std::string today;                    // YYYY-MM-DD, the injectable clock (required)
  const QueryPlan* previous = nullptr;  // previous turn's plan, for follow-ups
};

// Limits on untrusted input: Unicode code points (not bytes, not UTF-16 code units), the unit of
// the HTTP API's query limit, so that a question is refused or accepted alike everywhere.
inline constexpr size_t kMaxQuestionChars = 2000;

// Errors (kInvalidArgument) only for invalid input: empty question, more than kMaxQuestionChars code
// points, invalid UTF-8, a bad `today`, a malformed explicit operator value (naming the operator), an
// explicit calculation that fails (division by zero, ...). A question the rules understand badly
// still plans: a constraint that cannot be honoured is dropped with a note (ValidateRewrite).
Result<QueryPlan> PlanQuestion(const PlanArgs& args, const PlannerConfig& config);

// Guarantees, after an OK return: every scope term's words occur in `rewritten`; no exclude term
// occurs in `rewritten` as a positive term (also not in plural form); every quoted phrase's words
// occur in `rewritten`. Filters that cannot live in a keyword string (site, before, after, version,
// type, and each exclude as a post-retrieval check) are listed in `notes` for the pipeline.
// Repairs are recorded in `notes`; the sub-query whose purpose is "rewrite" is kept in sync.
// A constraint that cannot be honoured costs quality, never availability: an empty term, an exclude
// that is also in scope (or inside a scope term) are dropped from `constraints`; an exclude inside
// a quoted phrase ('not the "safe choice"') is dropped together with that phrase filter (its
// words stay ordinary words of q0). Each with a note naming it. Always returns OK.
Status ValidateRewrite(QueryPlan* plan);

}  // namespace attest
