#include "lexical/segment_writer.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "common/checksum.h"
#include "common/file_util.h"
#include "common/varint.h"
#include "lexical/postings_codec.h"
#include "lexical/segment_format.h"
#include "lexical/term_table.h"

namespace attest {

using namespace segfmt;  // NOLINT(google-build-using-namespace): format constants

namespace {

inline void AppendVarint32(std::string* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline uint32_t ReadVarint32(const uint8_t*& p) {
  uint32_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = *p++;
    v |= uint32_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
}

// One body token of kBodyTokens: term id, zigzag start delta, length.
void AppendBodyToken(uint32_t term, const Token& tok, uint32_t* prev_start, std::string* out) {
  const int64_t delta = int64_t(tok.start) - int64_t(*prev_start);
  AppendVarint32(out, term);
  AppendVarint32(out, static_cast<uint32_t>((delta << 1) ^ (delta >> 63)));
  AppendVarint32(out, tok.end >= tok.start ? tok.end - tok.start : 0);
  *prev_start = tok.start;
}

// Interns attribute strings of one family; ids are provisional (first-seen order) until Finish().
struct ValueDict {
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::string> values;
  uint32_t Intern(const std::string& s) {
    auto [it, inserted] = ids.emplace(s, static_cast<uint32_t>(values.size()));
    if (inserted) values.push_back(s);
    return it->second;
  }
  // Sorted values and the map provisional id -> sorted id.
  void Finish(std::vector<std::string>* sorted, std::vector<uint32_t>* remap) const {
    std::vector<uint32_t> order(values.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return values[a] < values[b]; });
    remap->assign(values.size(), 0);
    sorted->clear();
    for (uint32_t i = 0; i < order.size(); ++i) {
      (*remap)[order[i]] = i;
      sorted->push_back(values[order[i]]);
    }
  }
};

std::string StringTable(const std::vector<std::string>& values) {
  std::string out;
  PutFixed32(&out, static_cast<uint32_t>(values.size()));
  uint32_t off = 0;
  PutFixed32(&out, 0);
  for (const auto& v : values) {
    off += static_cast<uint32_t>(v.size());
    PutFixed32(&out, off);
  }
  for (const auto& v : values) out += v;
  return out;
}

struct TermState {
  std::string stream;    // per doc: varint gap, varint (tf_body << 1 | other), [tf_title, tf_section, tf_term],
                         // varint byte length of the positions, positions (delta varints per field)
  uint32_t last_doc = 0;
  uint32_t df = 0;
};

}  // namespace

struct SegmentWriter::State {
  uint32_t version = kFormatVersion;
  int nf = kMaxFields;  // fields written: FieldsOfVersion(version)
  TermTable terms;
  std::vector<TermState> postings;
  std::vector<uint64_t> chunk_ids;
  std::vector<uint64_t> chunk_docs;
  std::vector<uint32_t> lens;  // kMaxFields per doc
  uint64_t total_len[kMaxFields] = {0, 0, 0, 0};
  ValueDict dicts[5];
  ValueDict labels;
  std::vector<uint32_t> columns;  // 4 per doc (provisional ids)
  std::vector<uint32_t> label_ids;  // per doc (provisional)
  std::vector<int32_t> dates;
  std::vector<uint32_t> acl_offsets{0};
  std::vector<uint32_t> acl_ids;  // provisional
  // Version 4: the body token streams, encoded as in kBodyTokens but with provisional term ids
  // (Serialize() renumbers them in dictionary order).
  std::string body_tokens;
  std::vector<uint64_t> body_token_offsets{0};
  // Per-chunk scratch.
  struct Slot {
    uint32_t term;
    uint32_t tf[kMaxFields];
  };
  std::vector<Slot> slots;
  struct Occ {
    uint32_t slot;
    uint32_t field;
    uint32_t pos;
  };
  std::vector<Occ> occs;
  std::vector<uint32_t> slot_start;
  std::vector<uint64_t> hashes;
  std::string scratch;
  std::vector<uint32_t> sorted_pos;
};

SegmentWriter::SegmentWriter() : state_(std::make_unique<State>()) {}
SegmentWriter::SegmentWriter(uint32_t format_version) : state_(std::make_unique<State>()) {
  state_->version = std::clamp(format_version, kMinFormatVersion, kFormatVersion);
  state_->nf = FieldsOfVersion(state_->version);
}
SegmentWriter::~SegmentWriter() = default;

size_t SegmentWriter::num_chunks() const { return state_->chunk_ids.size(); }

Status SegmentWriter::Add(const IndexedChunk& chunk) {
  State& s = *state_;
  if (!s.chunk_ids.empty() && chunk.id.get() <= s.chunk_ids.back()) {
    return Status::InvalidArgument("segment writer: chunk id " + std::to_string(chunk.id.get()) +
                                   " is not greater than the previous id " +
                                   std::to_string(s.chunk_ids.back()));
  }
  if (s.chunk_ids.size() >= 0xfffffff0u) return Status::ResourceExhausted("segment writer: too many chunks");
  const uint32_t doc = static_cast<uint32_t>(s.chunk_ids.size());
  s.chunk_ids.push_back(chunk.id.get());
  s.chunk_docs.push_back(chunk.doc);
  for (int f = 0; f < kMaxFields; ++f) {
    const uint32_t len = f < s.nf ? chunk.fields[f].length : 0;
    s.lens.push_back(len);
    s.total_len[f] += len;
  }
  // Attributes.
  const ChunkAttributes& a = chunk.attrs;
  s.columns.push_back(s.dicts[0].Intern(a.tenant));
  s.columns.push_back(s.dicts[1].Intern(a.source_type));
  s.columns.push_back(s.dicts[2].Intern(a.site));
  s.columns.push_back(s.dicts[3].Intern(a.version));
  s.dates.push_back(a.date);
  s.label_ids.push_back(s.labels.Intern(a.access_label));
  for (const auto& g : a.acl_groups) s.acl_ids.push_back(s.dicts[4].Intern(g));
  s.acl_offsets.push_back(static_cast<uint32_t>(s.acl_ids.size()));

  // Group the chunk's tokens by term.
  s.slots.clear();
  s.occs.clear();
  const uint32_t stamp = doc + 1;
  s.hashes.clear();
  const uint32_t nf = static_cast<uint32_t>(s.nf);
  for (uint32_t f = 0; f < nf; ++f) {
    for (const Token& tok : chunk.fields[f].tokens) {
      s.hashes.push_back(TermTable::Hash(tok.term));
      s.terms.Prefetch(s.hashes.back());
    }
  }
  size_t token_index = 0;
  uint32_t body_prev_start = 0;
  for (uint32_t f = 0; f < nf; ++f) {
    for (const Token& tok : chunk.fields[f].tokens) {
      TermTable::Payload* m;
      const uint32_t tid = s.terms.Intern(tok.term, s.hashes[token_index++], &m);
      if (m->stamp != stamp) {  // first occurrence in this chunk
        m->stamp = stamp;
        m->local = static_cast<uint32_t>(s.slots.size());
        s.slots.push_back({tid, {0, 0, 0, 0}});
        if (tid < s.postings.size()) __builtin_prefetch(&s.postings[tid]);
      }
      const uint32_t slot = m->local;
      ++s.slots[slot].tf[f];
      s.occs.push_back({slot, f, tok.position});
      if (f == static_cast<uint32_t>(Field::kBody) && s.version >= 4) AppendBodyToken(tid, tok, &body_prev_start, &s.body_tokens);
    }
  }
  if (s.version >= 4) s.body_token_offsets.push_back(s.body_tokens.size());
  if (s.terms.size() > s.postings.size()) s.postings.resize(s.terms.size());
  // Overlap the cache misses on the terms' stream tails.
  for (const auto& sl : s.slots) {
    const std::string& st = s.postings[sl.term].stream;
    __builtin_prefetch(st.data() + st.size());
  }
  // Counting sort of positions by slot (stable: field order, then token order).
  s.slot_start.assign(s.slots.size() + 1, 0);
  for (size_t i = 0; i < s.slots.size(); ++i) {
    const uint32_t* tf = s.slots[i].tf;
    s.slot_start[i + 1] = s.slot_start[i] + tf[0] + tf[1] + tf[2] + tf[3];
  }
  s.sorted_pos.resize(s.occs.size());
  for (const auto& o : s.occs) s.sorted_pos[s.slot_start[o.slot]++] = o.pos;
  uint32_t begin = 0;
  for (size_t i = 0; i < s.slots.size(); ++i) {
    const State::Slot& sl = s.slots[i];
    TermState& ts = s.postings[sl.term];
    const uint32_t gap = ts.df == 0 ? doc : doc - ts.last_doc;
    AppendVarint32(&ts.stream, gap);
    const bool other = sl.tf[0] != 0 || sl.tf[1] != 0 || sl.tf[3] != 0;
    AppendVarint32(&ts.stream, (sl.tf[2] << 1) | (other ? 1u : 0u));
    if (other) {
      AppendVarint32(&ts.stream, sl.tf[0]);
      AppendVarint32(&ts.stream, sl.tf[1]);
      AppendVarint32(&ts.stream, sl.tf[3]);
    }
    uint32_t* p = s.sorted_pos.data() + begin;
    s.scratch.clear();
    for (int f = 0; f < s.nf; ++f) {
      const uint32_t n = sl.tf[f];
      if (!std::is_sorted(p, p + n)) std::sort(p, p + n);
      uint32_t prev = 0;
      for (uint32_t j = 0; j < n; ++j) {
        AppendVarint32(&s.scratch, p[j] - prev);
        prev = p[j];
      }
      p += n;
    }
    AppendVarint32(&ts.stream, static_cast<uint32_t>(s.scratch.size()));
    ts.stream.append(s.scratch);
    begin = s.slot_start[i];
    ts.last_doc = doc;
    ++ts.df;
  }
  return Status::Ok();
}

namespace {

// Term ids in byte order of their terms; sorts on an 8-byte big-endian prefix first so that
// most comparisons touch no term bytes.
std::vector<uint32_t> SortedTermOrder(const TermTable& terms) {
  struct Key {
    uint64_t prefix;
    uint32_t id;
  };
  std::vector<Key> keys(terms.size());
  for (uint32_t id = 0; id < keys.size(); ++id) {
    const std::string_view k = terms.key(id);
    uint64_t p = 0;
    for (size_t i = 0; i < 8; ++i) p = (p << 8) | (i < k.size() ? static_cast<uint8_t>(k[i]) : 0);
    keys[id] = {p, id};
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return terms.key(a.id) < terms.key(b.id);
  });
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].id;
  return order;
}

void AlignTo8(std::string* out) {
  while (out->size() % 8 != 0) out->push_back('\0');
}

}  // namespace

std::string SegmentWriter::Serialize() const {
  const State& s = *state_;
  const uint32_t n = static_cast<uint32_t>(s.chunk_ids.size());
  std::string sec[kNumSections];

  // Attribute dictionaries (sorted) and remapped columns.
  std::vector<std::string> sorted[5];
  std::vector<uint32_t> remap[5];
  for (int fam = 0; fam < 5; ++fam) {
    s.dicts[fam].Finish(&sorted[fam], &remap[fam]);
    sec[kTenantDict + fam] = StringTable(sorted[fam]);
  }
  std::vector<std::vector<uint32_t>> lists;
  uint32_t base[6] = {0, 0, 0, 0, 0, 0};
  for (int fam = 0; fam < 5; ++fam) base[fam + 1] = base[fam] + static_cast<uint32_t>(sorted[fam].size());
  lists.resize(base[5] + 1);
  sec[kAttrColumns].reserve(size_t(n) * 20);
  sec[kAclOffsets].reserve(size_t(n + 1) * 4);
  PutFixed32(&sec[kAclOffsets], 0);
  std::vector<uint32_t> groups;
  uint32_t acl_count = 0;
  // Visibility classes: (tenant, label, ACL) in sorted order, so that equal inputs give equal files.
  std::vector<std::string> sorted_labels;
  std::vector<uint32_t> label_remap;
  s.labels.Finish(&sorted_labels, &label_remap);
  sec[kLabelDict] = StringTable(sorted_labels);
  using ClassKey = std::tuple<uint32_t, uint32_t, std::vector<uint32_t>>;
  std::map<ClassKey, uint32_t> class_of;  // key -> provisional class id (first-seen order)
  std::vector<uint32_t> doc_class(n);
  for (uint32_t d = 0; d < n; ++d) {
    for (int fam = 0; fam < 4; ++fam) {
      const uint32_t id = remap[fam][s.columns[4 * size_t(d) + fam]];
      PutFixed32(&sec[kAttrColumns], id);
      lists[base[fam] + id].push_back(d);
    }
    PutFixed32(&sec[kAttrColumns], static_cast<uint32_t>(s.dates[d]));
    groups.clear();
    for (uint32_t i = s.acl_offsets[d]; i < s.acl_offsets[d + 1]; ++i) groups.push_back(remap[4][s.acl_ids[i]]);
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    for (uint32_t g : groups) {
      PutFixed32(&sec[kAclIds], g);
      lists[base[4] + g].push_back(d);
    }
    if (groups.empty()) lists[base[5]].push_back(d);
    acl_count += static_cast<uint32_t>(groups.size());
    PutFixed32(&sec[kAclOffsets], acl_count);
    ClassKey key{remap[0][s.columns[4 * size_t(d)]], label_remap[s.label_ids[d]], groups};
    auto [it, inserted] = class_of.emplace(std::move(key), static_cast<uint32_t>(class_of.size()));
    doc_class[d] = it->second;
  }
  // Number the classes in key order and write the class table.
  std::vector<uint32_t> class_remap(class_of.size());
  {
    uint32_t next = 0, acl_off = 0;
    std::vector<ClassEntry> entries;
    for (const auto& [key, provisional] : class_of) {
      class_remap[provisional] = next++;
      ClassEntry e{};
      e.tenant = std::get<0>(key);
      e.label = std::get<1>(key);
      e.acl_offset = acl_off;
      e.acl_count = static_cast<uint32_t>(std::get<2>(key).size());
      for (uint32_t g : std::get<2>(key)) PutFixed32(&sec[kClassAclIds], g);
      acl_off += e.acl_count;
      entries.push_back(e);
    }
    for (uint32_t d = 0; d < n; ++d) {
      doc_class[d] = class_remap[doc_class[d]];
      ClassEntry& e = entries[doc_class[d]];
      ++e.num_docs;
      for (int f = 0; f < kMaxFields; ++f) e.total_len[f] += s.lens[kMaxFields * size_t(d) + f];
      PutFixed32(&sec[kDocClass], doc_class[d]);
    }
    for (const ClassEntry& e : entries) {
      PutFixed32(&sec[kClasses], e.tenant);
      PutFixed32(&sec[kClasses], e.label);
      PutFixed32(&sec[kClasses], e.acl_offset);
      PutFixed32(&sec[kClasses], e.acl_count);
      PutFixed32(&sec[kClasses], e.num_docs);
      PutFixed32(&sec[kClasses], 0);
      for (int f = 0; f < s.nf; ++f) PutFixed64(&sec[kClasses], e.total_len[f]);
    }
  }
  const uint32_t num_classes = static_cast<uint32_t>(class_of.size());
  // Per-term document frequencies by class, only when there is more than one class (with one, the
  // dictionary's df is that class's).
  const bool per_class_df = num_classes > 1;
  std::vector<uint32_t> class_count(per_class_df ? num_classes : 0, 0);
  std::vector<uint32_t> touched;
  // A tenant/source_type/site/version family with a single value holds it for every doc: its list is
  // stored empty (readers know "all docs" from the dictionary size), saving 4 bytes per doc each.
  for (int fam = 0; fam < 4; ++fam) {
    if (base[fam + 1] - base[fam] == 1) {
      lists[base[fam]].clear();
      lists[base[fam]].shrink_to_fit();
    }
  }
  uint32_t vtotal = 0;
  PutFixed32(&sec[kValueListOffsets], 0);
  for (const auto& l : lists) {
    for (uint32_t d : l) PutFixed32(&sec[kValueListDocs], d);
    vtotal += static_cast<uint32_t>(l.size());
    PutFixed32(&sec[kValueListOffsets], vtotal);
  }

  // Per-doc data.
  sec[kChunkIds].reserve(size_t(n) * 8);
  for (uint64_t id : s.chunk_ids) PutFixed64(&sec[kChunkIds], id);
  if (s.version >= 4) {
    sec[kChunkDocs].reserve(size_t(n) * 8);
    for (uint64_t doc : s.chunk_docs) PutFixed64(&sec[kChunkDocs], doc);
  }
  sec[kFieldLens].reserve(size_t(n) * 4 * s.nf);
  for (uint32_t d = 0; d < n; ++d) {
    for (int f = 0; f < s.nf; ++f) PutFixed32(&sec[kFieldLens], s.lens[kMaxFields * size_t(d) + f]);
  }

  // Terms in sorted order.
  const uint32_t num_terms = static_cast<uint32_t>(s.terms.size());
  std::vector<uint32_t> order = SortedTermOrder(s.terms);
  if (s.version >= 4) {
    // The token streams with term ids renumbered in dictionary order.
    std::vector<uint32_t> rank(order.size());
    for (uint32_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
    std::string& tokens = sec[kBodyTokens];
    tokens.reserve(s.body_tokens.size() + s.body_tokens.size() / 8);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(s.body_tokens.data());
    PutFixed64(&sec[kBodyTokenOffsets], 0);
    for (uint32_t d = 0; d < n; ++d) {
      const uint8_t* end = reinterpret_cast<const uint8_t*>(s.body_tokens.data()) + s.body_token_offsets[d + 1];
      while (p < end) {
        AppendVarint32(&tokens, rank[ReadVarint32(p)]);
        AppendVarint32(&tokens, ReadVarint32(p));
        AppendVarint32(&tokens, ReadVarint32(p));
      }
      PutFixed64(&sec[kBodyTokenOffsets], tokens.size());
    }
  }
  size_t stream_bytes = 0;
  for (const TermState& ts : s.postings) stream_bytes += ts.stream.size();
  sec[kPositions].reserve(stream_bytes);

  uint32_t num_skips = 0;
  uint32_t docs[kBlockSize], tf0[kBlockSize], tf1[kBlockSize], tf2[kBlockSize], tf3[kBlockSize];
  const uint32_t* tfs[kMaxFields] = {tf0, tf1, tf2, tf3};
  // The postings section, the largest, is encoded in place in the output image (the sections
  // may appear in any order in the file: the footer locates them).
  std::string out;
  out.reserve(stream_bytes + stream_bytes / 2 + size_t(n) * 64 + 4096);
  out.append(kMagic, 8);
  PutFixed32(&out, s.version);
  PutFixed32(&out, 0);  // flags
  uint64_t offs[kNumSections], lens[kNumSections];
  offs[kPostings] = out.size();
  std::string& post = out;
  const size_t post_start = out.size();
  std::string& pos = sec[kPositions];
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t tid = order[k];
    if (k + 2 < order.size()) {  // terms are visited in byte order: hide the random accesses
      const TermState& next = s.postings[order[k + 2]];
      __builtin_prefetch(next.stream.data());
      __builtin_prefetch(s.terms.key(order[k + 2]).data());
    }
    const TermState& ts = s.postings[tid];
    const std::string_view term = s.terms.key(tid);
    std::string& dict = sec[kDict];
    PutFixed32(&dict, static_cast<uint32_t>(sec[kTermBlob].size()));
    PutFixed32(&dict, static_cast<uint32_t>(term.size()));
    sec[kTermBlob].append(term);
    PutFixed32(&dict, ts.df);
    PutFixed32(&dict, num_skips);
    PutFixed64(&dict, post.size() - post_start);
    PutFixed64(&dict, pos.size());
    const size_t post_base = post.size(), pos_base = pos.size();
    const uint8_t* p = reinterpret_cast<const uint8_t*>(ts.stream.data());
    uint32_t prev_doc = 0;
    int64_t block_prev = -1;
    for (uint32_t done = 0; done < ts.df;) {
      const uint32_t bn = std::min(kBlockSize, ts.df - done);
      const size_t block_off = post.size() - post_base, pos_off = pos.size() - pos_base;
      uint32_t min_len[kMaxFields] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
      for (uint32_t i = 0; i < bn; ++i) {
        const uint32_t gap = ReadVarint32(p);
        const uint32_t doc = (done + i == 0) ? gap : prev_doc + gap;
        prev_doc = doc;
        docs[i] = doc;
        const uint32_t code = ReadVarint32(p);
        tf2[i] = code >> 1;
        if (code & 1) {
          tf0[i] = ReadVarint32(p);
          tf1[i] = ReadVarint32(p);
          tf3[i] = ReadVarint32(p);
        } else {
          tf0[i] = tf1[i] = tf3[i] = 0;
        }
        // Positions are already delta varints per field: copy their bytes.
        const uint32_t pos_bytes = ReadVarint32(p);
        pos.append(reinterpret_cast<const char*>(p), pos_bytes);
        p += pos_bytes;
      }
      for (uint32_t i = 0; i < bn; ++i) {  // independent loads: the misses overlap
        const uint32_t* l = &s.lens[kMaxFields * size_t(docs[i])];
        for (int f = 0; f < kMaxFields; ++f) min_len[f] = std::min(min_len[f], l[f]);
      }
      if (per_class_df) {
        for (uint32_t i = 0; i < bn; ++i) {
          const uint32_t c = doc_class[docs[i]];
          if (class_count[c]++ == 0) touched.push_back(c);
        }
      }
      codec::EncodeBlock(docs, tfs, s.nf, bn, block_prev, &post);
      block_prev = docs[bn - 1];
      std::string& sk = sec[kSkips];
      PutFixed32(&sk, docs[bn - 1]);
      PutFixed32(&sk, static_cast<uint32_t>(block_off));
      PutFixed32(&sk, static_cast<uint32_t>(pos_off));
      for (int f = 0; f < s.nf; ++f) PutFixed32(&sk, *std::max_element(tfs[f], tfs[f] + bn));
      for (int f = 0; f < s.nf; ++f) PutFixed32(&sk, min_len[f]);
      ++num_skips;
      done += bn;
    }
    if (per_class_df) {
      PutFixed64(&sec[kTermClassOffsets], sec[kTermClassDf].size());
      std::sort(touched.begin(), touched.end());
      uint32_t prev_class = 0;
      for (uint32_t c : touched) {
        AppendVarint32(&sec[kTermClassDf], c - prev_class);
        AppendVarint32(&sec[kTermClassDf], class_count[c]);
        prev_class = c;
        class_count[c] = 0;
      }
      touched.clear();
    }
  }
  if (per_class_df) PutFixed64(&sec[kTermClassOffsets], sec[kTermClassDf].size());
  post.append(codec::kReadPadding, '\0');

  // Meta.
  PutFixed32(&sec[kMeta], n);
  PutFixed32(&sec[kMeta], num_terms);
  PutFixed32(&sec[kMeta], num_skips);
  PutFixed32(&sec[kMeta], 0);
  for (int f = 0; f < s.nf; ++f) PutFixed64(&sec[kMeta], s.total_len[f]);
  PutFixed64(&sec[kMeta], 0);

  lens[kPostings] = out.size() - offs[kPostings];
  // Then the other sections, 8-aligned, the footer and the tail.
  const int num_sections = SectionsOfVersion(s.version);
  for (int i = 0; i < num_sections; ++i) {
    if (i == kPostings) continue;
    AlignTo8(&out);
    offs[i] = out.size();
    lens[i] = sec[i].size();
    out += sec[i];
    std::string().swap(sec[i]);
  }
  AlignTo8(&out);
  const uint64_t footer = out.size();
  PutFixed32(&out, static_cast<uint32_t>(num_sections));
  for (int i = 0; i < num_sections; ++i) {
    PutFixed64(&out, offs[i]);
    PutFixed64(&out, lens[i]);
  }
  PutFixed64(&out, footer);
  PutFixed32(&out, Crc32c(out.data(), out.size()));
  out.append(kMagic, 8);
  return out;
}

Status SegmentWriter::WriteTo(const std::filesystem::path& path) const {
  return WriteFileAtomically(path, Serialize());
}

}  // namespace attest
