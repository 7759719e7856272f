#include "cluster/change_log.h"

#include <nats/nats.h>

#include <charconv>

namespace attest {
namespace {

std::string Hex(const std::string& s) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * s.size());
  for (unsigned char c : s) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

const char* KindName(DocumentChange::Kind k) {
  switch (k) {
    case DocumentChange::Kind::kUpsert: return "upsert";
    case DocumentChange::Kind::kDelete: return "delete";
    case DocumentChange::Kind::kAcl: return "acl";
  }
  return "upsert";
}

Status FromNats(natsStatus s, jsErrCode jerr, const std::string& what) {
  std::string msg = what + ": " + natsStatus_GetText(s);
  if (jerr != 0) msg += " (JetStream error " + std::to_string(int(jerr)) + ")";
  if (s == NATS_TIMEOUT) return Status::DeadlineExceeded(msg);
  if (s == NATS_NO_SERVER || s == NATS_CONNECTION_CLOSED || s == NATS_NO_RESPONDERS) return Status::Unavailable(msg);
  return Status::Unavailable(msg);
}

class NatsChangeLog final : public ChangeLog {
 public:
  NatsChangeLog(ChangeLogOptions options, natsConnection* nc, jsCtx* js)
      : options_(std::move(options)), nc_(nc), js_(js) {}
  ~NatsChangeLog() override {
    jsCtx_Destroy(js_);
    natsConnection_Destroy(nc_);
  }

  Status EnsureStream() override {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = options_.stream.c_str();
    const char* subjects[] = {"attest.doc.>"};
    cfg.Subjects = subjects;
    cfg.SubjectsLen = 1;
    cfg.Storage = js_FileStorage;
    cfg.Replicas = options_.replicas;
    cfg.MaxMsgsPerSubject = 1;
    cfg.Duplicates = options_.duplicate_window_ms * 1000000;  // nanoseconds
    jsStreamInfo* si = nullptr;
    jsErrCode jerr = jsErrCode(0);
    natsStatus s = js_AddStream(&si, js_, &cfg, nullptr, &jerr);
    if (s == NATS_OK) {
      jsStreamInfo_Destroy(si);
      return Status::Ok();
    }
    if (jerr != JSStreamNameExistErr) return FromNats(s, jerr, "create stream " + options_.stream);
    s = js_GetStreamInfo(&si, js_, options_.stream.c_str(), nullptr, &jerr);
    if (s != NATS_OK) return FromNats(s, jerr, "stream " + options_.stream);
    Status out = Status::Ok();
    if (si->Config->Replicas != options_.replicas) {
      out = Status::InvalidArgument("stream " + options_.stream + " has " + std::to_string(si->Config->Replicas) +
                                       " replicas, the options say " + std::to_string(options_.replicas));
    } else if (si->Config->MaxMsgsPerSubject != 1) {
      out = Status::InvalidArgument("stream " + options_.stream + " keeps " +
                                       std::to_string(si->Config->MaxMsgsPerSubject) +
                                       " messages per subject; the change log needs 1");
    }
    jsStreamInfo_Destroy(si);
    return out;
  }

  Result<AppendAck> Append(const DocumentChange& change) override {
    if (change.id.empty() || change.id.size() > 256) return Status::InvalidArgument("change: id must be 1..256 bytes");
    if (change.idempotency_key.empty() || change.idempotency_key.size() > 256) {
      return Status::InvalidArgument("change: idempotency_key must be 1..256 bytes");
    }
    const std::string subject = ChangeSubject(change.tenant, change.id, options_.vshards);
    const std::string version = std::to_string(change.source_version);
    for (int attempt = 0; attempt <= options_.max_conflict_retries; ++attempt) {
      // The subject's last message: its sequence guards the publish, its version the order.
      natsMsg* last = nullptr;
      jsErrCode jerr = jsErrCode(0);
      natsStatus s = js_GetLastMsg(&last, js_, options_.stream.c_str(), subject.c_str(), nullptr, &jerr);
      uint64_t last_seq = 0;
      if (s == NATS_OK) {
        last_seq = natsMsg_GetSequence(last);
        const char* v = nullptr;
        uint64_t stored = 0;
        const char* key = nullptr;
        const bool same_key = natsMsgHeader_Get(last, "Nats-Msg-Id", &key) == NATS_OK &&
                              change.idempotency_key == key;
        if (natsMsgHeader_Get(last, "Attest-Source-Version", &v) == NATS_OK) {
          std::from_chars(v, v + std::char_traits<char>::length(v), stored);
        }
        natsMsg_Destroy(last);
        if (same_key) return AppendAck{last_seq, true};  // a retry of the write the log holds
        if (stored > change.source_version) {
          return Status::AlreadyExists("stale: the log holds source version " + std::to_string(stored) +
                                            " of '" + change.id + "', newer than " + version);
        }
      } else if (!(s == NATS_NOT_FOUND || jerr == JSNoMessageFoundErr)) {
        return FromNats(s, jerr, "read " + subject);
      }
      natsMsg* msg = nullptr;
      s = natsMsg_Create(&msg, subject.c_str(), nullptr, change.payload.data(), int(change.payload.size()));
      if (s != NATS_OK) return FromNats(s, jsErrCode(0), "message");
      natsMsgHeader_Set(msg, "Attest-Source-Version", version.c_str());
      natsMsgHeader_Set(msg, "Attest-Change", KindName(change.kind));
      jsPubOptions po;
      jsPubOptions_Init(&po);
      po.MaxWait = options_.timeout_ms;
      po.MsgId = change.idempotency_key.c_str();
      if (last_seq > 0) {
        po.ExpectLastSubjectSeq = last_seq;
      } else {
        po.ExpectNoMessage = true;
      }
      jsPubAck* ack = nullptr;
      jerr = jsErrCode(0);
      s = js_PublishMsg(&ack, js_, msg, &po, &jerr);
      natsMsg_Destroy(msg);
      if (s == NATS_OK) {
        AppendAck out{ack->Sequence, ack->Duplicate};
        jsPubAck_Destroy(ack);
        return out;
      }
      if (jerr != JSStreamWrongLastSequenceErr) return FromNats(s, jerr, "append to " + subject);
      // Another writer of this document came first: read again and compare versions.
    }
    return Status::Unavailable("append to " + subject + ": still conflicting after " +
                               std::to_string(options_.max_conflict_retries) + " retries");
  }

  Result<State> StreamState() override {
    jsStreamInfo* si = nullptr;
    jsErrCode jerr = jsErrCode(0);
    natsStatus s = js_GetStreamInfo(&si, js_, options_.stream.c_str(), nullptr, &jerr);
    if (s != NATS_OK) return FromNats(s, jerr, "stream " + options_.stream);
    State out{si->State.LastSeq, si->State.Msgs};
    jsStreamInfo_Destroy(si);
    return out;
  }

 private:
  const ChangeLogOptions options_;
  natsConnection* nc_;
  jsCtx* js_;
};

}  // namespace

uint32_t VirtualShardOf(const std::string& tenant, const std::string& id, uint32_t vshards) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (unsigned char c : tenant) mix(c);
  mix(0);
  for (unsigned char c : id) mix(c);
  return static_cast<uint32_t>(h % std::max<uint32_t>(vshards, 1));
}

std::string ChangeSubject(const std::string& tenant, const std::string& id, uint32_t vshards) {
  return "attest.doc." + std::to_string(VirtualShardOf(tenant, id, vshards)) + "." +
         (tenant.empty() ? std::string("_") : Hex(tenant)) + "." + Hex(id);
}

Result<std::unique_ptr<ChangeLog>> ChangeLog::Open(const ChangeLogOptions& options) {
  if (options.servers.empty()) return Status::InvalidArgument("change log: no NATS server given");
  if (options.replicas < 1 || options.replicas > 5) return Status::InvalidArgument("change log: replicas must be 1..5");
  if (options.vshards < 1 || options.vshards > 4096) return Status::InvalidArgument("change log: vshards must be 1..4096");
  natsOptions* opts = nullptr;
  if (natsOptions_Create(&opts) != NATS_OK) return Status::Internal("change log: nats options");
  std::vector<const char*> servers;
  for (const std::string& s : options.servers) servers.push_back(s.c_str());
  natsOptions_SetServers(opts, servers.data(), int(servers.size()));
  natsOptions_SetTimeout(opts, options.timeout_ms);
  natsOptions_SetMaxReconnect(opts, -1);
  natsConnection* nc = nullptr;
  natsStatus s = natsConnection_Connect(&nc, opts);
  natsOptions_Destroy(opts);
  if (s != NATS_OK) return FromNats(s, jsErrCode(0), "change log: connect");
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = options.timeout_ms;
  jsCtx* js = nullptr;
  s = natsConnection_JetStream(&js, nc, &jo);
  if (s != NATS_OK) {
    natsConnection_Destroy(nc);
    return FromNats(s, jsErrCode(0), "change log: JetStream");
  }
  return std::unique_ptr<ChangeLog>(new NatsChangeLog(options, nc, js));
}

}  // namespace attest
