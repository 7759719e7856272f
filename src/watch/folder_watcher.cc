// FolderWatcher: events -> dirty paths -> debounced batches -> Engine::Ingest / Engine::Delete, with
// the file -> ids map kept in step (docs/watch.md).
#include "watch/folder_watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "common/file_util.h"
#include "watch/inotify_tree.h"
#include "watch/watch_map.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using TimePoint = std::chrono::steady_clock::time_point;
using std::chrono::milliseconds;

// A file that produced ids which another file still produces is re-ingested instead of deleting
// them; that re-ingest can in turn find such files. The chain is cut after this many rounds.
constexpr int kMaxReingestRounds = 4;

bool IsRegularFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(fs::status(path, ec));
}

double Millis(TimePoint from, TimePoint to) { return std::chrono::duration<double, std::milli>(to - from).count(); }

struct Pending {
  TimePoint first, last, not_before;
  // Created and not yet closed after writing: waits for its IN_CLOSE_WRITE (or max_delay), so a
  // file copied slowly is not ingested half written.
  bool awaiting_close = false;
};

struct RootState {
  std::string given;                   // as the caller named it
  std::string root;                    // absolute and canonical
  std::unique_ptr<InotifyTree> tree;   // null while the root is gone
  WatchMap map;
  std::unique_ptr<FileLock> lock;
  std::map<std::string, Pending> pending;
  std::string rescan;                  // "" = none due; else the reason
  TimePoint rescan_since{};            // the lag origin of what the rescan changes
  TimePoint rescan_not_before{};       // after a failed rescan: the retry delay
  TimePoint next_root_check{};
};

class FolderWatcherImpl final : public FolderWatcher {
 public:
  FolderWatcherImpl(Engine& engine, FolderWatchOptions options, int stop_fd)
      : engine_(engine), options_(std::move(options)), clock_(options_.clock ? options_.clock : RealClock()),
        stop_fd_(stop_fd) {}
  ~FolderWatcherImpl() override { ::close(stop_fd_); }

  Status AddRoot(const std::string& given) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(given, ec);
    if (ec || !fs::is_directory(canonical, ec)) {
      return Status::NotFound("watched folder '" + given + "' is not a directory");
    }
    auto state = std::make_unique<RootState>();
    state->given = given;
    state->root = canonical.string();
    for (const auto& other : roots_) {
      if (other->root == state->root) return Status::InvalidArgument("folder '" + given + "' is watched twice");
    }
    fs::create_directories(options_.state_dir, ec);
    if (ec) return Status::IOError("cannot create " + options_.state_dir + ": " + ec.message());
    const fs::path map_file = WatchMap::FileFor(options_.state_dir, options_.tenant, state->root);
    auto lock = FileLock::Acquire(map_file.string() + ".lock");
    if (!lock.ok()) {
      return lock.status().WithContext("folder '" + given + "' is already watched for this tenant (" +
                                       map_file.string() + ".lock)");
    }
    state->lock = std::move(lock).value();
    ATTEST_ASSIGN_OR_RETURN(state->map, WatchMap::Load(options_.state_dir, options_.tenant, state->root));
    ATTEST_ASSIGN_OR_RETURN(state->tree, InotifyTree::Open(state->root));
    roots_.push_back(std::move(state));
    return Status::Ok();
  }

  Status Sync() override {
    for (auto& r : roots_) {
      r->rescan = "sync";
      r->rescan_since = clock_->Now();
      ATTEST_RETURN_IF_ERROR(RunRescan(*r));
    }
    return Status::Ok();
  }

  Status Run() override {
    while (!stopped_.load()) {
      Result<bool> did = Step(milliseconds(1000));
      if (!did.ok()) return did.status();
    }
    return Status::Ok();
  }

  Result<bool> Step(milliseconds max_wait) override {
    if (stopped_.load()) return false;
    std::vector<pollfd> fds{{stop_fd_, POLLIN, 0}};
    std::vector<RootState*> polled;
    for (auto& r : roots_) {
      if (r->tree) {
        fds.push_back({r->tree->fd(), POLLIN, 0});
        polled.push_back(r.get());
      }
    }
    const milliseconds wait = std::clamp(UntilDue(clock_->Now()), milliseconds(0), max_wait);
    const int n = ::poll(fds.data(), fds.size(), int(wait.count()));
    if (n < 0 && errno != EINTR) return Status::IOError(std::string("poll: ") + std::strerror(errno));
    if (n > 0 && (fds[0].revents & POLLIN)) {
      stopped_.store(true);
      return false;
    }
    bool did = false;
    for (size_t i = 0; n > 0 && i < polled.size(); ++i) {
      if (!(fds[i + 1].revents & POLLIN)) continue;
      ATTEST_ASSIGN_OR_RETURN(bool read, ReadEvents(*polled[i]));
      did |= read;
    }
    ATTEST_ASSIGN_OR_RETURN(bool applied, ApplyDue());
    return did || applied;
  }

  size_t pending() const override {
    size_t n = 0;
    for (const auto& r : roots_) n += r->pending.size() + (r->rescan.empty() ? 0 : 1);
    return n;
  }

  void Stop() override {
    stopped_.store(true);
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t w = ::write(stop_fd_, &one, sizeof one);
  }

 private:
  IngestOptions BaseIngest() const {
    IngestOptions io;
    io.tenant = options_.tenant;
    io.acl_groups = options_.acl_groups;
    io.access_label = options_.access_label;
    io.source_type = options_.source_type;
    io.version = options_.version;
    io.site = options_.site;
    io.batch_documents = std::max<size_t>(1, options_.batch_documents);
    return io;
  }

  // How long until the next path is due (or a lost root is checked again, or a rescan is due).
  milliseconds UntilDue(TimePoint now) const {
    milliseconds best = milliseconds::max();
    auto consider = [&](TimePoint t) {
      best = std::min(best, std::chrono::duration_cast<milliseconds>(t - now) + milliseconds(1));
    };
    for (const auto& r : roots_) {
      if (!r->rescan.empty()) consider(std::max(now, r->rescan_not_before));
      if (!r->tree) consider(r->next_root_check);
      for (const auto& [path, p] : r->pending) consider(DueAt(p));
    }
    return best;
  }

  TimePoint DueAt(const Pending& p) const {
    const TimePoint latest = p.first + options_.max_delay;
    return std::max(p.not_before, p.awaiting_close ? latest : std::min(p.last + options_.debounce, latest));
  }

  void MarkDirty(RootState& r, const TreeEvent& e, TimePoint now) {
    auto [it, inserted] = r.pending.try_emplace(e.path, Pending{now, now, now, e.created});
    if (!inserted) {
      it->second.last = now;
      if (!e.created) it->second.awaiting_close = false;
    }
  }

  void Rescan(RootState& r, const std::string& reason, TimePoint now) {
    if (r.rescan.empty()) r.rescan_since = now;
    r.rescan = reason;
  }

  Result<bool> ReadEvents(RootState& r) {
    std::vector<TreeEvent> events;
    Status read = r.tree->Read(&events);
    if (!read.ok()) {
      // Watches may be incomplete (e.g. the watch limit): say so, and rescan what can be watched.
      Report(r.given, read);
      Rescan(r, "watch_error", clock_->Now());
    }
    const TimePoint now = clock_->Now();
    for (const TreeEvent& e : events) {
      switch (e.kind) {
        case TreeEvent::Kind::kPath: MarkDirty(r, e, now); break;
        case TreeEvent::Kind::kOverflow: Rescan(r, "overflow", now); break;
        case TreeEvent::Kind::kRootGone:
          r.tree.reset();
          r.next_root_check = now + options_.retry_delay;
          Rescan(r, "root_gone", now);
          break;
      }
    }
    return !events.empty();
  }

  Result<bool> ApplyDue() {
    bool did = false;
    for (auto& rp : roots_) {
      RootState& r = *rp;
      const TimePoint now = clock_->Now();
      if (!r.tree && now >= r.next_root_check) {
        std::error_code ec;
        if (fs::is_directory(r.root, ec)) {
          auto tree = InotifyTree::Open(r.root);
          if (tree.ok()) {
            r.tree = std::move(tree).value();
            Rescan(r, "root_back", now);
          } else {
            Report(r.given, tree.status());
          }
        }
        r.next_root_check = now + options_.retry_delay;
      }
      if (!r.rescan.empty()) {
        if (now < r.rescan_not_before) continue;
        did = true;
        if (r.rescan == "overflow" && r.tree) {
          if (Status st = r.tree->Rewatch(); !st.ok()) Report(r.given, st);
        }
        Status st = RunRescan(r);
        if (!st.ok()) Report(r.given, st);  // stays due; tried again after the retry delay
        continue;
      }
      std::vector<std::string> due;
      std::map<std::string, TimePoint> origin;
      for (auto it = r.pending.begin(); it != r.pending.end();) {
        if (DueAt(it->second) <= now) {
          due.push_back(it->first);
          origin[it->first] = it->second.first;
          it = r.pending.erase(it);
        } else {
          ++it;
        }
      }
      if (due.empty()) continue;
      did = true;
      std::error_code ec;
      if (!fs::is_directory(r.root, ec)) {
        // The root is no longer at its path although it sent no IN_MOVE_SELF: a directory above
        // it was renamed. What it held is gone from that path, as when the root itself moves.
        r.tree.reset();
        r.next_root_check = now + options_.retry_delay;
        Rescan(r, "root_gone", now);
        continue;
      }
      Status st = ApplyPaths(r, due, origin, 0);
      if (!st.ok()) {
        Report(r.given, st);
        for (const std::string& path : due) {
          auto [it, inserted] = r.pending.try_emplace(path, Pending{origin[path], now, now, false});
          it->second.not_before = now + options_.retry_delay;
        }
      }
    }
    return did;
  }

  Status RunRescan(RootState& r) {
    const std::string reason = r.rescan;
    if (options_.observer.on_rescan) options_.observer.on_rescan(r.given, reason);
    r.pending.clear();  // the rescan looks at every file
    Status st = Reconcile(r, {}, {}, /*full=*/true, r.rescan_since, 0);
    if (st.ok()) {
      r.rescan.clear();
    } else if (!r.tree) {
      r.rescan.clear();  // a lost root is rescanned when it comes back
    } else {
      r.rescan_not_before = clock_->Now() + options_.retry_delay;
    }
    return st;
  }

  Status ApplyPaths(RootState& r, const std::vector<std::string>& dirty, const std::map<std::string, TimePoint>& origin,
                    int round) {
    return Reconcile(r, dirty, origin, /*full=*/false, TimePoint{}, round);
  }

  // Ingests the files of `dirty` that exist (all of the root when `full`), then brings the map and
  // the index in line: ids a file no longer produces are deleted unless another file produces them.
  Status Reconcile(RootState& r, const std::vector<std::string>& dirty, const std::map<std::string, TimePoint>& origin,
                   bool full, TimePoint full_since, int round) {
    const fs::path root(r.root);
    std::map<std::string, TimePoint> affected;  // file -> lag origin
    std::vector<std::string> to_ingest;
    for (const std::string& path : dirty) {
      const TimePoint since = origin.count(path) ? origin.at(path) : clock_->Now();
      if (IsRegularFile(root / path)) {
        to_ingest.push_back(path);
        affected.emplace(path, since);
      }
      // What the map knows at or below the path and is no longer a file (a deleted or moved-out
      // file or directory).
      for (const std::string& f : r.map.FilesAtOrUnder(path)) {
        if (!affected.count(f) && !IsRegularFile(root / f)) affected.emplace(f, since);
      }
    }
    std::map<std::string, std::vector<std::string>> produced;
    std::vector<std::string> unlisted;  // directories the ingest could not list
    if (full || !to_ingest.empty()) {
      IngestOptions io = BaseIngest();
      if (full) {
        io.paths = {r.root};
      } else {
        io.root = r.root;
        io.files = to_ingest;
      }
      io.on_document = [&](const IngestedDocument& d) {
        produced[d.file].push_back(d.id);
        if (d.outcome == IngestedDocument::Outcome::kUnchanged) return;
        WatchChange c;
        c.kind = d.outcome == IngestedDocument::Outcome::kAdded ? WatchChange::Kind::kAdded
                                                                 : WatchChange::Kind::kReplaced;
        c.root = r.given;
        c.file = d.file;
        c.id = d.id;
        c.superseded_chunks = d.superseded_chunks;
        c.rescan = full;
        auto it = affected.find(d.file);
        c.lag_ms = Millis(full || it == affected.end() ? full_since : it->second, clock_->Now());
        Emit(c);
      };
      // The map names every id before the commit that writes it, so that a crash after the commit
      // never leaves a document the map does not know (the next sync deletes what is stale).
      io.before_commit = [&r](const std::vector<IngestedDocument>& docs) -> Status {
        bool changed = false;
        for (const IngestedDocument& d : docs) {
          std::vector<std::string> ids = r.map.IdsOf(d.file);
          if (std::find(ids.begin(), ids.end(), d.id) != ids.end()) continue;
          ids.push_back(d.id);
          r.map.Set(d.file, std::move(ids));
          changed = true;
        }
        return changed ? r.map.Save() : Status::Ok();
      };
      ATTEST_ASSIGN_OR_RETURN(IngestReport report, engine_.Ingest(io));
      for (const IngestIssue& issue : report.issues) {
        if (issue.file == "(vector leg)") continue;  // background vector work is not the watcher's
        Report(issue.file, Status::InvalidArgument(issue.line ? "line " + std::to_string(issue.line) + ": " + issue.message
                                                              : issue.message));
        if (issue.message.rfind("cannot list directory", 0) == 0) unlisted.push_back(issue.file);
      }
    }
    if (full) {
      for (const auto& [file, ids] : r.map.files()) {
        affected.emplace(file, full_since);
        // A directory that exists but cannot be listed (permissions) is not a deleted one: what
        // its files produced stays until it can be read.
        for (const std::string& dir : unlisted) {
          if (dir == r.root || file.compare(0, dir.size() + 1, dir + "/") == 0) produced[file] = ids;
        }
      }
    }
    for (const auto& [file, ids] : produced) affected.emplace(file, full ? full_since : clock_->Now());
    return SettleIds(r, affected, produced, full, round);
  }

  // Brings the map in line with what the `affected` files produce now (`produced`), and deletes the
  // ids no file produces any more; files that still produce a stale id are re-ingested.
  Status SettleIds(RootState& r, const std::map<std::string, TimePoint>& affected,
                   std::map<std::string, std::vector<std::string>>& produced, bool full, int round) {
    // Phase 1: the map holds the old ids and the new ones (the new ones were added before their
    // commit), so a crash from here on leaves every id the index may hold named in the map.
    std::vector<std::pair<std::string, std::string>> stale;  // (file, id)
    bool map_changed = false;
    for (const auto& [file, since] : affected) {
      std::vector<std::string> now_ids = produced[file];
      std::sort(now_ids.begin(), now_ids.end());
      const std::vector<std::string> old = r.map.IdsOf(file);
      for (const std::string& id : old) {
        if (!std::binary_search(now_ids.begin(), now_ids.end(), id)) stale.emplace_back(file, id);
      }
      std::vector<std::string> both = now_ids;
      both.insert(both.end(), old.begin(), old.end());
      r.map.Set(file, both);
      map_changed |= r.map.IdsOf(file) != old;
    }
    if (map_changed) ATTEST_RETURN_IF_ERROR(r.map.Save());
    if (stale.empty()) return Status::Ok();

    // Phase 2: forget the stale claims; delete ids no file produces any more.
    for (const auto& [file, id] : stale) {
      std::vector<std::string> ids = r.map.IdsOf(file);
      ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
      r.map.Set(file, std::move(ids));
    }
    std::set<std::string> reingest;
    std::set<std::string> done;
    Status failure;
    for (const auto& [file, id] : stale) {
      if (!done.insert(id).second) continue;
      if (std::vector<std::string> others = r.map.FilesOf(id); !others.empty()) {
        reingest.insert(others.begin(), others.end());  // its content must be that file's again
        continue;
      }
      if (ClaimedByAnotherRoot(r, id)) continue;
      WatchChange c;
      c.kind = WatchChange::Kind::kDeleted;
      c.root = r.given;
      c.file = file;
      c.id = id;
      c.rescan = full;
      if (options_.observer.on_change) {
        SearchFilter admin;
        admin.tenant = options_.tenant;
        if (auto doc = engine_.GetDocument(admin, id); doc.ok()) c.superseded_chunks = doc->chunk_ids;
      }
      Result<uint64_t> deleted = engine_.Delete(options_.tenant, id);
      if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
        // Keep the claim so the next attempt deletes it.
        std::vector<std::string> ids = r.map.IdsOf(file);
        ids.push_back(id);
        r.map.Set(file, std::move(ids));
        failure = deleted.status().WithContext("deleting '" + id + "'");
        continue;
      }
      if (!deleted.ok()) continue;  // already gone (deleted by hand): nothing changed
      c.lag_ms = Millis(affected.at(file), clock_->Now());
      Emit(c);
    }
    ATTEST_RETURN_IF_ERROR(r.map.Save());
    ATTEST_RETURN_IF_ERROR(failure);
    if (!reingest.empty()) {
      if (round >= kMaxReingestRounds) {
        Report(r.given, Status::Internal("files producing the same ids keep changing; left for the next change"));
        return Status::Ok();
      }
      std::vector<std::string> again(reingest.begin(), reingest.end());
      std::map<std::string, TimePoint> again_origin;
      for (const std::string& f : again) again_origin[f] = clock_->Now();
      return ApplyPaths(r, again, again_origin, round + 1);
    }
    return Status::Ok();
  }

  // Whether a file of another root produces `id` too (the same relative name under two roots of
  // one tenant): that file is re-ingested (marked dirty, due now) instead of the id being deleted.
  bool ClaimedByAnotherRoot(const RootState& r, const std::string& id) {
    bool claimed = false;
    const TimePoint now = clock_->Now();
    for (auto& other : roots_) {
      if (other.get() == &r) continue;
      for (const std::string& f : other->map.FilesOf(id)) {
        other->pending.try_emplace(f, Pending{now, now - options_.debounce, now, false});
        claimed = true;
      }
    }
    return claimed;
  }

  void Emit(const WatchChange& c) {
    if (options_.observer.on_change) options_.observer.on_change(c);
  }

  void Report(const std::string& where, const Status& st) {
    if (options_.observer.on_error) options_.observer.on_error(where, st);
  }

  Engine& engine_;
  FolderWatchOptions options_;
  const Clock* clock_;
  int stop_fd_;
  std::atomic<bool> stopped_{false};
  std::vector<std::unique_ptr<RootState>> roots_;
};

}  // namespace

const char* WatchChangeKindName(WatchChange::Kind kind) {
  switch (kind) {
    case WatchChange::Kind::kAdded: return "added";
    case WatchChange::Kind::kReplaced: return "replaced";
    case WatchChange::Kind::kDeleted: return "deleted";
  }
  return "unknown";
}

Result<std::unique_ptr<FolderWatcher>> FolderWatcher::Open(Engine& engine, FolderWatchOptions options) {
  if (options.roots.empty()) return Status::InvalidArgument("no folder to watch");
  if (options.state_dir.empty()) return Status::InvalidArgument("the watch state directory is empty");
  if (options.debounce.count() < 0 || options.max_delay < options.debounce) {
    return Status::InvalidArgument("debounce must be at least 0 and at most max_delay");
  }
  const int stop_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop_fd < 0) return Status::IOError(std::string("eventfd: ") + std::strerror(errno));
  const std::vector<std::string> roots = options.roots;
  auto watcher = std::make_unique<FolderWatcherImpl>(engine, std::move(options), stop_fd);
  for (const std::string& root : roots) ATTEST_RETURN_IF_ERROR(watcher->AddRoot(root));
  return std::unique_ptr<FolderWatcher>(std::move(watcher));
}

}  // namespace attest
