#include "server/shard_routes.h"

#include <charconv>

#include "server/routes.h"

namespace attest::server {
namespace {

service::ApiError ApiErrorOf(const Status& s) {
  using service::ApiErrorCode;
  switch (s.code()) {
    case StatusCode::kInvalidArgument: return {ApiErrorCode::kInvalidRequest, s.message(), "", 0};
    case StatusCode::kNotFound: return {ApiErrorCode::kNotFound, s.message(), "", 0};
    case StatusCode::kDeadlineExceeded: return {ApiErrorCode::kDeadlineExceeded, s.message(), "", 0};
    case StatusCode::kBusy:
    case StatusCode::kUnavailable: return {ApiErrorCode::kUnavailable, s.message(), "", 0};
    default: return {ApiErrorCode::kInternal, s.message(), "", 0};
  }
}

// Parses X-Attest-Deadline-Ms; absent = no deadline.
bool TimeLeft(const http::Request& req) {
  const std::string v = req.Header("x-attest-deadline-ms");
  if (v.empty()) return true;
  int64_t ms = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), ms);
  return ec == std::errc() && p == v.data() + v.size() && ms > 0;
}

http::Handler Route(const ShardRouteContext* ctx, Result<std::string> (ShardService::*work)(std::string_view) const) {
  return [ctx, work](std::shared_ptr<http::Exchange> ex) {
    const http::Request& req = ex->request();
    const std::string request_id = req.Header("x-request-id");
    if (!ctx->shard->Authorized(req.Header("authorization"))) {
      ex->Respond(ErrorResponse({service::ApiErrorCode::kUnauthorized, "the service credential is missing or wrong", "", 0},
                                request_id, ctx->version_header));
      return;
    }
    if (!TimeLeft(req)) {
      ex->Respond(ErrorResponse({service::ApiErrorCode::kDeadlineExceeded, "the caller's deadline has passed", "", 0},
                                request_id, ctx->version_header));
      return;
    }
    Result<std::string> body = (ctx->shard->*work)(req.body);
    if (!body.ok()) {
      ex->Respond(ErrorResponse(ApiErrorOf(body.status()), request_id, ctx->version_header));
      return;
    }
    http::Response resp;
    resp.body = std::move(body).value();
    resp.headers = {{"X-Request-Id", request_id}, {"X-Attest-Version", ctx->version_header}};
    ex->Respond(std::move(resp));
  };
}

}  // namespace

http::Router BuildShardRoutes(const ShardRouteContext* ctx) {
  http::Router router;
  router.Add("POST", "/internal/v1/statistics", http::Pool::kInteractive, Route(ctx, &ShardService::Statistics));
  router.Add("POST", "/internal/v1/search", http::Pool::kInteractive, Route(ctx, &ShardService::Search));
  router.Add("POST", "/internal/v1/document", http::Pool::kInteractive, Route(ctx, &ShardService::Document));
  router.Add("POST", "/internal/v1/documents", http::Pool::kInteractive, Route(ctx, &ShardService::Documents));
  router.Add("POST", "/internal/v1/term_statistics", http::Pool::kInteractive,
             Route(ctx, &ShardService::TermStatistics));
  router.Add("POST", "/internal/v1/chunks", http::Pool::kInteractive, Route(ctx, &ShardService::Chunks));
  router.Add("POST", "/internal/v1/citations", http::Pool::kInteractive, Route(ctx, &ShardService::Citations));
  router.Add("POST", "/internal/v1/sources", http::Pool::kInteractive, Route(ctx, &ShardService::Sources));
  // On a worker, not the I/O thread: whatever the health figures cost never holds up the other
  // connections that thread serves.
  router.Add("GET", "/internal/v1/health", http::Pool::kInteractive, [ctx](std::shared_ptr<http::Exchange> ex) {
    if (!ctx->shard->Authorized(ex->request().Header("authorization"))) {
      ex->Respond(ErrorResponse({service::ApiErrorCode::kUnauthorized, "the service credential is missing or wrong", "", 0},
                                ex->request().Header("x-request-id"), ctx->version_header));
      return;
    }
    http::Response resp;
    resp.body = ctx->health_json ? ctx->health_json() : "{}";
    ex->Respond(std::move(resp));
  });
  return router;
}

}  // namespace attest::server
