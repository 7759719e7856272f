// A small pool of read-only SQLite connections for snapshot reads: each caller leases a connection
// for the duration of one call, so connections are never shared between threads.
//
// Thread-safety: Acquire() and lease release are safe from any thread.
#pragma once

#include <memory>
#include <vector>

#include "attest/status.h"
#include "common/thread_annotations.h"
#include "store/sqlite_util.h"

namespace attest {

class ConnectionPool : public std::enable_shared_from_this<ConnectionPool> {
 public:
  // `args.read_only` should be true; at most `max_idle` connections are kept between leases.
  ConnectionPool(SqliteOpenArgs args, size_t max_idle) : args_(std::move(args)), max_idle_(max_idle) {}

  class Lease {
   public:
    Lease(std::shared_ptr<ConnectionPool> pool, std::unique_ptr<SqliteDb> db)
        : pool_(std::move(pool)), db_(std::move(db)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (db_) pool_->Release(std::move(db_));
    }
    SqliteDb& db() { return *db_; }

   private:
    std::shared_ptr<ConnectionPool> pool_;
    std::unique_ptr<SqliteDb> db_;
  };

  Result<Lease> Acquire();

 private:
  void Release(std::unique_ptr<SqliteDb> db);
  SqliteOpenArgs args_;
  size_t max_idle_;
  Mutex mu_;
  std::vector<std::unique_ptr<SqliteDb>> idle_ GUARDED_BY(mu_);
};

}  // namespace attest
