// CookieJar: a virtual user's cookies (RFC 6265), in memory fixed when the user is made:
// kMaxCookies slots of kCookieBytes each (name, value, domain and path together). Set-Cookie
// with Path, Domain, Max-Age, Expires and Secure is stored, replaced or deleted; the Cookie
// line of a request carries the cookies whose domain, path and Secure match it and that have
// not expired. Times are the worker's clock (nanoseconds); Expires is read against the wall
// clock once, when the cookie arrives.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace uringload::core {

class CookieJar {
 public:
  static constexpr size_t kMaxCookies = 8;
  static constexpr size_t kCookieBytes = 256;
  // The longest Cookie line: "Cookie: " and every cookie's "name=value; ", then CRLF.
  static constexpr size_t kMaxLineBytes = 8 + kMaxCookies * (kCookieBytes + 2) + 2;

  enum class SetResult {
    kStored,   // Stored, or replaced one of the same name, domain and path.
    kDeleted,  // Expired on arrival: the one of the same name, domain and path is gone.
    kIgnored,  // Not a cookie (no name=value), or for another domain: RFC 6265 ignores it.
    kRefused,  // It did not fit: longer than kCookieBytes, or every slot is taken.
  };

  // `set_cookie`: a Set-Cookie header's value, from a response to `host` and `path` (the
  // request's, its query ignored), over TLS or not, at `now_ns`.
  SetResult Set(std::string_view set_cookie, std::string_view host, std::string_view path,
                bool secure, int64_t now_ns);
  // "Cookie: a=1; b=2\r\n" for a request to `host` and `path`, written at the start of `out`
  // (kMaxLineBytes suffice); empty when no cookie goes with it.
  std::string_view RenderLine(std::string_view host, std::string_view path, bool secure,
                              int64_t now_ns, std::span<char> out) const;
  // The value of the live cookie `name` that a request to `host` and `path` would carry.
  std::optional<std::string_view> Get(std::string_view name, std::string_view host,
                                      std::string_view path, bool secure, int64_t now_ns) const;
  void Clear();
  size_t size() const;  // Cookies stored (expired ones included until replaced).

 private:
  struct Cookie {
    bool used = false;
    bool host_only = true;  // No Domain attribute: only the host that set it.
    bool secure = false;
    uint8_t name_size = 0;
    uint8_t value_size = 0;
    uint8_t domain_size = 0;
    uint8_t path_size = 0;
    int64_t expires_ns = INT64_MAX;          // INT64_MAX: until the run ends.
    std::array<char, kCookieBytes> bytes{};  // Name, value, domain, path, back to back.

    std::string_view name() const { return {bytes.data(), name_size}; }
    std::string_view value() const { return {bytes.data() + name_size, value_size}; }
    std::string_view domain() const { return {bytes.data() + name_size + value_size, domain_size}; }
    std::string_view path() const {
      return {bytes.data() + name_size + value_size + domain_size, path_size};
    }
  };

  // Whether `c` goes with a request to `host` and `path`.
  static bool Matches(const Cookie& c, std::string_view host, std::string_view path, bool secure,
                      int64_t now_ns);

  std::array<Cookie, kMaxCookies> cookies_{};
};

}  // namespace uringload::core
