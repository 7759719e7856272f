#include "embed/fasttext_sif_model.h"
namespace attest {
Result<std::unique_ptr<Embedder>> TrainFastTextSifEmbedder(const CorpusTrainingArgs&, const FastTextSifOptions&, TrainedModelInfo*) { return Status::Unsupported("todo"); }
Result<TrainedModelInfo> TrainFastTextSifModel(const CorpusTrainingArgs&, const FastTextSifOptions&) { return Status::Unsupported("todo"); }
Result<std::unique_ptr<Embedder>> LoadFastTextSifModel(const std::filesystem::path&) { return Status::Unsupported("todo"); }
}
