// CookieJar: a virtual user's cookies (RFC 6265), in memory fixed when the user is made: up
// to kMaxCookies cookies whose names, values, domains and paths share one pool of
// --max-cookie-bytes. Set-Cookie with Path, Domain, Max-Age, Expires and Secure is stored,
// replaced or deleted; the Cookie line of a request carries the cookies whose domain, path and
// Secure match it and that have not expired. Times are the worker's clock (nanoseconds);
// Expires is read against the wall clock once, when the cookie arrives.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace uringload::core {

inline constexpr int64_t kDefaultMaxCookieBytes = 512;
inline constexpr int64_t kMaxMaxCookieBytes = 65535;

class CookieJar {
 public:
  static constexpr size_t kMaxCookies = 16;
  // The longest Cookie line of a jar of `pool_bytes`: "Cookie: ", every cookie's "name=value"
  // with "; " between them, then CRLF.
  static constexpr size_t LineBound(size_t pool_bytes) {
    return 8 + pool_bytes + 2 * kMaxCookies + 2;
  }

  enum class SetResult {
    kStored,   // Stored, or replaced one of the same name, domain and path.
    kDeleted,  // Expired on arrival: the one of the same name, domain and path is gone.
    kIgnored,  // Not a cookie (no name=value), or for another domain: RFC 6265 ignores it.
    kRefused,  // It did not fit: the pool is full, or every slot is taken.
  };

  explicit CookieJar(size_t pool_bytes = kDefaultMaxCookieBytes) : pool_(pool_bytes) {}

  // `set_cookie`: a Set-Cookie header's value, from a response to `host` and `path` (the
  // request's, its query ignored), over TLS or not, at `now_ns`.
  SetResult Set(std::string_view set_cookie, std::string_view host, std::string_view path,
                bool secure, int64_t now_ns);
  // "Cookie: a=1; b=2\r\n" for a request to `host` and `path`, written at the start of `out`
  // (LineBound(pool) + written.size() + 2 bytes suffice); empty when no cookie goes with it.
  // `written`: a Cookie header the user wrote for the request ("x=1; y=2"), sent first and
  // whole, whatever the jar's bounds; the jar's cookies of the names it holds are left out.
  std::string_view RenderLine(std::string_view host, std::string_view path, bool secure,
                              int64_t now_ns, std::span<char> out,
                              std::string_view written = {}) const;
  // The value of the live cookie `name` that a request to `host` and `path` would carry.
  std::optional<std::string_view> Get(std::string_view name, std::string_view host,
                                      std::string_view path, bool secure, int64_t now_ns) const;
  void Clear();
  size_t size() const;  // Cookies stored (expired ones included until their slot is taken).
  size_t memory_bytes() const { return sizeof(*this) + pool_.capacity(); }

 private:
  // 16 bytes: names, domains and paths are at most 255 bytes.
  struct Cookie {
    int64_t expires_ns = INT64_MAX;  // INT64_MAX: until the run ends.
    uint16_t offset = 0;             // In pool_: name, value, domain, path, back to back.
    uint16_t value_size = 0;
    uint8_t name_size = 0;
    uint8_t domain_size = 0;
    uint8_t path_size = 0;
    bool used : 1 = false;
    bool host_only : 1 = true;  // No Domain attribute: only the host that set it.
    bool secure : 1 = false;
    uint32_t bytes() const { return name_size + value_size + domain_size + path_size; }
  };
  static_assert(sizeof(Cookie) == 16);
  std::string_view Name(const Cookie& c) const { return {pool_.data() + c.offset, c.name_size}; }
  std::string_view Value(const Cookie& c) const {
    return {pool_.data() + c.offset + c.name_size, c.value_size};
  }
  std::string_view Domain(const Cookie& c) const {
    return {pool_.data() + c.offset + c.name_size + c.value_size, c.domain_size};
  }
  std::string_view Path(const Cookie& c) const {
    return {pool_.data() + c.offset + c.name_size + c.value_size + c.domain_size, c.path_size};
  }
  // Whether the Cookie text `line` ("a=1; b=2") holds a cookie named `name`.
  static bool Names(std::string_view line, std::string_view name);
  // Whether `c` goes with a request to `host` and `path`.
  bool Matches(const Cookie& c, std::string_view host, std::string_view path, bool secure,
               int64_t now_ns) const;
  // Moves the live cookies' bytes to the pool's start; returns where free room begins.
  size_t Compact();

  std::vector<Cookie> cookies_ = std::vector<Cookie>(kMaxCookies);
  std::vector<char> pool_;
  size_t pool_used_ = 0;  // Bytes from the pool's start that cookies took (some freed since).
};

}  // namespace uringload::core
