#include "embed/embedder.h"

#include <cmath>

#include "common/checksum.h"

namespace attest {

std::string EmbedderIdentity::Key() const {
  std::string material = name;
  material.push_back('\0');
  material += std::to_string(dim);
  material.push_back('\0');
  material += version;
  return Sha256Hex(material).substr(0, 16);
}

void NormalizeL2(std::span<float> v) {
  double sum = 0;
  for (float x : v) sum += double(x) * x;
  if (sum <= 0) return;
  const float inv = float(1.0 / std::sqrt(sum));
  for (float& x : v) x *= inv;
}

}  // namespace attest
