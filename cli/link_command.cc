#include "cli/link_command.h"

#include <signal.h>

#include <atomic>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli/cli_util.h"
#include "core/link/link_engine.h"
#include "core/worker_thread.h"
#include "exporters/link_report.h"
#include "net/tun_device.h"

namespace uringload::cli {
namespace {

// The shape flags of one direction: `prefix` "" for both, "a-to-b-" or "b-to-a-".
void AddShapeFlags(CLI::App* link, core::LinkShapeOptions& o, const std::string& prefix,
                   const std::string& which) {
  auto flag = [&](const char* name) { return absl::StrCat("--", prefix, name); };
  link->add_option(flag("delay"), o.delay, "One-way delay " + which + " (25ms)");
  link->add_option(flag("jitter"), o.jitter,
                   "Delay varies uniformly within +-this " + which + "; packet order is kept");
  link->add_option(flag("loss"), o.loss, "Share of packets lost " + which + " (1% or 0.01)");
  link->add_option(flag("duplicate"), o.duplicate, "Share of packets sent twice " + which);
  link->add_option(flag("reorder"), o.reorder,
                   "Share of packets sent at once, ahead of the delayed ones, " + which);
  link->add_option(flag("rate"), o.rate,
                   "Rate cap " + which + " (100mbit; bit, kbit, mbit, gbit per second)");
  link->add_option(flag("queue"), o.queue,
                   "With a rate: the drop-tail queue " + which +
                       ", in packets (default 1000) or bytes with a B (150000B)");
}

}  // namespace

CLI::App* AddLinkCommand(CLI::App& app, LinkCommandOptions& options) {
  CLI::App* link = app.add_subcommand(
      "link",
      "Emulate a network link between TUN devices in two network namespaces (delay, loss, "
      "rate, ...), until SIGINT/SIGTERM; SIGUSR1 turns a blackhole on, SIGUSR2 off");
  core::LinkOptions& o = options.link;
  link->add_option("a", o.a, "NETNS_A/DEV_A: side A's namespace and TUN device")->required();
  link->add_option("b", o.b, "NETNS_B/DEV_B: side B's namespace and TUN device")->required();
  AddShapeFlags(link, o.both, "", "both ways");
  AddShapeFlags(link, o.a_to_b, "a-to-b-", "from A to B");
  AddShapeFlags(link, o.b_to_a, "b-to-a-", "from B to A");
  link->add_option("--seed", o.seed, "Seed of the loss, duplicate, reorder and jitter draws")
      ->capture_default_str();
  link->add_option("--packets", o.packets,
                   "Packet buffers (2 KiB each): packets in flight on the link at most")
      ->capture_default_str();
  link->add_option("--json", options.json_path, "Write the counts as JSON at exit (- for stdout)")
      ->type_name(kFileValue);
  link->add_flag("-q,--quiet", options.quiet, "Print nothing but errors");
  RequireWholeNumbers(link, {"--seed", "--packets"});
  return link;
}

int LinkCommand(const LinkCommandOptions& options) {
  absl::StatusOr<core::LinkPlan> plan = core::MakeLinkPlan(options.link);
  if (!plan.ok()) return Fail(plan.status());
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) return Fail(json.status());
  std::array<net::UniqueFd, 2> devices;
  for (int side = 0; side < 2; ++side) {
    absl::StatusOr<net::UniqueFd> fd =
        net::OpenTunDevice(plan->ends[side].netns, plan->ends[side].device);
    if (!fd.ok()) return Fail(fd.status());
    devices[side] = *std::move(fd);
  }
  // The stop signals are blocked since main(); the blackhole's too, before the thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGINT, SIGTERM, SIGUSR1, SIGUSR2}) sigaddset(&signals, sig);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::atomic<bool> stop{false}, blackhole{false}, ended{false};
  core::LinkEngine engine(*plan, std::move(devices));
  core::WorkerThread thread;
  thread.Start(
      -1, [&] { return engine.Run(stop, blackhole); },
      [&](const absl::Status&) { ended.store(true); });
  if (!options.quiet) {
    std::cerr << "uringload link: forwarding between " << plan->ends[0].ToString() << " and "
              << plan->ends[1].ToString() << "\n";
  }
  int stopped_by = 0;
  while (stopped_by == 0 && !ended.load()) {
    timespec wait{.tv_sec = 0, .tv_nsec = 100'000'000};
    int sig = sigtimedwait(&signals, nullptr, &wait);
    if (sig == SIGUSR1 || sig == SIGUSR2) blackhole.store(sig == SIGUSR1);
    if (sig == SIGINT || sig == SIGTERM) stopped_by = sig;
  }
  stop.store(true);
  thread.Join();
  if (!thread.status().ok()) return Fail(thread.status(), kRuntimeError);
  exporters::LinkReport report{
      .plan = &*plan, .counters = engine.Counters(), .lateness = engine.Lateness()};
  if (!options.quiet && !json->is_stdout()) std::cout << exporters::FormatLinkSummary(report);
  if (!json->Write(exporters::LinkReportToJson(report))) return kRuntimeError;
  return 0;
}

}  // namespace uringload::cli
