// `attest watch DIR...`: brings the index in line with the folders, then follows their changes
// through inotify until SIGINT/SIGTERM, printing one line per applied change (docs/watch.md).
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attest/engine.h"
#include "cli/commands.h"
#include "watch/folder_watcher.h"

namespace attest::cli {
namespace {

std::string ChangeLine(const WatchChange& c, bool json) {
  if (json) {
    nlohmann::json j = {{"change", WatchChangeKindName(c.kind)}, {"id", c.id},       {"file", c.file},
                        {"root", c.root},                         {"lag_ms", c.lag_ms}, {"rescan", c.rescan}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  char lag[32];
  std::snprintf(lag, sizeof lag, "%.0f", c.lag_ms);
  std::string line = std::string(WatchChangeKindName(c.kind)) + " " + c.id;
  if (c.id != c.file) line += " (" + c.file + ")";
  return line + " lag " + lag + " ms";
}

}  // namespace

void AddWatchFlags(CLI::App* cmd, WatchArgs* a, const std::string& prefix) {
  const std::string p = "--" + prefix;
  cmd->add_option(p + "tenant", a->tenant, "tenant the documents belong to");
  cmd->add_option(p + "acl", a->acl, "comma-separated ACL groups (default: public)");
  cmd->add_option(p + "label," + p + "access-label", a->label, "access label of the documents (default: the lowest level)");
  cmd->add_option(p + "source-type", a->source_type, "source type for documents that do not state one");
  cmd->add_option(p + "version", a->version, "version label for documents that do not state one");
  cmd->add_option(p + "site", a->site, "site label for documents without a canonical URL");
  cmd->add_option(p + "debounce-ms", a->debounce_ms, "quiet time after a file's last event before it is applied")
      ->check(CLI::Range(0u, 60000u))
      ->capture_default_str();
  cmd->add_option(p + "max-delay-ms", a->max_delay_ms, "a file that keeps changing is applied at least this often")
      ->check(CLI::Range(1u, 600000u))
      ->capture_default_str();
}

FolderWatchOptions MakeWatchOptions(const GlobalArgs& g, const WatchArgs& a) {
  FolderWatchOptions wo;
  wo.roots = a.dirs;
  wo.state_dir = (std::filesystem::path(g.data_dir) / "watch").string();
  wo.tenant = StoreTenant(a.tenant);
  wo.acl_groups = SplitList(a.acl);
  wo.access_label = a.label;
  wo.source_type = a.source_type;
  wo.version = a.version;
  wo.site = a.site;
  wo.debounce = std::chrono::milliseconds(a.debounce_ms);
  wo.max_delay = std::chrono::milliseconds(std::max(a.max_delay_ms, a.debounce_ms));
  return wo;
}

int RunWatch(const GlobalArgs& g, const WatchArgs& a) {
  // SIGINT/SIGTERM are taken by a thread of ours (sigwait), so block them before any thread starts.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  if (Status label = CheckAccessLabel(eo->access_levels, a.label); !label.ok()) {
    std::fprintf(stderr, "attest: --label: %s\n", label.message().c_str());
    return kExitUsage;
  }
  eo->background_vectors = true;  // training never delays the next change's searchability
  // With --cluster the documents go to the change log; --data keeps the watcher's file-to-ids map.
  auto engine = a.cluster.empty() ? Engine::Open(*eo) : OpenClusterWriter(a.cluster, a.bucket, eo->access_levels);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(),
                 FailureText(engine.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  FolderWatchOptions wo = MakeWatchOptions(g, a);
  bool syncing = true;
  uint64_t synced[3] = {0, 0, 0};
  wo.observer.on_change = [&](const WatchChange& c) {
    if (syncing) {
      ++synced[static_cast<int>(c.kind)];
      return;
    }
    std::printf("%s\n", ChangeLine(c, a.json).c_str());
    std::fflush(stdout);
  };
  wo.observer.on_rescan = [&](const std::string& root, const std::string& reason) {
    if (reason != "sync") std::fprintf(stderr, "attest: %s: full rescan (%s)\n", root.c_str(), reason.c_str());
  };
  wo.observer.on_error = [](const std::string& where, const Status& st) {
    std::fprintf(stderr, "attest: %s: %s\n", where.c_str(), st.message().c_str());
  };
  auto watcher = FolderWatcher::Open(**engine, wo);
  if (!watcher.ok()) {
    std::fprintf(stderr, "attest: watch: %s\n", watcher.status().message().c_str());
    return watcher.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (Status st = (*watcher)->Sync(); !st.ok()) {
    std::fprintf(stderr, "attest: watch: bringing the index in line failed: %s\n",
                 FailureText(st, g.data_dir).c_str());
    return kExitFailure;
  }
  syncing = false;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("in line with %zu folder(s): %llu added, %llu replaced, %llu deleted in %.2f s; watching (Ctrl-C stops)\n",
              a.dirs.size(), static_cast<unsigned long long>(synced[0]), static_cast<unsigned long long>(synced[1]),
              static_cast<unsigned long long>(synced[2]), seconds);
  std::fflush(stdout);

  FolderWatcher* w = watcher->get();
  std::thread signal_waiter([w, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    w->Stop();
  });
  Status run = w->Run();
  // Wake the waiter if Run ended on its own (an error), then join it.
  if (!run.ok()) pthread_kill(signal_waiter.native_handle(), SIGTERM);
  signal_waiter.join();
  std::fprintf(stderr, "attest: stopping (waiting for background vector work, if any)\n");
  if (Status v = (*engine)->WaitForVectors(); !v.ok()) std::fprintf(stderr, "attest: vectors: %s\n", v.message().c_str());
  if (!run.ok()) {
    std::fprintf(stderr, "attest: watch stopped: %s\n", FailureText(run, g.data_dir).c_str());
    return kExitFailure;
  }
  std::printf("stopped\n");
  return kExitOk;
}

}  // namespace attest::cli
