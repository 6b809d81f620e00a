#include "core/flow/cookie_jar.h"

#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "net/base/absl_view.h"

namespace uringload::core {
namespace {

// Debian's Abseil has a string_view of its own.
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return absl::EqualsIgnoreCase(AbslView(a), AbslView(b));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The path a request's cookies default to (RFC 6265 5.1.4): up to its last '/', or "/".
std::string_view DefaultPath(std::string_view path) {
  if (path.empty() || path[0] != '/') return "/";
  size_t last = path.rfind('/');
  return last == 0 ? std::string_view("/") : path.substr(0, last);
}

// RFC 6265 5.1.3: the host is the domain or ends with "." and it (IP addresses only equal).
bool DomainMatches(std::string_view host, std::string_view domain) {
  if (EqualsIgnoreCase(host, domain)) return true;
  return host.size() > domain.size() && host[host.size() - domain.size() - 1] == '.' &&
         EqualsIgnoreCase(host.substr(host.size() - domain.size()), domain) &&
         !absl::ascii_isdigit(host.back());
}

// RFC 6265 5.1.4.
bool PathMatches(std::string_view request_path, std::string_view cookie_path) {
  if (!request_path.starts_with(cookie_path)) return false;
  return request_path.size() == cookie_path.size() || cookie_path.back() == '/' ||
         request_path[cookie_path.size()] == '/';
}

std::string_view WithoutQuery(std::string_view path) { return path.substr(0, path.find('?')); }

}  // namespace

CookieJar::SetResult CookieJar::Set(std::string_view set_cookie, std::string_view host,
                                    std::string_view path, bool secure, int64_t now_ns) {
  path = WithoutQuery(path);
  size_t semicolon = set_cookie.find(';');
  std::string_view pair = set_cookie.substr(0, semicolon);
  size_t equals = pair.find('=');
  if (equals == std::string_view::npos) return SetResult::kIgnored;
  std::string_view name = Trim(pair.substr(0, equals));
  std::string_view value = Trim(pair.substr(equals + 1));
  if (name.empty()) return SetResult::kIgnored;
  std::string_view domain = host;
  bool host_only = true;
  std::string_view cookie_path = DefaultPath(path);
  std::optional<int64_t> max_age;
  std::optional<absl::Time> expires;
  bool secure_only = false;
  std::string_view rest =
      semicolon == std::string_view::npos ? std::string_view() : set_cookie.substr(semicolon + 1);
  while (!rest.empty()) {
    size_t end = rest.find(';');
    std::string_view attribute = Trim(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    size_t eq = attribute.find('=');
    std::string_view key = Trim(attribute.substr(0, eq));
    std::string_view arg = eq == std::string_view::npos ? "" : Trim(attribute.substr(eq + 1));
    if (EqualsIgnoreCase(key, "domain") && !arg.empty()) {
      if (arg[0] == '.') arg.remove_prefix(1);
      if (!DomainMatches(host, arg)) return SetResult::kIgnored;  // RFC 6265 5.3 step 6.
      domain = arg;
      host_only = false;
    } else if (EqualsIgnoreCase(key, "path")) {
      cookie_path = !arg.empty() && arg[0] == '/' ? arg : DefaultPath(path);
    } else if (EqualsIgnoreCase(key, "max-age")) {
      int64_t seconds = 0;
      if (absl::SimpleAtoi(AbslView(arg), &seconds)) max_age = seconds;
    } else if (EqualsIgnoreCase(key, "expires")) {
      absl::Time t;
      std::string error;
      if (absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", AbslView(arg), &t, &error)) {
        expires = t;
      }
    } else if (EqualsIgnoreCase(key, "secure")) {
      secure_only = true;
    }
  }
  // Max-Age wins over Expires (RFC 6265 5.3 step 3); none: it lasts the run.
  int64_t expires_ns = INT64_MAX;
  if (max_age.has_value()) {
    expires_ns = *max_age <= 0            ? INT64_MIN
                 : *max_age > 100'000'000 ? INT64_MAX
                                          : now_ns + *max_age * 1'000'000'000;
  } else if (expires.has_value()) {
    absl::Duration left = *expires - absl::Now();
    expires_ns = left <= absl::ZeroDuration()   ? INT64_MIN
                 : left > absl::Hours(24 * 365) ? INT64_MAX
                                                : now_ns + absl::ToInt64Nanoseconds(left);
  }
  // The slot of the same name, domain and path, else a free or expired one.
  Cookie* same = nullptr;
  Cookie* free = nullptr;
  for (Cookie& c : cookies_) {
    if (c.used && Name(c) == name && EqualsIgnoreCase(Domain(c), domain) &&
        Path(c) == cookie_path) {
      same = &c;
    } else if (free == nullptr && (!c.used || c.expires_ns <= now_ns)) {
      free = &c;
    }
  }
  if (expires_ns <= now_ns) {
    if (same != nullptr) same->used = false;
    return SetResult::kDeleted;
  }
  Cookie* slot = same != nullptr ? same : free;
  size_t bytes = name.size() + value.size() + domain.size() + cookie_path.size();
  if (slot == nullptr || bytes > pool_.size() || name.size() > 255 || domain.size() > 255 ||
      cookie_path.size() > 255) {
    return SetResult::kRefused;
  }
  // The new bytes go after the pool's last; when they do not fit, the live cookies move
  // together first (the parts come from the header and the host, never from the pool).
  slot->used = false;  // A replaced cookie's old bytes are free now.
  if (pool_used_ + bytes > pool_.size()) {
    pool_used_ = Compact();
    if (pool_used_ + bytes > pool_.size()) return SetResult::kRefused;  // The old one is gone.
  }
  slot->used = true;
  slot->host_only = host_only;
  slot->secure = secure_only;
  slot->expires_ns = expires_ns;
  slot->offset = static_cast<uint16_t>(pool_used_);
  char* at = pool_.data() + pool_used_;
  for (std::string_view part : {name, value, domain, cookie_path}) {
    std::memcpy(at, part.data(), part.size());
    at += part.size();
  }
  pool_used_ += bytes;
  slot->name_size = static_cast<uint8_t>(name.size());
  slot->value_size = static_cast<uint16_t>(value.size());
  slot->domain_size = static_cast<uint8_t>(domain.size());
  slot->path_size = static_cast<uint8_t>(cookie_path.size());
  (void)secure;  // A Secure cookie may arrive over http:// (RFC 6265 5.3); it is sent on TLS.
  return SetResult::kStored;
}

size_t CookieJar::Compact() {
  // Live cookies in the order of their bytes, each moved down to where the last one ended.
  size_t end = 0;
  for (;;) {
    Cookie* next = nullptr;
    for (Cookie& c : cookies_) {
      if (c.used && c.offset >= end && (next == nullptr || c.offset < next->offset)) next = &c;
    }
    if (next == nullptr) return end;
    std::memmove(pool_.data() + end, pool_.data() + next->offset, next->bytes());
    next->offset = static_cast<uint16_t>(end);
    end += next->bytes();
  }
}

bool CookieJar::Names(std::string_view line, std::string_view name) {
  while (!line.empty()) {
    size_t end = line.find(';');
    std::string_view pair = line.substr(0, end);
    line = end == std::string_view::npos ? std::string_view() : line.substr(end + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    if (pair.substr(0, pair.find('=')) == name) return true;
  }
  return false;
}

bool CookieJar::Matches(const Cookie& c, std::string_view host, std::string_view path, bool secure,
                        int64_t now_ns) const {
  if (!c.used || c.expires_ns <= now_ns || (c.secure && !secure)) return false;
  bool domain = c.host_only ? EqualsIgnoreCase(host, Domain(c)) : DomainMatches(host, Domain(c));
  return domain && PathMatches(WithoutQuery(path), Path(c));
}

std::string_view CookieJar::RenderLine(std::string_view host, std::string_view path, bool secure,
                                       int64_t now_ns, std::span<char> out,
                                       std::string_view written) const {
  size_t size = 0;
  auto put = [&](std::string_view s) {
    std::memcpy(out.data() + size, s.data(), s.size());
    size += s.size();
  };
  if (!written.empty()) {
    put("Cookie: ");
    put(written);
  }
  for (const Cookie& c : cookies_) {
    // Most entries are free: skipped here, not in a call (Matches is not always inlined).
    if (!c.used || !Matches(c, host, path, secure, now_ns) || Names(written, Name(c))) continue;
    put(size == 0 ? "Cookie: " : "; ");
    put(Name(c));
    put("=");
    put(Value(c));
  }
  if (size != 0) put("\r\n");
  return {out.data(), size};
}

std::optional<std::string_view> CookieJar::Get(std::string_view name, std::string_view host,
                                               std::string_view path, bool secure,
                                               int64_t now_ns) const {
  for (const Cookie& c : cookies_) {
    if (Name(c) == name && Matches(c, host, path, secure, now_ns)) return Value(c);
  }
  return std::nullopt;
}

void CookieJar::Clear() {
  for (Cookie& c : cookies_) c.used = false;
  pool_used_ = 0;
}

size_t CookieJar::size() const {
  size_t n = 0;
  for (const Cookie& c : cookies_) n += c.used;
  return n;
}

}  // namespace uringload::core
