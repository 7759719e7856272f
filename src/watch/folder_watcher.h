// FolderWatcher: keeps the index in line with one or more folders (`attest watch`, `attest serve
// --watch`; docs/watch.md). It brings the index in line once (Sync: the whole folder ingested as
// `attest ingest DIR` would, and the documents of files that disappeared meanwhile deleted), then
// follows inotify events: a created, written or moved-in file is ingested, a deleted or moved-out one
// has its documents deleted, a rename is both, a new directory is watched and its files ingested,
// and a lost event queue (IN_Q_OVERFLOW) or a root that went away and came back is a full rescan.
//
// Events mark paths dirty; a path is applied once it has been quiet for `debounce` (so an editor's
// save sequence, write a temporary file and rename it over the page, is one update) or has been
// dirty for `max_delay`. Applying compares the disk with the durable file -> ids map (WatchMap):
// the files that exist are re-ingested through Engine::Ingest with their names relative to the root
// (so they get the ids `attest ingest DIR` gives, a canonical URL included); ids a file no longer
// produces are deleted, unless another file still produces them (that one is re-ingested instead).
// Each batch is one small commit, searchable when Ingest returns. A file just created waits for
// its IN_CLOSE_WRITE (or max_delay), so a slow copy is not ingested half written. Give the engine
// EngineOptions::background_vectors, so that training a corpus model never holds up the next change.
//
// Thread-safety: Run/Step/Sync are called by one thread. Stop() may be called from any thread and
// from a signal handler (it writes to an eventfd).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attest/clock.h"
#include "attest/engine.h"
#include "attest/status.h"

namespace attest {

struct WatchChange {
  enum class Kind { kAdded, kReplaced, kDeleted };
  Kind kind = Kind::kAdded;
  std::string root;                        // the watched folder, as given
  std::string file;                        // relative to the root
  std::string id;                          // the document id
  std::vector<ChunkId> superseded_chunks;  // kReplaced, kDeleted: chunks that are gone (caches drop them)
  bool rescan = false;                     // applied by Sync or a rescan, not by a file event
  // From the first event of the file (when it was read from the kernel) or the start of the rescan,
  // to the commit that made the change searchable.
  double lag_ms = 0;
};

const char* WatchChangeKindName(WatchChange::Kind kind);

struct WatchObserver {
  std::function<void(const WatchChange&)> on_change;
  // A full rescan begins: "sync" (start), "overflow" (the kernel dropped events), "root_gone",
  // "root_back".
  std::function<void(const std::string& root, const std::string& reason)> on_rescan;
  // A problem that did not stop the watcher (a file that cannot be ingested, a failed commit that
  // will be retried); `where` is the file or the root.
  std::function<void(const std::string& where, const Status& status)> on_error;
};

struct FolderWatchOptions {
  std::vector<std::string> roots;          // directories
  std::string state_dir;                   // where the file -> ids maps live: <data_dir>/watch
  // The documents' attributes, as the flags of `attest ingest` give them.
  std::string tenant;
  std::vector<std::string> acl_groups;
  std::string access_label;
  std::string source_type;
  std::string version;
  std::string site;
  std::chrono::milliseconds debounce{50};     // quiet time after a path's last event
  std::chrono::milliseconds max_delay{500};   // a path that keeps changing is applied this often
  std::chrono::milliseconds retry_delay{1000};  // after a failed commit, and polling for a lost root
  size_t batch_documents = 256;               // documents per commit at most (a sync commits as it goes)
  const Clock* clock = nullptr;               // null = RealClock()
  WatchObserver observer;
};

class FolderWatcher {
 public:
  // Watches the roots (every walked directory) and loads their maps; takes a lock per map so two
  // watchers never apply the same folder to the same tenant (kBusy). Nothing is ingested yet.
  static Result<std::unique_ptr<FolderWatcher>> Open(Engine& engine, FolderWatchOptions options);
  virtual ~FolderWatcher() = default;

  // Brings the index in line with the folders: a full rescan of each root.
  virtual Status Sync() = 0;
  // Follows events until Stop(); an error only when watching cannot go on (inotify failed).
  virtual Status Run() = 0;
  // One round of Run: waits up to `max_wait` for events, reads them, applies the paths that are
  // due. Returns whether it read an event or applied something (tests).
  virtual Result<bool> Step(std::chrono::milliseconds max_wait) = 0;
  // Paths marked dirty and not applied yet.
  virtual size_t pending() const = 0;
  virtual void Stop() = 0;
};

}  // namespace attest
