// AddressPolicy: which peers the guarded fetcher (src/crawl/fetcher.h) may connect to.
//
// The policy answers three questions, each refusal with a named reason that callers report and
// count ("address_not_global:loopback", "port_not_allowed", "scheme_not_allowed"):
//
// - Is this IP address global? Every special-purpose range of the IANA IPv4 and IPv6 registries
//   (RFC 6890 and its updates) that is not globally reachable is refused under a range name:
//   IPv4 this_network 0/8, private 10/8 172.16/12 192.168/16, shared_cgnat 100.64/10, loopback
//   127/8, metadata 169.254.169.254 (the cloud instance-metadata address, named apart from the rest
//   of) link_local 169.254/16, ietf_protocol 192.0.0/24, documentation 192.0.2/24 198.51.100/24
//   203.0.113/24, relay_anycast 192.88.99/24, benchmarking 198.18/15, multicast 224/4, broadcast
//   255.255.255.255, reserved 240/4. IPv6 unspecified ::, loopback ::1, discard 100::/64,
//   teredo 2001::/32, benchmarking 2001:2::/48, documentation 2001:db8::/32 and 3fff::/20,
//   ietf_protocol 2001::/23, nat64_local 64:ff9b:1::/48, unique_local fc00::/7, link_local
//   fe80::/10, site_local fec0::/10, multicast ff00::/8, and reserved for everything outside
//   global unicast 2000::/3. IPv6 forms that embed an IPv4 address are judged by the IPv4 rules:
//   IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, IPv4-compatible ::/96 (refused as
//   ipv4_compatible even when the embedded address is global: the form is deprecated, RFC 4291
//   §2.5.5.1), NAT64 64:ff9b::/96 and 6to4 2002::/16.
// - Is this port allowed? 80 and 443 by default.
// - Is this scheme allowed? http and https only (not configurable: the fetcher speaks HTTP).
//
// The allow-list (CIDRs) exempts addresses from the range rules; it matches the address exactly as
// connected to, family included: allowing 127.0.0.1/32 does not allow ::ffff:127.0.0.1.
// Tests allow 127.0.0.1/32 to reach a local server; production configurations leave it empty.
//
// Thread-safety: an AddressPolicy is immutable after construction; all methods are const and may
// be called from any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest {

// An IPv4 or IPv6 address in network byte order (IPv4 uses bytes[0..3]).
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};

  static IpAddress V4(uint32_t host_order);
  static IpAddress V6(const std::array<uint8_t, 16>& b);
  uint32_t v4() const;  // host order; only for !v6
  std::string ToString() const;
  bool operator==(const IpAddress&) const = default;
};

// Parses a numeric address: strict dotted-quad IPv4 ("127.0.0.1") or IPv6 text, with or without
// brackets and with an optional "%zone" suffix (dropped). No other IPv4 spellings: URL hosts are
// normalized by the URL parser before they get here, and resolved addresses are binary.
std::optional<IpAddress> ParseIpAddress(std::string_view text);

struct Cidr {
  IpAddress base;
  int prefix_len = 0;
  bool Contains(const IpAddress& a) const;
};

// "10.0.0.0/8", "::1/128", or a bare address (a /32 or /128).
Result<Cidr> ParseCidr(std::string_view text);

struct AddressPolicyOptions {
  std::vector<Cidr> allow;                      // exempt from the range rules
  std::vector<uint16_t> allowed_ports = {80, 443};
};

// Why an address is not global: the range's name, or empty when the address is global.
std::string_view NonGlobalRange(const IpAddress& address);

class AddressPolicy {
 public:
  explicit AddressPolicy(AddressPolicyOptions options = {});

  // Empty when the peer may be connected to, else the refusal reason
  // ("address_not_global:<range>" or "port_not_allowed").
  std::string CheckPeer(const IpAddress& address, uint16_t port) const;
  // Empty or "address_not_global:<range>".
  std::string CheckAddress(const IpAddress& address) const;
  bool PortAllowed(int port) const;
  static bool SchemeAllowed(std::string_view scheme);  // http or https, any case

  const AddressPolicyOptions& options() const { return options_; }

 private:
  AddressPolicyOptions options_;
};

}  // namespace attest
