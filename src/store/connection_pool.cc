#include "store/connection_pool.h"

namespace attest {

Result<ConnectionPool::Lease> ConnectionPool::Acquire() {
  {
    MutexLock lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<SqliteDb> db = std::move(idle_.back());
      idle_.pop_back();
      return Lease(shared_from_this(), std::move(db));
    }
  }
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(args_));
  return Lease(shared_from_this(), std::move(db));
}

void ConnectionPool::Release(std::unique_ptr<SqliteDb> db) {
  MutexLock lock(mu_);
  if (idle_.size() < max_idle_) idle_.push_back(std::move(db));
}

}  // namespace attest
