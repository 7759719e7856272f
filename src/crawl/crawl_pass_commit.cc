// CrawlPass: a fetched page's content (HandleOk) and the batch commit (Flush): engine first, then
// the frontier (docs/crawling.md, "The crawl loop", crash order).
#include <algorithm>

#include "crawl/crawl_pass.h"
#include "crawl/url.h"

namespace attest {

using std::chrono::milliseconds;

namespace {

// Whether a page other than `url` holds `doc_id` as a live document.
bool SharedDocument(const std::map<std::string, PageRecord>& pages, const std::string& url,
                    const std::string& doc_id) {
  for (const auto& [u, p] : pages) {
    if (u != url && p.state == PageState::kDone && p.doc_id == doc_id) return true;
  }
  return false;
}

std::string ReasonWordOf(std::string_view message) {
  return std::string(message.substr(0, message.find(':')));
}

}  // namespace

// A scan of the pages: asked only when the document may be deleted.
bool CrawlPass::SoleOwner(const std::string& url, const std::string& doc_id) {
  return !doc_id.empty() && !SharedDocument(pages_, url, doc_id);
}

void CrawlPass::HandleOk(const std::string& url, const FetchResponse& response, PageRecord record, int64_t now_ms) {
  const PageRecord before = record;
  // The URL the content came from: the final one after redirects, in canonical form.
  std::string final_url = url;
  if (!response.redirects.empty()) {
    UrlParse parsed = ParseUrl(response.final_url);
    if (parsed.ok()) final_url = CanonicalUrl(*parsed.url);
  }
  PendingPage pp;
  pp.before = before;
  record.last_status = response.status;
  record.fetched_at_ms = now_ms;
  record.attempts = 0;
  record.redirected_to.clear();
  if (final_url != url) {
    record.redirected_to = final_url;
    UrlParse parsed = ParseUrl(final_url);
    MutexLock lock(mu_);
    ++report_.redirects;
    if (!parsed.ok() || !scope_->Check(*parsed.url, final_url).empty()) {
      record.state = PageState::kExcluded;
      record.error = "redirect_out_of_scope";
      record.next_visit_ms = now_ms + std::chrono::duration_cast<milliseconds>(options_.revisit.max).count();
      pp.after = record;
      pages_[url] = record;
      batch_.push_back(std::move(pp));
      return;
    }
  }
  Result<PreparedPage> prepared = PreparePage(response, final_url, analyzer_);
  if (!prepared.ok()) {
    const std::string reason = ReasonWordOf(prepared.status().message());
    if (reason == "unsupported_content_type") {
      record.state = PageState::kExcluded;
      record.error = prepared.status().message();
      record.next_visit_ms = now_ms + std::chrono::duration_cast<milliseconds>(options_.revisit.max).count();
      pp.after = record;
      Submit(std::move(pp));
      return;
    }
    // The label of an unsupported charset is kept on the page (printable, capped), not in the counter.
    Fail(std::move(record), reason, now_ms, reason == "unsupported_charset" ? prepared.status().message() : "");
    return;
  }
  std::string doc_id = final_url;
  record.canonical = prepared->canonical;
  if (!prepared->canonical.empty()) doc_id = prepared->canonical;
  const std::string fallback_version =
      options_.documents.version.empty() ? prepared->page_version : options_.documents.version;
  AliasRecord alias = ResolveVersionAlias(url, record.redirected_to, prepared->canonical, fallback_version);
  record.alias_word = alias.word;
  record.alias_version = alias.version;
  record.etag = std::string(response.etag());
  record.last_modified = std::string(response.last_modified());
  record.error.clear();
  const bool changed = prepared->sha256 != before.sha256;
  const auto interval = NextRevisitInterval(std::chrono::seconds{before.revisit_interval_s},
                                            changed && !before.sha256.empty(), options_.revisit);
  record.revisit_interval_s = interval.count();
  record.next_visit_ms = now_ms + interval.count() * 1000;
  record.simhash = prepared->simhash;

  MutexLock lock(mu_);
  for (const std::string& link : prepared->links) Discover(link, record.depth + 1, url, &pp.discovered);

  if (prepared->noindex) {
    ++report_.noindex;
    if (SoleOwner(url, before.doc_id)) pp.delete_doc = before.doc_id;
    record.state = PageState::kExcluded;
    record.error = "noindex";
    record.doc_id.clear();
    record.sha256 = prepared->sha256;
    pp.after = record;
    lock.Unlock();
    Submit(std::move(pp));
    return;
  }
  // Near duplicates: an indexed page under another document within the guaranteed distance.
  std::string duplicate_of;
  for (const NearDuplicateMatch& m : near_dups_.Find(prepared->simhash)) {
    const std::string& other = fingerprint_urls_[m.id];
    if (other == url || other == final_url) continue;
    auto it = pages_.find(other);
    if (it == pages_.end() || it->second.state != PageState::kDone || it->second.doc_id.empty() ||
        it->second.doc_id == doc_id || it->second.simhash != m.fingerprint) {
      continue;
    }
    duplicate_of = other;
    break;
  }
  if (prepared->simhash != 0 && !duplicate_of.empty()) {
    ++report_.duplicates;
    if (before.doc_id != pages_[duplicate_of].doc_id && SoleOwner(url, before.doc_id)) pp.delete_doc = before.doc_id;
    record.state = PageState::kDuplicate;
    record.duplicate_of = duplicate_of;
    record.doc_id.clear();
    record.sha256 = prepared->sha256;
    pp.after = record;
    lock.Unlock();
    Submit(std::move(pp));
    return;
  }
  record.duplicate_of.clear();
  if (prepared->simhash != 0 && (before.simhash != prepared->simhash || before.state != PageState::kDone)) {
    near_dups_.Add(fingerprint_urls_.size(), prepared->simhash);
    fingerprint_urls_.push_back(url);
  }
  record.state = PageState::kDone;
  // The same body under the same document (also after a failed attempt, which keeps the
  // document): nothing to index.
  if (!changed && !before.doc_id.empty() && before.doc_id == doc_id &&
      (before.state == PageState::kDone || before.state == PageState::kFailed)) {
    ++report_.unchanged;
    record.doc_id = doc_id;
    pp.after = record;
    lock.Unlock();
    Submit(std::move(pp));
    return;
  }
  const bool delete_previous = !before.doc_id.empty() && before.doc_id != doc_id && SoleOwner(url, before.doc_id);
  lock.Unlock();
  // Write-ahead intent: the same body fetched again after a crash keeps this fetch time, so the
  // document is byte-identical and the engine reports it unchanged.
  int64_t content_fetched_at = now_ms;
  if (before.pending_sha256 == prepared->sha256 && before.pending_fetched_at_ms != 0) {
    content_fetched_at = before.pending_fetched_at_ms;
  }
  pp.before.pending_sha256 = prepared->sha256;
  pp.before.pending_fetched_at_ms = content_fetched_at;
  pp.doc = MakeDocumentSpec(*prepared, doc_id, options_.documents, response.last_modified(), content_fetched_at);
  if (delete_previous) pp.delete_doc = before.doc_id;
  record.doc_id = doc_id;
  record.sha256 = prepared->sha256;
  record.pending_sha256.clear();
  record.pending_fetched_at_ms = 0;
  pp.after = record;
  if (final_url != url) {
    // The redirect's target holds the same content: recorded as fetched in this pass.
    lock.Lock();
    PageRecord target;
    auto it = pages_.find(final_url);
    if (it != pages_.end()) {
      target = it->second;
    } else {
      target.depth = record.depth;
      target.discovered_from = url;
    }
    lock.Unlock();
    const std::string target_url = final_url;
    const int depth = target.depth;
    const std::string from = target.discovered_from;
    target = record;
    target.url = target_url;
    target.depth = depth;
    target.discovered_from = from;
    target.redirected_to.clear();
    pp.also.push_back(target);
  }
  Submit(std::move(pp));
}

Status CrawlPass::Flush(std::vector<PendingPage> batch) {
  if (batch.empty()) return Status::Ok();
  // 1. Write-ahead intents of the bodies about to be indexed.
  FrontierWrite intents;
  std::vector<DocumentSpec> docs;
  std::vector<size_t> doc_page;  // docs[i] belongs to batch[doc_page[i]]
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].doc) continue;
    intents.pages.push_back(batch[i].before);
    docs.push_back(*batch[i].doc);
    doc_page.push_back(i);
  }
  ATTEST_RETURN_IF_ERROR(frontier_.Apply(intents));
  // 2. The engine commit (one PutDocuments; a refused document is retried alone and named).
  uint64_t indexed = 0, unchanged = 0, deleted = 0;
  std::map<std::string, uint64_t> failures;
  if (!docs.empty()) {
    Result<PutDocumentsReport> put = engine_.PutDocuments(docs);
    if (put.ok()) {
      indexed += put->added + put->replaced;
      unchanged += put->unchanged;
    } else if (put.status().code() == StatusCode::kInvalidArgument) {
      for (size_t i = 0; i < docs.size(); ++i) {
        Result<PutDocumentsReport> one = engine_.PutDocuments({docs[i]});
        if (one.ok()) {
          indexed += one->added + one->replaced;
          unchanged += one->unchanged;
          continue;
        }
        if (one.status().code() != StatusCode::kInvalidArgument) return one.status();
        PageRecord& after = batch[doc_page[i]].after;
        after.state = PageState::kFailed;
        after.error = "index_error: " + one.status().message();
        after.doc_id.clear();
        after.sha256.clear();
        ++failures["index_error"];
      }
    } else {
      return put.status();
    }
  }
  // 3. Deletions (404/410, noindex, a page that became a duplicate).
  for (const PendingPage& p : batch) {
    if (p.delete_doc.empty()) continue;
    Result<uint64_t> d = engine_.Delete(options_.documents.tenant, p.delete_doc);
    if (d.ok()) {
      ++deleted;
    } else if (d.status().code() != StatusCode::kNotFound) {
      return d.status();
    }
  }
  // 4. The frontier, in one transaction: the pages' new state, the links they named, the hosts.
  FrontierWrite done;
  for (PendingPage& p : batch) {
    done.pages.push_back(p.after);
    for (PageRecord& a : p.also) done.pages.push_back(std::move(a));
    for (PageRecord& d : p.discovered) done.discovered.push_back(std::move(d));
  }
  {
    MutexLock lock(mu_);
    for (const std::string& origin : dirty_hosts_) done.hosts.push_back(hosts_[origin]);
    dirty_hosts_.clear();
  }
  ATTEST_RETURN_IF_ERROR(frontier_.Apply(done));
  MutexLock lock(mu_);
  report_.indexed += indexed;
  report_.unchanged += unchanged;
  report_.deleted += deleted;
  for (const auto& [reason, n] : failures) {
    report_.errors += n;
    report_.errors_by_reason[reason] += n;
  }
  for (const PendingPage& p : batch) {
    if (p.after.state == PageState::kFailed && p.after.error.starts_with("index_error")) pages_[p.after.url] = p.after;
  }
  return Status::Ok();
}

}  // namespace attest
