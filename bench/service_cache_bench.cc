// Server hot paths: LruCache Get (hit and miss, 1 and 2 threads on one cache) and Registry
// histogram Observe on one shared series (1 and 2 threads: contention on the atomics).
//
//   build/bench/service_cache_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "service/metrics.h"
#include "service/result_cache.h"

namespace attest::service {
namespace {

constexpr int kKeys = 10000;

std::vector<std::string> Keys(const char* prefix) {
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(prefix + std::to_string(i) + "|plan=v3|snapshot=42|scope=tenant-a");
  return keys;
}

LruCache& SharedCache() {
  static LruCache* cache = [] {
    auto* c = new LruCache(64u << 20, std::chrono::minutes(10));
    for (const auto& k : Keys("query:")) c->Put(k, std::string(512, 'r'));  // ~5.5 MB of results
    return c;
  }();
  return *cache;
}

void BM_LruGetHit(benchmark::State& state) {
  LruCache& cache = SharedCache();
  std::vector<std::string> keys = Keys("query:");
  size_t i = state.thread_index() * 7919;
  for (auto _ : state) {
    auto v = cache.Get(keys[i++ % kKeys]);
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LruGetHit)->Threads(1)->Threads(2)->UseRealTime();

void BM_LruGetMiss(benchmark::State& state) {
  LruCache& cache = SharedCache();
  std::vector<std::string> keys = Keys("absent:");
  size_t i = state.thread_index() * 7919;
  for (auto _ : state) {
    auto v = cache.Get(keys[i++ % kKeys]);
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LruGetMiss)->Threads(1)->Threads(2)->UseRealTime();

void BM_HistogramObserve(benchmark::State& state) {
  static Registry registry;
  Histogram* h = registry.GetHistogram("attest_stage_seconds", "Stage latency.", {{"stage", "retrieve"}});
  double v = 0.0001 * (state.thread_index() + 1);
  for (auto _ : state) {
    h->Observe(v);
    v = v < 5 ? v * 1.7 : 0.0001;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramObserve)->Threads(1)->Threads(2)->UseRealTime();

// Lookup + observe, as a handler that does not cache the series pointer would do.
void BM_RegistryLookupObserve(benchmark::State& state) {
  static Registry registry;
  for (auto _ : state) {
    registry.GetHistogram("attest_stage_seconds", "Stage latency.", {{"stage", "retrieve"}})->Observe(0.01);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RegistryLookupObserve)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace attest::service

BENCHMARK_MAIN();
