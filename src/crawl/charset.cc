#include "crawl/charset.h"

#include <unicode/ucnv.h>
#include <unicode/ucnv_cb.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <memory>

#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

constexpr size_t kPrescanBytes = 1024;  // HTML standard §13.2.3.2 ("the first 1024 bytes")
constexpr size_t kMaxReplacedPerHundred = 1;
constexpr size_t kMaxLabelInError = 40;

struct LabelEntry {
  std::string_view label;
  std::string_view encoding;
};

// The WHATWG Encoding Standard's label table (https://encoding.spec.whatwg.org/#names-and-labels),
// all labels of the encodings a crawled page may use.
constexpr LabelEntry kLabels[] = {
    {"unicode-1-1-utf-8", "UTF-8"}, {"unicode11utf8", "UTF-8"}, {"unicode20utf8", "UTF-8"},
    {"utf-8", "UTF-8"}, {"utf8", "UTF-8"}, {"x-unicode20utf8", "UTF-8"},
    {"866", "IBM866"}, {"cp866", "IBM866"}, {"csibm866", "IBM866"}, {"ibm866", "IBM866"},
    {"csisolatin2", "ISO-8859-2"}, {"iso-8859-2", "ISO-8859-2"}, {"iso-ir-101", "ISO-8859-2"},
    {"iso8859-2", "ISO-8859-2"}, {"iso88592", "ISO-8859-2"}, {"iso_8859-2", "ISO-8859-2"},
    {"iso_8859-2:1987", "ISO-8859-2"}, {"l2", "ISO-8859-2"}, {"latin2", "ISO-8859-2"},
    {"csisolatin3", "ISO-8859-3"}, {"iso-8859-3", "ISO-8859-3"}, {"iso-ir-109", "ISO-8859-3"},
    {"iso8859-3", "ISO-8859-3"}, {"iso88593", "ISO-8859-3"}, {"iso_8859-3", "ISO-8859-3"},
    {"iso_8859-3:1988", "ISO-8859-3"}, {"l3", "ISO-8859-3"}, {"latin3", "ISO-8859-3"},
    {"csisolatin4", "ISO-8859-4"}, {"iso-8859-4", "ISO-8859-4"}, {"iso-ir-110", "ISO-8859-4"},
    {"iso8859-4", "ISO-8859-4"}, {"iso88594", "ISO-8859-4"}, {"iso_8859-4", "ISO-8859-4"},
    {"iso_8859-4:1988", "ISO-8859-4"}, {"l4", "ISO-8859-4"}, {"latin4", "ISO-8859-4"},
    {"csisolatincyrillic", "ISO-8859-5"}, {"cyrillic", "ISO-8859-5"}, {"iso-8859-5", "ISO-8859-5"},
    {"iso-ir-144", "ISO-8859-5"}, {"iso8859-5", "ISO-8859-5"}, {"iso88595", "ISO-8859-5"},
    {"iso_8859-5", "ISO-8859-5"}, {"iso_8859-5:1988", "ISO-8859-5"},
    {"arabic", "ISO-8859-6"}, {"asmo-708", "ISO-8859-6"}, {"csiso88596e", "ISO-8859-6"},
    {"csiso88596i", "ISO-8859-6"}, {"csisolatinarabic", "ISO-8859-6"}, {"ecma-114", "ISO-8859-6"},
    {"iso-8859-6", "ISO-8859-6"}, {"iso-8859-6-e", "ISO-8859-6"}, {"iso-8859-6-i", "ISO-8859-6"},
    {"iso-ir-127", "ISO-8859-6"}, {"iso8859-6", "ISO-8859-6"}, {"iso88596", "ISO-8859-6"},
    {"iso_8859-6", "ISO-8859-6"}, {"iso_8859-6:1987", "ISO-8859-6"},
    {"csisolatingreek", "ISO-8859-7"}, {"ecma-118", "ISO-8859-7"}, {"elot_928", "ISO-8859-7"},
    {"greek", "ISO-8859-7"}, {"greek8", "ISO-8859-7"}, {"iso-8859-7", "ISO-8859-7"},
    {"iso-ir-126", "ISO-8859-7"}, {"iso8859-7", "ISO-8859-7"}, {"iso88597", "ISO-8859-7"},
    {"iso_8859-7", "ISO-8859-7"}, {"iso_8859-7:1987", "ISO-8859-7"}, {"sun_eu_greek", "ISO-8859-7"},
    {"csiso88598e", "ISO-8859-8"}, {"csisolatinhebrew", "ISO-8859-8"}, {"hebrew", "ISO-8859-8"},
    {"iso-8859-8", "ISO-8859-8"}, {"iso-8859-8-e", "ISO-8859-8"}, {"iso-ir-138", "ISO-8859-8"},
    {"iso8859-8", "ISO-8859-8"}, {"iso88598", "ISO-8859-8"}, {"iso_8859-8", "ISO-8859-8"},
    {"iso_8859-8:1988", "ISO-8859-8"}, {"visual", "ISO-8859-8"},
    {"csiso88598i", "ISO-8859-8-I"}, {"iso-8859-8-i", "ISO-8859-8-I"}, {"logical", "ISO-8859-8-I"},
    {"csisolatin6", "ISO-8859-10"}, {"iso-8859-10", "ISO-8859-10"}, {"iso-ir-157", "ISO-8859-10"},
    {"iso8859-10", "ISO-8859-10"}, {"iso885910", "ISO-8859-10"}, {"l6", "ISO-8859-10"},
    {"latin6", "ISO-8859-10"},
    {"iso-8859-13", "ISO-8859-13"}, {"iso8859-13", "ISO-8859-13"}, {"iso885913", "ISO-8859-13"},
    {"iso-8859-14", "ISO-8859-14"}, {"iso8859-14", "ISO-8859-14"}, {"iso885914", "ISO-8859-14"},
    {"csisolatin9", "ISO-8859-15"}, {"iso-8859-15", "ISO-8859-15"}, {"iso8859-15", "ISO-8859-15"},
    {"iso885915", "ISO-8859-15"}, {"iso_8859-15", "ISO-8859-15"}, {"l9", "ISO-8859-15"},
    {"iso-8859-16", "ISO-8859-16"},
    {"cskoi8r", "KOI8-R"}, {"koi", "KOI8-R"}, {"koi8", "KOI8-R"}, {"koi8-r", "KOI8-R"}, {"koi8_r", "KOI8-R"},
    {"koi8-ru", "KOI8-U"}, {"koi8-u", "KOI8-U"},
    {"csmacintosh", "macintosh"}, {"mac", "macintosh"}, {"macintosh", "macintosh"}, {"x-mac-roman", "macintosh"},
    {"dos-874", "windows-874"}, {"iso-8859-11", "windows-874"}, {"iso8859-11", "windows-874"},
    {"iso885911", "windows-874"}, {"tis-620", "windows-874"}, {"windows-874", "windows-874"},
    {"cp1250", "windows-1250"}, {"windows-1250", "windows-1250"}, {"x-cp1250", "windows-1250"},
    {"cp1251", "windows-1251"}, {"windows-1251", "windows-1251"}, {"x-cp1251", "windows-1251"},
    {"ansi_x3.4-1968", "windows-1252"}, {"ascii", "windows-1252"}, {"cp1252", "windows-1252"},
    {"cp819", "windows-1252"}, {"csisolatin1", "windows-1252"}, {"ibm819", "windows-1252"},
    {"iso-8859-1", "windows-1252"}, {"iso-ir-100", "windows-1252"}, {"iso8859-1", "windows-1252"},
    {"iso88591", "windows-1252"}, {"iso_8859-1", "windows-1252"}, {"iso_8859-1:1987", "windows-1252"},
    {"l1", "windows-1252"}, {"latin1", "windows-1252"}, {"us-ascii", "windows-1252"},
    {"windows-1252", "windows-1252"}, {"x-cp1252", "windows-1252"},
    {"cp1253", "windows-1253"}, {"windows-1253", "windows-1253"}, {"x-cp1253", "windows-1253"},
    {"cp1254", "windows-1254"}, {"csisolatin5", "windows-1254"}, {"iso-8859-9", "windows-1254"},
    {"iso-ir-148", "windows-1254"}, {"iso8859-9", "windows-1254"}, {"iso88599", "windows-1254"},
    {"iso_8859-9", "windows-1254"}, {"iso_8859-9:1989", "windows-1254"}, {"l5", "windows-1254"},
    {"latin5", "windows-1254"}, {"windows-1254", "windows-1254"}, {"x-cp1254", "windows-1254"},
    {"cp1255", "windows-1255"}, {"windows-1255", "windows-1255"}, {"x-cp1255", "windows-1255"},
    {"cp1256", "windows-1256"}, {"windows-1256", "windows-1256"}, {"x-cp1256", "windows-1256"},
    {"cp1257", "windows-1257"}, {"windows-1257", "windows-1257"}, {"x-cp1257", "windows-1257"},
    {"cp1258", "windows-1258"}, {"windows-1258", "windows-1258"}, {"x-cp1258", "windows-1258"},
    {"x-mac-cyrillic", "x-mac-cyrillic"}, {"x-mac-ukrainian", "x-mac-cyrillic"},
    {"chinese", "GBK"}, {"csgb2312", "GBK"}, {"csiso58gb231280", "GBK"}, {"gb2312", "GBK"},
    {"gb_2312", "GBK"}, {"gb_2312-80", "GBK"}, {"gbk", "GBK"}, {"iso-ir-58", "GBK"}, {"x-gbk", "GBK"},
    {"gb18030", "gb18030"},
    {"big5", "Big5"}, {"big5-hkscs", "Big5"}, {"cn-big5", "Big5"}, {"csbig5", "Big5"}, {"x-x-big5", "Big5"},
    {"cseucpkdfmtjapanese", "EUC-JP"}, {"euc-jp", "EUC-JP"}, {"x-euc-jp", "EUC-JP"},
    {"csiso2022jp", "ISO-2022-JP"}, {"iso-2022-jp", "ISO-2022-JP"},
    {"csshiftjis", "Shift_JIS"}, {"ms932", "Shift_JIS"}, {"ms_kanji", "Shift_JIS"}, {"shift-jis", "Shift_JIS"},
    {"shift_jis", "Shift_JIS"}, {"sjis", "Shift_JIS"}, {"windows-31j", "Shift_JIS"}, {"x-sjis", "Shift_JIS"},
    {"cseuckr", "EUC-KR"}, {"csksc56011987", "EUC-KR"}, {"euc-kr", "EUC-KR"}, {"iso-ir-149", "EUC-KR"},
    {"korean", "EUC-KR"}, {"ks_c_5601-1987", "EUC-KR"}, {"ks_c_5601-1989", "EUC-KR"}, {"ksc5601", "EUC-KR"},
    {"ksc_5601", "EUC-KR"}, {"windows-949", "EUC-KR"},
    {"csiso2022kr", "replacement"}, {"hz-gb-2312", "replacement"}, {"iso-2022-cn", "replacement"},
    {"iso-2022-cn-ext", "replacement"}, {"iso-2022-kr", "replacement"}, {"replacement", "replacement"},
    {"unicodefffe", "UTF-16BE"}, {"utf-16be", "UTF-16BE"},
    {"csunicode", "UTF-16LE"}, {"iso-10646-ucs-2", "UTF-16LE"}, {"ucs-2", "UTF-16LE"}, {"unicode", "UTF-16LE"},
    {"unicodefeff", "UTF-16LE"}, {"utf-16", "UTF-16LE"}, {"utf-16le", "UTF-16LE"},
    {"x-user-defined", "x-user-defined"},
};

// The ICU converter for a WHATWG encoding, "" when there is none (ISO-8859-16 is not in Debian's
// ICU data; "replacement" and x-user-defined are not text encodings). The WHATWG decoders of GBK,
// Shift_JIS, Big5 and EUC-KR are those of gb18030, windows-31j, Big5-HKSCS and windows-949.
std::string_view IcuName(std::string_view encoding) {
  if (encoding == "GBK") return "GB18030";
  if (encoding == "Shift_JIS") return "windows-31j";
  if (encoding == "Big5") return "Big5-HKSCS";
  if (encoding == "EUC-KR") return "windows-949";
  if (encoding == "ISO-8859-8-I") return "ISO-8859-8";
  if (encoding == "ISO-8859-16" || encoding == "replacement" || encoding == "x-user-defined") return "";
  return encoding;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A label as it may appear in an error: printable ASCII, capped.
std::string PrintableLabel(std::string_view label) {
  std::string out;
  for (char c : label.substr(0, kMaxLabelInError)) out += (c > 0x20 && c < 0x7f) ? c : '?';
  return out;
}

Status Unsupported(std::string_view label) {
  return Status::InvalidArgument("unsupported_charset:" + PrintableLabel(AsciiLower(Trim(label))));
}

// The standard's "algorithm for extracting a character encoding from a meta element".
std::optional<std::string> CharsetFromMetaContent(std::string_view s) {
  const std::string lower = AsciiLower(s);
  size_t pos = 0;
  while (true) {
    const size_t at = lower.find("charset", pos);
    if (at == std::string::npos) return std::nullopt;
    size_t i = at + 7;
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') {
      pos = at + 7;
      continue;
    }
    ++i;
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '"' || s[i] == '\'') {
      const size_t end = s.find(s[i], i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      return std::string(s.substr(i + 1, end - i - 1));
    }
    size_t end = i;
    while (end < s.size() && !IsSpace(s[end]) && s[end] != ';') ++end;
    return std::string(s.substr(i, end - i));
  }
}

struct Attribute {
  std::string name;
  std::string value;
};

// The standard's "get an attribute" over `s` from `*i`; nullopt at '>' or the end.
std::optional<Attribute> GetAttribute(std::string_view s, size_t* i) {
  size_t p = *i;
  while (p < s.size() && (IsSpace(s[p]) || s[p] == '/')) ++p;
  if (p >= s.size() || s[p] == '>') {
    *i = p;
    return std::nullopt;
  }
  Attribute a;
  while (p < s.size() && s[p] != '=' && s[p] != '>' && s[p] != '/' && !IsSpace(s[p])) {
    a.name += static_cast<char>(std::tolower(static_cast<unsigned char>(s[p])));
    ++p;
  }
  while (p < s.size() && IsSpace(s[p])) ++p;
  if (p < s.size() && s[p] == '=') {
    ++p;
    while (p < s.size() && IsSpace(s[p])) ++p;
    if (p < s.size() && (s[p] == '"' || s[p] == '\'')) {
      const char q = s[p++];
      const size_t end = s.find(q, p);
      const size_t stop = end == std::string_view::npos ? s.size() : end;
      a.value = std::string(s.substr(p, stop - p));
      p = stop == s.size() ? stop : stop + 1;
    } else {
      while (p < s.size() && !IsSpace(s[p]) && s[p] != '>') a.value += s[p++];
    }
  }
  *i = p;
  return a;
}

// The label of one <meta> element's attributes, or nullopt (the prescan's pragma rules).
std::optional<std::string> MetaLabel(std::string_view s, size_t* i) {
  bool got_pragma = false;
  std::optional<bool> need_pragma;
  std::optional<std::string> charset;
  std::vector<std::string> seen;
  while (std::optional<Attribute> a = GetAttribute(s, i)) {
    if (std::find(seen.begin(), seen.end(), a->name) != seen.end()) continue;
    seen.push_back(a->name);
    if (a->name == "http-equiv") {
      if (AsciiLower(a->value) == "content-type") got_pragma = true;
    } else if (a->name == "content") {
      if (!charset) {
        if (std::optional<std::string> c = CharsetFromMetaContent(a->value)) {
          charset = std::move(c);
          need_pragma = true;
        }
      }
    } else if (a->name == "charset") {
      charset = a->value;
      need_pragma = false;
    }
  }
  if (!need_pragma || !charset || (*need_pragma && !got_pragma)) return std::nullopt;
  return charset;
}

// Emits U+FFFD for each invalid or unmapped sequence and counts it.
void CountingSubstitute(const void* context, UConverterToUnicodeArgs* args, const char*, int32_t,
                        UConverterCallbackReason reason, UErrorCode* err) {
  if (reason != UCNV_UNASSIGNED && reason != UCNV_ILLEGAL && reason != UCNV_IRREGULAR) return;
  ++*static_cast<size_t*>(const_cast<void*>(context));
  *err = U_ZERO_ERROR;
  static const UChar kReplacement = 0xFFFD;
  ucnv_cbToUWriteUChars(args, &kReplacement, 1, 0, err);
}

struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};

// `bytes` in ICU converter `icu_name` -> UTF-8; counts replacements in `*replaced`.
Result<std::string> Convert(std::string_view bytes, std::string_view icu_name, std::string_view label,
                            size_t* replaced, size_t* characters) {
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<UConverter, ConverterCloser> conv(ucnv_open(std::string(icu_name).c_str(), &err));
  if (U_FAILURE(err) || !conv) return Unsupported(label);
  ucnv_setToUCallBack(conv.get(), CountingSubstitute, replaced, nullptr, nullptr, &err);
  if (U_FAILURE(err)) return Status::Internal(std::string("charset: ") + u_errorName(err));
  std::u16string utf16;
  utf16.resize(bytes.size() + 16);
  const char* src = bytes.data();
  const char* const src_end = bytes.data() + bytes.size();
  size_t written = 0;
  while (true) {
    UChar* target = reinterpret_cast<UChar*>(utf16.data()) + written;
    UChar* const target_start = target;
    UChar* const target_end = reinterpret_cast<UChar*>(utf16.data()) + utf16.size();
    err = U_ZERO_ERROR;
    ucnv_toUnicode(conv.get(), &target, target_end, &src, src_end, nullptr, true, &err);
    written += static_cast<size_t>(target - target_start);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      utf16.resize(utf16.size() * 2);
      continue;
    }
    if (U_FAILURE(err)) return Status::InvalidArgument(std::string("charset: ") + u_errorName(err));
    break;
  }
  utf16.resize(written);
  *characters = written;
  std::string out;
  out.resize(written * 3 + 4);
  int32_t length = 0;
  err = U_ZERO_ERROR;
  u_strToUTF8WithSub(out.data(), static_cast<int32_t>(out.size()), &length,
                     reinterpret_cast<const UChar*>(utf16.data()), static_cast<int32_t>(utf16.size()), 0xFFFD,
                     nullptr, &err);
  if (U_FAILURE(err)) return Status::Internal(std::string("charset: ") + u_errorName(err));
  out.resize(static_cast<size_t>(length));
  return out;
}

}  // namespace

std::string EncodingForLabel(std::string_view label) {
  const std::string key = AsciiLower(Trim(label, " \t\n\f\r"));
  for (const LabelEntry& e : kLabels) {
    if (e.label == key) return std::string(e.encoding);
  }
  return "";
}

std::optional<std::string> ContentTypeCharset(std::string_view content_type) {
  size_t semi = content_type.find(';');
  while (semi != std::string_view::npos) {
    std::string_view rest = content_type.substr(semi + 1);
    const size_t next = rest.find(';');
    std::string_view param = Trim(rest.substr(0, next), " \t");
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos && AsciiLower(Trim(param.substr(0, eq), " \t")) == "charset") {
      std::string_view value = Trim(param.substr(eq + 1), " \t");
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      if (!value.empty()) return std::string(value);
    }
    semi = next == std::string_view::npos ? next : semi + 1 + next;
  }
  return std::nullopt;
}

std::optional<std::string> PrescanMetaCharset(std::string_view html) {
  const std::string_view s = html.substr(0, kPrescanBytes);
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 4, "<!--") == 0) {
      const size_t end = s.find("-->", i + 2);
      if (end == std::string_view::npos) return std::nullopt;
      i = end + 3;
    } else if (s.size() - i >= 6 && ingest::StartsWithIgnoreCase(s.substr(i), "<meta") &&
               (IsSpace(s[i + 5]) || s[i + 5] == '/')) {
      i += 5;
      if (std::optional<std::string> label = MetaLabel(s, &i)) {
        std::string encoding = EncodingForLabel(*label);
        // The standard: a <meta> saying UTF-16 means UTF-8 (the bytes were ASCII-compatible to be
        // read here); x-user-defined means windows-1252.
        if (encoding == "UTF-16LE" || encoding == "UTF-16BE") return std::string("utf-8");
        if (encoding == "x-user-defined") return std::string("windows-1252");
        return label;
      }
    } else if (s[i] == '<' && i + 1 < s.size() &&
               (IsAlpha(s[i + 1]) || (s[i + 1] == '/' && i + 2 < s.size() && IsAlpha(s[i + 2])))) {
      while (i < s.size() && !IsSpace(s[i]) && s[i] != '>') ++i;
      while (GetAttribute(s, &i)) {
      }
      ++i;
    } else if (s.compare(i, 2, "<!") == 0 || s.compare(i, 2, "</") == 0 || s.compare(i, 2, "<?") == 0) {
      const size_t end = s.find('>', i + 2);
      if (end == std::string_view::npos) return std::nullopt;
      i = end + 1;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

Result<DecodedText> DecodeToUtf8(std::string_view body, std::string_view content_type, bool html) {
  DecodedText out;
  std::string label;
  if (body.substr(0, 3) == "\xEF\xBB\xBF") {
    out.source = CharsetSource::kBom;
    out.encoding = "UTF-8";
    body.remove_prefix(3);
  } else if (body.substr(0, 2) == "\xFE\xFF") {
    out.source = CharsetSource::kBom;
    out.encoding = "UTF-16BE";
    body.remove_prefix(2);
  } else if (body.substr(0, 2) == "\xFF\xFE") {
    out.source = CharsetSource::kBom;
    out.encoding = "UTF-16LE";
    body.remove_prefix(2);
  } else if (std::optional<std::string> header = ContentTypeCharset(content_type)) {
    out.source = CharsetSource::kHeader;
    label = *header;
  } else if (std::optional<std::string> meta = html ? PrescanMetaCharset(body) : std::nullopt) {
    out.source = CharsetSource::kMeta;
    label = *meta;
  } else {
    out.source = CharsetSource::kDefault;
    out.encoding = ingest::FindInvalidUtf8(body) ? "windows-1252" : "UTF-8";
  }
  if (out.encoding.empty()) {
    out.encoding = EncodingForLabel(label);
    if (out.encoding.empty()) return Unsupported(label);
  }
  if (out.encoding == "UTF-8" && !ingest::FindInvalidUtf8(body)) {
    out.text = std::string(body);
    return out;
  }
  const std::string_view icu = IcuName(out.encoding);
  if (icu.empty()) return Unsupported(label.empty() ? out.encoding : label);
  size_t characters = 0;
  ATTEST_ASSIGN_OR_RETURN(out.text, Convert(body, icu, label.empty() ? out.encoding : label, &out.replaced, &characters));
  const size_t allowed = std::max<size_t>(1, characters * kMaxReplacedPerHundred / 100);
  if (out.replaced > allowed) {
    const std::string detail = std::to_string(out.replaced) + " of " + std::to_string(characters) +
                               " characters are invalid in " + out.encoding;
    if (out.encoding == "UTF-8") {
      const size_t at = ingest::FindInvalidUtf8(body).value_or(0);
      return Status::InvalidArgument("invalid_utf8: at byte " + std::to_string(at) + ", " + detail);
    }
    return Status::InvalidArgument("invalid_charset_bytes: " + detail);
  }
  return out;
}

}  // namespace attest
