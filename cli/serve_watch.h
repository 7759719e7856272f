// `attest serve --watch DIR`: the folder watcher on a background thread of the server, with its
// metrics in the server's registry and the answer cache told about changed documents.
#pragma once

#include <memory>
#include <thread>

#include "attest/engine.h"
#include "cli/commands.h"
#include "service/metrics.h"
#include "service/service.h"
#include "watch/folder_watcher.h"

namespace attest::cli {

class ServeWatch {
 public:
  // Opens the watcher (its folders must exist); Start() then brings the index in line and follows
  // the folders on a thread of its own.
  static Result<std::unique_ptr<ServeWatch>> Open(const GlobalArgs& g, const WatchArgs& a, Engine& engine,
                                                  service::Service& svc, service::Registry& metrics);
  ~ServeWatch();  // stops and joins
  void Start();

 private:
  ServeWatch() = default;
  std::unique_ptr<FolderWatcher> watcher_;
  std::thread thread_;
};

}  // namespace attest::cli
