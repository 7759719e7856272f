#include "service/crawl_sources.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "crawl/frontier.h"

namespace attest::service {
namespace {

using nlohmann::json;

// A reader of one source object that checks types and remembers which keys were used.
class Fields {
 public:
  Fields(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  Status String(const char* key, std::string* out) {
    used_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return Status::Ok();
    if (!it->is_string()) return Bad(key, "a string");
    *out = it->get<std::string>();
    return Status::Ok();
  }
  Status Strings(const char* key, std::vector<std::string>* out) {
    used_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return Status::Ok();
    if (!it->is_array()) return Bad(key, "an array of strings");
    out->clear();
    for (const json& v : *it) {
      if (!v.is_string()) return Bad(key, "an array of strings");
      out->push_back(v.get<std::string>());
    }
    return Status::Ok();
  }
  template <class Int>
  Status Integer(const char* key, Int* out, int64_t min, int64_t max) {
    used_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return Status::Ok();
    if (!it->is_number_integer()) return Bad(key, "an integer");
    const int64_t v = it->get<int64_t>();
    if (v < min || v > max) {
      return Status::InvalidArgument(where_ + "." + key + ": " + std::to_string(v) + " is outside " +
                                     std::to_string(min) + ".." + std::to_string(max));
    }
    *out = static_cast<Int>(v);
    return Status::Ok();
  }
  Status Bool(const char* key, bool* out) {
    used_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return Status::Ok();
    if (!it->is_boolean()) return Bad(key, "true or false");
    *out = it->get<bool>();
    return Status::Ok();
  }
  void Use(const char* key) { used_.insert(key); }
  Status NoOthers() const {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (!used_.count(it.key())) return Status::InvalidArgument(where_ + "." + it.key() + ": unknown field");
    }
    return Status::Ok();
  }

 private:
  Status Bad(const char* key, const char* what) const {
    return Status::InvalidArgument(where_ + "." + key + ": must be " + what);
  }
  const json& object_;
  std::string where_;
  std::set<std::string> used_;
};

Result<CrawlSourceConfig> ParseSource(const json& object, const std::string& where) {
  if (!object.is_object()) return Status::InvalidArgument(where + ": must be an object");
  Fields f(object, where);
  CrawlSourceConfig c;
  CrawlOptions& o = c.crawl;
  int64_t interval = 3600, delay_ms = 1000, revisit_min = 3600, revisit_max = 30 * 86400;
  bool politeness = true;
  std::vector<std::string> allow_addresses, acl;
  std::vector<int64_t> ports;
  ATTEST_RETURN_IF_ERROR(f.String("name", &c.name));
  ATTEST_RETURN_IF_ERROR(f.Integer("interval_seconds", &interval, 1, 365 * 86400));
  ATTEST_RETURN_IF_ERROR(f.Strings("seeds", &o.seeds));
  ATTEST_RETURN_IF_ERROR(f.Strings("sitemaps", &o.sitemaps));
  ATTEST_RETURN_IF_ERROR(f.Strings("feeds", &o.feeds));
  ATTEST_RETURN_IF_ERROR(f.Bool("sitemaps_from_robots", &o.sitemaps_from_robots));
  ATTEST_RETURN_IF_ERROR(f.Strings("hosts", &o.scope.hosts));
  ATTEST_RETURN_IF_ERROR(f.Strings("prefixes", &o.scope.path_prefixes));
  ATTEST_RETURN_IF_ERROR(f.Strings("include", &o.scope.include));
  ATTEST_RETURN_IF_ERROR(f.Strings("exclude", &o.scope.exclude));
  ATTEST_RETURN_IF_ERROR(f.Integer("max_depth", &o.max_depth, 0, 1000));
  ATTEST_RETURN_IF_ERROR(f.Integer("max_pages", &o.max_pages, 0, int64_t{1} << 40));
  ATTEST_RETURN_IF_ERROR(f.Integer("delay_ms", &delay_ms, 0, 3600000));
  ATTEST_RETURN_IF_ERROR(f.Bool("politeness", &politeness));
  ATTEST_RETURN_IF_ERROR(f.Integer("workers", &o.workers, 1, 64));
  ATTEST_RETURN_IF_ERROR(f.Strings("allow_addresses", &allow_addresses));
  {
    auto it = object.find("allow_ports");
    if (it != object.end()) {
      if (!it->is_array()) return Status::InvalidArgument(where + ".allow_ports: must be an array of ports");
      for (const json& p : *it) {
        if (!p.is_number_integer() || p.get<int64_t>() < 1 || p.get<int64_t>() > 65535) {
          return Status::InvalidArgument(where + ".allow_ports: must be an array of ports (1..65535)");
        }
        ports.push_back(p.get<int64_t>());
      }
    }
    f.Use("allow_ports");
  }
  ATTEST_RETURN_IF_ERROR(f.Integer("revisit_min_seconds", &revisit_min, 1, 365 * 86400));
  ATTEST_RETURN_IF_ERROR(f.Integer("revisit_max_seconds", &revisit_max, 1, 3650 * 86400));
  ATTEST_RETURN_IF_ERROR(f.String("tenant", &o.documents.tenant));
  ATTEST_RETURN_IF_ERROR(f.Strings("acl", &o.documents.acl_groups));
  ATTEST_RETURN_IF_ERROR(f.String("access_label", &o.documents.access_label));
  ATTEST_RETURN_IF_ERROR(f.String("source_type", &o.documents.source_type));
  ATTEST_RETURN_IF_ERROR(f.String("version", &o.documents.version));
  ATTEST_RETURN_IF_ERROR(f.String("site", &o.documents.site));
  ATTEST_RETURN_IF_ERROR(f.String("license", &o.documents.license));
  ATTEST_RETURN_IF_ERROR(f.NoOthers());
  if (c.name.empty()) return Status::InvalidArgument(where + ".name: required");
  if (o.seeds.empty() && o.sitemaps.empty() && o.feeds.empty()) {
    return Status::InvalidArgument(where + ": needs at least one of seeds, sitemaps, feeds");
  }
  if (revisit_max < revisit_min) return Status::InvalidArgument(where + ".revisit_max_seconds: below revisit_min_seconds");
  if (o.documents.tenant == "default") o.documents.tenant.clear();
  c.interval = std::chrono::seconds{interval};
  o.politeness.enabled = politeness;
  o.politeness.floor = std::chrono::milliseconds{delay_ms};
  o.politeness.max_parallel_per_host = static_cast<int>(o.workers);
  o.revisit.min = std::chrono::seconds{revisit_min};
  o.revisit.max = std::chrono::seconds{revisit_max};
  o.revisit.initial = std::clamp(std::chrono::seconds{86400}, o.revisit.min, o.revisit.max);
  for (const std::string& cidr : allow_addresses) {
    Result<Cidr> parsed = ParseCidr(cidr);
    if (!parsed.ok()) return parsed.status().WithContext(where + ".allow_addresses '" + cidr + "'");
    c.fetcher.policy.allow.push_back(*parsed);
  }
  for (int64_t p : ports) c.fetcher.policy.allowed_ports.push_back(static_cast<uint16_t>(p));
  return c;
}

}  // namespace

Result<std::vector<CrawlSourceConfig>> ParseCrawlConfig(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::InvalidArgument("crawl config: not valid JSON");
  if (!doc.is_object() || !doc.contains("sources") || !doc["sources"].is_array()) {
    return Status::InvalidArgument("crawl config: must be an object with an array \"sources\"");
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() != "sources") return Status::InvalidArgument("crawl config: " + it.key() + ": unknown field");
  }
  std::vector<CrawlSourceConfig> out;
  std::set<std::string> names;
  for (size_t i = 0; i < doc["sources"].size(); ++i) {
    const std::string where = "sources[" + std::to_string(i) + "]";
    ATTEST_ASSIGN_OR_RETURN(CrawlSourceConfig c, ParseSource(doc["sources"][i], where));
    if (!names.insert(c.name).second) return Status::InvalidArgument(where + ".name: '" + c.name + "' is used twice");
    out.push_back(std::move(c));
  }
  if (out.empty()) return Status::InvalidArgument("crawl config: no source");
  return out;
}

struct CrawlSources::Source {
  CrawlSourceConfig config;
  std::unique_ptr<Frontier> frontier;
  std::unique_ptr<Fetcher> fetcher;
  std::chrono::steady_clock::time_point next_run{};
};

CrawlSources::CrawlSources(Engine& engine, Registry& metrics, std::filesystem::path data_dir,
                           std::vector<CrawlSourceConfig> sources, const Clock& clock)
    : engine_(engine), metrics_(metrics), data_dir_(std::move(data_dir)), clock_(clock) {
  for (CrawlSourceConfig& c : sources) {
    auto s = std::make_unique<Source>();
    s->config = std::move(c);
    sources_.push_back(std::move(s));
  }
}

CrawlSources::~CrawlSources() { Stop(); }

Status CrawlSources::Start() {
  for (auto& s : sources_) {
    ATTEST_ASSIGN_OR_RETURN(std::filesystem::path path, FrontierPath(data_dir_, s->config.name));
    auto frontier = Frontier::Open(path);
    if (!frontier.ok()) return frontier.status().WithContext("crawl source '" + s->config.name + "'");
    s->frontier = std::move(*frontier);
    s->fetcher = std::make_unique<Fetcher>(s->config.fetcher);
    s->next_run = clock_.Now();
  }
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void CrawlSources::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
    if (running_) running_->RequestStop();
  }
  cv_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

void CrawlSources::Loop() {
  MutexLock lock(mu_);
  while (!stopping_) {
    Source* due = nullptr;
    auto next = std::chrono::steady_clock::time_point::max();
    for (auto& s : sources_) {
      if (s->next_run <= clock_.Now()) {
        due = s.get();
        break;
      }
      next = std::min(next, s->next_run);
    }
    if (!due) {
      // Wake at the next source's time (the clock is the injected one; wait in short steps).
      const auto wait = std::min<std::chrono::steady_clock::duration>(next - clock_.Now(), std::chrono::seconds{1});
      cv_.WaitFor(lock, std::max<std::chrono::steady_clock::duration>(wait, std::chrono::milliseconds{1}));
      continue;
    }
    lock.Unlock();
    RunPass(*due);
    lock.Lock();
    due->next_run = clock_.Now() + due->config.interval;
  }
}

void CrawlSources::RunPass(Source& source) {
  const std::string& name = source.config.name;
  Crawler crawler(source.config.crawl, engine_, *source.frontier, *source.fetcher, clock_);
  {
    MutexLock lock(mu_);
    if (stopping_) return;
    running_ = &crawler;
  }
  Result<CrawlReport> r = crawler.RunPass();
  {
    MutexLock lock(mu_);
    running_ = nullptr;
  }
  const std::map<std::string, std::string> labels = {{"source", name}};
  metrics_.GetCounter("attest_crawl_passes_total", "Crawl passes run, by source and outcome",
                      {{"source", name}, {"outcome", r.ok() ? (r->completed ? "completed" : "stopped") : "failed"}})
      ->Add();
  if (!r.ok()) {
    spdlog::error("crawl source '{}': {}", name, r.status().ToString());
    return;
  }
  metrics_.GetCounter("attest_crawl_pages_fetched_total", "Page requests answered", labels)->Add(double(r->fetched));
  metrics_.GetCounter("attest_crawl_not_modified_total", "Pages answered 304 Not Modified", labels)
      ->Add(double(r->not_modified));
  metrics_.GetCounter("attest_crawl_indexed_total", "Documents added or replaced by crawls", labels)
      ->Add(double(r->indexed));
  metrics_.GetCounter("attest_crawl_deleted_total", "Documents deleted by crawls (404/410, noindex)", labels)
      ->Add(double(r->deleted));
  metrics_.GetCounter("attest_crawl_duplicates_total", "Near-duplicate pages not indexed", labels)
      ->Add(double(r->duplicates));
  metrics_.GetCounter("attest_crawl_robots_denied_total", "Pages robots.txt excluded", labels)
      ->Add(double(r->robots_denied));
  for (const auto& [reason, n] : r->errors_by_reason) {
    metrics_.GetCounter("attest_crawl_fetch_errors_total", "Pages failed, by reason",
                        {{"source", name}, {"reason", reason}})
        ->Add(double(n));
  }
  metrics_.GetGauge("attest_crawl_last_pass_end_timestamp_seconds",
                    "Unix time the source's last pass ended (crawl lag = now - this)", labels)
      ->Set(double(r->ended_at_ms) / 1000.0);
  spdlog::info("crawl source '{}': {} fetched, {} not modified, {} indexed, {} deleted, {} errors in {:.1f} s", name,
               r->fetched, r->not_modified, r->indexed, r->deleted, r->errors, r->seconds);
}

}  // namespace attest::service
