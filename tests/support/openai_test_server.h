// OpenAiTestServer: a local HTTP server speaking the OpenAI wire protocol, for tests of the
// remote-model clients (embeddings now; chat completions and rerank can be added as routes).
//
// - Listens on 127.0.0.1 on an ephemeral port (port(), base_url()), serves from a background
//   thread, and stops in the destructor (pending fault delays are cut short).
// - POST /v1/embeddings answers deterministic embeddings: feature hashing of the lowercased words
//   of each input into `dim` buckets, L2-normalized (HashEmbedding()), so texts that share words
//   are similar. It validates the request like OpenAI does (model, input, encoding_format) and
//   answers 400 with an OpenAI error body otherwise; with `required_api_key` set it answers 401
//   unless "Authorization: Bearer <key>" matches.
// - Faults: PushFault() queues a behaviour for the next request(s) on any route: a status and
//   body, a delay, a Retry-After header, malformed JSON; for embeddings also a wrong dimension,
//   missing items, a duplicate index or a non-finite number.
// - Every request is recorded (method, path, headers, body, parsed JSON) for assertions.
// - More routes: AddRoute("POST", "/v1/chat/completions", handler) at any time. The handler gets
//   the request, the fault popped for it (already applied when it was a generic one: status, body,
//   delay, malformed JSON) and the response to fill; recording and faults are handled centrally.
//
// Thread-safety: all public methods may be called from any thread while the server runs.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace attest::testing_support {

struct OpenAiFault {
  int status = 200;            // != 200: answer this status with `body` (default: an OpenAI error body)
  std::string body{};          // non-empty with status 200: answer this body verbatim
  int delay_ms = 0;            // wait before answering
  std::string retry_after{};   // non-empty: "Retry-After" header value
  bool malformed_json = false; // answer 200 with truncated JSON
  // Embeddings only:
  uint32_t wrong_dim = 0;      // > 0: return vectors of this dimension
  uint32_t missing_items = 0;  // drop this many items from the end of "data"
  bool duplicate_index = false;  // the last item repeats the first item's index
  bool non_finite = false;     // the first component of the first row is 1e39 (overflows float)
  bool is_generic() const { return status != 200 || !body.empty() || malformed_json; }
};

struct RecordedRequest {
  std::string method;
  std::string path;
  std::multimap<std::string, std::string> headers;  // names lowercased
  std::string body;
  nlohmann::json json;  // parsed body; null when the body is not JSON
  std::string header(const std::string& lower_name) const;  // "" when absent
};

struct OpenAiTestServerOptions {
  uint32_t dim = 32;
  std::string required_api_key{};  // non-empty: 401 unless "Authorization: Bearer <key>"
  bool shuffle_response = false; // return "data" items in a scrambled (deterministic) order
};

class OpenAiTestServer {
 public:
  using RouteHandler =
      std::function<void(const httplib::Request& req, const OpenAiFault& fault, httplib::Response& res)>;

  explicit OpenAiTestServer(OpenAiTestServerOptions options = {});
  ~OpenAiTestServer();
  OpenAiTestServer(const OpenAiTestServer&) = delete;
  OpenAiTestServer& operator=(const OpenAiTestServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Registers (or replaces) the handler of `method` + exact `path`.
  void AddRoute(const std::string& method, const std::string& path, RouteHandler handler);
  // The next `times` requests get `fault`.
  void PushFault(const OpenAiFault& fault, int times = 1);
  void set_shuffle_response(bool on);

  std::vector<RecordedRequest> requests() const;
  size_t request_count() const;
  void ClearRequests();

  // The server's embedding of `text` (before any fault): word feature hashing, L2-normalized.
  static std::vector<float> HashEmbedding(std::string_view text, uint32_t dim);
  // Writes an OpenAI-style error {"error": {"message", "type", "code"}} with `status`.
  static void SetError(httplib::Response& res, int status, const std::string& message,
                       const std::string& type = "invalid_request_error");

 private:
  void Dispatch(const httplib::Request& req, httplib::Response& res);
  void HandleEmbeddings(const httplib::Request& req, const OpenAiFault& fault, httplib::Response& res);
  // Sleeps up to `ms`, returning early when the server is stopping.
  void Delay(int ms);

  const OpenAiTestServerOptions options_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;                                  // guarded by mu_
  bool shuffle_ = false;                                   // guarded by mu_
  std::deque<OpenAiFault> faults_;                         // guarded by mu_
  std::vector<RecordedRequest> requests_;                  // guarded by mu_
  std::map<std::string, RouteHandler> routes_;             // "METHOD path"; guarded by mu_
};

}  // namespace attest::testing_support
