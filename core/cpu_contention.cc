#include "core/cpu_contention.h"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace uringload::core {
namespace {

// A /proc or /sys file, whole; none when it is missing or unreadable.
std::optional<std::string> ReadKernelFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char chunk[4096];
  ssize_t n = 0;
  while ((n = read(fd, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<size_t>(n));
  close(fd);
  if (n < 0) return std::nullopt;
  return text;
}

// The value of `key` in a "key value" per line file.
std::optional<uint64_t> KeyedValue(absl::string_view text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(line, ' ');
    uint64_t value = 0;
    if (kv.first == key && absl::SimpleAtoi(kv.second, &value)) return value;
  }
  return std::nullopt;
}

// The folder of cgroup `path` (as /proc/self/cgroup gives it) under a hierarchy mounted at
// `mount_point` whose root within the hierarchy is `root`; none when it is not below it.
std::optional<std::string> FolderOf(absl::string_view path, absl::string_view root,
                                    absl::string_view mount_point) {
  if (root != "/") {
    if (!absl::ConsumePrefix(&path, root)) return std::nullopt;
    if (!path.empty() && path[0] != '/') return std::nullopt;
  }
  absl::ConsumeSuffix(&path, "/");
  return absl::StrCat(mount_point, path == "/" ? "" : path);
}

}  // namespace

std::optional<uint64_t> ParseRunQueueNanos(std::string_view text) {
  absl::string_view schedstat(text.data(), text.size());  // Debian's absl has its own.
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(schedstat), ' ', absl::SkipEmpty());
  uint64_t ns = 0;
  if (fields.size() < 2 || !absl::SimpleAtoi(fields[1], &ns)) return std::nullopt;
  return ns;
}

std::optional<uint64_t> ThisThreadRunQueueNanos() {
  std::optional<std::string> text = ReadKernelFile("/proc/thread-self/schedstat");
  return text.has_value() ? ParseRunQueueNanos(*text) : std::nullopt;
}

std::optional<uint64_t> RunQueueNanosOfThread(pid_t tid) {
  std::optional<std::string> text =
      ReadKernelFile(absl::StrCat("/proc/self/task/", tid, "/schedstat"));
  return text.has_value() ? ParseRunQueueNanos(*text) : std::nullopt;
}

std::optional<ThrottleCount> ParseCpuStat(std::string_view stat) {
  absl::string_view text(stat.data(), stat.size());
  ThrottleCount count;
  if (std::optional<uint64_t> us = KeyedValue(text, "throttled_usec")) {
    count.throttled_ns = *us * 1000;
  } else if (std::optional<uint64_t> ns = KeyedValue(text, "throttled_time")) {
    count.throttled_ns = *ns;
  } else {
    return std::nullopt;
  }
  count.periods = KeyedValue(text, "nr_throttled").value_or(0);
  return count;
}

// /proc/self/cgroup: "0::/path" (v2) or "ID:controller,controller:/path" (v1). mountinfo:
// "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS".
std::vector<std::string> CpuStatPaths(std::string_view cgroup_text, std::string_view mounts) {
  absl::string_view proc_cgroup(cgroup_text.data(), cgroup_text.size());
  absl::string_view mountinfo(mounts.data(), mounts.size());
  std::string v2_path;
  std::string v1_path;  // Of the hierarchy with the cpu controller.
  for (absl::string_view line : absl::StrSplit(proc_cgroup, '\n')) {
    std::vector<absl::string_view> f = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (f.size() != 3) continue;
    if (f[0] == "0" && f[1].empty()) v2_path = std::string(f[2]);
    for (absl::string_view controller : absl::StrSplit(f[1], ',')) {
      if (controller == "cpu") v1_path = std::string(f[2]);
    }
  }
  std::vector<std::string> folders;
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n')) {
    std::pair<absl::string_view, absl::string_view> halves = absl::StrSplit(line, " - ");
    std::vector<absl::string_view> before = absl::StrSplit(halves.first, ' ');
    std::vector<absl::string_view> after = absl::StrSplit(halves.second, ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    std::optional<std::string> folder;
    if (after[0] == "cgroup2" && !v2_path.empty()) {
      folder = FolderOf(v2_path, before[3], before[4]);
    } else if (after[0] == "cgroup" && !v1_path.empty()) {
      for (absl::string_view option : absl::StrSplit(after[2], ',')) {
        if (option == "cpu") folder = FolderOf(v1_path, before[3], before[4]);
      }
    }
    if (!folder.has_value()) continue;
    // The cgroup, then each ancestor up to the mount point.
    absl::string_view mount_point = before[4];
    absl::string_view at = *folder;
    while (true) {
      folders.push_back(absl::StrCat(at, "/cpu.stat"));
      if (at.size() <= mount_point.size()) break;
      at = at.substr(0, at.rfind('/'));
    }
  }
  return folders;
}

CgroupThrottleMeter::CgroupThrottleMeter()
    : CgroupThrottleMeter(CpuStatPaths(ReadKernelFile("/proc/self/cgroup").value_or(""),
                                       ReadKernelFile("/proc/self/mountinfo").value_or(""))) {}

CgroupThrottleMeter::CgroupThrottleMeter(std::vector<std::string> cpu_stat_paths) {
  for (std::string& path : cpu_stat_paths) {
    std::optional<std::string> text = ReadKernelFile(path);
    if (!text.has_value()) continue;
    std::optional<ThrottleCount> count = ParseCpuStat(*text);
    if (count.has_value()) sources_.push_back({std::move(path), *count});
  }
}

CgroupThrottleMeter::Reading CgroupThrottleMeter::Since() const {
  Reading most;
  for (const Source& source : sources_) {
    std::optional<std::string> text = ReadKernelFile(source.path);
    std::optional<ThrottleCount> now = text.has_value() ? ParseCpuStat(*text) : std::nullopt;
    if (!now.has_value() || now->throttled_ns < source.at_start.throttled_ns) continue;
    uint64_t ns = now->throttled_ns - source.at_start.throttled_ns;
    if (ns == 0 || ns <= most.count.throttled_ns) continue;
    most.count = {ns, now->periods - source.at_start.periods};
    most.cgroup = source.path.substr(0, source.path.rfind('/'));
  }
  return most;
}

}  // namespace uringload::core
