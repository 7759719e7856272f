// Tests of pushed events (POST /v1/events; src/service/{webhook_signature,event_config,event_schema,
// event_log,event_applier,service_events}): Standard Webhooks signatures checked against values
// computed here from the spec's definition with OpenSSL, rotation and tolerance, idempotency,
// source-version ordering and tombstones, ACL changes in the index and the caches, all-or-nothing
// batches, and a restart that applies what was left queued. In-process: the Service over a real
// Engine in a temporary directory.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <future>

#include "attest/engine.h"
#include "service/authenticator.h"
#include "service/event_config.h"
#include "service/event_log.h"
#include "service/event_schema.h"
#include "service/service.h"
#include "service/webhook_signature.h"
#include "support/fake_clock.h"
#include "support/process.h"

namespace attest::service {
namespace {

using nlohmann::json;
using testing_support::FakeClock;
using testing_support::TempDir;

// ---- the signature scheme, independently ---------------------------------------------------

// Standard base64 of `bytes` by OpenSSL's encoder (not the code under test).
std::string OpenSslBase64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string OpenSslUnbase64(const std::string& text) {
  std::string out(text.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return "";
  size_t pad = 0;
  while (pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

// The spec: HMAC-SHA256 over "{msg_id}.{timestamp}.{payload}", base64, prefixed "v1,".
std::string ExpectedSignature(const std::string& key, const std::string& id, const std::string& ts,
                              const std::string& body) {
  const std::string content = id + "." + ts + "." + body;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(content.data()),
       content.size(), mac, &len);
  return "v1," + OpenSslBase64(std::string(reinterpret_cast<char*>(mac), len));
}

// The vector of the Standard Webhooks reference libraries' tests (test_sign_function).
constexpr char kSpecSecret[] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr char kSpecId[] = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr char kSpecTimestamp[] = "1614265330";
constexpr char kSpecPayload[] = R"({"test": 2432232314})";
constexpr char kSpecSignature[] = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

TEST(WebhookSignature, MatchesTheSpecVectorAndAnIndependentHmac) {
  auto key = ParseWebhookSecret(kSpecSecret);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(*key, OpenSslUnbase64("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
  EXPECT_EQ(key->size(), 24u);
  EXPECT_EQ(ExpectedSignature(*key, kSpecId, kSpecTimestamp, kSpecPayload), kSpecSignature);
  EXPECT_EQ(SignWebhook(*key, kSpecId, kSpecTimestamp, kSpecPayload), kSpecSignature);
  EXPECT_EQ(FormatWebhookSecret(*key), kSpecSecret);
  // Other keys, ids and bodies (several lengths: base64 padding of 0, 1 and 2).
  for (int n : {24, 32, 33, 64}) {
    std::string k(static_cast<size_t>(n), '\0');
    for (int i = 0; i < n; ++i) k[static_cast<size_t>(i)] = static_cast<char>(i * 37 + n);
    EXPECT_EQ(ParseWebhookSecret(FormatWebhookSecret(k)).value(), k);
    const std::string body = std::string(static_cast<size_t>(n), 'x') + "\n{\"a\":1}";
    EXPECT_EQ(SignWebhook(k, "msg_" + std::to_string(n), "1700000000", body),
              ExpectedSignature(k, "msg_" + std::to_string(n), "1700000000", body));
  }
}

TEST(WebhookSignature, SecretsAreCheckedForPrefixBase64AndLength) {
  EXPECT_FALSE(ParseWebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").ok());           // no prefix
  EXPECT_FALSE(ParseWebhookSecret("whsec_not base64!").ok());
  EXPECT_FALSE(ParseWebhookSecret("whsec_" + OpenSslBase64(std::string(23, 'a'))).ok());  // < 24 bytes
  EXPECT_FALSE(ParseWebhookSecret("whsec_" + OpenSslBase64(std::string(65, 'a'))).ok());  // > 64 bytes
  EXPECT_TRUE(ParseWebhookSecret("whsec_" + OpenSslBase64(std::string(64, 'a'))).ok());
}

class VerifierTest : public ::testing::Test {
 protected:
  VerifierTest()
      : k1_(std::string(32, 'a')), k2_(std::string(32, 'b')), k3_(std::string(32, 'c')),
        verifier_({Connector{"wiki", "acme", {k1_, k2_}}, Connector{"crm", "beta", {k3_}}}, std::chrono::seconds(300),
                  &clock_) {}
  std::string Now(int64_t shift = 0) const {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(clock_.WallNow().time_since_epoch()).count() + shift);
  }
  WebhookVerdict Verify(const std::string& signature, const std::string& ts, const std::string& body = "{}",
                        const std::string& id = "msg_1") {
    return verifier_.Verify(WebhookHeaders{id, ts, signature}, body);
  }
  FakeClock clock_;
  std::string k1_, k2_, k3_;
  WebhookVerifier verifier_;
};

TEST_F(VerifierTest, FindsTheConnectorByTheSecretThatVerifies) {
  const std::string ts = Now();
  WebhookVerdict v = Verify(ExpectedSignature(k1_, "msg_1", ts, "{}"), ts);
  ASSERT_NE(v.connector, nullptr) << v.error.message;
  EXPECT_EQ(v.connector->name, "wiki");
  EXPECT_EQ(v.connector->tenant, "acme");
  v = Verify(ExpectedSignature(k3_, "msg_1", ts, "{}"), ts);
  ASSERT_NE(v.connector, nullptr);
  EXPECT_EQ(v.connector->tenant, "beta");
}

TEST_F(VerifierTest, RotationAcceptsEitherSecretAndAnyOfSeveralSignatures) {
  const std::string ts = Now();
  // The new secret alone, and a header carrying a wrong signature, a v1a one and the old secret's.
  EXPECT_NE(Verify(ExpectedSignature(k2_, "msg_1", ts, "{}"), ts).connector, nullptr);
  const std::string header = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v1a,aGVsbG8= " +
                             ExpectedSignature(k1_, "msg_1", ts, "{}") + " v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=";
  EXPECT_NE(Verify(header, ts).connector, nullptr);
}

TEST_F(VerifierTest, RefusesWrongKeysTamperingMissingHeadersAndStaleTimestamps) {
  const std::string ts = Now();
  const std::string good = ExpectedSignature(k1_, "msg_1", ts, "{}");
  EXPECT_EQ(Verify(ExpectedSignature(std::string(32, 'z'), "msg_1", ts, "{}"), ts).refusal,
            WebhookRefusal::kBadSignature);
  EXPECT_EQ(Verify(good, ts, "{ }").connector, nullptr);                 // body changed
  EXPECT_EQ(Verify(good, ts, "{}", "msg_2").connector, nullptr);         // id changed
  EXPECT_EQ(Verify(good, Now(1)).connector, nullptr);                    // timestamp changed
  EXPECT_EQ(Verify(good.substr(3), ts).refusal, WebhookRefusal::kBadHeader);  // no "v1,"
  WebhookVerdict missing = verifier_.Verify(WebhookHeaders{"msg_1", "", good}, "{}");
  EXPECT_EQ(missing.refusal, WebhookRefusal::kMissingHeader);
  EXPECT_EQ(missing.error.code, ApiErrorCode::kUnauthorized);
  EXPECT_EQ(missing.error.field, "webhook-timestamp");
  EXPECT_EQ(verifier_.Verify(WebhookHeaders{"", ts, good}, "{}").error.field, "webhook-id");
  EXPECT_EQ(verifier_.Verify(WebhookHeaders{"msg_1", ts, ""}, "{}").error.field, "webhook-signature");
  EXPECT_EQ(Verify(ExpectedSignature(k1_, "msg.1", ts, "{}"), ts, "{}", "msg.1").refusal,
            WebhookRefusal::kBadHeader);  // '.' is the delimiter of the signed content
  EXPECT_EQ(Verify(good, "1e9").refusal, WebhookRefusal::kBadHeader);
  // Tolerance: 300 s either way is accepted, 301 s is not.
  for (int64_t shift : {-300, 300}) {
    const std::string t = Now(shift);
    EXPECT_NE(Verify(ExpectedSignature(k1_, "msg_1", t, "{}"), t).connector, nullptr) << shift;
  }
  for (int64_t shift : {-302, 302}) {
    const std::string t = Now(shift);
    WebhookVerdict v = Verify(ExpectedSignature(k1_, "msg_1", t, "{}"), t);
    EXPECT_EQ(v.refusal, WebhookRefusal::kTimestampOutOfTolerance) << shift;
    EXPECT_EQ(v.error.field, "webhook-timestamp");
  }
  // The injected clock moves: a signature that was fresh is refused 10 minutes later.
  EXPECT_NE(Verify(good, ts).connector, nullptr);
  clock_.SleepFor(std::chrono::minutes(10));
  EXPECT_EQ(Verify(good, ts).refusal, WebhookRefusal::kTimestampOutOfTolerance);
}

// ---- configuration ---------------------------------------------------------------------------

TEST(EventsConfig, SecretsComeFromTheEnvironmentAndBindATenant) {
  const std::string s1 = FormatWebhookSecret(std::string(32, '1'));
  const std::string s2 = FormatWebhookSecret(std::string(32, '2'));
  auto env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "WIKI_SECRET") return s1;
    if (name == "WIKI_OLD") return s2;
    if (name == "EMPTY") return std::string();
    if (name == "BAD") return std::string("nope");
    return std::nullopt;
  };
  auto ok = ParseEventsConfig(
      R"({"tolerance_seconds": 60, "connectors": [{"name": "wiki", "tenant": "acme",
          "secret_env": ["WIKI_SECRET", "WIKI_OLD"]}]})", env);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->tolerance, std::chrono::seconds(60));
  ASSERT_EQ(ok->connectors.size(), 1u);
  EXPECT_EQ(ok->connectors[0].tenant, "acme");
  EXPECT_EQ(ok->connectors[0].keys, (std::vector<std::string>{std::string(32, '1'), std::string(32, '2')}));

  auto error = [&](const std::string& text) {
    auto r = ParseEventsConfig(text, env);
    return r.ok() ? std::string("accepted") : r.status().message();
  };
  EXPECT_NE(error(R"({"connectors": [{"name": "w", "tenant": "acme", "secret": "whsec_x"}]})").find("never written"),
            std::string::npos);
  EXPECT_NE(error(R"({"connectors": [{"name": "w", "tenant": "acme", "secret_env": "UNSET"}]})").find("UNSET"),
            std::string::npos);
  EXPECT_NE(error(R"({"connectors": [{"name": "w", "tenant": "acme", "secret_env": "EMPTY"}]})").find("not set"),
            std::string::npos);
  EXPECT_NE(error(R"({"connectors": [{"name": "w", "tenant": "acme", "secret_env": "BAD"}]})").find("whsec_"),
            std::string::npos);
  EXPECT_NE(error(R"({"connectors": [{"name": "w", "tenant": "ACME", "secret_env": "WIKI_SECRET"}]})")
                .find("connectors[0].tenant"),
            std::string::npos);
  EXPECT_NE(error(R"({"connectors": [{"name": "a", "tenant": "x", "secret_env": "WIKI_SECRET"},
                                     {"name": "b", "tenant": "y", "secret_env": "WIKI_SECRET"}]})")
                .find("already used"),
            std::string::npos);
  EXPECT_NE(error(R"({"connectors": [{"name": "a", "tenant": "x", "secret_env": "WIKI_SECRET"},
                                     {"name": "a", "tenant": "y", "secret_env": "WIKI_OLD"}]})")
                .find("two connectors"),
            std::string::npos);
  EXPECT_NE(error(R"({"connectors": []})").find("non-empty"), std::string::npos);
  EXPECT_NE(error(R"({"connectors": [{"name": "a", "tenant": "x", "secret_env": "WIKI_SECRET"}], "x": 1})")
                .find("unknown key"),
            std::string::npos);
}

// ---- envelopes -------------------------------------------------------------------------------

json Upsert(const std::string& id, const json& version, const std::string& text, const std::string& ce_id = "") {
  return {{"specversion", "1.0"},
          {"id", ce_id.empty() ? "ev-" + id + "-" + version.dump() : ce_id},
          {"source", "https://wiki.example/space"},
          {"type", "attest.document.upsert"},
          {"subject", id},
          {"time", "2026-12-02T13:44:00Z"},
          {"datacontenttype", "application/json"},
          {"data", {{"title", "Page " + id}, {"text", text}, {"source_version", version}}}};
}

json Delete(const std::string& id, const json& version) {
  return {{"specversion", "1.0"}, {"id", "del-" + id + "-" + version.dump()}, {"source", "/wiki"},
          {"type", "attest.document.delete"}, {"subject", id}, {"data", {{"source_version", version}}}};
}

json Acl(const std::string& id, const json& version, const std::vector<std::string>& groups) {
  return {{"specversion", "1.0"}, {"id", "acl-" + id + "-" + version.dump()}, {"source", "/wiki"},
          {"type", "attest.document.acl"}, {"subject", id},
          {"data", {{"source_version", version}, {"acl_groups", groups}}}};
}

ApiError ParseError(const json& body) {
  auto r = ParseEvents(body.dump(), ParseLimits{});
  return r.ok() ? ApiError{ApiErrorCode::kInternal, "accepted", "(accepted)"} : r.error();
}

TEST(EventSchema, ParsesOneEnvelopeABatchAndTheEventsObject) {
  auto one = ParseEvents(Upsert("a", 1, "alpha").dump(), ParseLimits{});
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one.value().size(), 1u);
  EXPECT_EQ(one.value()[0].kind, EventKind::kUpsert);
  EXPECT_EQ(one.value()[0].document_id, "a");
  EXPECT_EQ(one.value()[0].data["id"], "a");
  EXPECT_FALSE(one.value()[0].data.contains("source_version"));
  EXPECT_EQ(one.value()[0].data["content_type"], "text");  // the documents route's default
  json array = json::array({Upsert("a", 1, "alpha"), Delete("b", 2), Acl("c", 3, {"eng"})});
  auto batch = ParseEvents(array.dump(), ParseLimits{});
  ASSERT_TRUE(batch.ok()) << batch.error().message;
  EXPECT_EQ(batch.value()[1].kind, EventKind::kDelete);
  EXPECT_EQ(batch.value()[2].kind, EventKind::kAcl);
  EXPECT_TRUE(ParseEvents(json{{"events", array}}.dump(), ParseLimits{}).ok());
  // An extension attribute is accepted; data.id may stand in for subject.
  json ext = Upsert("a", 1, "alpha");
  ext["comexampleext"] = "value";
  ext.erase("subject");
  ext["data"]["id"] = "a";
  EXPECT_TRUE(ParseEvents(ext.dump(), ParseLimits{}).ok());
}

TEST(EventSchema, EveryErrorNamesItsField) {
  json unknown = Upsert("a", 1, "x");
  unknown["type"] = "com.example.page.moved";
  ApiError e = ParseError(unknown);
  EXPECT_EQ(e.code, ApiErrorCode::kUnsupportedEventType);
  EXPECT_EQ(e.field, "type");
  EXPECT_NE(e.message.find("com.example.page.moved"), std::string::npos);

  json bad_batch = json{{"events", {Upsert("a", 1, "x"), Upsert("b", 1, "y")}}};
  bad_batch["events"][1]["data"]["content_type"] = "pdf";
  EXPECT_EQ(ParseError(bad_batch).field, "events[1].data.content_type");
  json no_spec = Upsert("a", 1, "x");
  no_spec.erase("specversion");
  EXPECT_EQ(ParseError(no_spec).field, "specversion");
  no_spec["specversion"] = "0.3";
  EXPECT_EQ(ParseError(no_spec).field, "specversion");
  json tenant = Upsert("a", 1, "x");
  tenant["data"]["tenant"] = "other";
  EXPECT_EQ(ParseError(tenant).field, "data.tenant");
  json mismatch = Upsert("a", 1, "x");
  mismatch["data"]["id"] = "b";
  EXPECT_EQ(ParseError(mismatch).field, "data.id");
  json no_version = Upsert("a", 1, "x");
  no_version["data"].erase("source_version");
  EXPECT_EQ(ParseError(no_version).field, "data.source_version");
  for (const json& v : {json(-1), json("yesterday"), json(1.5), json("2026-12-02"), json(true)}) {
    EXPECT_EQ(ParseError(Upsert("a", v, "x")).field, "data.source_version") << v.dump();
  }
  json binary = Upsert("a", 1, "x");
  binary["data_base64"] = "AAAA";
  EXPECT_EQ(ParseError(binary).field, "data_base64");
  json xml = Upsert("a", 1, "x");
  xml["datacontenttype"] = "application/xml";
  EXPECT_EQ(ParseError(xml).field, "datacontenttype");
  json time = Upsert("a", 1, "x");
  time["time"] = "last tuesday";
  EXPECT_EQ(ParseError(time).field, "time");
  json no_acl = Acl("a", 1, {});
  no_acl["data"].erase("acl_groups");
  EXPECT_EQ(ParseError(no_acl).field, "data.acl_groups");
  json bad_ext = Upsert("a", 1, "x");
  bad_ext["Bad-Name"] = 1;
  EXPECT_EQ(ParseError(bad_ext).field, "Bad-Name");
  json dup = json::array({Upsert("a", 1, "x", "same"), Upsert("b", 1, "y", "same")});
  EXPECT_EQ(ParseError(dup).field, "[1].id");
  json many = json::array();
  for (size_t i = 0; i <= kMaxEventsPerRequest; ++i) many.push_back(Upsert("d" + std::to_string(i), 1, "x"));
  EXPECT_EQ(ParseError(many).code, ApiErrorCode::kPayloadTooLarge);
  EXPECT_EQ(ParseError(json::array()).code, ApiErrorCode::kInvalidRequest);
}

TEST(EventSchema, SourceVersionsAreIntegersOrRfc3339Times) {
  auto i = ParseSourceVersion(json(42), "v");
  ASSERT_TRUE(i.ok());
  EXPECT_FALSE(i.value().is_time);
  EXPECT_EQ(i.value().value, 42);
  auto t1 = ParseSourceVersion(json("2026-12-02T13:44:05.250Z"), "v");
  auto t2 = ParseSourceVersion(json("2026-12-02T14:44:05.251+01:00"), "v");  // the same instant + 1 ms
  ASSERT_TRUE(t1.ok() && t2.ok());
  EXPECT_TRUE(t1.value().is_time);
  EXPECT_EQ(t2.value().value - t1.value().value, 1000);
  EXPECT_FALSE(ParseSourceVersion(json("2026-12-02T13:44Z"), "v").ok());  // seconds are required
}

// ---- the service over a real engine -----------------------------------------------------------

class EventsServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    key_ = std::string(32, 'k');
    other_key_ = std::string(32, 'o');
    OpenAll();
  }
  void TearDown() override { CloseAll(); }

  void OpenAll(bool with_service = true) {
    EngineOptions o;
    o.data_dir = dir_.str("data");
    o.threads = 2;
    o.embedder.min_chunks = 1000000;  // lexical only: these tests are about events
    auto e = Engine::Open(o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    AuthOptions ao;
    ao.auth_db = dir_.path() / "auth.db";
    auto a = Authenticator::Create(ao);
    ASSERT_TRUE(a.ok());
    auth_ = std::move(a).value();
    auto log = EventLog::Open(dir_.path() / "events.db");
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log_ = std::move(log).value();
    verifier_ = std::make_unique<WebhookVerifier>(
        std::vector<Connector>{{"wiki", "acme", {key_}}, {"crm", "beta", {other_key_}}}, std::chrono::seconds(300),
        &clock_);
    metrics_ = std::make_unique<Registry>();
    if (with_service) StartService();
  }
  void StartService() {
    ServiceOptions so;
    so.event_log = log_.get();
    so.webhooks = verifier_.get();
    so.clock = &clock_;
    service_ = std::make_unique<Service>(*engine_, *auth_, *metrics_, nullptr, so);
  }
  void CloseAll() {
    service_.reset();
    log_.reset();
    verifier_.reset();
    auth_.reset();
    engine_.reset();
  }

  RequestContext Ctx() const { return RequestContext{"req_test", "/v1/events", std::chrono::steady_clock::now()}; }

  // Signs and posts `body` as connector `key` with webhook-id `id`.
  ApiResult<EventsReply> Post(const json& body, const std::string& id, const std::string* key = nullptr) {
    return PostRaw(body.dump(), id, key ? *key : key_);
  }
  ApiResult<EventsReply> PostRaw(const std::string& body, const std::string& id, const std::string& key) {
    const std::string ts = std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(clock_.WallNow().time_since_epoch()).count());
    auto who = service_->AuthenticateConnector(WebhookHeaders{id, ts, ExpectedSignature(key, id, ts, body)}, body);
    if (!who.ok()) return who.error();
    return service_->PostEvents(who.value(), id, body, ParseLimits{}, Ctx());
  }
  std::vector<uint64_t> Seqs(const EventsReply& r) {
    std::vector<uint64_t> out;
    const json body = json::parse(r.body);
    for (const json& e : body["events"]) out.push_back(e["seq"].get<uint64_t>());
    return out;
  }
  std::vector<std::string> Statuses(const EventsReply& r) {
    std::vector<std::string> out;
    const json body = json::parse(r.body);
    for (const json& e : body["events"]) out.push_back(e["status"].get<std::string>());
    return out;
  }
  // Waits until every event up to `seq` has its outcome (the service's own wait).
  void WaitDone(uint64_t seq) {
    std::promise<void> done;
    service_->WhenEventsDone(seq, std::chrono::milliseconds(10000), [&] { done.set_value(); });
    ASSERT_EQ(done.get_future().wait_for(std::chrono::seconds(15)), std::future_status::ready);
  }
  void PostAndWait(const json& body, const std::string& id) {
    auto r = Post(body, id);
    ASSERT_TRUE(r.ok()) << r.error().field << ": " << r.error().message;
    WaitDone(r.value().last_seq);
  }
  Identity Reader(std::vector<std::string> groups) const {
    Identity who;
    who.tenant = "acme";
    who.user = "reader";
    who.groups = std::move(groups);
    who.credential_id = "jwt:test:reader";
    who.method = "jwt";  // a token's groups stand without a directory entry (as Refresh re-checks)
    who.token_exp = double(std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count() + 3600);
    return who;
  }
  Identity Admin() const {
    Identity who = Reader({});
    who.admin = true;
    who.credential_id = "jwt:test:admin";
    return who;
  }
  // The ids of the documents a search of `query` returns to `who`.
  std::vector<std::string> Found(const Identity& who, const std::string& query) {
    SearchRequest req;
    req.query = query;
    req.mode = "bm25";
    auto r = service_->Search(who, req, Ctx());
    EXPECT_TRUE(r.ok()) << r.error().message;
    std::vector<std::string> ids;
    if (r.ok()) {
      const json body = json::parse(r.value());
      for (const json& h : body["hits"]) ids.push_back(h["doc_id"].get<std::string>());
    }
    return ids;
  }
  std::string StateOf(uint64_t seq) {
    auto r = service_->GetEvent(Admin(), seq, Ctx());
    return r.ok() ? json::parse(r.value())["status"].get<std::string>() : "error:" + r.error().message;
  }

  TempDir dir_;
  FakeClock clock_;
  std::string key_, other_key_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<EventLog> log_;
  std::unique_ptr<WebhookVerifier> verifier_;
  std::unique_ptr<Registry> metrics_;
  std::unique_ptr<Service> service_;
};

TEST_F(EventsServiceTest, AnUpsertIsDurableAtOnceAndSearchableOnceApplied) {
  auto r = Post(Upsert("page-1", 1, "The zanzibarquux runbook explains failover."), "msg_1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r.value().replayed);
  ASSERT_EQ(Seqs(r.value()).size(), 1u) << r.value().body;
  const uint64_t seq = Seqs(r.value())[0];
  EXPECT_EQ(Statuses(r.value())[0], "queued");
  json body = json::parse(r.value().body);
  EXPECT_EQ(body["tenant"], "acme");
  EXPECT_EQ(body["connector"], "wiki");
  WaitDone(seq);
  EXPECT_EQ(StateOf(seq), "applied");
  EXPECT_EQ(Found(Reader({}), "zanzibarquux"), std::vector<std::string>{"page-1"});
  // The connector wrote into its own tenant only.
  Identity beta = Reader({});
  beta.tenant = "beta";
  EXPECT_TRUE(Found(beta, "zanzibarquux").empty());
  // Waiting on a done event returns at once; the refreshed reply says applied.
  auto now = service_->RefreshEvents(r.value());
  ASSERT_TRUE(now.ok());
  EXPECT_FALSE(now.value().pending);
  EXPECT_EQ(Statuses(now.value())[0], "applied");
  // The metrics saw it.
  const std::string m = metrics_->Render();
  EXPECT_NE(m.find("attest_events_received_total{kind=\"upsert\"} 1"), std::string::npos) << m;
  EXPECT_NE(m.find("attest_events_applied_total{kind=\"upsert\"} 1"), std::string::npos);
  EXPECT_NE(m.find("attest_event_apply_lag_seconds_count 1"), std::string::npos);
}

TEST_F(EventsServiceTest, ARepeatReturnsTheFirstResultAndAnotherBodyIsAConflict) {
  const json body = json::array({Upsert("a", 1, "alpha words here"), Upsert("b", 1, "beta words here")});
  auto first = Post(body, "msg_same");
  ASSERT_TRUE(first.ok());
  WaitDone(first.value().last_seq);
  auto again = Post(body, "msg_same");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again.value().replayed);
  EXPECT_EQ(again.value().body, first.value().body);  // same seqs, same statuses as first said
  EXPECT_EQ(again.value().pending, first.value().pending);
  EXPECT_EQ(Seqs(again.value()), Seqs(first.value()));
  auto count = log_->QueuedCount();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 0u);

  auto other = Post(json::array({Upsert("a", 2, "changed")}), "msg_same");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, ApiErrorCode::kIdempotencyConflict);
  EXPECT_EQ(other.error().field, "webhook-id");
  // The same webhook-id from another connector is another delivery.
  auto crm = Post(json::array({Upsert("a", 1, "crm text")}), "msg_same", &other_key_);
  ASSERT_TRUE(crm.ok()) << crm.error().message;
  EXPECT_FALSE(crm.value().replayed);
}

TEST_F(EventsServiceTest, AnOlderVersionNeverOverwritesANewerOne) {
  PostAndWait(Upsert("doc", 5, "version five mentions quuxfive"), "m1");
  auto older = Post(Upsert("doc", 4, "version four mentions quuxfour"), "m2");
  ASSERT_TRUE(older.ok());
  EXPECT_EQ(Statuses(older.value())[0], "stale");
  EXPECT_FALSE(older.value().pending);  // nothing to wait for: 200, not 202
  auto same = Post(Upsert("doc", 5, "a replay under another id mentions quuxsame"), "m3");
  EXPECT_EQ(Statuses(same.value())[0], "stale");
  PostAndWait(Upsert("doc", 6, "version six mentions quuxsix"), "m4");
  EXPECT_TRUE(Found(Admin(), "quuxfour").empty());
  EXPECT_TRUE(Found(Admin(), "quuxsame").empty());
  EXPECT_TRUE(Found(Admin(), "quuxfive").empty());
  EXPECT_EQ(Found(Admin(), "quuxsix"), std::vector<std::string>{"doc"});
  // Times order the same way, to the microsecond; one document keeps one kind of version.
  PostAndWait(Upsert("timed", "2026-12-02T13:00:00.000002Z", "timed alphaquux"), "t1");
  auto earlier = Post(Upsert("timed", "2026-12-02T13:00:00.000001Z", "timed betaquux"), "t2");
  EXPECT_EQ(Statuses(earlier.value())[0], "stale");
  auto kind = Post(Upsert("timed", 99, "an integer now"), "t3");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.error().field, "data.source_version");
  auto in_batch = Post(json{{"events", {Upsert("fresh", 1, "fresh text"), Upsert("timed", 100, "integer again")}}},
                       "t4");
  ASSERT_FALSE(in_batch.ok());
  EXPECT_EQ(in_batch.error().field, "events[1].data.source_version");
  EXPECT_TRUE(Found(Admin(), "fresh").empty());  // the whole request was refused
  EXPECT_EQ(Found(Admin(), "alphaquux"), std::vector<std::string>{"timed"});
}

TEST_F(EventsServiceTest, ATombstoneStopsALateUpsertAndANewerOneRecreates) {
  PostAndWait(Upsert("gone", 1, "the tombstonequux page"), "m1");
  ASSERT_EQ(Found(Admin(), "tombstonequux"), std::vector<std::string>{"gone"});
  PostAndWait(Delete("gone", 3), "m2");
  EXPECT_TRUE(Found(Admin(), "tombstonequux").empty());
  auto late = Post(Upsert("gone", 2, "the tombstonequux page, delivered late"), "m3");
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(Statuses(late.value())[0], "stale");
  EXPECT_TRUE(Found(Admin(), "tombstonequux").empty());
  // A delete of a document never seen leaves a tombstone too.
  PostAndWait(Delete("never", 10), "m4");
  EXPECT_EQ(Statuses(Post(Upsert("never", 9, "neverquux"), "m5").value())[0], "stale");
  // A newer upsert after the delete recreates the document.
  PostAndWait(Upsert("gone", 4, "the tombstonequux page is back"), "m6");
  EXPECT_EQ(Found(Admin(), "tombstonequux"), std::vector<std::string>{"gone"});
}

TEST_F(EventsServiceTest, AnAclChangeTakesEffectInTheIndexAndTheCaches) {
  json up = Upsert("plan", 1, "The secret launchquux plan ships in March. The launchquux budget is fixed.");
  up["data"]["acl_groups"] = {"eng"};
  up["data"]["metadata"] = {{"space", "PLAN"}};
  PostAndWait(up, "m1");
  const Identity eng = Reader({"eng"});
  const Identity sales = Reader({"sales"});
  // Read before the change: the retrieval cache now holds eng's result, the answer cache its answer.
  EXPECT_EQ(Found(eng, "launchquux"), std::vector<std::string>{"plan"});
  EXPECT_TRUE(Found(sales, "launchquux").empty());
  AnswerRequest ask;
  ask.query = "When does the launchquux plan ship?";
  auto before = service_->Answer(eng, ask, Ctx(), nullptr);
  ASSERT_TRUE(before.ok()) << before.error().message;
  bool cited_before = false;
  const json before_body = json::parse(before.value());
  for (const json& s : before_body["sources"]) cited_before |= s["doc_id"] == "plan";
  EXPECT_TRUE(cited_before) << before.value();

  PostAndWait(Acl("plan", 2, {"sales"}), "m2");
  // The applier dropped the cached answer citing the replaced chunks (before anyone asked again).
  service_->RefreshGauges();
  EXPECT_NE(metrics_->Render().find("attest_cache_invalidations{cache=\"answer\"} 1"), std::string::npos);
  EXPECT_TRUE(Found(eng, "launchquux").empty());
  EXPECT_EQ(Found(sales, "launchquux"), std::vector<std::string>{"plan"});
  auto after = service_->Answer(eng, ask, Ctx(), nullptr);
  ASSERT_TRUE(after.ok());
  const json after_body = json::parse(after.value());
  for (const json& s : after_body["sources"]) EXPECT_NE(s["doc_id"], "plan") << after.value();
  // The text and fields were kept: the stored document is the upsert's, with the new ACL.
  SearchFilter f;
  f.tenant = "acme";
  auto doc = engine_->GetDocument(f, "plan");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->acl_groups, std::vector<std::string>{"sales"});
  EXPECT_EQ(doc->title, "Page plan");
  // An ACL change for a document that is not there fails, visibly.
  auto missing = Post(Acl("nowhere", 1, {"eng"}), "m3");
  WaitDone(missing.value().last_seq);
  EXPECT_EQ(StateOf(missing.value().last_seq), "failed");
}

TEST_F(EventsServiceTest, ABadEventRejectsTheWholeBatchAndARefusedDocumentFailsAlone) {
  json batch = json::array({Upsert("ok-1", 1, "batchquux one"), Upsert("bad", 1, "x")});
  batch[1]["type"] = "attest.document.rename";
  auto r = Post(batch, "m1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ApiErrorCode::kUnsupportedEventType);
  EXPECT_EQ(r.error().field, "[1].type");
  auto done = log_->DoneThrough();
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(*done, 0u);  // nothing was stored
  // Valid envelopes whose document the engine refuses (HTML without any text) fail one by one;
  // the others of the run are applied.
  json mixed = json::array({Upsert("ok-2", 1, "batchquux two"), Upsert("empty", 1, "<p></p>"),
                            Upsert("ok-3", 1, "batchquux three")});
  mixed[1]["data"]["content_type"] = "html";
  mixed[1]["data"]["title"] = "";
  auto m = Post(mixed, "m2");
  ASSERT_TRUE(m.ok()) << m.error().message;
  WaitDone(m.value().last_seq);
  const auto seqs = Seqs(m.value());
  EXPECT_EQ(StateOf(seqs[0]), "applied");
  EXPECT_EQ(StateOf(seqs[1]), "failed");
  EXPECT_EQ(StateOf(seqs[2]), "applied");
  auto found = Found(Admin(), "batchquux");
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::string>{"ok-2", "ok-3"}));
}

TEST_F(EventsServiceTest, EventsAreReadByTheirTenantOnly) {
  auto r = Post(Upsert("x", 1, "tenantquux"), "m1");
  ASSERT_TRUE(r.ok());
  const uint64_t seq = r.value().last_seq;
  Identity beta_admin = Admin();
  beta_admin.tenant = "beta";
  auto other = service_->GetEvent(beta_admin, seq, Ctx());
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, ApiErrorCode::kNotFound);
  auto reader = service_->GetEvent(Reader({}), seq, Ctx());
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().code, ApiErrorCode::kForbidden);
  // A bad signature never reaches the log, and is counted.
  auto forged = PostRaw(Upsert("y", 1, "forged").dump(), "m2", std::string(32, 'z'));
  ASSERT_FALSE(forged.ok());
  EXPECT_EQ(forged.error().code, ApiErrorCode::kUnauthorized);
  EXPECT_NE(metrics_->Render().find("attest_events_rejected_total{reason=\"signature\"} 1"), std::string::npos);
}

TEST_F(EventsServiceTest, ARestartAppliesWhatWasLeftQueued) {
  // Events made durable by a process that died before applying them: appended to the log with no
  // service (no applier) running.
  CloseAll();
  OpenAll(/*with_service=*/false);
  auto events = ParseEvents(json::array({Upsert("r1", 1, "restartquux one"), Upsert("r2", 1, "restartquux two"),
                                         Delete("r1", 2)})
                                .dump(),
                            ParseLimits{});
  ASSERT_TRUE(events.ok());
  NewDelivery d;
  d.connector = "wiki";
  d.tenant = "acme";
  d.webhook_id = "msg_before_crash";
  d.body_sha256 = std::string(32, 'h');
  d.events = std::move(events).value();
  auto appended = log_->Append(d, [](const std::vector<EventRecord>&) { return StoredResponse{true, "{}"}; });
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  ASSERT_EQ(log_->QueuedCount().value(), 3u);
  StartService();  // the applier applies them on start
  WaitDone(appended->events.back().seq);
  EXPECT_EQ(log_->QueuedCount().value(), 0u);
  EXPECT_EQ(Found(Admin(), "restartquux"), std::vector<std::string>{"r2"});
  // And the state survives another restart.
  CloseAll();
  OpenAll();
  EXPECT_EQ(StateOf(appended->events[0].seq), "applied");
  EXPECT_EQ(StateOf(appended->events[2].seq), "applied");
  EXPECT_EQ(Found(Admin(), "restartquux"), std::vector<std::string>{"r2"});
}

}  // namespace
}  // namespace attest::service
