#include "net/tun_device.h"

#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace uringload::net {
namespace {

absl::Status Error(const std::string& what, int error) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", strerror(error)));
}

}  // namespace

absl::StatusOr<UniqueFd> OpenTunDevice(const std::string& netns, const std::string& device) {
  std::string name = absl::StrCat(netns, "/", device);
  if (device.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": a device name has at most ", IFNAMSIZ - 1, " characters"));
  }
  UniqueFd own(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (own.get() < 0) return Error("/proc/thread-self/ns/net", errno);
  std::string path = absl::StrCat("/var/run/netns/", netns);
  UniqueFd target(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (target.get() < 0) return Error(absl::StrCat("network namespace ", path), errno);
  if (setns(target.get(), CLONE_NEWNET) != 0) return Error(absl::StrCat("setns ", path), errno);
  absl::StatusOr<UniqueFd> result = [&]() -> absl::StatusOr<UniqueFd> {
    if (if_nametoindex(device.c_str()) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": no such device (make it with: ip -n ",
                                                     netns, " tuntap add dev ", device,
                                                     " mode tun)"));
    }
    UniqueFd tun(open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC));
    if (tun.get() < 0) return Error("/dev/net/tun", errno);
    ifreq request{};
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    std::memcpy(request.ifr_name, device.data(), device.size());
    if (ioctl(tun.get(), TUNSETIFF, &request) != 0) {
      return Error(absl::StrCat(name, " (a TUN device without packet information?)"), errno);
    }
    return tun;
  }();
  if (setns(own.get(), CLONE_NEWNET) != 0) return Error("setns back", errno);
  return result;
}

}  // namespace uringload::net
