#include "crawl/address_policy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace attest {
namespace {

struct V4Range {
  uint32_t base;
  int len;
  std::string_view name;
};

constexpr uint32_t Ip4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return (a << 24) | (b << 16) | (c << 8) | d; }

// First match wins: the more specific names come before the ranges that contain them.
// Sources: IANA IPv4 Special-Purpose Address Registry (RFC 6890, 8190), RFC 1918, RFC 6598,
// RFC 3927, RFC 5737, RFC 2544, RFC 5771, RFC 1112 §4, RFC 919.
constexpr V4Range kV4Ranges[] = {
    {Ip4(255, 255, 255, 255), 32, "broadcast"},
    {Ip4(169, 254, 169, 254), 32, "metadata"},
    {Ip4(0, 0, 0, 0), 8, "this_network"},
    {Ip4(10, 0, 0, 0), 8, "private"},
    {Ip4(100, 64, 0, 0), 10, "shared_cgnat"},
    {Ip4(127, 0, 0, 0), 8, "loopback"},
    {Ip4(169, 254, 0, 0), 16, "link_local"},
    {Ip4(172, 16, 0, 0), 12, "private"},
    {Ip4(192, 0, 0, 0), 24, "ietf_protocol"},
    {Ip4(192, 0, 2, 0), 24, "documentation"},
    {Ip4(192, 88, 99, 0), 24, "relay_anycast"},
    {Ip4(192, 168, 0, 0), 16, "private"},
    {Ip4(198, 18, 0, 0), 15, "benchmarking"},
    {Ip4(198, 51, 100, 0), 24, "documentation"},
    {Ip4(203, 0, 113, 0), 24, "documentation"},
    {Ip4(224, 0, 0, 0), 4, "multicast"},
    {Ip4(240, 0, 0, 0), 4, "reserved"},
};

bool V4In(uint32_t a, uint32_t base, int len) {
  if (len == 0) return true;
  const uint32_t mask = len >= 32 ? 0xffffffffu : ~((uint32_t{1} << (32 - len)) - 1);
  return (a & mask) == (base & mask);
}

std::string_view V4NonGlobal(uint32_t a) {
  for (const V4Range& r : kV4Ranges) {
    if (V4In(a, r.base, r.len)) return r.name;
  }
  return {};
}

using V6 = std::array<uint8_t, 16>;

bool PrefixMatch(const V6& a, const V6& base, int len) {
  for (int bit = 0; bit < len; ++bit) {
    const int byte = bit / 8;
    const uint8_t m = static_cast<uint8_t>(0x80 >> (bit % 8));
    if ((a[byte] & m) != (base[byte] & m)) return false;
  }
  return true;
}

V6 V6Of(std::initializer_list<uint16_t> groups) {
  V6 b{};
  int i = 0;
  for (uint16_t g : groups) {
    b[2 * i] = static_cast<uint8_t>(g >> 8);
    b[2 * i + 1] = static_cast<uint8_t>(g & 0xff);
    ++i;
  }
  return b;
}

uint32_t V4At(const V6& a, int offset) {
  return (uint32_t{a[offset]} << 24) | (uint32_t{a[offset + 1]} << 16) | (uint32_t{a[offset + 2]} << 8) |
         uint32_t{a[offset + 3]};
}

// Sources: IANA IPv6 Special-Purpose Address Registry (RFC 6890 and updates), RFC 4291 (::, ::1,
// ::/96, ::ffff:0:0/96, fe80::/10, fec0::/10, ff00::/8), RFC 2765 (::ffff:0:0:0/96), RFC 6052 and
// 8215 (64:ff9b::/96, 64:ff9b:1::/48), RFC 6666 (100::/64), RFC 4380 (Teredo), RFC 5180
// (2001:2::/48), RFC 3849 and 9637 (documentation), RFC 3056 (6to4), RFC 4193 (fc00::/7).
std::string_view V6NonGlobal(const V6& a) {
  static const V6 kZero{};
  if (a == kZero) return "unspecified";
  if (a == V6Of({0, 0, 0, 0, 0, 0, 0, 1})) return "loopback";
  if (PrefixMatch(a, V6Of({0, 0, 0, 0, 0, 0xffff}), 96)) return V4NonGlobal(V4At(a, 12));       // mapped
  if (PrefixMatch(a, V6Of({0, 0, 0, 0, 0xffff, 0}), 96)) return V4NonGlobal(V4At(a, 12));       // translated
  if (PrefixMatch(a, kZero, 96)) {                                                              // compatible
    const std::string_view v4 = V4NonGlobal(V4At(a, 12));
    return v4.empty() ? std::string_view("ipv4_compatible") : v4;
  }
  if (PrefixMatch(a, V6Of({0x64, 0xff9b}), 96)) return V4NonGlobal(V4At(a, 12));                // NAT64
  if (PrefixMatch(a, V6Of({0x64, 0xff9b, 1}), 48)) return "nat64_local";
  if (PrefixMatch(a, V6Of({0x100}), 64)) return "discard";
  if (!PrefixMatch(a, V6Of({0x2000}), 3)) {
    if (PrefixMatch(a, V6Of({0xfc00}), 7)) return "unique_local";
    if (PrefixMatch(a, V6Of({0xfe80}), 10)) return "link_local";
    if (PrefixMatch(a, V6Of({0xfec0}), 10)) return "site_local";
    if (PrefixMatch(a, V6Of({0xff00}), 8)) return "multicast";
    return "reserved";
  }
  if (PrefixMatch(a, V6Of({0x2001, 0}), 32)) return "teredo";
  if (PrefixMatch(a, V6Of({0x2001, 2, 0}), 48)) return "benchmarking";
  if (PrefixMatch(a, V6Of({0x2001, 0xdb8}), 32)) return "documentation";
  if (PrefixMatch(a, V6Of({0x3fff}), 20)) return "documentation";
  if (PrefixMatch(a, V6Of({0x2001}), 23)) return "ietf_protocol";
  if (PrefixMatch(a, V6Of({0x2002}), 16)) return V4NonGlobal(V4At(a, 2));  // 6to4 embeds a v4
  return {};
}

bool StrictDottedQuad(std::string_view s, uint32_t* out) {
  uint32_t value = 0;
  int parts = 0;
  size_t i = 0;
  while (parts < 4) {
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    uint32_t part = 0;
    size_t digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      part = part * 10 + static_cast<uint32_t>(s[i] - '0');
      if (++digits > 3 || part > 255) return false;
      ++i;
    }
    value = (value << 8) | part;
    ++parts;
    if (parts < 4) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
  }
  if (i != s.size()) return false;
  *out = value;
  return true;
}

}  // namespace

IpAddress IpAddress::V4(uint32_t host_order) {
  IpAddress a;
  a.bytes[0] = static_cast<uint8_t>(host_order >> 24);
  a.bytes[1] = static_cast<uint8_t>(host_order >> 16);
  a.bytes[2] = static_cast<uint8_t>(host_order >> 8);
  a.bytes[3] = static_cast<uint8_t>(host_order);
  return a;
}

IpAddress IpAddress::V6(const std::array<uint8_t, 16>& b) {
  IpAddress a;
  a.v6 = true;
  a.bytes = b;
  return a;
}

uint32_t IpAddress::v4() const { return V4At(bytes, 0); }

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {0};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<IpAddress> ParseIpAddress(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  if (const size_t zone = text.find('%'); zone != std::string_view::npos) text = text.substr(0, zone);
  if (text.empty() || text.size() > 45) return std::nullopt;
  if (text.find(':') == std::string_view::npos) {
    uint32_t v = 0;
    if (!StrictDottedQuad(text, &v)) return std::nullopt;
    return IpAddress::V4(v);
  }
  const std::string s(text);
  std::array<uint8_t, 16> b{};
  if (inet_pton(AF_INET6, s.c_str(), b.data()) != 1) return std::nullopt;
  return IpAddress::V6(b);
}

bool Cidr::Contains(const IpAddress& a) const {
  if (a.v6 != base.v6) return false;
  if (!a.v6) return V4In(a.v4(), base.v4(), prefix_len);
  return PrefixMatch(a.bytes, base.bytes, prefix_len);
}

Result<Cidr> ParseCidr(std::string_view text) {
  const size_t slash = text.find('/');
  const auto address = ParseIpAddress(text.substr(0, slash));
  if (!address) return Status::InvalidArgument("not an IP address or CIDR: \"" + std::string(text) + "\"");
  Cidr c{*address, address->v6 ? 128 : 32};
  if (slash != std::string_view::npos) {
    const std::string_view len = text.substr(slash + 1);
    int n = 0;
    if (len.empty() || len.size() > 3 || !std::all_of(len.begin(), len.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      return Status::InvalidArgument("bad prefix length in CIDR \"" + std::string(text) + "\"");
    }
    for (char ch : len) n = n * 10 + (ch - '0');
    if (n > c.prefix_len) return Status::InvalidArgument("prefix length too long in CIDR \"" + std::string(text) + "\"");
    c.prefix_len = n;
  }
  return c;
}

std::string_view NonGlobalRange(const IpAddress& address) {
  return address.v6 ? V6NonGlobal(address.bytes) : V4NonGlobal(address.v4());
}

AddressPolicy::AddressPolicy(AddressPolicyOptions options) : options_(std::move(options)) {}

std::string AddressPolicy::CheckAddress(const IpAddress& address) const {
  for (const Cidr& c : options_.allow) {
    if (c.Contains(address)) return {};
  }
  const std::string_view range = NonGlobalRange(address);
  if (range.empty()) return {};
  return "address_not_global:" + std::string(range);
}

std::string AddressPolicy::CheckPeer(const IpAddress& address, uint16_t port) const {
  std::string reason = CheckAddress(address);
  if (!reason.empty()) return reason;
  if (!PortAllowed(port)) return "port_not_allowed";
  return {};
}

bool AddressPolicy::PortAllowed(int port) const {
  return port > 0 && port <= 65535 &&
         std::find(options_.allowed_ports.begin(), options_.allowed_ports.end(), static_cast<uint16_t>(port)) !=
             options_.allowed_ports.end();
}

bool AddressPolicy::SchemeAllowed(std::string_view scheme) {
  auto eq = [&](std::string_view want) {
    return scheme.size() == want.size() &&
           std::equal(scheme.begin(), scheme.end(), want.begin(),
                      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  };
  return eq("http") || eq("https");
}

}  // namespace attest
