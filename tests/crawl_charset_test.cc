// Character sets of fetched pages: the HTML standard's order (BOM, Content-Type charset, <meta>
// prescan of 1024 bytes), the WHATWG label table (latin1 = windows-1252), refusals of unknown
// labels and of text with too many invalid bytes, U+FFFD for a few.
#include "crawl/charset.h"

#include <gtest/gtest.h>

#include <string>

namespace attest {
namespace {

DecodedText Decode(std::string_view body, std::string_view content_type, bool html = true) {
  Result<DecodedText> r = DecodeToUtf8(body, content_type, html);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : DecodedText{};
}

std::string ErrorOf(std::string_view body, std::string_view content_type, bool html = true) {
  Result<DecodedText> r = DecodeToUtf8(body, content_type, html);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.status().message();
}

TEST(Charset, WhatwgLabels) {
  EXPECT_EQ(EncodingForLabel("latin1"), "windows-1252");
  EXPECT_EQ(EncodingForLabel(" ISO-8859-1\t"), "windows-1252");
  EXPECT_EQ(EncodingForLabel("US-ASCII"), "windows-1252");
  EXPECT_EQ(EncodingForLabel("utf8"), "UTF-8");
  EXPECT_EQ(EncodingForLabel("sjis"), "Shift_JIS");
  EXPECT_EQ(EncodingForLabel("gb2312"), "GBK");
  EXPECT_EQ(EncodingForLabel("iso-8859-9"), "windows-1254");
  EXPECT_EQ(EncodingForLabel("klingon"), "");
  EXPECT_EQ(EncodingForLabel(""), "");
}

TEST(Charset, ContentTypeParameter) {
  EXPECT_EQ(ContentTypeCharset("text/html; charset=ISO-8859-1"), "ISO-8859-1");
  EXPECT_EQ(ContentTypeCharset("text/html;foo=bar; Charset=\"Shift_JIS\""), "Shift_JIS");
  EXPECT_EQ(ContentTypeCharset("text/html"), std::nullopt);
  EXPECT_EQ(ContentTypeCharset("text/html; charset="), std::nullopt);
}

TEST(Charset, Latin1PageWithAccent) {
  DecodedText d = Decode("<p>caf\xE9 cr\xE8me</p>", "text/html; charset=iso-8859-1");
  EXPECT_EQ(d.text, "<p>caf\xC3\xA9 cr\xC3\xA8me</p>");
  EXPECT_EQ(d.encoding, "windows-1252");
  EXPECT_EQ(d.source, CharsetSource::kHeader);
  EXPECT_EQ(d.replaced, 0u);
}

TEST(Charset, Windows1252CurlyQuotesUnderALatin1Label) {
  // 0x93 / 0x94 are C1 controls in ISO-8859-1 but curly quotes in windows-1252, which the label means.
  DecodedText d = Decode("\x93quoted\x94 \x80 5", "text/plain; charset=latin1", false);
  EXPECT_EQ(d.text, "\xE2\x80\x9Cquoted\xE2\x80\x9D \xE2\x82\xAC 5");
}

TEST(Charset, ShiftJis) {
  // 日本語 and a backslash (0x5C is U+005C in the WHATWG Shift_JIS decoder), half-width katakana ｱ.
  DecodedText d = Decode("\x93\xFA\x96\x7B\x8C\xEA C:\\ \xB1", "text/html; charset=Shift_JIS");
  EXPECT_EQ(d.text, "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E C:\\ \xEF\xBD\xB1");
  EXPECT_EQ(d.encoding, "Shift_JIS");
}

TEST(Charset, BomOverridesAWrongHeader) {
  DecodedText d = Decode("\xEF\xBB\xBF" "caf\xC3\xA9", "text/html; charset=iso-8859-1");
  EXPECT_EQ(d.text, "caf\xC3\xA9");  // not "cafÃ©"
  EXPECT_EQ(d.source, CharsetSource::kBom);
  DecodedText le = Decode(std::string("\xFF\xFE" "c\0a\0f\0\xE9\0", 10), "text/html; charset=utf-8");
  EXPECT_EQ(le.text, "caf\xC3\xA9");
  EXPECT_EQ(le.encoding, "UTF-16LE");
}

TEST(Charset, MetaCharsetWhenTheHeaderHasNone) {
  DecodedText d = Decode("<!doctype html><html><head><meta charset=\"ISO-8859-1\"></head><p>caf\xE9</p>", "text/html");
  EXPECT_EQ(d.source, CharsetSource::kMeta);
  EXPECT_EQ(d.encoding, "windows-1252");
  EXPECT_NE(d.text.find("caf\xC3\xA9"), std::string::npos);

  DecodedText pragma = Decode(
      "<head><title a='>'>x</title><meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\">"
      "\xC1\xC2</head>",
      "text/html");
  EXPECT_EQ(pragma.encoding, "KOI8-R");
  EXPECT_NE(pragma.text.find("\xD0\xB0\xD0\xB1"), std::string::npos);  // аб
}

TEST(Charset, PrescanRules) {
  // content= without http-equiv=content-type does not count; a comment is skipped; only 1024 bytes.
  EXPECT_EQ(PrescanMetaCharset("<meta content=\"text/html; charset=koi8-r\">"), std::nullopt);
  EXPECT_EQ(PrescanMetaCharset("<!-- <meta charset=koi8-r> --><meta charset=utf-8>"), "utf-8");
  EXPECT_EQ(PrescanMetaCharset(std::string(1020, ' ') + "<meta charset=koi8-r>"), std::nullopt);
  EXPECT_EQ(PrescanMetaCharset("<META CHARSET='Shift_JIS'/>"), "Shift_JIS");
  EXPECT_EQ(PrescanMetaCharset("<meta charset=utf-16le>"), "utf-8");  // UTF-16 in a meta means UTF-8
  EXPECT_EQ(PrescanMetaCharset("<script a=\"<meta charset=koi8-r>\"></script>"), std::nullopt);
}

TEST(Charset, HeaderBeatsMeta) {
  DecodedText d = Decode("<meta charset=koi8-r>caf\xE9", "text/html; charset=windows-1252");
  EXPECT_EQ(d.source, CharsetSource::kHeader);
  EXPECT_NE(d.text.find("caf\xC3\xA9"), std::string::npos);
}

TEST(Charset, NothingDeclared) {
  DecodedText utf8 = Decode("caf\xC3\xA9", "text/html");
  EXPECT_EQ(utf8.encoding, "UTF-8");
  EXPECT_EQ(utf8.text, "caf\xC3\xA9");
  DecodedText legacy = Decode("caf\xE9", "text/plain", false);
  EXPECT_EQ(legacy.encoding, "windows-1252");
  EXPECT_EQ(legacy.source, CharsetSource::kDefault);
  EXPECT_EQ(legacy.text, "caf\xC3\xA9");
  // No prescan for text/plain.
  EXPECT_EQ(Decode("<meta charset=koi8-r>\xC1", "text/plain", false).encoding, "windows-1252");
}

TEST(Charset, UnknownLabelsAreRefused) {
  EXPECT_EQ(ErrorOf("caf\xE9", "text/html; charset=klingon"), "unsupported_charset:klingon");
  EXPECT_EQ(ErrorOf("<meta charset=\"X-Klingon\">", "text/html"), "unsupported_charset:x-klingon");
  // Known to the WHATWG table but not decodable here.
  EXPECT_EQ(ErrorOf("abc", "text/html; charset=iso-2022-kr"), "unsupported_charset:iso-2022-kr");
  // An untrusted label is printed safely and capped.
  const std::string err = ErrorOf("abc", "text/html; charset=\"a\x01" + std::string(100, 'b') + "\"");
  EXPECT_EQ(err, "unsupported_charset:a?" + std::string(38, 'b'));
}

TEST(Charset, AFewInvalidBytesBecomeReplacementCharacters) {
  const std::string text = std::string(200, 'a') + "\xFF" + std::string(200, 'b');
  DecodedText d = Decode(text, "text/html; charset=utf-8");
  EXPECT_EQ(d.replaced, 1u);
  EXPECT_EQ(d.text, std::string(200, 'a') + "\xEF\xBF\xBD" + std::string(200, 'b'));
  // Shift_JIS: a lone lead byte at the end.
  DecodedText sj = Decode(std::string(200, 'a') + "\x93", "text/html; charset=sjis");
  EXPECT_EQ(sj.replaced, 1u);
}

TEST(Charset, ManyInvalidBytesAreRefused) {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "ab\xFF";
  EXPECT_EQ(ErrorOf(text, "text/html; charset=utf-8").rfind("invalid_utf8: at byte 2, 50 of 150", 0), 0u);
  std::string sj;
  for (int i = 0; i < 50; ++i) sj += "ab\x85\x40";  // 0x85 0x40 is unassigned in Shift_JIS
  EXPECT_EQ(ErrorOf(sj, "text/html; charset=shift_jis").rfind("invalid_charset_bytes: ", 0), 0u);
}

}  // namespace
}  // namespace attest
