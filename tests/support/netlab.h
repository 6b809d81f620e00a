// NetLab: scripts/netlab for a test: two fresh network namespaces joined by `uringload link`
// with the given flags, up until the object goes away (or Finish), then torn down by the
// script; every name is unique to this process, so tests never share a laboratory.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/support/flat_json.h"
#include "tests/support/process.h"

namespace uringload::testing {

class NetLab {
 public:
  static constexpr char kAddressA[] = "198.18.0.1";
  static constexpr char kAddressB[] = "198.18.0.2";
  static constexpr char kAddressA6[] = "2001:2::1";
  static constexpr char kAddressB6[] = "2001:2::2";
  // Four more addresses of side A, for --source.
  static constexpr char kSourcesA[] = "198.18.1.1-198.18.1.4";
  static constexpr char kSourcesA6[] = "2001:2:0:1::1-2001:2:0:1::4";

  // `link_flags` go to `uringload link` (--delay 25ms ...); its JSON goes to link_json().
  explicit NetLab(std::vector<std::string> link_flags);
  ~NetLab();
  NetLab(const NetLab&) = delete;
  NetLab& operator=(const NetLab&) = delete;

  bool ok() const { return ok_; }
  const std::string& a() const { return a_; }  // Side A's namespace.
  const std::string& b() const { return b_; }
  pid_t link_pid() const { return link_pid_; }
  const std::string& link_json() const { return link_json_; }
  // The link's counts at exit (its --json), flattened; read after Finish.
  absl::StatusOr<FlatJson> LinkCounts() const;
  // `argv` run inside namespace `ns` (ip netns exec).
  static std::vector<std::string> In(const std::string& ns, std::vector<std::string> argv);
  // Ends the laboratory and waits for its teardown; netlab's exit status.
  int Finish();
  // Sends `signal` to scripts/netlab itself, as Ctrl-C or a job scheduler would.
  void Signal(int signal) const;
  // Whether anything of this laboratory is left: a namespace, or the link process.
  bool LeftBehind() const;

 private:
  std::string folder_;
  std::string name_, a_, b_;
  std::string stop_file_;
  std::string link_json_;
  pid_t link_pid_ = -1;
  bool ok_ = false;
  int exit_code_ = -1;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
