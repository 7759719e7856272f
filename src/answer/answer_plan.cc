// The plan stage of the answer path (answer_stages.h): the thread's earlier turns, the planner's
// configuration, the optional model planner, the source hierarchy and the resolution of "latest".
#include <ctime>
#include <optional>

#include "answer/answer_config.h"
#include "answer/answer_stages.h"
#include "llm/metered_chat_model.h"

namespace attest {
namespace {

std::string TodayUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

Result<PlannedAnswer> PlanForAnswer(const AnswerContext& ctx, const AskOptions& options) {
  // The engine's configuration, parsed when it opened; an answer that brings its own JSON parses it.
  const AnswerConfig& engine_config = ctx.config != nullptr ? *ctx.config : AnswerConfig::Defaults();
  std::optional<PlannerConfig> own_config;
  if (!options.planner_config_json.empty()) {
    ATTEST_ASSIGN_OR_RETURN(own_config, PlannerConfig::FromJson(options.planner_config_json));
  }
  const PlannerConfig& config = own_config ? *own_config : engine_config.planner;
  SourceHierarchy hierarchy = engine_config.hierarchy;
  if (!options.source_hierarchy_json.empty()) {
    ATTEST_ASSIGN_OR_RETURN(hierarchy, SourceHierarchy::FromJson(options.source_hierarchy_json));
  }
  const std::string today = options.today.empty() ? TodayUtc() : options.today;
  // Earlier turns first, so a follow-up inherits the previous plan.
  std::optional<QueryPlan> previous;
  for (const std::string& earlier : options.thread) {
    PlanArgs pa{earlier, today, previous ? &*previous : nullptr};
    auto p = PlanQuestion(pa, config);
    if (!p.ok()) continue;  // an earlier turn that does not plan cannot help this one
    auto v = ResolveVersion(ctx, *p, FilterOf(options, *p));
    if (v.ok()) p->resolved_version = v->version;
    previous = std::move(p).value();
  }
  ATTEST_ASSIGN_OR_RETURN(QueryPlan plan,
                          PlanQuestion(PlanArgs{options.question, today, previous ? &*previous : nullptr}, config));
  std::optional<MeteredChatModel> planner;
  if (ctx.planner != nullptr) {
    planner.emplace(*ctx.planner);
    // After the deterministic plan, which it refines and which it falls back to (never an error).
    plan = PlanWithModel(*planner, ModelPlanArgs{options.question, options.thread, &plan, ctx.planner_limits,
                                                 ctx.clock});
  }
  PlannedAnswer out{std::move(plan), SearchFilter{}, std::move(hierarchy), {}, {}, {}, {}};
  if (planner) out.planner_usage = planner->usage();  // what this answer spent on it (docs/cost.md)
  out.filter = FilterOf(options, out.plan);
  if (out.plan.resolved_version.empty()) {
    ATTEST_ASSIGN_OR_RETURN(VersionResolution vr, ResolveVersion(ctx, out.plan, out.filter));
    out.plan.resolved_version = vr.version;
    out.resolved_version_date = vr.date;
    out.feed_docs = std::move(vr.feed_docs);
    if (!vr.warning.empty()) out.warnings.push_back(vr.warning);
  }
  return out;
}

std::vector<std::string> RetrieveQueries(const QueryPlan& plan) {
  std::vector<std::string> queries;
  for (const auto& sq : plan.subqueries) queries.push_back(sq.text);
  if (queries.empty()) queries.push_back(plan.standalone);
  return queries;
}

}  // namespace attest
