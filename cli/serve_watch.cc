// ServeWatch: the server's watched folders (docs/watch.md, "In the server").
#include "cli/serve_watch.h"

#include <spdlog/spdlog.h>

namespace attest::cli {

Result<std::unique_ptr<ServeWatch>> ServeWatch::Open(const GlobalArgs& g, const WatchArgs& a, Engine& engine,
                                                     service::Service& svc, service::Registry& metrics) {
  ATTEST_ASSIGN_OR_RETURN(EngineOptions eo, MakeEngineOptions(g, /*read_only=*/false));
  ATTEST_RETURN_IF_ERROR(CheckAccessLabel(eo.access_levels, a.label).WithContext("--watch-label"));
  FolderWatchOptions wo = MakeWatchOptions(g, a);
  service::Counter* changes[3];
  for (WatchChange::Kind kind : {WatchChange::Kind::kAdded, WatchChange::Kind::kReplaced, WatchChange::Kind::kDeleted}) {
    changes[static_cast<int>(kind)] = metrics.GetCounter(
        "attest_watch_changes_total", "Documents changed by watched folders, by kind", {{"kind", WatchChangeKindName(kind)}});
  }
  service::Histogram* lag = metrics.GetHistogram(
      "attest_watch_lag_seconds", "Watched folders: from a file's first event to its change being searchable");
  service::Counter* errors = metrics.GetCounter("attest_watch_errors_total", "Watched folders: problems reported");
  wo.observer.on_change = [&svc, changes, lag](const WatchChange& c) {
    changes[static_cast<int>(c.kind)]->Add();
    if (!c.rescan) lag->Observe(c.lag_ms / 1000.0);
    if (!c.superseded_chunks.empty()) svc.DocumentsChanged(c.superseded_chunks);
  };
  wo.observer.on_rescan = [&metrics](const std::string& root, const std::string& reason) {
    metrics.GetCounter("attest_watch_rescans_total", "Watched folders: full rescans, by reason", {{"reason", reason}})
        ->Add();
    if (reason != "sync") spdlog::warn("watch: {}: full rescan ({})", root, reason);
  };
  wo.observer.on_error = [errors](const std::string& where, const Status& st) {
    errors->Add();
    spdlog::warn("watch: {}: {}", where, st.message());
  };
  std::unique_ptr<ServeWatch> sw(new ServeWatch());
  ATTEST_ASSIGN_OR_RETURN(sw->watcher_, FolderWatcher::Open(engine, std::move(wo)));
  return sw;
}

void ServeWatch::Start() {
  thread_ = std::thread([this] {
    if (Status st = watcher_->Sync(); !st.ok()) spdlog::error("watch: bringing the index in line failed: {}", st.ToString());
    if (Status st = watcher_->Run(); !st.ok()) spdlog::error("watch: stopped: {}", st.ToString());
  });
}

ServeWatch::~ServeWatch() {
  if (watcher_ == nullptr) return;  // Open failed
  watcher_->Stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace attest::cli
