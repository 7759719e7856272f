#include "embed/corpus_training.h"

#include <algorithm>
#include <bit>
#include <thread>

#include "common/checksum.h"
#include "text/analyzer.h"

namespace attest {

static_assert(std::endian::native == std::endian::little, "model files are written little-endian");

unsigned ResolveThreads(unsigned threads) {
  if (threads == 0) threads = std::thread::hardware_concurrency();
  return std::max(1u, threads);
}

void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  threads = static_cast<unsigned>(std::min<size_t>(std::max(1u, threads), n));
  if (threads == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads);
  const size_t step = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    size_t b = t * step, e = std::min(n, b + step);
    if (b >= e) break;
    pool.emplace_back([&fn, b, e] { fn(b, e); });
  }
  for (std::thread& th : pool) th.join();
}

Status AnalyzeCorpus(const CorpusStream& corpus, const Analyzer& analyzer, unsigned threads,
                     const std::function<Status(std::vector<std::string>&& terms)>& sink) {
  if (!corpus) return Status::InvalidArgument("no training corpus given");
  constexpr size_t kBatch = 512;
  std::vector<std::string> batch;
  std::vector<std::vector<std::string>> terms;
  auto flush = [&]() -> Status {
    terms.assign(batch.size(), {});
    ParallelFor(batch.size(), threads, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) terms[i] = analyzer.Terms(batch[i]);
    });
    for (auto& t : terms) ATTEST_RETURN_IF_ERROR(sink(std::move(t)));
    batch.clear();
    return Status::Ok();
  };
  ATTEST_RETURN_IF_ERROR(corpus([&](std::string_view text) -> Status {
    batch.emplace_back(text);
    if (batch.size() >= kBatch) return flush();
    return Status::Ok();
  }));
  return flush();
}

std::string ModelWriter::Finish() {
  uint32_t crc = Crc32c(out_);
  U32(crc);
  return std::move(out_);
}

Result<std::string_view> CheckModelEnvelope(std::string_view content, std::string_view magic,
                                            const std::string& file) {
  if (content.size() < magic.size() + 4) {
    return Status::Corruption("model file " + file + " is truncated (" + std::to_string(content.size()) + " bytes)");
  }
  if (content.substr(0, magic.size()) != magic) {
    return Status::Corruption("model file " + file + " does not start with the magic " + std::string(magic));
  }
  uint32_t stored;
  std::memcpy(&stored, content.data() + content.size() - 4, 4);
  uint32_t actual = Crc32c(content.data(), content.size() - 4);
  if (stored != actual) return Status::Corruption("model file " + file + " fails its CRC-32C check");
  return content.substr(magic.size(), content.size() - 4 - magic.size());
}

}  // namespace attest
