#include "evidence/evidence.h"

namespace attest {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kSupported: return "supported";
    case Verdict::kPartial: return "partial";
    case Verdict::kUnsupported: return "unsupported";
    case Verdict::kQuoteNotFound: return "quote_not_found";
    case Verdict::kUnknownSource: return "unknown_source";
    case Verdict::kOffTopic: return "off_topic";
  }
  return "unsupported";
}

}  // namespace attest
