// Prometheus metrics: lock-free series, a mutex-guarded registry, and the text exposition
// format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// Values are stored as fixed-point integers (x 1e6) in atomics so that Add/Set/Observe are a single
// atomic instruction; one micro-unit of resolution is ample for seconds, bytes and counts.
//
// Registry behaviour on misuse (never a crash; every case is logged once, when the series is
// created, so a hot path that looks a series up repeatedly does not flood the log):
//   - label names differing from the family's first registration: the series is created and
//     rendered with its own labels anyway (the text format accepts it; nothing is lost), and a
//     warning names the family and both label-name sets;
//   - a name already registered as another type (GetGauge on a counter family): a working but
//     detached series is returned that is never rendered (rendering it would make the family's
//     TYPE line false), with an error log;
//   - an invalid metric or label name (Prometheus: [a-zA-Z_:][a-zA-Z0-9_:]* and
//     [a-zA-Z_][a-zA-Z0-9_]*, no "__" prefix, no "le" on histograms): detached, error log;
//   - a histogram asked for with bounds other than its family's: the family's first bounds are used
//     (every series of a family shares its buckets), warning.
#include "service/metrics.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace attest::service {
namespace {

constexpr double kScale = 1e6;
// Clamp before converting to a 64-bit integer so that absurd inputs cannot overflow (UB).
constexpr double kMaxAbs = 9.0e12;

int64_t ToMicros(double v) {
  v = std::clamp(v, -kMaxAbs, kMaxAbs);
  return static_cast<int64_t>(std::llround(v * kScale));
}

// Prometheus-style number: integers without a fraction, otherwise the shortest text that reads back
// to the same double; NaN and infinities in the format's spelling.
std::string FormatNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

void AppendEscapedLabelValue(std::string& out, const std::string& v) {
  for (char c : v) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

std::string EscapeHelp(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

bool ValidMetricName(const std::string& n) {
  if (n.empty()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool ValidLabelName(const std::string& n) {
  if (n.empty() || n.rfind("__", 0) == 0) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? "," : "") + names[i];
  return out + "}";
}

std::vector<double> NormalizeBounds(std::vector<double> b) {
  b.erase(std::remove_if(b.begin(), b.end(), [](double x) { return !std::isfinite(x); }), b.end());
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

}  // namespace

// ---- series -------------------------------------------------------------------------------

// Counters only go up: negative and non-finite increments are ignored.
void Counter::Add(double v) {
  if (!(v > 0) || !std::isfinite(v)) return;
  micros_.fetch_add(static_cast<uint64_t>(ToMicros(v)), std::memory_order_relaxed);
}
double Counter::value() const { return static_cast<double>(micros_.load(std::memory_order_relaxed)) / kScale; }

void Gauge::Set(double v) {
  if (!std::isfinite(v)) return;
  micros_.store(ToMicros(v), std::memory_order_relaxed);
}
void Gauge::Add(double v) {
  if (!std::isfinite(v)) return;
  micros_.fetch_add(ToMicros(v), std::memory_order_relaxed);
}
double Gauge::value() const { return static_cast<double>(micros_.load(std::memory_order_relaxed)) / kScale; }

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(NormalizeBounds(std::move(upper_bounds))),
      buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

// Bucket i counts observations v with bounds[i-1] < v <= bounds[i] (Prometheus "le"); the last
// bucket is +Inf. The sum is kept in two's-complement micro-units so negative observations add
// correctly through the unsigned atomic. NaN and infinities are ignored.
void Histogram::Observe(double v) {
  if (!std::isfinite(v)) return;
  size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_micros_.fetch_add(static_cast<uint64_t>(ToMicros(v)), std::memory_order_relaxed);
}

// `count` is taken from the buckets (not from count_) so that a snapshot read during concurrent
// observations still satisfies _count == the +Inf bucket, as the format requires.
Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.bounds = bounds_;
  s.cumulative.resize(bounds_.size() + 1);
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = total;
  }
  s.count = total;
  s.sum = static_cast<double>(static_cast<int64_t>(sum_micros_.load(std::memory_order_relaxed))) / kScale;
  return s;
}

std::vector<double> LatencyBuckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

// ---- registry -----------------------------------------------------------------------------

using Labels = std::map<std::string, std::string>;

namespace {

// The family's data; Registry::Family (private in the header) just derives from it so that the
// helpers below can use it without naming the private type.
struct FamilyData {
  enum class Type { kCounter, kGauge, kHistogram };
  Type type = Type::kCounter;
  std::string help;
  std::vector<std::string> label_names;  // from the first registration, sorted
  std::vector<double> bounds;            // histograms
  std::map<Labels, std::unique_ptr<Counter>> counters;
  std::map<Labels, std::unique_ptr<Gauge>> gauges;
  std::map<Labels, std::unique_ptr<Histogram>> histograms;
};

using Family = FamilyData;
using Type = FamilyData::Type;

const char* TypeName(Type t) {
  switch (t) {
    case Type::kCounter: return "counter";
    case Type::kGauge: return "gauge";
    case Type::kHistogram: return "histogram";
  }
  return "untyped";
}

std::vector<std::string> NamesOf(const Labels& labels) {
  std::vector<std::string> n;
  for (const auto& [k, v] : labels) n.push_back(k);
  return n;
}

// Why `labels` cannot be used for a series of `name` (empty when they can).
std::string Problem(const std::string& name, Type type, const Labels& labels) {
  if (!ValidMetricName(name)) return "invalid metric name";
  for (const auto& [k, v] : labels) {
    if (!ValidLabelName(k)) return "invalid label name '" + k + "'";
    if (type == Type::kHistogram && k == "le") return "label 'le' is reserved for histogram buckets";
  }
  return {};
}

}  // namespace

struct Registry::Family : FamilyData {};

Registry::Registry() = default;
Registry::~Registry() = default;

// Finds or creates the series; T is Counter, Gauge or Histogram; `make` builds a new one from the
// family's bucket bounds. Detached series (misuse) live in the never-rendered family "" keyed by
// their labels plus __name__ and __type__, so repeated misuse reuses one series and logs once.
template <typename T, typename Map, typename Make>
static T* GetSeries(Map& families, Type type,
                    std::map<Labels, std::unique_ptr<T>> Family::*series, const std::string& name,
                    const std::string& help, const Labels& labels, const std::vector<double>* bounds,
                    Make make) {
  auto it = families.find(name);
  if (it != families.end() && it->second->type == type) {
    auto s = (it->second.get()->*series).find(labels);
    if (s != (it->second.get()->*series).end()) return s->second.get();
  }
  std::string problem = Problem(name, type, labels);
  if (problem.empty() && it != families.end() && it->second->type != type) {
    problem = std::string("already registered as a ") + TypeName(it->second->type) + ", asked for a " +
              TypeName(type);
  }
  if (!problem.empty()) {
    auto& parked = families[std::string()];
    if (!parked) parked = std::make_unique<typename Map::mapped_type::element_type>();
    Labels key = labels;
    key["__name__"] = name;
    key["__type__"] = TypeName(type);
    auto& s = (parked.get()->*series)[key];
    if (!s) {
      spdlog::error("metrics: {} for {}: returning a detached series that is not exported", problem, name);
      s = make(bounds ? NormalizeBounds(*bounds) : std::vector<double>{});
    }
    return s.get();
  }
  if (it == families.end()) {
    auto f = std::make_unique<typename Map::mapped_type::element_type>();
    f->type = type;
    f->help = help;
    f->label_names = NamesOf(labels);
    if (bounds) f->bounds = NormalizeBounds(*bounds);
    it = families.emplace(name, std::move(f)).first;
  } else {
    const Family& f = *it->second;
    if (NamesOf(labels) != f.label_names) {
      spdlog::warn("metrics: {} registered with labels {} but asked for {}; exporting it anyway", name,
                   JoinNames(f.label_names), JoinNames(NamesOf(labels)));
    }
    if (bounds && NormalizeBounds(*bounds) != f.bounds) {
      spdlog::warn("metrics: histogram {} asked for different buckets; using its first ones", name);
    }
  }
  auto& s = (it->second.get()->*series)[labels];
  s = make(it->second->bounds);
  return s.get();
}

Counter* Registry::GetCounter(const std::string& name, const std::string& help, const Labels& labels) {
  MutexLock lock(mu_);
  return GetSeries<Counter>(families_, Type::kCounter, &Family::counters, name, help, labels, nullptr,
                            [](const std::vector<double>&) { return std::make_unique<Counter>(); });
}

Gauge* Registry::GetGauge(const std::string& name, const std::string& help, const Labels& labels) {
  MutexLock lock(mu_);
  return GetSeries<Gauge>(families_, Type::kGauge, &Family::gauges, name, help, labels, nullptr,
                          [](const std::vector<double>&) { return std::make_unique<Gauge>(); });
}

Histogram* Registry::GetHistogram(const std::string& name, const std::string& help,
                                  const Labels& labels, std::vector<double> bounds) {
  MutexLock lock(mu_);
  return GetSeries<Histogram>(
      families_, Type::kHistogram, &Family::histograms, name, help, labels, &bounds, [](const std::vector<double>& b) { return std::make_unique<Histogram>(b); });
}

namespace {

// `{a="x",b="y"` without the closing brace, or "" when there are no labels and no `extra`.
void AppendLabels(std::string& out, const Labels& labels, const std::string& extra_name = {},
                  const std::string& extra_value = {}) {
  if (labels.empty() && extra_name.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out += k;
    out += "=\"";
    AppendEscapedLabelValue(out, v);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!first) out += ',';
    out += extra_name;
    out += "=\"";
    AppendEscapedLabelValue(out, extra_value);
    out += '"';
  }
  out += '}';
}

}  // namespace

std::string Registry::Render() const {
  MutexLock lock(mu_);
  std::string out;
  for (const auto& [name, fp] : families_) {
    if (name.empty()) continue;  // parked detached series
    const Family& f = *fp;
    out += "# HELP " + name + " " + EscapeHelp(f.help) + "\n";
    out += "# TYPE " + name + " " + TypeName(f.type) + "\n";
    switch (f.type) {
      case Type::kCounter:
        for (const auto& [labels, c] : f.counters) {
          out += name;
          AppendLabels(out, labels);
          out += " " + FormatNumber(c->value()) + "\n";
        }
        break;
      case Type::kGauge:
        for (const auto& [labels, g] : f.gauges) {
          out += name;
          AppendLabels(out, labels);
          out += " " + FormatNumber(g->value()) + "\n";
        }
        break;
      case Type::kHistogram:
        for (const auto& [labels, h] : f.histograms) {
          Histogram::Snapshot s = h->Read();
          for (size_t i = 0; i < s.cumulative.size(); ++i) {
            out += name + "_bucket";
            AppendLabels(out, labels, "le",
                         i < s.bounds.size() ? FormatNumber(s.bounds[i]) : std::string("+Inf"));
            out += " " + std::to_string(s.cumulative[i]) + "\n";
          }
          out += name + "_sum";
          AppendLabels(out, labels);
          out += " " + FormatNumber(s.sum) + "\n";
          out += name + "_count";
          AppendLabels(out, labels);
          out += " " + std::to_string(s.count) + "\n";
        }
        break;
    }
  }
  return out;
}

}  // namespace attest::service
