// Prometheus metrics of the server: counters, gauges and histograms with fixed label names,
// rendered in the Prometheus text exposition format (version 0.0.4) for GET /metrics.
//
// Thread-safety: every method is safe from any thread; updates are lock-free after a series'
// first use (series are created under a mutex and then cached by the caller or looked up).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/thread_annotations.h"

namespace attest::service {

class Counter {
 public:
  void Add(double v = 1);
  double value() const;
 private:
  std::atomic<uint64_t> micros_{0};  // value x 1e6, so fractional adds stay exact enough
};

class Gauge {
 public:
  void Set(double v);
  void Add(double v);
  double value() const;
 private:
  std::atomic<int64_t> micros_{0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);  // sorted, +Inf implied
  void Observe(double v);
  struct Snapshot { std::vector<double> bounds; std::vector<uint64_t> cumulative; uint64_t count; double sum; };
  Snapshot Read() const;
 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_micros_{0};
};

// Default latency buckets in seconds: 0.5 ms .. 10 s.
std::vector<double> LatencyBuckets();

class Registry {
 public:
  Registry();   // out of line (both): Family is defined in metrics.cc
  ~Registry();
  // Returns the series of `name` with these label values (created on first use; label names are
  // fixed per metric at first registration, and `help` is stored once). Pointers stay valid for
  // the registry's lifetime. Never null, never throws; misuse is logged once per series:
  // other label names than the first registration -> created and exported anyway (warning);
  // a name already used by another type, or an invalid metric/label name -> a working series that
  // is not exported (error); other histogram bounds -> the family's first bounds (warning).
  Counter* GetCounter(const std::string& name, const std::string& help,
                      const std::map<std::string, std::string>& labels = {});
  Gauge* GetGauge(const std::string& name, const std::string& help,
                  const std::map<std::string, std::string>& labels = {});
  Histogram* GetHistogram(const std::string& name, const std::string& help,
                          const std::map<std::string, std::string>& labels = {},
                          std::vector<double> bounds = LatencyBuckets());
  // The exposition text: "# HELP", "# TYPE", then each series, label values escaped.
  std::string Render() const;
 private:
  struct Family;
  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<Family>> families_ GUARDED_BY(mu_);
};

}  // namespace attest::service
