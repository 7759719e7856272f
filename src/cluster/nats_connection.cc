#include "cluster/nats_connection.h"

namespace attest {

Result<std::unique_ptr<NatsConnection>> NatsConnection::Connect(const std::vector<std::string>& servers,
                                                                int64_t timeout_ms) {
  if (servers.empty()) return Status::InvalidArgument("no NATS server given");
  natsOptions* opts = nullptr;
  if (natsOptions_Create(&opts) != NATS_OK) return Status::Internal("nats options");
  std::vector<const char*> urls;
  for (const std::string& s : servers) urls.push_back(s.c_str());
  natsOptions_SetServers(opts, urls.data(), int(urls.size()));
  natsOptions_SetTimeout(opts, timeout_ms);
  natsOptions_SetMaxReconnect(opts, -1);
  natsConnection* nc = nullptr;
  natsStatus s = natsConnection_Connect(&nc, opts);
  natsOptions_Destroy(opts);
  if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "connect to " + servers.front());
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = timeout_ms;
  jsCtx* js = nullptr;
  s = natsConnection_JetStream(&js, nc, &jo);
  if (s != NATS_OK) {
    natsConnection_Destroy(nc);
    return NatsStatus(s, jsErrCode(0), "JetStream");
  }
  return std::unique_ptr<NatsConnection>(new NatsConnection(nc, js));
}

NatsConnection::~NatsConnection() {
  jsCtx_Destroy(js_);
  natsConnection_Destroy(nc_);
}

Status NatsStatus(natsStatus s, jsErrCode jerr, const std::string& what) {
  std::string msg = what + ": " + natsStatus_GetText(s);
  const char* detail = nats_GetLastError(nullptr);
  if (detail != nullptr && *detail != '\0' && msg.find(detail) == std::string::npos) msg += std::string(" (") + detail + ")";
  if (jerr != 0) msg += " (JetStream error " + std::to_string(int(jerr)) + ")";
  if (s == NATS_TIMEOUT) return Status::DeadlineExceeded(msg);
  if (s == NATS_NOT_FOUND || jerr == JSConsumerNotFoundErr || jerr == JSNoMessageFoundErr ||
      jerr == JSStreamNotFoundErr) {
    return Status::NotFound(msg);
  }
  return Status::Unavailable(msg);
}

Status CheckNodeId(const std::string& id) {
  if (id.empty() || id.size() > 64) return Status::InvalidArgument("node id must be 1..64 characters");
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return Status::InvalidArgument("node id '" + id + "' may hold only letters, digits, '_' and '-'");
  }
  return Status::Ok();
}

}  // namespace attest
