// The registry and bounds shared by the server and its connections (server/server_core.h).
#include "server/server_core.h"

#include <algorithm>
#include <exception>

#include <spdlog/spdlog.h>

namespace attest::http {

ServerCore::ServerCore(ServerOptions options_in, Router router_in, ErrorResponder errors_in)
    : options(std::move(options_in)),
      router(std::move(router_in)),
      errors(std::move(errors_in)),
      interactive("http-int", options.interactive_workers, options.interactive_queue),
      answers("http-ans", options.answer_workers, options.answer_queue),
      bulk("http-bulk", options.bulk_workers, options.bulk_queue, options.bulk_queue_per_key),
      io(static_cast<int>(std::max(1u, options.io_threads))) {}

Response ServerCore::Error(int status, const char* code, std::string message, std::string field) const {
  try {
    return errors(status, code, std::move(message), std::move(field));
  } catch (const std::exception& e) {
    spdlog::error("http: error responder threw: {}", e.what());
  }
  Response r;
  r.status = status;
  r.body = std::string(R"({"error":{"code":")") + code + R"("}})";
  return r;
}

void ServerCore::Refused(std::string_view reason) const {
  if (!options.on_refused) return;
  try {
    options.on_refused(reason);
  } catch (const std::exception& e) {
    spdlog::error("http: on_refused threw: {}", e.what());
  }
}

bool ServerCore::AddressFull(const std::string& address) const {
  if (options.max_connections_per_address == 0) return false;
  MutexLock lock(mu_);
  auto at = per_address_.find(address);
  return at != per_address_.end() && at->second >= options.max_connections_per_address;
}

ServerCore::Admit ServerCore::Register(const std::shared_ptr<Connection>& connection, const std::string& address) {
  MutexLock lock(mu_);
  Entry entry{connection, address, false};
  Admit admit = Admit::kAdmitted;
  auto at = per_address_.find(address);
  if (admitted_ >= options.max_connections) {
    admit = Admit::kServerFull;
  } else if (options.max_connections_per_address > 0 && at != per_address_.end() &&
             at->second >= options.max_connections_per_address) {
    admit = Admit::kAddressFull;
  } else {
    ++admitted_;
    ++per_address_[address];
    entry.counted = true;
  }
  connections_.emplace(connection.get(), std::move(entry));
  return admit;
}

void ServerCore::Unregister(Connection* connection) {
  std::function<void()> drained;
  {
    MutexLock lock(mu_);
    auto it = connections_.find(connection);
    if (it == connections_.end()) return;
    if (it->second.counted) {
      --admitted_;
      auto at = per_address_.find(it->second.address);
      if (at != per_address_.end() && --at->second == 0) per_address_.erase(at);
    }
    connections_.erase(it);
    if (stopping.load() && connections_.empty()) drained = on_drained;
  }
  if (drained) drained();
}

void ServerCore::SetOnDrained(std::function<void()> callback) {
  MutexLock lock(mu_);
  on_drained = std::move(callback);
}

std::vector<std::shared_ptr<Connection>> ServerCore::Connections() const {
  std::vector<std::shared_ptr<Connection>> out;
  MutexLock lock(mu_);
  out.reserve(connections_.size());
  for (const auto& [raw, entry] : connections_) {
    if (auto c = entry.connection.lock()) out.push_back(std::move(c));
  }
  return out;
}

size_t ServerCore::connection_count() const {
  MutexLock lock(mu_);
  return connections_.size();
}

}  // namespace attest::http
